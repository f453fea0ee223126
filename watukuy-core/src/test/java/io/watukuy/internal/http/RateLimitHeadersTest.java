package io.watukuy.internal.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.HttpResult;
import io.watukuy.RateLimitInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Header values from shared/data/http-headers.md sections 2 and 3; see
 * src/test/resources/http/PROVENANCE.md.
 */
class RateLimitHeadersTest {

  private static final Instant NOW = Instant.parse("2026-11-30T00:00:00Z");

  // ---- drafts -08 to -10: RateLimit-Policy + RateLimit lists

  @Test
  void currentDraftMemberGivesRemainingAndDeltaReset() {
    assertThat(parse(NOW, "RateLimit", "\"default\";r=50;t=30"))
        .contains(new RateLimitInfo(50, NOW.plusSeconds(30), null, "default"));
  }

  @Test
  void currentDraftTakesTheLimitFromThePolicyOfTheSameName() {
    assertThat(
            parse(
                NOW,
                "RateLimit-Policy",
                "\"basic\";q=100;w=60",
                "RateLimit",
                "\"basic\";r=60;t=58"))
        .contains(new RateLimitInfo(60, NOW.plusSeconds(58), 100L, "basic"));
  }

  @Test
  void currentDraftWithoutResetOrWindowIsNotReported() {
    assertThat(parse(NOW, "RateLimit", "\"default\";r=999;pk=:dHJpYWwxMjEzMjM=:")).isEmpty();
  }

  @Test
  void currentDraftWithoutResetFallsBackToThePolicyWindow() {
    // Composite: the -10 member without t, plus the -10 policy example of the same name.
    assertThat(
            parse(
                NOW,
                "RateLimit-Policy",
                "\"default\";q=100;w=10",
                "RateLimit",
                "\"default\";r=999;pk=:dHJpYWwxMjEzMjM=:"))
        .contains(new RateLimitInfo(999, NOW.plusSeconds(10), 100L, "default"));
  }

  @Test
  void currentDraftReadsLargeRemainingAndLongWindows() {
    assertThat(parse(NOW, "RateLimit", "\"default\";r=300000000;t=60;pk=:QXBwLTk5OQ==:"))
        .contains(new RateLimitInfo(300_000_000, NOW.plusSeconds(60), null, "default"));
    assertThat(parse(NOW, "RateLimit", "\"dayLimit\";r=100;t=36000"))
        .contains(new RateLimitInfo(100, NOW.plus(Duration.ofHours(10)), null, "dayLimit"));
  }

  @Test
  void ofSeveralPoliciesTheOneWithFewestRemainingIsReported() {
    // Composite: the two-policy -10 example with a RateLimit member for each.
    assertThat(
            parse(
                NOW,
                "RateLimit-Policy",
                "\"permin\";q=50;w=60,\"perhr\";q=1000;w=3600",
                "RateLimit",
                "\"permin\";r=20;t=40, \"perhr\";r=0;t=2000"))
        .contains(new RateLimitInfo(0, NOW.plusSeconds(2000), 1000L, "perhr"));
  }

  @Test
  void throttleResponseReportsBothRetryAfterAndRateLimit() {
    HttpResult res =
        result(
            429,
            NOW,
            "Retry-After",
            "20",
            "RateLimit-Policy",
            "\"dynamic\";q=100;w=60",
            "RateLimit",
            "\"dynamic\";r=15;t=40");

    assertThat(res.retryAfter()).contains(NOW.plusSeconds(20));
    assertThat(res.rateLimit())
        .contains(new RateLimitInfo(15, NOW.plusSeconds(40), 100L, "dynamic"));
  }

  // ---- draft -07: one dictionary

  @Test
  void draft07DictionaryIsRead() {
    assertThat(
            parse(
                NOW,
                "RateLimit-Policy",
                "100;w=10",
                "RateLimit",
                "limit=100, remaining=50, reset=5"))
        .contains(new RateLimitInfo(50, NOW.plusSeconds(5), 100L, "100;w=10"));
    assertThat(parse(NOW, "RateLimit", "limit=10, remaining=1, reset=7"))
        .contains(new RateLimitInfo(1, NOW.plusSeconds(7), 10L, null));
  }

