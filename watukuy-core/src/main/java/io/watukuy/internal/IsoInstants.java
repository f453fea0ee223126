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

  /**
   * {@link Instant#toString()}, without {@code DateTimeFormatter} for the years 0 to 9999: the
   * stored state writes several instants on every idle poll. The fraction has 3, 6 or 9 digits, the
   * fewest that hold it, as {@code toString} gives; other years go to {@code toString}.
   */
  static String format(Instant at) {
    long seconds = at.getEpochSecond();
    long days = Math.floorDiv(seconds, 86_400);
    int secondOfDay = (int) Math.floorMod(seconds, 86_400);
    if (days < MIN_DAY || days > MAX_DAY) return at.toString();
    LocalDate date = LocalDate.ofEpochDay(days);
    int nanos = at.getNano();
    char[] out = new char[30];
    int n = 0;
    n = pad(out, n, date.getYear(), 4);
    out[n++] = '-';
    n = pad(out, n, date.getMonthValue(), 2);
    out[n++] = '-';
    n = pad(out, n, date.getDayOfMonth(), 2);
    out[n++] = 'T';
    n = pad(out, n, secondOfDay / 3600, 2);
    out[n++] = ':';
    n = pad(out, n, secondOfDay / 60 % 60, 2);
    out[n++] = ':';
    n = pad(out, n, secondOfDay % 60, 2);
    if (nanos != 0) {
      out[n++] = '.';
      if (nanos % 1_000_000 == 0) n = pad(out, n, nanos / 1_000_000, 3);
      else if (nanos % 1000 == 0) n = pad(out, n, nanos / 1000, 6);
      else n = pad(out, n, nanos, 9);
    }
    out[n++] = 'Z';
    return new String(out, 0, n);
  }

  private static final long MIN_DAY = LocalDate.of(0, 1, 1).toEpochDay();
  private static final long MAX_DAY = LocalDate.of(9999, 12, 31).toEpochDay();

  /** Writes {@code value} as {@code width} decimal digits, zero-padded; returns the next index. */
  private static int pad(char[] out, int at, int value, int width) {
    for (int i = at + width - 1; i >= at; i--) {
      out[i] = (char) ('0' + value % 10);
      value /= 10;
    }
    return at + width;
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
