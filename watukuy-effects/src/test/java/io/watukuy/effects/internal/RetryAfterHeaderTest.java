package io.watukuy.effects.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * docs/effects.md, "HTTP calls": a Retry-After in seconds or as an HTTP date raises the
 * invocation's backoff, to five minutes at most, and never lowers it.
 */
class RetryAfterHeaderTest {
  private static final Instant NOW = Instant.parse("2026-12-02T22:00:00Z");

  @Test
  void secondsAndDatesAreWaitsCappedAtFiveMinutes() {
    assertThat(RetryAfterHeader.parse("120", NOW)).isEqualTo(Duration.ofSeconds(120));
    assertThat(RetryAfterHeader.parse(" 7 ", NOW)).isEqualTo(Duration.ofSeconds(7));
    assertThat(RetryAfterHeader.parse("Wed, 02 Dec 2026 22:01:30 GMT", NOW))
        .isEqualTo(Duration.ofSeconds(90));
    assertThat(RetryAfterHeader.parse("Wed, 02 Dec 2026 21:00:00 GMT", NOW))
        .isEqualTo(Duration.ZERO);
    assertThat(RetryAfterHeader.parse("3600", NOW)).isEqualTo(Duration.ofMinutes(5));
    assertThat(RetryAfterHeader.parse("99999999999999999999", NOW))
        .isEqualTo(Duration.ofMinutes(5));
  }

  @Test
  void aValueThatIsNeitherIsNoWait() {
    assertThat(RetryAfterHeader.parse(null, NOW)).isNull();
    assertThat(RetryAfterHeader.parse("soon", NOW)).isNull();
    assertThat(RetryAfterHeader.parse("-1", NOW)).isNull();
    assertThat(RetryAfterHeader.parse("1.5", NOW)).isNull();
  }

  @Test
  void theServersWaitRaisesTheBackoffAndNeverLowersIt() {
    Duration backoff = Duration.ofSeconds(60);
    assertThat(RetryAfterHeader.raise(backoff, Duration.ofSeconds(90)))
        .isEqualTo(Duration.ofSeconds(90));
    assertThat(RetryAfterHeader.raise(backoff, Duration.ofSeconds(5))).isEqualTo(backoff);
    assertThat(RetryAfterHeader.raise(backoff, null)).isEqualTo(backoff);
  }
}
