package io.watukuy.internal.http;

import io.watukuy.HttpResult;
import io.watukuy.internal.Values;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code Retry-After} (RFC 9110 §10.2.3): {@code delay-seconds} (digits only) or an HTTP-date
 * in any of its three forms ({@link HttpDates}), turned into an instant on the engine's clock and
 * kept within [now, now + {@link HttpResult#MAX_WAIT}]. A malformed value is ignored with a
 * warning, never an exception; a wait beyond {@link HttpResult#MAX_WAIT} is clamped and the clamp
 * logged at info.
 */
final class RetryAfter {

  private static final Logger LOG = LoggerFactory.getLogger(RetryAfter.class);

  private static final String FIELD = "Retry-After";

  private static final AtomicReference<String> lastNotUnderstood = new AtomicReference<>();

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
   * @return the instant to wait until, never before {@code now} (a past date means "now") and never
   *     after {@code now + MAX_WAIT}; empty when {@code value} is absent or malformed ({@code -1},
   *     {@code 1.5}, {@code 120s}, {@code 31 Feb}, a zone other than {@code GMT}, {@code UT},
   *     {@code UTC} or {@code ±hhmm}, lower-case names)
   */
  public static Optional<Instant> parse(
      @Nullable String value, @Nullable String date, Instant now) {
    return parse(value, date, now, null);
  }

  /**
   * {@link #parse(String, String, Instant)}, naming who asked in the warning of a value it cannot
   * read.
   *
   * @param who {@code poller orders} (and partition), or null
   */
  static Optional<Instant> parse(
      @Nullable String value, @Nullable String date, Instant now, @Nullable String who) {
    if (value == null) return Optional.empty();
    String v = value.strip();
    if (!v.isEmpty() && v.chars().allMatch(c -> c >= '0' && c <= '9')) {
      if (v.length() > MAX_DIGITS) {
        logClamp(FIELD, v + " s", now);
        return Optional.of(now.plus(HttpResult.MAX_WAIT));
      }
      return Optional.of(afterDelay(FIELD, now, Long.parseLong(v)));
    }
    Optional<Instant> at = HttpDates.parse(v, now);
    if (at.isEmpty()) {
      warnNotUnderstood(v, who);
      return Optional.empty();
    }
    Optional<Instant> serverNow = date == null ? Optional.empty() : HttpDates.parse(date, now);
    Instant local =
        serverNow.isPresent() ? now.plus(Duration.between(serverNow.get(), at.get())) : at.get();
    return Optional.of(clamp(FIELD, local, now));
  }

  /**
   * {@code now + seconds}, clamped to {@link HttpResult#MAX_WAIT}; a clamp is logged.
   *
   * @param field the header the value came from, for the log
   */
  static Instant afterDelay(String field, Instant now, long seconds) {
    long max = HttpResult.MAX_WAIT.toSeconds();
    if (seconds > max) {
      logClamp(field, seconds + " s", now);
      return now.plusSeconds(max);
    }
    return now.plusSeconds(Math.max(seconds, 0));
  }

  /**
   * {@code at} moved into [now, now + {@link HttpResult#MAX_WAIT}]: a past instant means now, a
   * later one is clamped and the clamp logged.
   *
   * @param field the header the value came from, for the log
   */
  static Instant clamp(String field, Instant at, Instant now) {
    if (at.isBefore(now)) return now;
    Instant latest = now.plus(HttpResult.MAX_WAIT);
    if (!at.isAfter(latest)) return at;
    logClamp(field, "until " + at, now);
    return latest;
  }

  private static void logClamp(String field, String asked, Instant now) {
    LOG.info(
        "{} asks to wait {}, longer than the maximum of {}; waiting until {} instead",
        field,
        Values.abbreviate(asked),
        HttpResult.MAX_WAIT,
        now.plus(HttpResult.MAX_WAIT));
  }

  /**
   * A vendor asked for a wait we cannot read: said at WARN, since the default backoff then applies
   * and may be far shorter than what was meant. One response is read more than once (by the helper
   * and by the scheduler), so a value is said once until another one comes.
   */
  private static void warnNotUnderstood(String v, @Nullable String who) {
    if (v.equals(lastNotUnderstood.getAndSet(v))) return;
    LOG.warn(
        "{}{} '{}' is neither delay-seconds nor an HTTP-date; ignored, the default backoff"
            + " applies",
        who == null ? "" : who + ": ",
        FIELD,
        Values.abbreviate(v));
  }
}
