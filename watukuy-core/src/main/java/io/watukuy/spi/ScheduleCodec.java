package io.watukuy.spi;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.watukuy.ScheduleState;
import io.watukuy.ScheduleState.Backfill;
import io.watukuy.ScheduleState.Circuit;
import io.watukuy.ScheduleState.LastError;
import io.watukuy.ScheduleState.LastPoll;
import io.watukuy.ScheduleState.Listing;
import io.watukuy.internal.Json;
import java.io.IOException;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * {@link ScheduleState} written and read token by token, without data binding: a SQL store reads
 * and writes one schedule on every idle poll, and binding a record reflectively was most of that
 * poll's CPU (docs/architecture.md, "What an idle poll costs").
 *
 * <p>The writer gives exactly the text that {@code Json.MAPPER} gives for a schedule (the field
 * order of {@link ScheduleState}'s {@code @JsonPropertyOrder}, nested records in declaration order,
 * {@code null} written, instants as {@link Instant#toString()}), so stored text does not depend on
 * which one wrote it. The reader takes the shape the writer gives, and format 1 (fields missing);
 * on anything else (a number as a string, an instant with an offset, a field of the wrong type) it
 * throws {@link Unexpected}, and the caller reads the whole text with {@code Json.MAPPER} instead,
 * so what is accepted, and the message of what is refused, stay those of data binding.
 */
final class ScheduleCodec {
  private ScheduleCodec() {}

  /** The fast reader met something it leaves to data binding. */
  static final class Unexpected extends Exception {
    private static final long serialVersionUID = 1L;

    Unexpected(String what) {
      super(what, null, false, false);
    }
  }

  /** Writes {@code s} as one JSON object at the generator's position. */
  static void write(JsonGenerator g, ScheduleState s) throws IOException {
    g.writeStartObject();
    g.writeNumberField("v", s.v());
    g.writeStringField("state", s.state().wire());
    string(g, "paused", s.paused() == null ? null : s.paused().wire());
    instant(g, "nextDueAt", s.nextDueAt());
    string(g, "dueReason", s.dueReason() == null ? null : s.dueReason().wire());
    g.writeNumberField("intervalMs", s.intervalMs());
    g.writeNumberField("consecutiveFailures", s.consecutiveFailures());
    instant(g, "throttledUntil", s.throttledUntil());
    Circuit c = s.circuit();
    if (c == null) g.writeNullField("circuit");
    else {
      g.writeObjectFieldStart("circuit");
      instant(g, "openedAt", c.openedAt());
      instant(g, "probeAt", c.probeAt());
      g.writeEndObject();
    }
    LastPoll p = s.lastPoll();
    if (p == null) g.writeNullField("lastPoll");
    else {
      g.writeObjectFieldStart("lastPoll");
      instant(g, "at", p.at());
      g.writeNumberField("pages", p.pages());
      g.writeNumberField("items", p.items());
      g.writeNumberField("events", p.events());
      g.writeBooleanField("truncated", p.truncated());
      g.writeBooleanField("notModified", p.notModified());
      g.writeNumberField("durationMs", p.durationMs());
      g.writeBooleanField("inconsistent", p.inconsistent());
      g.writeEndObject();
    }
    LastError e = s.lastError();
    if (e == null) g.writeNullField("lastError");
    else {
      g.writeObjectFieldStart("lastError");
      string(g, "name", e.name());
      string(g, "message", e.message());
      instant(g, "at", e.at());
      g.writeEndObject();
    }
    instant(g, "lastReconcileAt", s.lastReconcileAt());
    Backfill b = s.backfill();
    if (b == null) g.writeNullField("backfill");
    else {
      g.writeObjectFieldStart("backfill");
      string(g, "from", b.from());
      string(g, "to", b.to());
      g.writeBooleanField("force", b.force());
      string(g, "cursor", b.cursor());
      instant(g, "startedAt", b.startedAt());
      g.writeEndObject();
    }
    Listing l = s.listing();
    if (l == null) g.writeNullField("listing");
    else {
      g.writeObjectFieldStart("listing");
      g.writeNumberField("heldDeletes", l.heldDeletes());
      g.writeBooleanField("deletesConfirmed", l.deletesConfirmed());
      g.writeNumberField("inconsistentInARow", l.inconsistentInARow());
      // Data binding writes Listing.isEmpty() as a property too; kept, so the text is the same.
      g.writeBooleanField("empty", l.isEmpty());
      g.writeEndObject();
    }
    instant(g, "lastSuccessAt", s.lastSuccessAt());
    g.writeEndObject();
  }

  private static void string(JsonGenerator g, String name, @Nullable String value)
      throws IOException {
    if (value == null) g.writeNullField(name);
    else g.writeStringField(name, value);
  }

  private static void instant(JsonGenerator g, String name, @Nullable Instant value)
      throws IOException {
    if (value == null) g.writeNullField(name);
    else g.writeStringField(name, Json.instantText(value));
  }

  /**
   * Reads a schedule; the parser is on its {@code START_OBJECT} and is left on the matching {@code
   * END_OBJECT}. Unknown fields are skipped, as data binding skips them.
   *
   * @throws Unexpected for anything it leaves to data binding
   */
  static ScheduleState read(JsonParser p) throws IOException, Unexpected {
    start(p);
    int v = 0;
    ScheduleState.Status state = null;
    ScheduleState.PauseReason paused = null;
    Instant nextDueAt = null;
    ScheduleState.DueReason dueReason = null;
    long intervalMs = 0;
    int consecutiveFailures = 0;
    Instant throttledUntil = null;
    Circuit circuit = null;
    LastPoll lastPoll = null;
    LastError lastError = null;
    Instant lastReconcileAt = null;
    Backfill backfill = null;
    Listing listing = null;
    Instant lastSuccessAt = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      switch (field) {
        case "v" -> v = integer(p, t);
        case "state" -> {
          String w = string(p, t);
          state = w == null ? null : ScheduleState.Status.fromWire(w);
        }
        case "paused" -> {
          String w = string(p, t);
          paused = w == null ? null : ScheduleState.PauseReason.fromWire(w);
        }
        case "nextDueAt" -> nextDueAt = instant(p, t);
        case "dueReason" -> {
          String w = string(p, t);
          dueReason = w == null ? null : ScheduleState.DueReason.fromWire(w);
        }
        case "intervalMs" -> intervalMs = longValue(p, t);
        case "consecutiveFailures" -> consecutiveFailures = integer(p, t);
        case "throttledUntil" -> throttledUntil = instant(p, t);
        case "circuit" -> circuit = t == JsonToken.VALUE_NULL ? null : circuit(p);
        case "lastPoll" -> lastPoll = t == JsonToken.VALUE_NULL ? null : lastPoll(p);
        case "lastError" -> lastError = t == JsonToken.VALUE_NULL ? null : lastError(p);
        case "lastReconcileAt" -> lastReconcileAt = instant(p, t);
        case "backfill" -> backfill = t == JsonToken.VALUE_NULL ? null : backfill(p);
        case "listing" -> listing = t == JsonToken.VALUE_NULL ? null : listing(p);
        case "lastSuccessAt" -> lastSuccessAt = instant(p, t);
        default -> p.skipChildren();
      }
    }
    end(p);
    if (state == null) throw new Unexpected("no state");
    return new ScheduleState(
        v,
        state,
        paused,
        nextDueAt,
        dueReason,
        intervalMs,
        consecutiveFailures,
        throttledUntil,
        circuit,
        lastPoll,
        lastError,
        lastReconcileAt,
        backfill,
        listing,
        lastSuccessAt);
  }

  private static Circuit circuit(JsonParser p) throws IOException, Unexpected {
    start(p);
    Instant openedAt = null;
    Instant probeAt = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      switch (field) {
        case "openedAt" -> openedAt = instant(p, t);
        case "probeAt" -> probeAt = instant(p, t);
        default -> p.skipChildren();
      }
    }
    end(p);
    return new Circuit(openedAt, probeAt);
  }

  private static LastPoll lastPoll(JsonParser p) throws IOException, Unexpected {
    start(p);
    Instant at = null;
    int pages = 0;
    int items = 0;
    int events = 0;
    boolean truncated = false;
    boolean notModified = false;
    long durationMs = 0;
    boolean inconsistent = false;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      switch (field) {
        case "at" -> at = instant(p, t);
        case "pages" -> pages = integer(p, t);
        case "items" -> items = integer(p, t);
        case "events" -> events = integer(p, t);
        case "truncated" -> truncated = bool(t);
        case "notModified" -> notModified = bool(t);
        case "durationMs" -> durationMs = longValue(p, t);
        case "inconsistent" -> inconsistent = bool(t);
        default -> p.skipChildren();
      }
    }
    end(p);
    return new LastPoll(at, pages, items, events, truncated, notModified, durationMs, inconsistent);
  }

  private static LastError lastError(JsonParser p) throws IOException, Unexpected {
    start(p);
    String name = null;
    String message = null;
    Instant at = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      switch (field) {
        case "name" -> name = string(p, t);
        case "message" -> message = string(p, t);
        case "at" -> at = instant(p, t);
        default -> p.skipChildren();
      }
    }
    end(p);
    return new LastError(name, message, at);
  }

  private static Backfill backfill(JsonParser p) throws IOException, Unexpected {
    start(p);
    String from = null;
    String to = null;
    boolean force = false;
    String cursor = null;
    Instant startedAt = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      switch (field) {
        case "from" -> from = string(p, t);
        case "to" -> to = string(p, t);
        case "force" -> force = bool(t);
        case "cursor" -> cursor = string(p, t);
        case "startedAt" -> startedAt = instant(p, t);
        default -> p.skipChildren();
      }
    }
    end(p);
    return new Backfill(from, to, force, cursor, startedAt);
  }

  private static Listing listing(JsonParser p) throws IOException, Unexpected {
    start(p);
    int heldDeletes = 0;
    boolean deletesConfirmed = false;
    int inconsistentInARow = 0;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      JsonToken t = p.nextToken();
      switch (field) {
        case "heldDeletes" -> heldDeletes = integer(p, t);
        case "deletesConfirmed" -> deletesConfirmed = bool(t);
        case "inconsistentInARow" -> inconsistentInARow = integer(p, t);
        default -> p.skipChildren();
      }
    }
    end(p);
    return new Listing(heldDeletes, deletesConfirmed, inconsistentInARow);
  }

  private static void start(JsonParser p) throws Unexpected {
    if (p.currentToken() != JsonToken.START_OBJECT) throw new Unexpected("not an object");
  }

  private static void end(JsonParser p) throws Unexpected {
    if (p.currentToken() != JsonToken.END_OBJECT) throw new Unexpected("not a field name");
  }

  /** A string or null; anything else is left to data binding. */
  static @Nullable String string(JsonParser p, JsonToken t) throws IOException, Unexpected {
    if (t == JsonToken.VALUE_NULL) return null;
    if (t != JsonToken.VALUE_STRING) throw new Unexpected("not a string");
    return p.getText();
  }

  /** The engine's own instant form ({@link Instant#toString()}), or null. */
  private static @Nullable Instant instant(JsonParser p, JsonToken t)
      throws IOException, Unexpected {
    String text = string(p, t);
    if (text == null) return null;
    Instant at = Json.isoInstant(text);
    if (at == null) throw new Unexpected("another instant form");
    return at;
  }

  private static int integer(JsonParser p, JsonToken t) throws IOException, Unexpected {
    if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() != JsonParser.NumberType.INT)
      throw new Unexpected("not an int");
    return p.getIntValue();
  }

  private static long longValue(JsonParser p, JsonToken t) throws IOException, Unexpected {
    if (t != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
      throw new Unexpected("not a long");
    }
    return p.getLongValue();
  }

  private static boolean bool(JsonToken t) throws Unexpected {
    if (t == JsonToken.VALUE_TRUE) return true;
    if (t == JsonToken.VALUE_FALSE) return false;
    throw new Unexpected("not a boolean");
  }
}
