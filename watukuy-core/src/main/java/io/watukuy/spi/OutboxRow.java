package io.watukuy.spi;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One pending event in the outbox of a key. Rows are keyed by {@code sequence}; {@code eventId} is
 * indexed but not unique (an item returning to an earlier state, or a replay, repeats an id).
 *
 * @param sequence position in the key's outbox, strictly increasing per key, from 1
 * @param eventId the event's deterministic id (docs/architecture.md, "Ids, the outbox key")
 * @param orderingKey events with one ordering key are delivered in sequence order (G3)
 * @param event the event envelope as JSON text (every field but {@code attempt})
 * @param attempts failed delivery attempts so far
 * @param nextAttemptAt earliest time of the next attempt, or {@code null} for now
 * @param lastError JSON array of the failed attempts ({@code [{attempt, at, name, message,
 *     stack}]}), or {@code null}
 * @param createdAt when the row was committed
 * @since 0.1
 */
public record OutboxRow(
    long sequence,
    String eventId,
    String orderingKey,
    String event,
    int attempts,
    @Nullable Instant nextAttemptAt,
    @Nullable String lastError,
    Instant createdAt) {
  /**
   * Creates a row.
   *
   * @param sequence the position in the key's outbox
   * @param eventId the event's id
   * @param orderingKey the event's ordering key
   * @param event the envelope JSON text
   * @param attempts failed delivery attempts so far
   * @param nextAttemptAt earliest time of the next attempt, or {@code null} for now
   * @param lastError JSON array of the failed attempts, or {@code null}
   * @param createdAt when the row was committed
   * @throws NullPointerException if {@code eventId}, {@code orderingKey}, {@code event} or {@code
   *     createdAt} is null
   */
  public OutboxRow {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(orderingKey, "orderingKey");
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /**
   * A fresh pending row: no attempts, no error, due at once.
   *
   * @param sequence the position in the key's outbox
   * @param eventId the event's id
   * @param orderingKey the event's ordering key
   * @param event the envelope JSON text
   * @param createdAt when the row is committed
   * @return the row
   */
  public static OutboxRow pending(
      long sequence, String eventId, String orderingKey, String event, Instant createdAt) {
    return new OutboxRow(sequence, eventId, orderingKey, event, 0, null, null, createdAt);
  }
}
