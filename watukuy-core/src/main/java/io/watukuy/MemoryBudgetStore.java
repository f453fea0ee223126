package io.watukuy;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default {@link RateBudgetStore}: token buckets in this process's memory, so a budget holds
 * for the engines of this process that share the instance (guarantee G6 "in this process"). The
 * engine creates one when {@link Watukuy.Builder#budgetStore} is not set.
 *
 * <h2>Arithmetic</h2>
 *
 * Exactly the formula of {@link RateBudgetStore}, in whole milliseconds and integers, so nothing
 * drifts however long a bucket lives. With {@code P} = {@code per} in milliseconds (a fraction of
 * a millisecond is rounded up, which only slows the refill), a bucket counts in units of {@code
 * 1/P} token: it holds {@code level} units, at most {@code C = burst × P}, and gains {@code
 * requests} units per millisecond. {@code now} is read as {@link Instant#toEpochMilli()} (rounded
 * down). At {@code t = max(now, last)}:
 *
 * <pre>
 *   current = min(C, level + (t - last) × requests)
 *   need    = permits × P
 *   current &gt;= need:  level = current - need, last = t; answer 0
 *   otherwise:        nothing changes; answer (t - now) + ceil((need - current) / requests) ms
 * </pre>
 *
 * A new bucket starts full ({@code level = C}) at its first {@code now}. So in any interval of T
 * milliseconds at most {@code burst + requests × T / per} takes succeed, and a take that is told
 * to wait {@code w} succeeds when retried {@code w} later (if nothing else took in between).
 *
 * <p>When a name is used with another limit than before, the bucket keeps its whole tokens, at
 * most the new burst, and continues under the new limit.
 *
 * <p>Thread-safe; one lock per bucket; never blocks on anything else.
 *
 * @since 0.1
 */
public final class MemoryBudgetStore implements RateBudgetStore {
  // A level plus one refill step must fit in a long: C + requests <= Long.MAX_VALUE.
  private static final long MAX_CAPACITY = Long.MAX_VALUE - Integer.MAX_VALUE;

  private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

  /** An empty store: every bucket starts full on its first take. */
  public MemoryBudgetStore() {}

  /**
   * {@inheritDoc}
   *
   * <p>Never throws {@link StoreException}: nothing leaves the process.
   *
   * @throws IllegalArgumentException also when {@code burst × per} in milliseconds exceeds about
   *     9.2 × 10<sup>18</sup> (a {@code long})
   */
  @Override
  public Duration tryTake(String name, BudgetLimit limit, int permits, Instant now) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(limit, "limit");
    Objects.requireNonNull(now, "now");
    if (permits < 1 || permits > limit.burst())
      throw new IllegalArgumentException(
          "budget " + name + ": permits must be 1 to burst " + limit.burst() + ", but was " + permits);
    long capacity = capacity(limit);
    long nowMs = now.toEpochMilli();
    Bucket bucket = buckets.computeIfAbsent(name, n -> new Bucket(limit, capacity, nowMs));
    synchronized (bucket) {
      return bucket.tryTake(limit, capacity, permits, nowMs);
    }
  }

  /**
   * The capacity of a bucket in its units: {@code burst × per} in milliseconds (rounded up).
   *
   * @param limit the budget's rate
   * @return the capacity, in 1/per-milliseconds of a token
   * @throws IllegalArgumentException when the product does not fit a {@code long} with room for
   *     one refill step
   */
  static long capacity(BudgetLimit limit) {
    long perMs = perMillis(limit.per());
    long capacity;
    try {
      capacity = Math.multiplyExact(limit.burst(), perMs);
    } catch (ArithmeticException e) {
      capacity = Long.MAX_VALUE;
    }
    if (capacity > MAX_CAPACITY)
      throw new IllegalArgumentException(
          "budget burst " + limit.burst() + " x per " + limit.per() + " is too large: burst times per in"
              + " milliseconds must stay below " + MAX_CAPACITY);
    return capacity;
  }

  /** {@code per} in whole milliseconds, a fraction rounded up: a slower refill never breaks G6. */
  static long perMillis(Duration per) {
    long ms = per.toMillis();
    return per.minusMillis(ms).isZero() ? ms : ms + 1;
  }

  private static final class Bucket {
    // Guarded by this
    private BudgetLimit limit;
    // Guarded by this. Units of 1/perMs token, 0 to capacity.
    private long level;
    // Guarded by this. Epoch milliseconds of the last successful take (or the creation).
    private long lastMs;

    Bucket(BudgetLimit limit, long capacity, long nowMs) {
      this.limit = limit;
      this.level = capacity;
      this.lastMs = nowMs;
    }

    Duration tryTake(BudgetLimit current, long capacity, int permits, long nowMs) {
      long perMs = perMillis(current.per());
      if (!current.equals(limit)) {
        long tokens = Math.min(level / perMillis(limit.per()), current.burst());
        level = tokens * perMs;
        limit = current;
      }
      long t = Math.max(nowMs, lastMs);
      long requests = current.requests();
      long deficit = capacity - level;
      long elapsed = t - lastMs;
      // elapsed < ceil(deficit / requests) keeps elapsed × requests below deficit + requests.
      long available =
          elapsed >= ceilDiv(deficit, requests) ? capacity : level + elapsed * requests;
      long need = permits * perMs;
      if (available >= need) {
        level = available - need;
        lastMs = t;
        return Duration.ZERO;
      }
      long waitMs = ceilDiv(need - available, requests);
      return Duration.ofMillis(t - nowMs).plusMillis(waitMs);
    }

    private static long ceilDiv(long a, long b) {
      return -Math.floorDiv(-a, b);
    }
  }
}