  // ---- drafts up to -06: three fields

  @Test
  void separateFieldsOfDraft06AreRead() {
    assertThat(
            parse(
                NOW, "RateLimit-Limit", "100", "RateLimit-Remaining", "0", "RateLimit-Reset", "50"))
        .contains(new RateLimitInfo(0, NOW.plusSeconds(50), 100L, null));
    assertThat(
            parse(
                NOW,
                "RateLimit-Limit",
                "100",
                "RateLimit-Policy",
                "100;w=60",
                "Ratelimit-Remaining",
                "99",
                "RateLimit-Reset",
                "50"))
        .contains(new RateLimitInfo(99, NOW.plusSeconds(50), 100L, "100;w=60"));
    assertThat(
            parse(
                NOW,
                "RateLimit-Limit",
                "5000",
                "RateLimit-Remaining",
                "100",
                "RateLimit-Reset",
                "36000"))
        .contains(new RateLimitInfo(100, NOW.plus(Duration.ofHours(10)), 5000L, null));
  }

  @Test
  void draft06ResetAgreesWithTheRetryAfterDateOfTheSameResponse() {
    Instant date = Instant.parse("2019-08-05T09:27:00Z");
    HttpResult res =
        result(
            429,
            date,
            "Date",
            "Mon, 05 Aug 2019 09:27:00 GMT",
            "Retry-After",
            "Mon, 05 Aug 2019 09:27:05 GMT",
            "RateLimit-Reset",
            "5",
            "RateLimit-Remaining",
            "0");

    assertThat(res.retryAfter()).contains(Instant.ofEpochSecond(1564997225L));
    assertThat(res.rateLimit().orElseThrow().resetAt())
        .isEqualTo(Instant.ofEpochSecond(1564997225L));
  }

  // ---- GitHub X-RateLimit-*: reset in epoch seconds

  @Test
  void gitHubResetIsEpochSeconds() {
    Instant receivedAt = Instant.parse("2022-07-19T04:39:16Z");

    assertThat(
            parse(
                receivedAt,
                "X-RateLimit-Limit",
                "5000",
                "X-RateLimit-Remaining",
                "4922",
                "X-RateLimit-Reset",
                "1658208999",
                "X-RateLimit-Resource",
                "core"))
        .contains(new RateLimitInfo(4922, Instant.parse("2022-07-19T05:36:39Z"), 5000L, "core"));
  }

  @Test
  void gitHubEpochResetIsReadAgainstTheResponseDateSoClockSkewCancelsOut() {
    assertThat(
            parse(
                NOW,
                "Date",
                "Tue, 19 Jul 2022 04:41:07 GMT",
                "X-RateLimit-Limit",
                "30",
                "X-RateLimit-Remaining",
                "29",
                "X-RateLimit-Reset",
                "1658205727",
                "X-RateLimit-Resource",
                "search"))
        .contains(new RateLimitInfo(29, NOW.plusSeconds(60), 30L, "search"));
  }

  @Test
  void smallResetIsDeltaSecondsAndLargeOneEpochSeconds() {
    assertThat(RateLimitHeaders.resetAt(3600, null, NOW)).isEqualTo(NOW.plusSeconds(3600));
    assertThat(RateLimitHeaders.resetAt(999_999_999L, null, NOW))
        .isEqualTo(NOW.plus(HttpResult.MAX_WAIT));
    assertThat(RateLimitHeaders.resetAt(1_000_000_000L, null, NOW)).isEqualTo(NOW);
    assertThat(RateLimitHeaders.resetAt(NOW.getEpochSecond() + 90, null, NOW))
        .isEqualTo(NOW.plusSeconds(90));
  }

  @Test
  void millisecondResetOfNormalisedRecordingsIsEpochMilliseconds() {
    Instant receivedAt = Instant.parse("2017-10-10T15:00:00Z");

    assertThat(RateLimitHeaders.resetAt(1507651200000L, null, receivedAt))
        .isEqualTo(Instant.parse("2017-10-10T16:00:00Z"));
  }

