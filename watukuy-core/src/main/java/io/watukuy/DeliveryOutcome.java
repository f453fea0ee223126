package io.watukuy;

import java.time.Duration;
import java.util.Objects;

/**
 * What one handler call did to its events, as {@link WatukuyListener#onDelivery} reports it after
 * the outcome is stored (docs/guarantees.md, G7). A single-event {@link Handler} call gives one
 * outcome for its event. A {@link BatchHandler} call gives up to three, one per kind that occurred,
 * each with the number of its events: the events acked, the failed events retried, the failed
 * events parked; events that come again only because an earlier event of their ordering key failed
 * are in none of them (they stay pending, with no attempt counted).
 *
 * <p>Not reported: a call whose destination was down ({@link HandlerUnavailableException}) or that
 * ended with a JVM error, which counts nothing and leaves the events pending; a call whose hand-off
 * the lease refused; an ack the store refused (the events are delivered again).
 *
 * @param result acked, retried or parked
 * @param events how many events had this result, at least 1
 * @param duration how long the handler call took, from the hand-off to its return or throw, on the
 *     engine's {@link TimeSource}; the store write of the outcome is not included
 * @param attempt the attempt this call was, from 1: for a batch, the highest among the events
 *     counted here
 * @since 0.3
 */
public record DeliveryOutcome(Result result, int events, Duration duration, int attempt) {

  /**
   * Checks the values.
   *
   * @throws NullPointerException if result or duration is null
   * @throws IllegalArgumentException if events or attempt is below 1, or the duration negative
   */
  public DeliveryOutcome {
    Objects.requireNonNull(result, "result");
    Objects.requireNonNull(duration, "duration");
    if (events < 1) throw new IllegalArgumentException("events must be >= 1, but was " + events);
    if (attempt < 1) throw new IllegalArgumentException("attempt must be >= 1, but was " + attempt);
    if (duration.isNegative())
      throw new IllegalArgumentException("duration must not be negative, but was " + duration);
  }

  /** What became of the events. */
  public enum Result {
    /** Handled, and the ack is stored: the events are delivered. */
    ACKED,
    /** Failed, the attempt is counted, and the events are retried later ({@link RetryPolicy}). */
    RETRIED,
    /** Failed their last attempt and are parked ({@link PoisonPolicy}). */
    PARKED
  }
}
