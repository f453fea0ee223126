package io.watukuy.internal.http;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A robust parser for RFC 9110 §5.6.7 HTTP-dates, as that section asks of recipients: all three
 * forms, and what real servers send beside the grammar.
 *
 * <ul>
 *   <li>IMF-fixdate, {@code Sun, 06 Nov 1994 08:49:37 GMT}, also with a one-digit day ({@code Tue,
 *       1 Dec 2026 12:50:40 GMT}, as {@link java.time.format.DateTimeFormatter#RFC_1123_DATE_TIME}
 *       writes on days 1–9), without the weekday or its comma (RFC 5322 makes the weekday
 *       optional);
 *   <li>the obsolete RFC 850 form, {@code Sunday, 06-Nov-94 08:49:37 GMT}, whose two-digit year is
 *       the latest year with those digits that is not more than 50 years after {@code now}; the
 *       same dashed form with a four-digit year ({@code 06-Nov-1994}, as cookies write it) is read
 *       as is;
 *   <li>the obsolete asctime form, {@code Sun Nov 6 08:49:37 1994} (no zone: UTC).
 * </ul>
 *
 * <p>The zone of the first two forms may be {@code GMT}, {@code UT}, {@code UTC}, a numeric offset
 * {@code ±hhmm} (at most ±18:00), or one of RFC 5322's obsolete North American names ({@code EST},
 * {@code EDT}, {@code CST}, {@code CDT}, {@code MST}, {@code MDT}, {@code PST}, {@code PDT}),
 * optionally followed by one comment such as {@code (CET)} (printable ASCII, at most 64 characters,
 * not nested); the result is converted to UTC: {@code 09:49:37 +0100} is {@code 08:49:37Z}. Runs of
 * spaces and tabs count as one. A leap second ({@code 23:59:60} UTC, and only then) is the instant
 * one second after {@code 23:59:59}. Names stay case-sensitive, as in the grammar; the weekday is
 * not checked against the date (the RFC never looks at it). Anything else is not a date: {@code
 * -3}, {@code 1.5}, {@code 31 Feb}, {@code 29 Feb 2100}, {@code 25:00:00}, a wrong month or day
 * name, an empty value. Callers then fall back (a Retry-After to the default backoff); validators
 * such as {@code Last-Modified} are never parsed here, they are echoed byte for byte.
 */
final class HttpDates {

  private static final List<String> MONTHS =
      List.of("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec");

  // RFC 5322 §4.3 obs-zone: the North American zones a few old servers still write.
  private static final Map<String, ZoneOffset> NAMED_ZONES =
      Map.of(
          "EST",
          ZoneOffset.ofHours(-5),
          "EDT",
          ZoneOffset.ofHours(-4),
          "CST",
          ZoneOffset.ofHours(-6),
          "CDT",
          ZoneOffset.ofHours(-5),
          "MST",
          ZoneOffset.ofHours(-7),
          "MDT",
          ZoneOffset.ofHours(-6),
          "PST",
          ZoneOffset.ofHours(-8),
          "PDT",
          ZoneOffset.ofHours(-7));

  private static final String SP = "[ \\t]+";
  private static final String DAY_NAME =
      "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
  // The weekday, then a comma or not.
  private static final String WEEKDAY = DAY_NAME + "(?:,[ \\t]*|[ \\t]+)";
  private static final String MONTH = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
  private static final String DAY = "(\\d{1,2})";
  private static final String TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
  // GMT, UT and UTC all mean UTC; a numeric offset keeps its sign, hours and minutes. Any zone
  // may be followed by one comment naming it, "(CET)": printable ASCII, no nesting.
  private static final String ZONE =
      "(GMT|UTC|UT|"
          + String.join("|", NAMED_ZONES.keySet())
          + "|[+-]\\d{4})"
          + "(?:[ \\t]*\\([\\x20-\\x27\\x2A-\\x7E]{0,64}\\))?";

  private static final Pattern IMF_FIXDATE =
      Pattern.compile(
          "(?:" + WEEKDAY + ")?" + DAY + SP + MONTH + SP + "(\\d{4})" + SP + TIME + SP + ZONE);
  private static final Pattern DASHED =
      Pattern.compile(WEEKDAY + DAY + "-" + MONTH + "-(\\d{2}|\\d{4})" + SP + TIME + SP + ZONE);
  private static final Pattern ASCTIME =
      Pattern.compile(DAY_NAME + SP + MONTH + SP + DAY + SP + TIME + SP + "(\\d{4})");

