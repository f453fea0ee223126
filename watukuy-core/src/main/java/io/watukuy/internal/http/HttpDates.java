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
 * A strict parser for RFC 9110 §5.6.7 HTTP-dates. All three forms are accepted, as the RFC
 * requires of recipients: IMF-fixdate ({@code Sun, 06 Nov 1994 08:49:37 GMT}), the obsolete RFC
 * 850 form ({@code Sunday, 06-Nov-94 08:49:37 GMT}) and asctime ({@code Sun Nov  6 08:49:37
 * 1994}). Names are case-sensitive and the zone must be the literal {@code GMT}, as in the
 * grammar; {@link java.time.format.DateTimeFormatter#RFC_1123_DATE_TIME} would accept {@code
 * +0000}, one-digit days and lower case, and rejects the two obsolete forms. The weekday is not
 * checked against the date (the RFC's rule never looks at it).
 */
public final class HttpDates {

  private static final List<String> MONTHS =
      List.of("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec");

  private static final String DAY_NAME = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
  private static final String DAY_NAME_LONG =
      "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
  private static final String MONTH = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
  private static final String TIME = "(\\d{2}):(\\d{2}):(\\d{2})";

  private static final Pattern IMF_FIXDATE =
      Pattern.compile(DAY_NAME + ", (\\d{2}) " + MONTH + " (\\d{4}) " + TIME + " GMT");
  private static final Pattern RFC_850 =
      Pattern.compile(DAY_NAME_LONG + ", (\\d{2})-" + MONTH + "-(\\d{2}) " + TIME + " GMT");
  private static final Pattern ASCTIME =
      Pattern.compile(DAY_NAME + " " + MONTH + " ( \\d|\\d{2}) " + TIME + " (\\d{4})");

  // RFC 9110 §5.6.7: an rfc850 year more than 50 years ahead means the previous century.
  private static final int TWO_DIGIT_YEAR_HORIZON = 50;

  private HttpDates() {}

  /**
   * Parses an HTTP-date.
   *
   * @param value the field value; surrounding whitespace is ignored
   * @param now the reference for the two-digit year of the RFC 850 form
   * @return the instant, or empty when {@code value} is not an HTTP-date
   */
  public static Optional<Instant> parse(String value, Instant now) {
    String v = value.strip();
    try {
      Matcher m = IMF_FIXDATE.matcher(v);
      if (m.matches()) {
        return Optional.of(
            at(int4(m.group(3)), m.group(2), m.group(1), m.group(4), m.group(5), m.group(6)));
      }
      m = RFC_850.matcher(v);
      if (m.matches()) {
        Instant in2000s =
            at(2000 + Integer.parseInt(m.group(3)), m.group(2), m.group(1), m.group(4),
                m.group(5), m.group(6));
        return Optional.of(twoDigitYear(in2000s, now));
      }
      m = ASCTIME.matcher(v);
      if (m.matches()) {
        return Optional.of(
            at(int4(m.group(6)), m.group(1), m.group(2).strip(), m.group(3), m.group(4),
                m.group(5)));
      }
    } catch (DateTimeException outOfRange) {
      // 31 Feb, 25:00:00 and the like: not a date.
    }
    return Optional.empty();
  }

  private static int int4(String digits) {
    return Integer.parseInt(digits);
  }

  private static Instant at(
      int year, String month, String day, String hour, String minute, String second) {
    return LocalDateTime.of(
            year,
            MONTHS.indexOf(month) + 1,
            Integer.parseInt(day),
            Integer.parseInt(hour),
            Integer.parseInt(minute),
            Integer.parseInt(second))
        .toInstant(ZoneOffset.UTC);
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
