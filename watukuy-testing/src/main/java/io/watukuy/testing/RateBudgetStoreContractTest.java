package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.BudgetLimit;
import io.watukuy.spi.RateBudgetStore;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link RateBudgetStore} passes (docs/guarantees.md, G6; docs/stores.md,
 * "RateBudgetStore (G6)"): the token bucket of {@link RateBudgetStore}'s Javadoc, checked at exact
 * instants against values worked out by hand and, for a seeded random sequence, against {@link
 * Reference}, a plain model of the formula in exact rational arithmetic.
 *
 * <p>Extend it with a class that returns a fresh, empty store from {@link #newStore()}:
 *
 * <pre>{@code
 * class MyBudgetStoreContractTest extends RateBudgetStoreContractTest {
 *   @Override protected RateBudgetStore newStore() { return new MyBudgetStore(freshPrefix()); }
 * }
 * }</pre>
 *
 * <p><b>What the suite pins beyond the port's formula.</b> Every {@code now} is {@link #T0} plus a
 * whole number of milliseconds, and the suite never reads the clock, so a store may keep instants
 * in milliseconds. A refused take answers the exact time until the bucket holds the permits,
 * rounded <em>up</em> to a whole millisecond: a take at {@code now + answer} succeeds, one a
 * millisecond earlier does not. A refused take changes nothing, so "the last update" of the
 * clock-going-backwards rule is the last successful take. The suite uses limits whose arithmetic
 * stays small ({@code burst} at most 100, {@code per} at most 10 s); it assumes nothing about how a
 * store keeps its buckets (memory, a server) beyond one store object per test and thread-safety.
 *
 * @since 0.1
 */
public abstract class RateBudgetStoreContractTest {

  /** The instant every test starts at. */
  protected static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

  /** Seeds of {@link #seededRandomSequencesMatchTheReferenceModel()}. */
  private static final long[] SEEDS = {1, 7, 42, 2024, 90_210};

  /** Steps per seed. */
  private static final int STEPS = 400;

  /** Bound on any wait for worker threads. */
  private static final Duration THREAD_WAIT = Duration.ofSeconds(60);

  private @Nullable RateBudgetStore store;

  /**
   * A fresh, empty store. Called once before each test.
   *
   * @return a store that shares no bucket with stores returned earlier
   */
  protected abstract RateBudgetStore newStore();

  /**
   * Tears down a store after a test: defaults to nothing; override to delete keys or files.
   *
   * @param store the store returned by {@link #newStore()} for the test that just ran
   */
  protected void destroy(RateBudgetStore store) {}

  /**
   * The store of the running test.
   *
   * @return the store {@link #newStore()} returned for this test
   * @throws IllegalStateException if called outside a test
   */
  protected final RateBudgetStore store() {
    RateBudgetStore s = store;
    if (s == null) {
      throw new IllegalStateException("no store: called outside a test");
    }
    return s;
  }

  @BeforeEach
  final void createStore() {
    store = newStore();
  }

  @AfterEach
  final void destroyStore() {
    RateBudgetStore s = store;
    store = null;
    if (s != null) {
      destroy(s);
    }
  }

  // ------------------------------------------------------------------ first use, empty, refill

  @Test
  void firstUseHoldsTheFullBurst() {
    BudgetLimit limit = new BudgetLimit(5, Duration.ofSeconds(10), 5);

    for (int i = 0; i < 5; i++) {
      assertThat(take("erp", limit, 1, 0)).as("take %d", i + 1).isZero();
    }
    // Empty: one token every 2 s.
    assertThat(take("erp", limit, 1, 0)).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void anEmptyBucketAnswersTheExactWaitAndRefillsAtThatInstant() {
    // The budget of G6's first test (docs/guarantees.md, G6): 2 requests per 10 s, burst 2.
    BudgetLimit limit = BudgetLimit.of(2, Duration.ofSeconds(10));

    assertThat(take("erp", limit, 1, 0)).isZero();
    assertThat(take("erp", limit, 1, 0)).isZero();
    assertThat(take("erp", limit, 1, 0)).isEqualTo(Duration.ofSeconds(5));
    assertThat(take("erp", limit, 1, 4_999)).isEqualTo(Duration.ofMillis(1));
    assertThat(take("erp", limit, 1, 5_000)).isZero();
    // Taken at 5 s, so empty again; the next token is due at 10 s.
    assertThat(take("erp", limit, 1, 5_000)).isEqualTo(Duration.ofSeconds(5));
    assertThat(take("erp", limit, 1, 10_000)).isZero();
  }

  @Test
  void fractionalRefillIsExactAndWaitsRoundUpToAWholeMillisecond() {
    // 3 per second: one token every 333⅓ ms. Worked out with fractions of a token.
    BudgetLimit limit = BudgetLimit.of(3, Duration.ofSeconds(1));
    for (int i = 0; i < 3; i++) {
      assertThat(take("erp", limit, 1, 0)).isZero();
    }
    assertThat(take("erp", limit, 1, 0)).isEqualTo(Duration.ofMillis(334)); // 333.33 ms
    assertThat(take("erp", limit, 1, 333)).isEqualTo(Duration.ofMillis(1)); // holds 0.999
    assertThat(take("erp", limit, 1, 334)).isZero(); // holds 1.002, leaves 0.002
    assertThat(take("erp", limit, 1, 334)).isEqualTo(Duration.ofMillis(333)); // 332.67 ms
    assertThat(take("erp", limit, 1, 666)).isEqualTo(Duration.ofMillis(1)); // holds 0.998
    assertThat(take("erp", limit, 1, 667)).isZero(); // holds 1.001, leaves 0.001
    assertThat(take("erp", limit, 1, 1_000)).isZero(); // holds exactly 1.000, leaves 0
    assertThat(take("erp", limit, 1, 1_000)).isEqualTo(Duration.ofMillis(334));
  }

  @Test
  void anIdleBucketRefillsOnlyUpToItsBurst() {
    BudgetLimit limit = new BudgetLimit(10, Duration.ofSeconds(1), 3);

    for (int i = 0; i < 3; i++) {
      assertThat(take("erp", limit, 1, 0)).isZero();
    }
    assertThat(take("erp", limit, 1, 0)).isEqualTo(Duration.ofMillis(100));

    long anHourLater = Duration.ofHours(1).toMillis();
    for (int i = 0; i < 3; i++) {
      assertThat(take("erp", limit, 1, anHourLater)).as("take %d", i + 1).isZero();
    }
    assertThat(take("erp", limit, 1, anHourLater)).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void takesOfSeveralPermitsAreAllOrNothing() {
    BudgetLimit limit = BudgetLimit.of(4, Duration.ofSeconds(1)); // a token every 250 ms

    assertThat(take("erp", limit, 3, 0)).isZero(); // leaves 1
    assertThat(take("erp", limit, 2, 0)).isEqualTo(Duration.ofMillis(250));
    assertThat(take("erp", limit, 1, 0)).isZero(); // the refused take of 2 took nothing
    assertThat(take("erp", limit, 4, 0)).isEqualTo(Duration.ofSeconds(1));
    assertThat(take("erp", limit, 4, 999)).isEqualTo(Duration.ofMillis(1)); // holds 3.996
    assertThat(take("erp", limit, 3, 999)).isZero(); // leaves 0.996
    assertThat(take("erp", limit, 1, 1_000)).isZero(); // holds exactly 1.000
  }

  @Test
  void permitsOutsideOneToBurstAreRejected() {
    BudgetLimit limit = new BudgetLimit(10, Duration.ofSeconds(1), 4);

    assertThatThrownBy(() -> take("erp", limit, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> take("erp", limit, -1, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> take("erp", limit, 5, 0)).isInstanceOf(IllegalArgumentException.class);
    // Nothing was taken by the rejected calls.
    assertThat(take("erp", limit, 4, 0)).isZero();
  }

  // ------------------------------------------------------------------ clocks

  @Test
  void aNowBeforeTheLastTakeCountsAsTheLastTake() {
    BudgetLimit limit = BudgetLimit.of(1, Duration.ofSeconds(1));

    assertThat(take("erp", limit, 1, 5_000)).isZero();
    // 4 s is before the last take at 5 s: it counts as 5 s, so the wait is 1 s, not 2 s.
    assertThat(take("erp", limit, 1, 4_000)).isEqualTo(Duration.ofSeconds(1));
    assertThat(take("erp", limit, 1, 5_999)).isEqualTo(Duration.ofMillis(1));
    assertThat(take("erp", limit, 1, 6_000)).isZero();
    // A take from a clock behind: it counts as 6 s, and the bucket is empty then.
    assertThat(take("erp", limit, 1, 0)).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aRefusedTakeChangesNothing() {
    BudgetLimit limit = BudgetLimit.of(1, Duration.ofSeconds(10));

    assertThat(take("erp", limit, 1, 0)).isZero();
    assertThat(take("erp", limit, 1, 8_000)).isEqualTo(Duration.ofSeconds(2));
    // The refusal at 8 s did not move the bucket's last update: 5 s still counts as 5 s.
    assertThat(take("erp", limit, 1, 5_000)).isEqualTo(Duration.ofSeconds(5));
    assertThat(take("erp", limit, 1, 10_000)).isZero();
  }

  // ------------------------------------------------------------------ names

  @Test
  void bucketsOfTwoNamesAreIndependent() {
    BudgetLimit one = BudgetLimit.of(1, Duration.ofSeconds(10));
    BudgetLimit three = BudgetLimit.of(3, Duration.ofSeconds(3));

    assertThat(take("erp", one, 1, 0)).isZero();
    assertThat(take("erp", one, 1, 0)).isEqualTo(Duration.ofSeconds(10));

    assertThat(take("crm", three, 3, 0)).isZero();
    assertThat(take("crm", three, 1, 0)).isEqualTo(Duration.ofSeconds(1));
    assertThat(take("erp", one, 1, 0)).isEqualTo(Duration.ofSeconds(10));
    assertThat(take("crm", three, 1, 1_000)).isZero();
    assertThat(take("erp", one, 1, 10_000)).isZero();
  }

  @Test
  void namesThatLookAlikeAreDistinctBuckets() {
    BudgetLimit limit = BudgetLimit.of(1, Duration.ofMinutes(1));
    List<String> names = List.of("erp", "ERP", "erp ", "erp:1", "erp{1}", "{erp}", "ünïcödé");

    for (String name : names) {
      assertThat(take(name, limit, 1, 0)).as("first take of '%s'", name).isZero();
    }
    for (String name : names) {
      assertThat(take(name, limit, 1, 0))
          .as("second take of '%s'", name)
          .isEqualTo(Duration.ofMinutes(1));
    }
  }

  // ------------------------------------------------------------------ the reference model

  @Test
  void seededRandomSequencesMatchTheReferenceModel() {
    for (long seed : SEEDS) {
      SeededRandom random = SeededRandom.of(seed);
      // Limits with whole, odd and sub-millisecond periods; bursts below, at and above the rate.
      Map<String, BudgetLimit> limits = new HashMap<>();
      limits.put(
          "s" + seed + "-a",
          new BudgetLimit(
              1 + random.nextInt(20),
              Duration.ofMillis(1 + random.nextInt(10_000)),
              1 + random.nextInt(20)));
      limits.put("s" + seed + "-b", new BudgetLimit(7, Duration.ofMillis(1_234), 3));
      limits.put("s" + seed + "-c", new BudgetLimit(3, Duration.ofNanos(2_500_000), 5));
      limits.put("s" + seed + "-d", new BudgetLimit(100, Duration.ofMinutes(1), 100));
      List<String> names = new ArrayList<>(limits.keySet());
      names.sort(null);
      Map<String, Reference> models = new HashMap<>();
      Map<String, Long> clocks = new HashMap<>();
      for (String name : names) {
        models.put(name, new Reference(limits.get(name)));
        clocks.put(name, 0L);
      }
      for (int step = 0; step < STEPS; step++) {
        String name = names.get(random.nextInt(names.size()));
        BudgetLimit limit = limits.get(name);
        long perMs = Math.max(1, limit.per().toMillis());
        long clock = clocks.get(name);
        long now;
        int move = random.nextInt(10);
        if (move < 2) {
          now = Math.max(0, clock - random.nextInt(50)); // a caller whose clock is a little behind
        } else {
          if (move < 8) {
            clock += random.nextInt((int) Math.min(perMs * 2 / limit.requests() + 2, 100_000));
          } else if (move == 8) {
            clock += random.nextInt((int) Math.min(perMs * 3, 1_000_000));
          } // 9: the same instant again
          clocks.put(name, clock);
          now = clock;
        }
        int permits = 1 + random.nextInt(limit.burst());

        Duration expected = models.get(name).tryTake(permits, now);
        Duration actual = take(name, limit, permits, now);

        assertThat(actual)
            .as(
                "seed %d step %d: %s %s takes %d at T0+%d ms",
                seed, step, name, limit, permits, now)
            .isEqualTo(expected);
      }
    }
  }

  // ------------------------------------------------------------------ concurrency

  @Test
  void concurrentTakesAtOneInstantTakeExactlyTheBurst() throws Exception {
    BudgetLimit limit = new BudgetLimit(1, Duration.ofHours(1), 100);
    int threads = 8;
    int each = 40;
    AtomicInteger taken = new AtomicInteger();
    List<Duration> refusals = Collections.synchronizedList(new ArrayList<>());

    runConcurrently(
        threads,
        t -> {
          for (int i = 0; i < each; i++) {
            Duration wait = take("erp", limit, 1, 0);
            if (wait.isZero()) {
              taken.incrementAndGet();
            } else {
              refusals.add(wait);
            }
          }
        });

    assertThat(taken.get()).isEqualTo(100);
    assertThat(refusals).hasSize(threads * each - 100).containsOnly(Duration.ofHours(1));
  }

  @Test
  void concurrentTakesOverTimeNeverExceedTheRule() throws Exception {
    // 10 per 100 ms, burst 5; four threads each take once per millisecond from 0 to 199 ms.
    BudgetLimit limit = new BudgetLimit(10, Duration.ofMillis(100), 5);
    int threads = 4;
    int lastMs = 199;
    AtomicInteger taken = new AtomicInteger();

    runConcurrently(
        threads,
        t -> {
          for (int ms = 0; ms <= lastMs; ms++) {
            if (take("erp", limit, 1, ms).isZero()) {
              taken.incrementAndGet();
            }
          }
        });

    // burst + requests * T / per = 5 + 10 * 199 / 100 = 24.9; the first five takes always succeed.
    assertThat(taken.get()).isBetween(5, 24);
  }

  // ------------------------------------------------------------------ helpers

  /**
   * Calls the store at {@code T0 + atMs}.
   *
   * @param name budget name
   * @param limit its rate
   * @param permits tokens to take
   * @param atMs milliseconds after {@link #T0}
   * @return the store's answer
   */
  protected final Duration take(String name, BudgetLimit limit, int permits, long atMs) {
    return store().tryTake(name, limit, permits, T0.plusMillis(atMs));
  }

  /** Work of one thread of {@link #runConcurrently}. */
  @FunctionalInterface
  private interface Work {
    void run(int thread) throws Exception;
  }

  private static void runConcurrently(int threads, Work work) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  work.run(thread);
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(THREAD_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } finally {
      pool.shutdownNow();
      pool.awaitTermination(THREAD_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * A plain model of {@link RateBudgetStore}'s formula for one bucket, in exact rational arithmetic
   * ({@link BigInteger}, tokens counted in units of {@code 1 / per-in-nanoseconds}), to compare a
   * store with. Not thread-safe.
   *
   * <p>The bucket holds {@code burst} at its first take; at {@code now} it holds {@code min(burst,
   * left + (now - last) * requests / per)}, where {@code left} is what the last successful take
   * left at {@code last}, and a {@code now} before {@code last} counts as {@code last}. A refused
   * take answers the exact time until the bucket holds the permits, rounded up to a whole
   * millisecond, and changes nothing.
   *
   * @since 0.1
   */
  public static final class Reference {
    private static final BigInteger NANOS_PER_MS = BigInteger.valueOf(1_000_000);

    private final BudgetLimit limit;

    /** Nanoseconds in {@code per}: a token is this many units. */
    private final BigInteger unit;

    /** Units added per millisecond. */
    private final BigInteger perMs;

    /** What the last successful take left, in units; null before the first take. */
    private @Nullable BigInteger left;

    /** When the last successful take happened, in ms; meaningless before the first take. */
    private long last;

    /**
     * A bucket never used yet.
     *
     * @param limit its rate
     */
    public Reference(BudgetLimit limit) {
      this.limit = Objects.requireNonNull(limit, "limit");
      this.unit =
          BigInteger.valueOf(limit.per().getSeconds())
              .multiply(BigInteger.valueOf(1_000_000_000))
              .add(BigInteger.valueOf(limit.per().getNano()));
      this.perMs = BigInteger.valueOf(limit.requests()).multiply(NANOS_PER_MS);
    }

    /**
     * The port's {@code tryTake} for this bucket.
     *
     * @param permits tokens to take, 1 to burst
     * @param nowMs the caller's clock in ms
     * @return {@link Duration#ZERO} when taken, else the whole milliseconds until the bucket holds
     *     {@code permits}
     */
    public Duration tryTake(int permits, long nowMs) {
      if (permits < 1 || permits > limit.burst()) {
        throw new IllegalArgumentException(
            "permits must be 1 to " + limit.burst() + ", but was " + permits);
      }
      BigInteger capacity = BigInteger.valueOf(limit.burst()).multiply(unit);
      BigInteger held;
      long at;
      if (left == null) {
        held = capacity;
        at = nowMs;
      } else {
        at = Math.max(nowMs, last);
        held = left.add(BigInteger.valueOf(at - last).multiply(perMs)).min(capacity);
      }
      BigInteger want = BigInteger.valueOf(permits).multiply(unit);
      if (held.compareTo(want) >= 0) {
        left = held.subtract(want);
        last = at;
        return Duration.ZERO;
      }
      BigInteger[] qr = want.subtract(held).divideAndRemainder(perMs);
      BigInteger ms = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
      return Duration.ofMillis(ms.longValueExact());
    }
  }
}
