package io.watukuy;

import java.time.Duration;
import java.util.Objects;

/**
 * Handler retries of one poller: up to {@code attempts} attempts per event, spaced by {@code
 * backoff} (full jitter); then the poison policy applies (guarantee G7). A retry is never waited
 * for: the event's ordering key is held until the retry is due, and a later run delivers it.
 *
 * @param attempts attempts per event including the first, at least 1, default 3
 * @param backoff default base 1 s, factor 2, max 5 min
 * @since 0.1
 */
public record RetryPolicy(int attempts, Backoff backoff) {
  /** Default attempts per event, the first included (docs/architecture.md, "Defaults"). */
  public static final int DEFAULT_ATTEMPTS = 3;

  /** Default handler backoff: base 1 s, factor 2, max 5 min (docs/architecture.md, "Defaults"). */
  public static final Backoff DEFAULT_BACKOFF =
      new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(5));

  /** {@value #DEFAULT_ATTEMPTS} attempts with {@link #DEFAULT_BACKOFF}. */
  public static final RetryPolicy DEFAULT = new RetryPolicy(DEFAULT_ATTEMPTS, DEFAULT_BACKOFF);

  /**
   * Validates the settings.
   *
   * @param attempts attempts per event including the first; at least 1
   * @param backoff the wait between attempts
   * @throws NullPointerException if {@code backoff} is null
   * @throws ConfigException if {@code attempts} is below 1
   */
  public RetryPolicy {
    Objects.requireNonNull(backoff, "backoff");
    if (attempts < 1) throw new ConfigException("retry.attempts must be >= 1, but was " + attempts);
  }

  /**
   * A policy with {@code attempts} attempts and {@link #DEFAULT_BACKOFF}.
   *
   * @param attempts attempts per event including the first; at least 1
   * @return the policy
   * @throws ConfigException if {@code attempts} is below 1
   */
  public static RetryPolicy attempts(int attempts) {
    return new RetryPolicy(attempts, DEFAULT_BACKOFF);
  }
}
