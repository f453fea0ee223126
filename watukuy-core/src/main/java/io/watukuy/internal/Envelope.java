package io.watukuy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.ChangeEvent;
import io.watukuy.EventType;
import io.watukuy.Lane;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;

/**
 * The event envelope's JSON form (docs/architecture.md, "The event envelope"): every field, in
 * order.
 */
public final class Envelope {
  private static final DateTimeFormatter MILLIS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private Envelope() {}

  /** ISO-8601 UTC with exactly three fraction digits, e.g. {@code 2026-03-01T10:00:00.123Z}. */
  public static String instant(Instant at) {
    return MILLIS.format(at.truncatedTo(ChronoUnit.MILLIS));
  }

  /** The stored envelope of a new event ({@code attempt} null until delivery). */
  public static ObjectNode of(
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
      @Nullable JsonNode data,
      @Nullable JsonNode previous) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("id", id);
    n.put("type", type.wire());
    n.put("source", source);
    n.put("partition", partition);
    n.put("identity", identity);
    n.put("orderingKey", orderingKey);
    n.put("version", version);
    n.put("hash", hash);
    n.put("schemaVersion", schemaVersion);
    n.put("lane", lane.wire());
    n.put("sequence", sequence);
    n.put("observedAt", instant(observedAt));
    n.set("data", data == null ? n.nullNode() : data);
    n.set("previous", previous == null ? n.nullNode() : previous);
    n.putNull("attempt");
    return n;
  }

  /** The event of an outbox row, its data converted to {@code type}, attempt = attempts + 1. */
  public static <T> ChangeEvent<T> toEvent(OutboxRow row, Class<T> type) {
    JsonNode n = Json.tree(row.event());
    return toEvent(row, type, n, Instant.parse(n.get("observedAt").asText()));
  }

  /**
   * The event of a logged envelope, as an effect reads it (docs/effects.md): its data converted to
   * {@code type}, its sequence the log position.
   *
   * @param logged the log entry
   * @param type the poller's item type
   * @param attempt the invocation's attempt, from 1
   * @throws IllegalStateException if the data cannot be read as {@code type}
   */
  public static <T> ChangeEvent<T> fromLog(LoggedEvent logged, Class<T> type, int attempt) {
    JsonNode n = Json.tree(logged.event());
    return new ChangeEvent<>(
        n.get("id").asText(),
        EventType.fromWire(n.get("type").asText()),
        n.get("source").asText(),
        n.get("partition").asText(),
        n.get("identity").asText(),
        n.get("orderingKey").asText(),
        n.get("version").asText(),
        n.get("hash").isNull() ? null : n.get("hash").asText(),
        n.get("schemaVersion").asInt(),
        Lane.fromWire(n.get("lane").asText()),
        logged.sequence(),
        Instant.parse(n.get("observedAt").asText()),
        convert(n.get("data"), type),
        convert(n.get("previous"), type),
        attempt);
  }

  /**
   * The event of an outbox row from its envelope already as a tree (the tree its JSON was written
   * from, or that JSON parsed), with {@code observedAt} already read.
   */
  static <T> ChangeEvent<T> toEvent(OutboxRow row, Class<T> type, JsonNode n, Instant observedAt) {
    return new ChangeEvent<>(
        n.get("id").asText(),
        EventType.fromWire(n.get("type").asText()),
        n.get("source").asText(),
        n.get("partition").asText(),
        n.get("identity").asText(),
        n.get("orderingKey").asText(),
        n.get("version").asText(),
        n.get("hash").isNull() ? null : n.get("hash").asText(),
        n.get("schemaVersion").asInt(),
        Lane.fromWire(n.get("lane").asText()),
        row.sequence(),
        observedAt,
        convert(n.get("data"), type),
        convert(n.get("previous"), type),
        row.attempts() + 1);
  }

  /** The JSON form of a delivered event: the stored envelope with its attempt. */
  public static String toJson(ChangeEvent<?> e) {
    ObjectNode n =
        of(
            e.id(),
            e.type(),
            e.source(),
            e.partition(),
            e.identity(),
            e.orderingKey(),
            e.version(),
            e.hash(),
            e.schemaVersion(),
            e.lane(),
            e.sequence(),
            e.observedAt(),
            tree(e.data()),
            tree(e.previous()));
    n.put("attempt", e.attempt());
    return n.toString();
  }

  /**
   * The item as a tree for the envelope. A tree is used as it is: the envelope only reads it, and
   * {@code valueToTree} would copy it token by token, which cost sinks (each serializes every
   * event) more than writing the JSON out.
   */
  private static @Nullable JsonNode tree(@Nullable Object item) {
    if (item == null) return null;
    return item instanceof JsonNode node ? node : Json.MAPPER.valueToTree(item);
  }

  @SuppressWarnings("unchecked")
  private static <T> @Nullable T convert(@Nullable JsonNode n, Class<T> type) {
    if (n == null || n.isNull()) return null;
    if (type.isInstance(n)) return (T) n;
    try {
      return Json.MAPPER.treeToValue(n, type);
    } catch (Exception e) {
      throw new IllegalStateException(
          "event data cannot be read as " + type.getName() + ": " + e.getMessage(), e);
    }
  }
}