  @Test
  void resetNeverLiesInThePastOrMoreThanADayAhead() {
    assertThat(RateLimitHeaders.resetAt(1658208999L, null, NOW)).isEqualTo(NOW);
    assertThat(RateLimitHeaders.resetAt(4102444800L, null, NOW)) // 2100-01-01
        .isEqualTo(NOW.plus(HttpResult.MAX_WAIT));
    assertThat(parse(NOW, "RateLimit", "\"default\";r=0;t=99999999"))
        .map(RateLimitInfo::resetAt)
        .contains(NOW.plus(HttpResult.MAX_WAIT));
  }

  // ---- precedence and malformed fields

  @Test
  void malformedRateLimitIsIgnoredAndTheNextFamilyRead() {
    assertThat(
            parse(
                NOW,
                "RateLimit",
                "\"default\";r=50;t=30,",
                "X-RateLimit-Remaining",
                "7",
                "X-RateLimit-Reset",
                "60"))
        .contains(new RateLimitInfo(7, NOW.plusSeconds(60), null, null));
    assertThat(parse(NOW, "RateLimit", "\"default\";r=-1;t=30")).isEmpty();
    assertThat(parse(NOW, "RateLimit-Remaining", "ten", "RateLimit-Reset", "5")).isEmpty();
  }

  @Test
  void remainingOrResetThatIsNotANonNegativeIntegerIsIgnored() {
    for (String bad : List.of("-1", "1.5", "120s", "")) {
      assertThat(parse(NOW, "RateLimit-Remaining", bad, "RateLimit-Reset", "30")).as(bad).isEmpty();
      assertThat(parse(NOW, "RateLimit-Remaining", "4", "RateLimit-Reset", bad)).as(bad).isEmpty();
      assertThat(parse(NOW, "X-RateLimit-Remaining", "4", "X-RateLimit-Reset", bad))
          .as(bad)
          .isEmpty();
      assertThat(parse(NOW, "RateLimit", "limit=10, remaining=" + bad + ", reset=7"))
          .as(bad)
          .isEmpty();
    }
  }

  @Test
  void deltaResetBeyondADayIsClampedToADay() {
    // 90 000 s = 25 h, more than the 24 h maximum
    assertThat(parse(NOW, "RateLimit-Remaining", "4", "RateLimit-Reset", "90000"))
        .contains(new RateLimitInfo(4, NOW.plus(HttpResult.MAX_WAIT), null, null));
    // a policy window of a week, used when the member has no t
    assertThat(
            parse(
                NOW,
                "RateLimit-Policy",
                "\"weekly\";q=100;w=604800",
                "RateLimit",
                "\"weekly\";r=3"))
        .map(RateLimitInfo::resetAt)
        .contains(NOW.plus(HttpResult.MAX_WAIT));
  }

  @Test
  void ietfFieldsOfACachedResponseAreIgnored() {
    assertThat(parse(NOW, "Age", "30", "RateLimit", "\"default\";r=50;t=30")).isEmpty();
    assertThat(parse(NOW, "Age", "0", "RateLimit", "\"default\";r=50;t=30")).isPresent();
  }

  @Test
  void noRateLimitFieldsGiveEmpty() {
    assertThat(parse(NOW, "Content-Type", "application/json")).isEmpty();
  }

  private static Optional<RateLimitInfo> parse(Instant receivedAt, String... headers) {
    return result(200, receivedAt, headers).rateLimit();
  }

  private static HttpResult result(int status, Instant receivedAt, String... headers) {
    Map<String, List<String>> map = new LinkedHashMap<>();
    for (int i = 0; i < headers.length; i += 2) {
      map.computeIfAbsent(headers[i], k -> new ArrayList<>()).add(headers[i + 1]);
    }
    return HttpResult.of(status, "GET", "https://api.test/x", map, new byte[0], receivedAt);
  }
}
