package io.watukuy;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with full jitter: the wait before attempt {@code n + 1} (after {@code n}
 * failures, n ≥ 1) is uniform in {@code [0, min(max, base × factor^(n-1))]}.
 *
 * @param base the cap of the first wait, positive
 * @param factor growth per failure, at least 1.0
 * @param max the largest cap, at least {@code base}
 * @since 0.1
 */
public record Backoff(Duration base, double factor, Duration max) {
  /**
   * Poll-error backoff defaults (docs/architecture.md, "Defaults"): base 1 s, factor 2, max 10 min.
   */
  public static final Backoff DEFAULT_POLL =
      new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(10));

  /**
   * Validates the settings.
   *
   * @param base the cap of the first wait; positive
   * @param factor growth per failure; at least 1.0
   * @param max the largest cap; at least {@code base}
   * @throws NullPointerException if {@code base} or {@code max} is null
   * @throws ConfigException if a value is out of range; the message names the field and the value
   */
  public Backoff {
    Objects.requireNonNull(base, "base");
    Objects.requireNonNull(max, "max");
    if (base.isNegative() || base.isZero())
      throw new ConfigException("backoff.base must be > 0, but was " + base);
    if (!(factor >= 1.0))
      throw new ConfigException("backoff.factor must be >= 1.0, but was " + factor);
    if (max.compareTo(base) < 0)
      throw new ConfigException(
          "backoff.max must be >= backoff.base (" + base + "), but was " + max);
  }

  /**
   * The upper bound of the wait after {@code failures} failures, before jitter: {@code base ×
   * factor^(failures-1)}, at most {@code max}, truncated to whole milliseconds. A value below 1
   * counts as 1.
   *
   * @param failures failures so far, from 1
   * @return the cap, between {@code base} and {@code max}
   */
  public Duration cap(int failures) {
    double ms = base.toMillis() * Math.pow(factor, Math.max(0, failures - 1));
    return ms >= max.toMillis() ? max : Duration.ofMillis((long) ms);
  }

  /**
   * A full-jitter wait after {@code failures} failures: uniform in {@code [0, cap(failures)]}, both
   * ends inclusive, in whole milliseconds.
   *
   * @param failures failures so far, from 1
   * @param random the source of the jitter (the engine's injected generator)
   * @return the wait, never negative
   */
  public Duration delay(int failures, RandomGenerator random) {
    long cap = cap(failures).toMillis();
    return Duration.ofMillis(cap <= 0 ? 0 : random.nextLong(cap + 1));
  }
}
