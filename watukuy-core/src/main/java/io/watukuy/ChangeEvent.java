package io.watukuy;

import io.watukuy.internal.Envelope;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One observed change, as handed to a {@link Handler} (docs/architecture.md, "The event envelope").
 * Its JSON form has every field, in this order, {@code null} when empty.
 *
 * @param id lowercase hex SHA-256 of the event-id material (guarantee G2): the same observation has
 *     the same id across restarts, instances and replays. A state that recurs is the same
 *     observation again, with a higher sequence; see {@link Handler} on deduplicating
 * @param type created, updated or deleted
 * @param source the poller name
 * @param partition the partition, {@code ""} when unpartitioned
 * @param identity the item's identity
 * @param orderingKey events with one ordering key are delivered in order (G3)
 * @param version the item's version, or its hash when the poller has no version function; for a
 *     deleted event the last stored one
 * @param hash SHA-256 of the RFC 8785 form of the item (or fingerprint)
 * @param schemaVersion the poller's schema version
 * @param lane the lane that observed the change
 * @param sequence the event's position in its key's outbox
 * @param observedAt when the change was committed, millisecond precision, UTC
 * @param data the item; for deleted, the last payload with {@code retain(PAYLOAD)}, else null
 * @param previous the prior payload on updated and deleted with {@code retain(PAYLOAD)}, else null
 * @param attempt the delivery attempt, from 1
 * @param <T> the item type
 * @since 0.1
 */
public record ChangeEvent<T>(
    String id,
    EventType type,
    String source,
    String partition,
    String identity,
    String orderingKey,
    String version,
    @Nullable String hash,
    int schemaVersion,
    Lane lane,
    long sequence,
    Instant observedAt,
    @Nullable T data,
    @Nullable T previous,
    int attempt) {
  /**
   * Creates an event. The engine creates events; handlers and tests read them.
   *
   * @param id the event id (G2)
   * @param type created, updated or deleted
   * @param source the poller name
   * @param partition the partition, {@code ""} when unpartitioned
   * @param identity the item's identity
   * @param orderingKey the ordering key
   * @param version the version, or the hash when the poller has no version function
   * @param hash the item's hash, or {@code null}
   * @param schemaVersion the poller's schema version
   * @param lane the lane that observed the change
   * @param sequence the position in the key's outbox
   * @param observedAt when the change was committed
   * @param data the item, or {@code null}
   * @param previous the prior payload, or {@code null}
   * @param attempt the delivery attempt, from 1
   * @throws NullPointerException if a reference other than {@code hash}, {@code data} or {@code
   *     previous} is null
   */
  public ChangeEvent {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(partition, "partition");
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(orderingKey, "orderingKey");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(lane, "lane");
    Objects.requireNonNull(observedAt, "observedAt");
  }

  /**
   * The event's JSON form (docs/architecture.md, "The event envelope"): every field, in declaration
   * order, {@code null} when empty, {@code observedAt} with milliseconds. One line, no trailing
   * newline.
   *
   * @return the JSON text; {@code data} and {@code previous} are serialized with the engine's
   *     Jackson mapper
   */
  public String toJson() {
    return Envelope.toJson(this);
  }

  /**
   * The delivery key, {@code <id>-<sequence>}: unique per outbox row, and the same when that row is
   * delivered again (a crash between the handler and the ack, G9). What a destination deduplicates
   * by (docs/sinks.md): the id alone repeats on purpose, for a state that recurs (A → B → A) or a
   * replay (G2).
   *
   * @return e.g. {@code 3f2a...9c-42}
   * @since 0.2
   */
  public String deliveryKey() {
    return id + "-" + sequence;
  }

  /**
   * The key this event belongs to.
   *
   * @return {@code (source, partition)}
   */
  public PollerKey key() {
    return new PollerKey(source, partition);
  }
}
