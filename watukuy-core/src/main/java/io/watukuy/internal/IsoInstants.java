package io.watukuy.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import org.jspecify.annotations.Nullable;

/**
 * Reads the instants the engine writes ({@link Instant#toString()}: {@code
 * 2026-03-01T10:00:00.123Z}, 0 to 9 fraction digits) without {@code DateTimeFormatter}, which was
 * most of the time it took a SQL store to read a key's state on every idle poll
 * (docs/architecture.md, "What an idle poll costs"). Anything else (an offset, a year past 9999, a
 * number) goes to Jackson's own {@link InstantDeserializer}, so what it accepts is unchanged.
 */
final class IsoInstants extends JsonDeserializer<Instant> {
  private IsoInstants() {}

  /**
   * The module that installs it; registered after {@code JavaTimeModule}, it replaces its reader.
   */
  static SimpleModule module() {
    return new SimpleModule("watukuy-instants").addDeserializer(Instant.class, new IsoInstants());
  }

  @Override
  public Instant deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
    if (p.currentToken() == JsonToken.VALUE_STRING) {
      Instant fast = parse(p.getText());
      if (fast != null) return fast;
    }
    return InstantDeserializer.INSTANT.deserialize(p, ctx);
  }

  /**
   * {@code text} as an instant when it has the exact form {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z};
   * null for any other form, which the caller hands to the general parser.
   */
  static @Nullable Instant parse(String text) {
    int n = text.length();
    if (n < 20 || n > 30 || text.charAt(n - 1) != 'Z') return null;
    if (text.charAt(4) != '-' || text.charAt(7) != '-' || text.charAt(10) != 'T') return null;
    if (text.charAt(13) != ':' || text.charAt(16) != ':') return null;
    int year = digits(text, 0, 4);
    int month = digits(text, 5, 7);
    int day = digits(text, 8, 10);
    int hour = digits(text, 11, 13);
    int minute = digits(text, 14, 16);
    int second = digits(text, 17, 19);
    if ((year | month | day | hour | minute | second) < 0) return null;
    if (hour > 23 || minute > 59 || second > 59) return null;
    int nanos = 0;
    if (n > 20) {
      if (text.charAt(19) != '.' || n == 21) return null;
      int fraction = digits(text, 20, n - 1);
      if (fraction < 0) return null;
      nanos = fraction;
      for (int i = n - 1 - 20; i < 9; i++) nanos *= 10;
    }
    try {
      long days = LocalDate.of(year, month, day).toEpochDay();
      return Instant.ofEpochSecond(days * 86_400 + hour * 3600L + minute * 60L + second, nanos);
    } catch (DateTimeException e) {
      return null; // February 30th and the like: the general parser says why
    }
  }

  /** The decimal value of {@code text[from, to)}, or -1 if a character is not a digit. */
  private static int digits(String text, int from, int to) {
    int v = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') return -1;
      v = v * 10 + (c - '0');
    }
    return v;
  }
}
