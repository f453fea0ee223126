package io.watukuy.internal.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every day of a leap year (2024) and of a common year (2026), written in each form a server may
 * send, parses to the instant it names. The strings are built with {@link String#format} from
 * {@link LocalDateTime} fields, independently of the parser; {@code RFC_1123} is the JDK's own
 * formatter, which writes one-digit days on days 1–9.
 */
class HttpDatesEveryDayTest {

  /** The reference for RFC 850 two-digit years: both test years are within its window. */
  private static final Instant NOW = Instant.parse("2026-11-30T00:00:00Z");

  enum Form {
    IMF_FIXDATE(
        t ->
            String.format(
                Locale.ROOT,
                "%s, %02d %s %04d %s GMT",
                day(t),
                t.getDayOfMonth(),
                month(t),
                t.getYear(),
                time(t))),
    IMF_ONE_DIGIT_DAY(
        t ->
            String.format(
                Locale.ROOT,
                "%s, %d %s %04d %s GMT",
                day(t),
                t.getDayOfMonth(),
                month(t),
                t.getYear(),
                time(t))),
    RFC_1123(t -> DateTimeFormatter.RFC_1123_DATE_TIME.format(t.atOffset(ZoneOffset.UTC))),
    ZONE_UT(t -> IMF_FIXDATE.write(t).replace(" GMT", " UT")),
    ZONE_UTC(t -> IMF_FIXDATE.write(t).replace(" GMT", " UTC")),
    ZONE_PLUS_0000(t -> IMF_FIXDATE.write(t).replace(" GMT", " +0000")),
    ZONE_PLUS_0100(t -> local(t, 1, 0, "+0100")),
    ZONE_MINUS_0530(t -> local(t, -5, -30, "-0530")),
    RFC_850(
        t ->
            String.format(
                Locale.ROOT,
                "%s, %02d-%s-%02d %s GMT",
                t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.US),
                t.getDayOfMonth(),
                month(t),
                t.getYear() % 100,
                time(t))),
    NO_WEEKDAY(
        t ->
            String.format(
                Locale.ROOT,
                "%d %s %04d %s GMT",
                t.getDayOfMonth(),
                month(t),
                t.getYear(),
                time(t))),
    DASHED_FOUR_DIGIT_YEAR(
        t ->
            String.format(
                Locale.ROOT,
                "%s, %02d-%s-%04d %s GMT",
                day(t),
                t.getDayOfMonth(),
                month(t),
                t.getYear(),
                time(t))),
    ZONE_EST(t -> local(t, -5, 0, "EST")),
    ASCTIME(
        t ->
            String.format(
                Locale.ROOT,
                "%s %s %2d %s %04d",
                day(t),
                month(t),
                t.getDayOfMonth(),
                time(t),
                t.getYear()));

    private final Function<LocalDateTime, String> writer;

    Form(Function<LocalDateTime, String> writer) {
      this.writer = writer;
    }

    String write(LocalDateTime utc) {
      return writer.apply(utc);
    }
  }

  @ParameterizedTest
  @EnumSource(Form.class)
  void everyDayOfALeapAndACommonYearParsesInThisForm(Form form) {
    SoftAssertions softly = new SoftAssertions();
    int days = 0;
    for (int year : new int[] {2024, 2026}) {
      for (LocalDate d = LocalDate.of(year, 1, 1); d.getYear() == year; d = d.plusDays(1)) {
        // The time moves through the day so that offsets cross midnight on some days.
        LocalDateTime utc =
            d.atTime(d.getDayOfYear() % 24, d.getDayOfMonth(), 59 - d.getDayOfMonth());
        String text = form.write(utc);
        softly
            .assertThat(HttpDates.parse(text, NOW))
            .as(text)
            .contains(utc.toInstant(ZoneOffset.UTC));
        days++;
      }
    }
    softly.assertAll();
    assertThat(days).isEqualTo(366 + 365);
  }

  @ParameterizedTest
  @EnumSource(Form.class)
  void anImpossibleDayIsNotADateInThisForm(Form form) {
    // Each form written for 28 Feb of a common year, then the day replaced by 29, 30 and 31.
    LocalDateTime feb28 = LocalDateTime.of(2026, 2, 28, 12, 0, 0);
    String text = form.write(feb28);
    List<String> impossible = new ArrayList<>();
    for (String day : List.of("29", "30", "31")) impossible.add(text.replace("28", day));
    for (String value : impossible) assertThat(HttpDates.parse(value, NOW)).as(value).isEmpty();
  }

  private static String day(LocalDateTime t) {
    return t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.US);
  }

  private static String month(LocalDateTime t) {
    return t.getMonth().getDisplayName(TextStyle.SHORT, Locale.US);
  }

  private static String time(LocalDateTime t) {
    return String.format(Locale.ROOT, "%02d:%02d:%02d", t.getHour(), t.getMinute(), t.getSecond());
  }

  /** The instant written as local time at an offset, with that offset as the zone. */
  private static String local(LocalDateTime utc, int hours, int minutes, String zone) {
    LocalDateTime at = utc.plusHours(hours).plusMinutes(minutes);
    return String.format(
        Locale.ROOT,
        "%s, %02d %s %04d %s %s",
        day(at),
        at.getDayOfMonth(),
        month(at),
        at.getYear(),
        time(at),
        zone);
  }
}
