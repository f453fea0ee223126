package io.watukuy.internal.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.HttpResult;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvFileSource;

/** Values from shared/data/http-headers.md section 1; see src/test/resources/http/PROVENANCE.md. */
class RetryAfterTest {

  private static final Instant NOW = Instant.parse("2026-11-30T00:00:00Z");

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvFileSource(resources = "/http/http-dates.tsv", delimiterString = "\t")
  void httpDateFormsParseAsTheRfcSays(String value, String now, String expected) {
    assertThat(HttpDates.parse(value, Instant.parse(now)))
        .isEqualTo(
            expected.equals("invalid") ? Optional.empty() : Optional.of(Instant.parse(expected)));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvFileSource(resources = "/http/retry-after.tsv", delimiterString = "\t")
  void retryAfterBecomesAnInstantAfterTheReceiveTime(String value, String now, String expected) {
    assertThat(RetryAfter.parse(value, null, Instant.parse(now)))
        .isEqualTo(
            expected.equals("invalid") ? Optional.empty() : Optional.of(Instant.parse(expected)));
  }

  @Test
  void surroundingWhitespaceIsNotPartOfTheValue() {
    assertThat(RetryAfter.parse("  120 ", null, NOW)).contains(NOW.plusSeconds(120));
  }

  @Test
  void tabsBetweenTheFieldsCountAsSpaces() {
    assertThat(HttpDates.parse("Sun,\t06 Nov 1994\t08:49:37 GMT", NOW))
        .contains(Instant.parse("1994-11-06T08:49:37Z"));
  }

  @Test
  void aHugeValueIsRejectedQuickly() {
    // No backtracking blow-up: 100 000 characters that almost form a date.
    String huge = "Sun, 06 Nov 1994 08:49:37 ".repeat(4_000);
    assertThat(HttpDates.parse(huge, NOW)).isEmpty();
    assertThat(RetryAfter.parse(huge, null, NOW)).isEmpty();
  }

  @Test
  void absentRetryAfterIsEmpty() {
    assertThat(RetryAfter.parse(null, null, NOW)).isEmpty();
  }

  @Test
  void dateIsReadAgainstTheResponseDateSoServerClockSkewCancelsOut() {
    // The draft's 429 example: retry 5 s after the response's Date, whatever our clock says.
    assertThat(
            RetryAfter.parse("Mon, 05 Aug 2019 09:27:05 GMT", "Mon, 05 Aug 2019 09:27:00 GMT", NOW))
        .contains(NOW.plusSeconds(5));
  }

  @Test
  void oneDigitDaysAsJavaServersWriteThemAreReadAgainstTheDateToo() {
    // DateTimeFormatter.RFC_1123_DATE_TIME writes days 1-9 with one digit: 120 s after the Date.
    assertThat(
            RetryAfter.parse("Tue, 1 Dec 2026 10:02:00 GMT", "Tue, 1 Dec 2026 10:00:00 GMT", NOW))
        .contains(NOW.plusSeconds(120));
  }

  @Test
  void farFutureDateIsClampedToTheMaximumWait() {
    assertThat(RetryAfter.parse("Fri, 01 Jan 2100 00:00:00 GMT", null, NOW))
        .contains(NOW.plus(HttpResult.MAX_WAIT));
  }

  @Test
  void impossibleDateIsIgnored() {
    assertThat(RetryAfter.parse("Wed, 31 Feb 2026 07:28:00 GMT", null, NOW)).isEmpty();
    assertThat(RetryAfter.parse("Wed, 21 Oct 2026 25:28:00 GMT", null, NOW)).isEmpty();
  }

  @Test
  void delayBeyondADayIsClampedToADay() {
    // 86 401 s is one second more than 24 h
    assertThat(RetryAfter.parse("86401", null, NOW)).contains(NOW.plus(HttpResult.MAX_WAIT));
    assertThat(RetryAfter.parse("86400", null, NOW)).contains(NOW.plusSeconds(86_400));
  }

  @Test
  void malformedValuesNeverThrow() {
    for (String bad :
        List.of(
            "",
            " ",
            "-",
            "-3",
            "1.5",
            "+5",
            "1e3",
            "0x10",
            "Wed, 21 Oct 2026 07:28:00",
            "Wed, 99 Oct 2026 07:28:00 GMT",
            "Sun Nov 66 08:49:37 1994",
            "\u0000")) {
      assertThat(RetryAfter.parse(bad, "not a date", NOW)).as("'%s'", bad).isEmpty();
    }
  }

  @Test
  void resultReadsRetryAfterAndDateFromItsHeaders() {
    HttpResult res =
        HttpResult.of(
            503,
            "GET",
            "https://api.test/x",
            Map.of(
                "Retry-After", List.of("Mon, 05 Aug 2019 09:27:05 GMT"),
                "Date", List.of("Mon, 05 Aug 2019 09:27:00 GMT")),
            new byte[0],
            NOW);

    assertThat(res.retryAfter()).contains(NOW.plusSeconds(5));
  }
}
