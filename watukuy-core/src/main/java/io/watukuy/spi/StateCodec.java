package io.watukuy.spi;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.ScheduleState;
import io.watukuy.StoreException;
import io.watukuy.internal.Json;
import java.time.Instant;
import java.util.Map;

/**
 * JSON form of {@link PollerState} for stores that keep it as text (the {@code state} column of the
 * pollers table). Shape: {@code {"cursors":{lane: cursorJsonText}, "schedule":{...},
 * "schemaVersion":n, "lastSequence":n, "createdAt":iso, "updatedAt":iso}}. Thread-safe.
 *
 * @since 0.1
 */
public final class StateCodec {
  private StateCodec() {}

  /**
   * The JSON text of {@code state}: cursors as a map of JSON texts, the schedule as {@link
   * #scheduleToJson} writes it, instants as ISO-8601 UTC with full precision.
   *
   * @param state the state to write
   * @return one line of JSON
   */
  public static String toJson(PollerState state) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.set("cursors", Json.MAPPER.valueToTree(state.cursors()));
    n.set("schedule", Json.MAPPER.valueToTree(state.schedule()));
    n.put("schemaVersion", state.schemaVersion());
    n.put("lastSequence", state.lastSequence());
    n.put("createdAt", state.createdAt().toString());
    n.put("updatedAt", state.updatedAt().toString());
    return n.toString();
  }

  /**
   * Parses what {@link #toJson} wrote. A missing {@code schemaVersion} reads as 1 and a missing
   * {@code lastSequence} as 0.
   *
   * @param json the stored text
   * @return the state
   * @throws StoreException when the text is not a stored state; the parser's exception is the cause
   */
  public static PollerState fromJson(String json) {
    try {
      JsonNode n = Json.MAPPER.readTree(json);
      Map<String, String> cursors =
          Json.MAPPER.convertValue(n.get("cursors"), new TypeReference<Map<String, String>>() {});
      ScheduleState schedule = Json.MAPPER.treeToValue(n.get("schedule"), ScheduleState.class);
      return new PollerState(
          cursors == null ? Map.of() : cursors,
          schedule,
          n.path("schemaVersion").asInt(1),
          n.path("lastSequence").asLong(0),
          Instant.parse(n.get("createdAt").asText()),
          Instant.parse(n.get("updatedAt").asText()));
    } catch (Exception e) {
      throw new StoreException("stored poller state is not readable: " + e.getMessage(), e);
    }
  }

  /**
   * The JSON text of a schedule, for stores that keep it in a field of its own: every field of
   * {@link ScheduleState}, in declaration order, {@code null} when empty.
   *
   * @param s the schedule to write
   * @return one line of JSON
   */
  public static String scheduleToJson(ScheduleState s) {
    return Json.write(s);
  }

  /**
   * Parses what {@link #scheduleToJson} wrote.
   *
   * @param json the stored text
   * @return the schedule
   * @throws StoreException when the text is not a stored schedule; the parser's exception is the
   *     cause
   */
  public static ScheduleState scheduleFromJson(String json) {
    try {
      return Json.read(json, ScheduleState.class);
    } catch (Exception e) {
      throw new StoreException("stored schedule is not readable: " + e.getMessage(), e);
    }
  }
}
