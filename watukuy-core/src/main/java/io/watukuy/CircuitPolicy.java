package io.watukuy;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * When a key's circuit opens (docs/architecture.md, "Circuit"): after {@code failures} consecutive
 * failed cycles the key sleeps for {@code probeEvery}, then runs one half-open probe; success
 * closes the circuit and resets the count, failure keeps it open.
 *
 * @param failures consecutive failures that open the circuit, at least 1, default {@value
 *     #DEFAULT_FAILURES}
 * @param probeEvery how long an open circuit waits before its probe, positive; {@code null}
 *     (default) means the poller's {@code schedule.max}
 * @since 0.1
 */
public record CircuitPolicy(int failures, @Nullable Duration probeEvery) {
  /** Default consecutive failures before the circuit opens. */
  public static final int DEFAULT_FAILURES = 5;

  /** 5 failures, probe every {@code schedule.max}. */
  public static final CircuitPolicy DEFAULT = new CircuitPolicy(DEFAULT_FAILURES, null);

  /**
   * @throws ConfigException if {@code failures < 1} or {@code probeEvery} is not positive
   */
  public CircuitPolicy {
    if (failures < 1)
      throw new ConfigException("circuit.failures must be >= 1, but was " + failures);
    if (probeEvery != null && (probeEvery.isNegative() || probeEvery.isZero()))
      throw new ConfigException("circuit.probeEvery must be > 0, but was " + probeEvery);
  }

  /** The probe wait for a poller whose {@code schedule.max} is {@code max}. */
  public Duration probeEvery(Duration max) {
    return probeEvery != null ? probeEvery : max;
  }
}
