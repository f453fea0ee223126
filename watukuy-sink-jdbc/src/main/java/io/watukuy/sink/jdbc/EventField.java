package io.watukuy.sink.jdbc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.ChangeEvent;
import io.watukuy.sink.CloudEvents;
import io.watukuy.sink.EventFormat;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * What a column of a table sink holds: the right-hand side of {@code columns: {COLUMN: FIELD}}
 * (docs/sinks.md, "Database tables"). {@link #DATA}, {@link #PREVIOUS} and {@link #EVENT} are JSON
 * (json/jsonb on PostgreSQL, JSON on MariaDB, text on SQLite); {@link #SEQUENCE} a whole number;
 * {@link #OBSERVED_AT} a timestamp (text in ISO-8601 UTC on SQLite); the others text.
 *
 * @since 0.2
 */
public enum EventField {
  /** The event id (G2): repeats on purpose (A → B → A, a replay), so never a unique key. */
  ID("id"),
  /** The delivery key {@code <event id>-<sequence>}: unique per outbox row, the conflict key. */
  DELIVERY_KEY("deliveryKey"),
  /** {@code created}, {@code updated} or {@code deleted}. */
  TYPE("type"),
  /** The poller's name. */
  SOURCE("source"),
  /** The partition, empty without partitions. */
  PARTITION("partition"),
  /** The item's identity: the key of a mirror table. */
  IDENTITY("identity"),
  /** The ordering key. */
  ORDERING_KEY("orderingKey"),
  /** The item's version. */
  VERSION("version"),
  /** The outbox sequence: what a mirror table compares so an older event never wins. */
  SEQUENCE("sequence"),
  /** When the change was observed. */
  OBSERVED_AT("observedAt"),
  /** {@code live}, {@code replay}, {@code backfill} or {@code reconcile}. */
  LANE("lane"),
  /**
   * The item as JSON (null for a deleted one); with {@code format: cloudevents} the CloudEvents
   * {@code data}, {@code {"item": ..., "previous": ...}}.
   */
  DATA("data"),
  /** The item before the change as JSON; null unless the poller has {@code retain: payload}. */
  PREVIOUS("previous"),
  /** The whole event: the envelope, or the CloudEvents structured JSON. */
  EVENT("event");

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final String wire;

  EventField(String wire) {
    this.wire = wire;
  }

  /**
   * The name in a config.
   *
   * @return e.g. {@code deliveryKey}
   */
  public String wire() {
    return wire;
  }

  /**
   * The field named {@code name}.
   *
   * @param name e.g. {@code deliveryKey}; case-insensitive
   * @return the field
   * @throws IllegalArgumentException for another name, listing the known ones
   */
  public static EventField fromWire(String name) {
    for (EventField f : values()) if (f.wire.equalsIgnoreCase(name)) return f;
    throw new IllegalArgumentException(
        "'"
            + name
            + "' is not an event field (one of "
            + Arrays.stream(values()).map(EventField::wire).collect(Collectors.joining(", "))
            + ")");
  }

  /**
   * Whether the column holds JSON.
   *
   * @return true for data, previous and event
   */
  boolean json() {
    return this == DATA || this == PREVIOUS || this == EVENT;
  }

  /**
   * The value of this field for an event.
   *
   * @param event the event
   * @param format how {@link #DATA} and {@link #EVENT} are written
   * @return a String, a Long, an Instant (for {@link #OBSERVED_AT}) or null
   */
  @Nullable Object value(ChangeEvent<?> event, EventFormat format) {
    return switch (this) {
      case ID -> event.id();
      case DELIVERY_KEY -> event.deliveryKey();
      case TYPE -> event.type().wire();
      case SOURCE -> event.source();
      case PARTITION -> event.partition();
      case IDENTITY -> event.identity();
      case ORDERING_KEY -> event.orderingKey();
      case VERSION -> event.version();
      case SEQUENCE -> event.sequence();
      case OBSERVED_AT -> event.observedAt();
      case LANE -> event.lane().wire();
      case DATA ->
          format == EventFormat.CLOUDEVENTS
              ? new String(CloudEvents.data(event), StandardCharsets.UTF_8)
              : envelopeField(event, "data");
      case PREVIOUS -> envelopeField(event, "previous");
      case EVENT -> format.json(event);
    };
  }

  /** A JSON field of the envelope: the item as the engine writes it everywhere else. */
  private static @Nullable String envelopeField(ChangeEvent<?> event, String name) {
    Object raw = name.equals("data") ? event.data() : event.previous();
    if (raw == null) return null;
    if (raw instanceof JsonNode node) return node.toString();
    try {
      JsonNode node = MAPPER.readTree(event.toJson()).get(name);
      return node == null || node.isNull() ? null : node.toString();
    } catch (java.io.IOException e) {
      throw new IllegalStateException("the envelope of " + event.deliveryKey() + " is not JSON", e);
    }
  }
}
