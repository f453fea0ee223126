package io.watukuy.spi;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.type.TypeReference;
import io.watukuy.ScheduleState;
import io.watukuy.StoreException;
import io.watukuy.internal.Json;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

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
    // Written straight to text (no tree): every idle poll of a SQL store writes one state.
    StringWriter out = new StringWriter(512);
    try (JsonGenerator g = Json.MAPPER.getFactory().createGenerator(out)) {
      g.setCodec(Json.MAPPER);
      g.writeStartObject();
      g.writeFieldName("cursors");
      g.writeStartObject();
      for (Map.Entry<String, String> e : state.cursors().entrySet())
        g.writeStringField(e.getKey(), e.getValue());
      g.writeEndObject();
      g.writeFieldName("schedule");
      Json.MAPPER.writeValue(g, state.schedule());
      g.writeNumberField("schemaVersion", state.schemaVersion());
      g.writeNumberField("lastSequence", state.lastSequence());
      g.writeStringField("createdAt", state.createdAt().toString());
      g.writeStringField("updatedAt", state.updatedAt().toString());
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
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
    // Read as a stream (no tree): every idle poll of a SQL store reads one state.
    try (JsonParser p = Json.MAPPER.getFactory().createParser(json)) {
      p.setCodec(Json.MAPPER);
      if (p.nextToken() != JsonToken.START_OBJECT) throw new IOException("not a JSON object");
      Map<String, String> cursors = null;
      ScheduleState schedule = null;
      int schemaVersion = 1;
      long lastSequence = 0;
      Instant createdAt = null;
      Instant updatedAt = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (value == JsonToken.VALUE_NULL) continue;
        switch (field) {
          case "cursors" -> cursors = p.readValueAs(CURSORS);
          case "schedule" -> schedule = p.readValueAs(ScheduleState.class);
          case "schemaVersion" -> schemaVersion = p.getValueAsInt(1);
          case "lastSequence" -> lastSequence = p.getValueAsLong(0);
          case "createdAt" -> createdAt = Instant.parse(p.getText());
          case "updatedAt" -> updatedAt = Instant.parse(p.getText());
          default -> p.skipChildren();
        }
      }
      return new PollerState(
          cursors == null ? Map.of() : cursors,
          Objects.requireNonNull(schedule, "schedule"),
          schemaVersion,
          lastSequence,
          Objects.requireNonNull(createdAt, "createdAt"),
          Objects.requireNonNull(updatedAt, "updatedAt"));
    } catch (Exception e) {
      throw new StoreException("stored poller state is not readable: " + e.getMessage(), e);
    }
  }

  private static final TypeReference<Map<String, String>> CURSORS = new TypeReference<>() {};

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
