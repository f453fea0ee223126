package io.watukuy;

import java.time.Duration;
import java.util.Objects;

/**
 * Handler retries of one poller: up to {@code attempts} attempts per event, spaced by
 * {@code backoff} (full jitter); then the poison policy applies.
 *
 * @param attempts attempts per event including the first, at least 1, default 3
 * @param backoff default base 1 s, factor 2, max 5 min
 * @since 0.1
 */
public record RetryPolicy(int attempts, Backoff backoff) {
  public static final int DEFAULT_ATTEMPTS = 3;
  public static final Backoff DEFAULT_BACKOFF =
      new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5));
  public static final RetryPolicy DEFAULT = new RetryPolicy(DEFAULT_ATTEMPTS, DEFAULT_BACKOFF);

  public RetryPolicy {
    Objects.requireNonNull(backoff, "backoff");
    if (attempts < 1) throw new ConfigException("retry.attempts must be >= 1, but was " + attempts);
  }

  public static RetryPolicy attempts(int attempts) {
    return new RetryPolicy(attempts, DEFAULT_BACKOFF);
  }
}
