package io.watukuy.effects.internal;

import io.watukuy.effects.EffectHttp;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.jspecify.annotations.Nullable;

/**
 * A {@code Retry-After} (RFC 9110, section 10.2.3) as a wait: delay-seconds or an IMF-fixdate,
 * capped at {@link EffectHttp#MAX_RETRY_AFTER}. A value that is neither is no wait at all.
 */
final class RetryAfterHeader {
  private RetryAfterHeader() {}

  static @Nullable Duration parse(@Nullable String value, Instant now) {
    if (value == null) return null;
    String v = value.strip();
    Duration wait;
    if (!v.isEmpty() && v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      // More digits than a long holds is a wait far beyond the cap.
      wait = v.length() > 18 ? EffectHttp.MAX_RETRY_AFTER : Duration.ofSeconds(Long.parseLong(v));
    } else {
      try {
        Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        wait = Duration.between(now, at);
      } catch (DateTimeParseException e) {
        return null;
      }
    }
    if (wait.isNegative()) return Duration.ZERO;
    return wait.compareTo(EffectHttp.MAX_RETRY_AFTER) > 0 ? EffectHttp.MAX_RETRY_AFTER : wait;
  }

  /**
   * The invocation's wait after a failure: its backoff, raised to the server's wait, never lowered.
   *
   * @param backoff the invocation's backoff for this attempt
   * @param retryAfter the longest Retry-After of the attempt (already capped), or null
   */
  static Duration raise(Duration backoff, @Nullable Duration retryAfter) {
    return retryAfter != null && retryAfter.compareTo(backoff) > 0 ? retryAfter : backoff;
  }
}
