package io.watukuy.internal.cursor;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The default timestamp parser and the shape-mirroring formatter (docs/architecture.md,
 * "timestamp", item 4): ISO 8601 (with {@code Z}, an offset, or no zone read as UTC; a date alone
 * is its midnight UTC), 10-digit epoch seconds and 13-digit epoch milliseconds.
 */
final class TimestampFormats {
  private static final Pattern EPOCH_SECONDS = Pattern.compile("-?\\d{10}");
  private static final Pattern EPOCH_MILLIS = Pattern.compile("-?\\d{13}");
  private static final Pattern FRACTION =
      Pattern.compile("T\\d{2}:\\d{2}(:\\d{2}(\\.(\\d{1,9}))?)?");
  private static final Pattern ZONE = Pattern.compile("(Z|z|[+-]\\d{2}:?\\d{2})$");

  private TimestampFormats() {}

  /** Parses {@code raw}, or returns null when it is none of the supported shapes. */
  static @Nullable Instant parse(String raw) {
    String s = raw.trim();
    if (EPOCH_SECONDS.matcher(s).matches()) return Instant.ofEpochSecond(Long.parseLong(s));
    if (EPOCH_MILLIS.matcher(s).matches()) return Instant.ofEpochMilli(Long.parseLong(s));
    try {
      if (s.length() == 10) return LocalDate.parse(s).atStartOfDay(ZoneOffset.UTC).toInstant();
      if (ZONE.matcher(s).find()) return OffsetDateTime.parse(normalizeOffset(s)).toInstant();
      return LocalDateTime.parse(s).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  // OffsetDateTime wants +HH:MM; APIs also send +HHMM.
  private static String normalizeOffset(String s) {
    int n = s.length();
    if (n >= 5
        && (s.charAt(n - 5) == '+' || s.charAt(n - 5) == '-')
        && Character.isDigit(s.charAt(n - 1))
        && s.indexOf(':', n - 5) < 0) {
      return s.substring(0, n - 2) + ":" + s.substring(n - 2);
    }
    if (s.endsWith("z")) return s.substring(0, n - 1) + "Z";
    return s;
  }

  /**
   * Formats {@code instant} in the shape of {@code like}: epoch seconds, epoch millis, a date, or
   * ISO with the same separator, fraction digits and zone designator.
   */
  static String formatLike(String like, Instant instant) {
    String s = like.trim();
    if (EPOCH_SECONDS.matcher(s).matches()) return Long.toString(instant.getEpochSecond());
    if (EPOCH_MILLIS.matcher(s).matches()) return Long.toString(instant.toEpochMilli());
    if (s.length() == 10) return LocalDate.ofInstant(instant, ZoneOffset.UTC).toString();
    Matcher f = FRACTION.matcher(s);
    int digits = 0;
    boolean seconds = true;
    if (f.find()) {
      seconds = f.group(1) != null;
      digits = f.group(3) == null ? 0 : f.group(3).length();
    }
    DateTimeFormatterBuilder b = new DateTimeFormatterBuilder().appendPattern("uuuu-MM-dd'T'HH:mm");
    if (seconds) b.appendPattern(":ss");
    if (digits > 0) b.appendFraction(ChronoField.NANO_OF_SECOND, digits, digits, true);
    Matcher z = ZONE.matcher(s);
    if (!z.find()) {
      return LocalDateTime.ofInstant(instant, ZoneOffset.UTC).format(b.toFormatter());
    }
    String zone = z.group(1);
    if (zone.equalsIgnoreCase("Z")) {
      return instant.atOffset(ZoneOffset.UTC).format(b.toFormatter()) + zone;
    }
    ZoneOffset offset =
        ZoneOffset.of(zone.contains(":") ? zone : zone.substring(0, 3) + ":" + zone.substring(3));
    DateTimeFormatter fmt = b.toFormatter();
    return instant.atOffset(offset).format(fmt) + zone;
  }
}
