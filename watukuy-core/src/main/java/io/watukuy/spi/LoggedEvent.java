package io.watukuy.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * One event in the replay log of a key.
 *
 * @param sequence the outbox sequence the event was committed with
 * @param event the envelope JSON text
 * @param createdAt when it was committed
 * @since 0.1
 */
public record LoggedEvent(long sequence, String event, Instant createdAt) {
  /**
   * Creates a logged event.
   *
   * @param sequence the outbox sequence
   * @param event the envelope JSON text
   * @param createdAt when it was committed
   * @throws NullPointerException if {@code event} or {@code createdAt} is null
   */
  public LoggedEvent {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(createdAt, "createdAt");
  }
}
