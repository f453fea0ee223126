package io.watukuy.internal.http;

import io.watukuy.HttpResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code Retry-After} (RFC 9110 §10.2.3): {@code delay-seconds} (digits only) or an
 * HTTP-date in any of its three forms ({@link HttpDates}), turned into an instant on the engine's
 * clock and kept within [now, now + {@link HttpResult#MAX_WAIT}].
 */
public final class RetryAfter {

  // Anything longer does not fit a long; such a value is clamped like any other huge delay.
  private static final int MAX_DIGITS = 18;

  private RetryAfter() {}

  /**
   * Parses a Retry-After value received at {@code now}.
   *
   * @param value the field value, or null when absent; surrounding whitespace is ignored
   * @param date the response's {@code Date} field, or null. When it parses, an HTTP-date value is
   *     taken relative to it ({@code now + (value - date)}), which cancels out any difference
   *     between the server's clock and ours; otherwise the date is used as is
   * @param now when the response was received
   * @return the instant to wait until, never before {@code now} (a past date means "now") and
   *     never after {@code now + MAX_WAIT}; empty when {@code value} is absent or malformed
   *     ({@code -1}, {@code 1.5}, {@code 120s}, a zone other than {@code GMT}, lower-case names)
   */
  public static Optional<Instant> parse(@Nullable String value, @Nullable String date, Instant now) {
    if (value == null) return Optional.empty();
    String v = value.strip();
    if (!v.isEmpty() && v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      if (v.length() > MAX_DIGITS) return Optional.of(now.plus(HttpResult.MAX_WAIT));
      return Optional.of(afterDelay(now, Long.parseLong(v)));
    }
    Optional<Instant> at = HttpDates.parse(v, now);
    if (at.isEmpty()) return Optional.empty();
    Optional<Instant> serverNow =
        date == null ? Optional.empty() : HttpDates.parse(date, now);
    Instant local =
        serverNow.isPresent()
            ? now.plus(Duration.between(serverNow.get(), at.get()))
            : at.get();
    return Optional.of(clamp(local, now));
  }

  /** {@code now + seconds}, clamped to {@link HttpResult#MAX_WAIT}. */
  static Instant afterDelay(Instant now, long seconds) {
    long capped = Math.min(Math.max(seconds, 0), HttpResult.MAX_WAIT.toSeconds());
    return now.plusSeconds(capped);
  }

  /** {@code at} moved into [now, now + {@link HttpResult#MAX_WAIT}]. */
  static Instant clamp(Instant at, Instant now) {
    if (at.isBefore(now)) return now;
    Instant latest = now.plus(HttpResult.MAX_WAIT);
    return at.isAfter(latest) ? latest : at;
  }
}
