package io.watukuy.internal.http;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A robust parser for RFC 9110 §5.6.7 HTTP-dates, as that section asks of recipients: all three
 * forms, and what real servers send beside the grammar.
 *
 * <ul>
 *   <li>IMF-fixdate, {@code Sun, 06 Nov 1994 08:49:37 GMT}, also with a one-digit day ({@code
 *       Tue, 1 Dec 2026 12:50:40 GMT}, as {@link java.time.format.DateTimeFormatter#RFC_1123_DATE_TIME}
 *       writes on days 1–9) and without the weekday (RFC 5322 makes it optional);
 *   <li>the obsolete RFC 850 form, {@code Sunday, 06-Nov-94 08:49:37 GMT}, whose two-digit year is
 *       read in the 100 years that end 50 years after {@code now};
 *   <li>the obsolete asctime form, {@code Sun Nov  6 08:49:37 1994} (no zone: UTC).
 * </ul>
 *
 * <p>The zone of the first two forms may be {@code GMT}, {@code UT}, {@code UTC} or a numeric
 * offset {@code ±hhmm} (at most ±18:00), which is converted to UTC: {@code 09:49:37 +0100} is
 * {@code 08:49:37Z}. Runs of spaces count as one. Names stay case-sensitive, as in the grammar;
 * the weekday is not checked against the date (the RFC never looks at it). Anything else is not a
 * date: {@code -3}, {@code 1.5}, {@code 31 Feb}, {@code 25:00:00}, a wrong month or day name, an
 * empty value. Callers then fall back (a Retry-After to the default backoff); validators such as
 * {@code Last-Modified} are never parsed here, they are echoed byte for byte.
 */
public final class HttpDates {

  private static final List<String> MONTHS =
      List.of("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec");

  private static final String DAY_NAME =
      "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
  private static final String MONTH = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
  private static final String DAY = "(\\d{1,2})";
  private static final String TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
  // GMT, UT and UTC all mean UTC; a numeric offset keeps its sign, hours and minutes.
  private static final String ZONE = "(GMT|UTC|UT|[+-]\\d{4})";
  private static final String SP = " +";

  private static final Pattern IMF_FIXDATE =
      Pattern.compile("(?:" + DAY_NAME + "," + " *)?" + DAY + SP + MONTH + SP + "(\\d{4})" + SP
          + TIME + SP + ZONE);
  private static final Pattern RFC_850 =
      Pattern.compile(DAY_NAME + ", *" + DAY + "-" + MONTH + "-(\\d{2})" + SP + TIME + SP + ZONE);
  private static final Pattern ASCTIME =
      Pattern.compile(DAY_NAME + SP + MONTH + SP + DAY + SP + TIME + SP + "(\\d{4})");

  // RFC 9110 §5.6.7: an rfc850 year more than 50 years ahead means the previous century.
  private static final int TWO_DIGIT_YEAR_HORIZON = 50;

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
            at(Integer.parseInt(m.group(3)), m.group(2), m.group(1), m.group(4), m.group(5),
                m.group(6), m.group(7)));
      }
      m = RFC_850.matcher(v);
      if (m.matches()) {
        Instant in2000s =
            at(2000 + Integer.parseInt(m.group(3)), m.group(2), m.group(1), m.group(4),
                m.group(5), m.group(6), m.group(7));
        return Optional.of(twoDigitYear(in2000s, now));
      }
      m = ASCTIME.matcher(v);
      if (m.matches()) {
        return Optional.of(
            at(Integer.parseInt(m.group(6)), m.group(1), m.group(2), m.group(3), m.group(4),
                m.group(5), "GMT"));
      }
    } catch (DateTimeException outOfRange) {
      // 31 Feb, 25:00:00, an offset beyond ±18:00 and the like: not a date.
    }
    return Optional.empty();
  }

  private static Instant at(
      int year, String month, String day, String hour, String minute, String second, String zone) {
    return LocalDateTime.of(
            year,
            MONTHS.indexOf(month) + 1,
            Integer.parseInt(day),
            Integer.parseInt(hour),
            Integer.parseInt(minute),
            Integer.parseInt(second))
        .toInstant(offset(zone));
  }

  private static ZoneOffset offset(String zone) {
    if (zone.charAt(0) != '+' && zone.charAt(0) != '-') return ZoneOffset.UTC;
    int sign = zone.charAt(0) == '-' ? -1 : 1;
    int hours = Integer.parseInt(zone.substring(1, 3));
    int minutes = Integer.parseInt(zone.substring(3, 5));
    if (minutes > 59) throw new DateTimeException("offset minutes out of range: " + zone);
    return ZoneOffset.ofHoursMinutes(sign * hours, sign * minutes);
  }

  // Moves the date into the 100-year window that ends 50 years after now.
  private static Instant twoDigitYear(Instant in2000s, Instant now) {
    LocalDateTime candidate = LocalDateTime.ofInstant(in2000s, ZoneOffset.UTC);
    LocalDateTime horizon =
        LocalDateTime.ofInstant(now, ZoneOffset.UTC).plusYears(TWO_DIGIT_YEAR_HORIZON);
    while (candidate.isAfter(horizon)) candidate = candidate.minusYears(100);
    while (!candidate.plusYears(100).isAfter(horizon)) candidate = candidate.plusYears(100);
    return candidate.toInstant(ZoneOffset.UTC);
  }
}
