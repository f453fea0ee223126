package io.watukuy.store.memory;

import io.watukuy.BudgetLimit;
import io.watukuy.StoreException;
import io.watukuy.Watukuy;
import io.watukuy.spi.RateBudgetStore;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The default {@link RateBudgetStore}: token buckets in this process's memory, so a budget holds
 * for the engines of this process that share the instance (guarantee G6 "in this process"). The
 * engine creates one when {@link Watukuy.Builder#budgetStore} is not set.
 *
 * <h2>Arithmetic</h2>
 *
 * Exactly the formula of {@link RateBudgetStore}, on integers, so nothing drifts however long a
 * bucket lives. With {@code U} = {@code per} in nanoseconds, a bucket counts in units of {@code
 * 1/U} token: it holds {@code left} units, at most {@code C = burst × U}, and gains {@code requests
 * × 10^6} units per millisecond. {@code now} is read as {@link Instant#toEpochMilli()} (rounded
 * down). At {@code t = max(now, last)}:
 *
 * <pre>
 *   held = min(C, left + (t - last) × requests × 10^6)
 *   want = permits × U
 *   held &gt;= want:  left = held - want, last = t; answer 0
 *   otherwise:     nothing changes; answer ceil((want - held) / (requests × 10^6)) ms
 * </pre>
 *
 * A new bucket starts full ({@code left = C}) at its first {@code now}. So in any interval of T
 * milliseconds at most {@code burst + requests × T / per} takes succeed, and a take that is told to
 * wait {@code w} succeeds when retried {@code w} after {@code t} (if nothing else took in between).
 * The same arithmetic runs in the Redis module's budget store, and {@code
 * RateBudgetStoreContractTest} holds both to one reference model.
 *
 * <p>When a name is used with another limit than before, the bucket keeps its whole tokens, at most
 * the new burst, and continues under the new limit.
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
          "budget "
              + name
              + ": permits must be 1 to burst "
              + limit.burst()
              + ", but was "
              + permits);
    long nowMs = now.toEpochMilli();
    Bucket bucket = buckets.computeIfAbsent(name, n -> new Bucket(limit));
    synchronized (bucket) {
      return bucket.tryTake(limit, permits, nowMs);
    }
  }

  /**
   * The capacity of a bucket in its units: {@code burst × per} in milliseconds (rounded up).
   *
   * @param limit the budget's rate
   * @return the capacity, in 1/per-milliseconds of a token
   * @throws IllegalArgumentException when the product does not fit a {@code long} with room for one
   *     refill step; {@code Watukuy.Builder.budget} calls this to refuse such a limit up front
   */
  public static long capacity(BudgetLimit limit) {
    long perMs = perMillis(limit.per());
    long capacity;
    try {
      capacity = Math.multiplyExact(limit.burst(), perMs);
    } catch (ArithmeticException e) {
      capacity = Long.MAX_VALUE;
    }
    if (capacity > MAX_CAPACITY)
      throw new IllegalArgumentException(
          "budget burst "
              + limit.burst()
              + " x per "
              + limit.per()
              + " is too large: burst times per in"
              + " milliseconds must stay below "
              + MAX_CAPACITY);
    return capacity;
  }

  /** {@code per} in whole milliseconds, a fraction rounded up: a slower refill never breaks G6. */
  static long perMillis(Duration per) {
    long ms = per.toMillis();
    return per.minusMillis(ms).isZero() ? ms : ms + 1;
  }

  private static final class Bucket {
    private static final BigInteger NANOS_PER_MS = BigInteger.valueOf(1_000_000);

    // Guarded by this
    private BudgetLimit limit;
    // Guarded by this. What the last successful take left, in units of 1/U token; null: unused.
    private @Nullable BigInteger left;
    // Guarded by this. Epoch milliseconds of the last successful take.
    private long lastMs;

    Bucket(BudgetLimit limit) {
      this.limit = limit;
    }

    Duration tryTake(BudgetLimit current, int permits, long nowMs) {
      BigInteger unit = unit(current);
      if (left != null && !current.equals(limit)) {
        // Another limit for this name: keep the whole tokens, at most the new burst.
        BigInteger tokens = left.divide(unit(limit)).min(BigInteger.valueOf(current.burst()));
        left = tokens.multiply(unit);
      }
      limit = current;
      BigInteger capacity = BigInteger.valueOf(current.burst()).multiply(unit);
      BigInteger perMs = BigInteger.valueOf(current.requests()).multiply(NANOS_PER_MS);
      long t;
      BigInteger held;
      if (left == null) {
        t = nowMs;
        held = capacity;
      } else {
        t = Math.max(nowMs, lastMs);
        held = left.add(BigInteger.valueOf(t - lastMs).multiply(perMs)).min(capacity);
      }
      BigInteger want = BigInteger.valueOf(permits).multiply(unit);
      if (held.compareTo(want) >= 0) {
        left = held.subtract(want);
        lastMs = t;
        return Duration.ZERO;
      }
      BigInteger[] qr = want.subtract(held).divideAndRemainder(perMs);
      return Duration.ofMillis(
          (qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE)).longValueExact());
    }

    private static BigInteger unit(BudgetLimit limit) {
      return BigInteger.valueOf(limit.per().getSeconds())
          .multiply(BigInteger.valueOf(1_000_000_000))
          .add(BigInteger.valueOf(limit.per().getNano()));
    }
  }
}
