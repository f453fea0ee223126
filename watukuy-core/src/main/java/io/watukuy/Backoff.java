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
  /** Poll-error backoff defaults (DESIGN.md): base 1 s, factor 2, max 10 min. */
  public static final Backoff DEFAULT_POLL = new Backoff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(10));

  public Backoff {
    Objects.requireNonNull(base, "base");
    Objects.requireNonNull(max, "max");
    if (base.isNegative() || base.isZero())
      throw new ConfigException("backoff.base must be > 0, but was " + base);
    if (!(factor >= 1.0)) throw new ConfigException("backoff.factor must be >= 1.0, but was " + factor);
    if (max.compareTo(base) < 0)
      throw new ConfigException("backoff.max must be >= backoff.base (" + base + "), but was " + max);
  }

  /** The upper bound of the wait after {@code failures} failures (≥ 1), before jitter. */
  public Duration cap(int failures) {
    double ms = base.toMillis() * Math.pow(factor, Math.max(0, failures - 1));
    return ms >= max.toMillis() ? max : Duration.ofMillis((long) ms);
  }

  /** A full-jitter wait after {@code failures} failures: uniform in {@code [0, cap(failures)]}. */
  public Duration delay(int failures, RandomGenerator random) {
    long cap = cap(failures).toMillis();
    return Duration.ofMillis(cap <= 0 ? 0 : random.nextLong(cap + 1));
  }
}
