package io.watukuy;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One handler call as {@link WatukuyListener#onDeliveryStart} and {@link
 * WatukuyListener#onDeliveryEnd} see it: the same instance goes to both, so that a span or a timer
 * can pair the two by identity. A single-event {@link Handler} call has one sequence; a {@link
 * BatchHandler} or {@link io.watukuy.sink.Sink} call has those of its batch, in order.
 *
 * @param key the key whose events these are
 * @param startedAt when the events were handed over, on the engine's {@link TimeSource}
 * @param sequences the events' sequences in the key's outbox, in the order handed over; at least
 *     one. With the key they name the events, and the cycle that committed each (told by {@link
 *     WatukuyListener#onCommit})
 * @param attempt the attempt this call is, from 1: for a batch, the highest among its events
 * @since 0.3
 */
public record DeliveryCall(PollerKey key, Instant startedAt, List<Long> sequences, int attempt) {
  /**
   * Copies the sequences and checks the values.
   *
   * @throws NullPointerException if key, startedAt or sequences is null
   * @throws IllegalArgumentException if there is no sequence or the attempt is below 1
   */
  public DeliveryCall {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(startedAt, "startedAt");
    sequences = List.copyOf(sequences);
    if (sequences.isEmpty()) throw new IllegalArgumentException("a call hands over an event");
    if (attempt < 1) throw new IllegalArgumentException("attempt must be >= 1, but was " + attempt);
  }

  /**
   * How many events the call hands over.
   *
   * @return the number of sequences, at least 1
   */
  public int events() {
    return sequences.size();
  }
}
