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
import java.util.HashMap;
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
    // Written straight to text, token by token: every idle poll of a SQL store writes one state.
    StringWriter out = new StringWriter(512);
    try (JsonGenerator g = Json.MAPPER.getFactory().createGenerator(out)) {
      g.writeStartObject();
      g.writeFieldName("cursors");
      g.writeStartObject();
      for (Map.Entry<String, String> e : state.cursors().entrySet())
        g.writeStringField(e.getKey(), e.getValue());
      g.writeEndObject();
      g.writeFieldName("schedule");
      ScheduleCodec.write(g, state.schedule());
      g.writeNumberField("schemaVersion", state.schemaVersion());
      g.writeNumberField("lastSequence", state.lastSequence());
      g.writeStringField("createdAt", Json.instantText(state.createdAt()));
      g.writeStringField("updatedAt", Json.instantText(state.updatedAt()));
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
    // Read token by token (no tree, no data binding): every idle poll of a SQL store reads one
    // state. Anything the fast reader does not take is read by data binding, as before.
    try {
      return fast(json);
    } catch (ScheduleCodec.Unexpected | RuntimeException | IOException e) {
      return bound(json);
    }
  }

  /** The fast reader: the shape {@link #toJson} writes, and format 1. */
  private static PollerState fast(String json) throws IOException, ScheduleCodec.Unexpected {
    try (JsonParser p = Json.MAPPER.getFactory().createParser(json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) throw new ScheduleCodec.Unexpected("object");
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
          case "cursors" -> cursors = cursors(p);
          case "schedule" -> schedule = ScheduleCodec.read(p);
          case "schemaVersion" -> schemaVersion = p.getValueAsInt(1);
          case "lastSequence" -> lastSequence = p.getValueAsLong(0);
          case "createdAt" -> createdAt = instant(p, value);
          case "updatedAt" -> updatedAt = instant(p, value);
          default -> p.skipChildren();
        }
      }
      if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null)
        throw new ScheduleCodec.Unexpected("trailing text");
      if (schedule == null || createdAt == null || updatedAt == null)
        throw new ScheduleCodec.Unexpected("a field missing");
      return new PollerState(
          cursors == null ? Map.of() : cursors,
          schedule,
          schemaVersion,
          lastSequence,
          createdAt,
          updatedAt);
    }
  }

  /** The cursors: an object of strings; the parser is on its START_OBJECT. */
  private static Map<String, String> cursors(JsonParser p)
      throws IOException, ScheduleCodec.Unexpected {
    if (p.currentToken() != JsonToken.START_OBJECT) throw new ScheduleCodec.Unexpected("cursors");
    Map<String, String> out = new HashMap<>(4);
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String lane = p.currentName();
      String text = ScheduleCodec.string(p, p.nextToken());
      if (text == null) throw new ScheduleCodec.Unexpected("a null cursor");
      out.put(lane, text);
    }
    return out;
  }

  private static Instant instant(JsonParser p, JsonToken t)
      throws IOException, ScheduleCodec.Unexpected {
    if (t != JsonToken.VALUE_STRING) throw new ScheduleCodec.Unexpected("instant");
    Instant at = Json.isoInstant(p.getText());
    if (at == null) throw new ScheduleCodec.Unexpected("another instant form");
    return at;
  }

  /** The data-binding reader, for what the fast one leaves: it accepts and refuses as 0.1 did. */
  private static PollerState bound(String json) {
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
    StringWriter out = new StringWriter(256);
    try (JsonGenerator g = Json.MAPPER.getFactory().createGenerator(out)) {
      ScheduleCodec.write(g, s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
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
    try (JsonParser p = Json.MAPPER.getFactory().createParser(json)) {
      p.nextToken();
      ScheduleState s = ScheduleCodec.read(p);
      if (p.nextToken() == null) return s;
    } catch (ScheduleCodec.Unexpected | RuntimeException | IOException e) {
      // left to data binding below, which accepts and refuses as before
    }
    try {
      return Json.read(json, ScheduleState.class);
    } catch (Exception e) {
      throw new StoreException("stored schedule is not readable: " + e.getMessage(), e);
    }
  }
}
