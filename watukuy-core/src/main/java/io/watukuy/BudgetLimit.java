package io.watukuy;

import java.time.Duration;
import java.util.Objects;

/**
 * The rate of one budget (guarantee G6): a token bucket holding at most {@code burst} tokens,
 * refilled continuously at {@code requests} tokens per {@code per}. Every request charges one token
 * before it is sent, so in any interval of length T the requests sent under the budget are at most
 * {@code burst + requests * T / per}.
 *
 * @param requests tokens added per {@code per}; at least 1
 * @param per the refill period; at least 1 ms
 * @param burst the bucket's capacity, and its content when first used; at least 1. {@link #of(int,
 *     Duration)} sets it to {@code requests}
 * @since 0.1
 */
public record BudgetLimit(int requests, Duration per, int burst) {
  /**
   * Checks the values.
   *
   * @throws ConfigException when a value is out of range; the message names it
   */
  public BudgetLimit {
    Objects.requireNonNull(per, "per");
    if (requests < 1)
      throw new ConfigException("budget requests must be >= 1, but was " + requests);
    if (per.toMillis() < 1) throw new ConfigException("budget per must be >= 1ms, but was " + per);
    if (burst < 1) throw new ConfigException("budget burst must be >= 1, but was " + burst);
  }

  /**
   * A budget whose burst equals its request count.
   *
   * @param requests tokens per {@code per}; at least 1
   * @param per the refill period; at least 1 ms
   * @return the limit
   * @throws ConfigException when a value is out of range
   */
  public static BudgetLimit of(int requests, Duration per) {
    return new BudgetLimit(requests, per, requests);
  }
}