  // RFC 9110 §5.6.7: an rfc850 year more than 50 years ahead means the previous century.
  private static final int TWO_DIGIT_YEAR_HORIZON = 50;
  private static final int LEAP_SECOND = 60;

  private HttpDates() {}

  /**
   * Parses an HTTP-date.
   *
   * @param value the field value; surrounding whitespace is ignored
   * @param now the reference for the two-digit year of the RFC 850 form
   * @return the instant, or empty when {@code value} is not an HTTP-date (never throws)
   */
  public static Optional<Instant> parse(String value, Instant now) {
    String v = value.strip();
    try {
      Matcher m = IMF_FIXDATE.matcher(v);
      if (m.matches()) {
        return Optional.of(
            at(
                Integer.parseInt(m.group(3)),
                m.group(2),
                m.group(1),
                m.group(4),
                m.group(5),
                m.group(6),
                m.group(7)));
      }
      m = DASHED.matcher(v);
      if (m.matches()) {
        String year = m.group(3);
        int fullYear =
            year.length() == 4
                ? Integer.parseInt(year)
                : twoDigitYear(
                    Integer.parseInt(year),
                    new int[] {
                      MONTHS.indexOf(m.group(2)) + 1,
                      Integer.parseInt(m.group(1)),
                      Integer.parseInt(m.group(4)),
                      Integer.parseInt(m.group(5)),
                      Integer.parseInt(m.group(6))
                    },
                    now);
        return Optional.of(
            at(fullYear, m.group(2), m.group(1), m.group(4), m.group(5), m.group(6), m.group(7)));
      }
      m = ASCTIME.matcher(v);
      if (m.matches()) {
        return Optional.of(
            at(
                Integer.parseInt(m.group(6)),
                m.group(1),
                m.group(2),
                m.group(3),
                m.group(4),
                m.group(5),
                "GMT"));
      }
    } catch (DateTimeException outOfRange) {
      // 31 Feb, 29 Feb 2100, 25:00:00, an offset beyond ±18:00 and the like: not a date.
    }
    return Optional.empty();
  }

  private static Instant at(
      int year, String month, String day, String hour, String minute, String second, String zone) {
    int s = Integer.parseInt(second);
    // A leap second has no LocalDateTime of its own: it is the instant after :59.
    int leap = s == LEAP_SECOND ? 1 : 0;
    Instant at =
        LocalDateTime.of(
                year,
                MONTHS.indexOf(month) + 1,
                Integer.parseInt(day),
                Integer.parseInt(hour),
                Integer.parseInt(minute),
                s - leap)
            .toInstant(offset(zone));
    // Leap seconds are inserted at 23:59:60 UTC only; a :60 elsewhere is a typo, not a date.
    if (leap == 1 && at.atOffset(ZoneOffset.UTC).toLocalTime().toSecondOfDay() != 86_399) {
      throw new DateTimeException("second 60 outside 23:59 UTC");
    }
    return at.plusSeconds(leap);
  }

  private static ZoneOffset offset(String zone) {
    ZoneOffset named = NAMED_ZONES.get(zone);
    if (named != null) return named;
    if (zone.charAt(0) != '+' && zone.charAt(0) != '-') return ZoneOffset.UTC;
    int sign = zone.charAt(0) == '-' ? -1 : 1;
    int hours = Integer.parseInt(zone.substring(1, 3));
    int minutes = Integer.parseInt(zone.substring(3, 5));
    if (minutes > 59) throw new DateTimeException("offset minutes out of range: " + zone);
    return ZoneOffset.ofHoursMinutes(sign * hours, sign * minutes);
  }

  /**
   * The full year of a two-digit RFC 850 year: the latest year ending in those digits whose date is
   * not more than 50 years after {@code now}. Worked out from the numbers alone, so that the date
   * is then built once with its final year (29 Feb 2100 is then rejected, not moved).
   */
  private static int twoDigitYear(int twoDigits, int[] monthDayTime, Instant now) {
    LocalDateTime horizon =
        LocalDateTime.ofInstant(now, ZoneOffset.UTC).plusYears(TWO_DIGIT_YEAR_HORIZON);
    int year = horizon.getYear() - Math.floorMod(horizon.getYear() - twoDigits, 100);
    int[] limit = {
      horizon.getMonthValue(),
      horizon.getDayOfMonth(),
      horizon.getHour(),
      horizon.getMinute(),
      horizon.getSecond()
    };
    // In the horizon's own year, a date later in the year than the horizon is a century earlier.
    return year == horizon.getYear() && Arrays.compare(monthDayTime, limit) > 0 ? year - 100 : year;
  }
}
