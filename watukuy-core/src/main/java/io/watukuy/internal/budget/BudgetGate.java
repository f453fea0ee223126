package io.watukuy.internal.budget;

import io.watukuy.BudgetLimit;
import io.watukuy.BudgetTimeoutException;
import io.watukuy.Lane;
import io.watukuy.PollerKey;
import io.watukuy.TimeSource;
import io.watukuy.internal.budget.FairOrder.Waiter;
import io.watukuy.spi.RateBudgetStore;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One budget of this process: charges the {@link RateBudgetStore} one token per request and queues
 * the requests that must wait, in {@link FairOrder}.
 *
 * <p>How a wait works. A request joins the order and the gate hands out what the store has, head
 * first. If the request got nothing, one waiting thread at a time (the sleeper) sleeps on the
 * engine's {@link TimeSource} until the store said a token would be there, or the earliest deadline
 * of any waiter, or {@link #CHECK_EVERY}, whichever comes first; then it hands out tokens, head
 * first, ends the waits that are over and wakes the others. The others wait on the gate's monitor,
 * which needs no clock. One sleeper per gate keeps a virtual clock moving to exactly the instants
 * where something happens. A thread that is the sleeper and asks again (a timer task run by its own
 * sleep) becomes a nested sleeper instead of waiting for itself.
 *
 * <p>Thread-safe.
 */
final class BudgetGate {
  /**
   * The longest single sleep: a waiter whose cycle is stopped, or one that joined with an earlier
   * deadline while the sleeper slept, is seen within this time.
   */
  static final Duration CHECK_EVERY = Duration.ofSeconds(1);

  private static final long LONGEST_NANOS = Long.MAX_VALUE / 4;
  private static final Duration LONGEST = Duration.ofNanos(LONGEST_NANOS);

  private final String name;
  private final BudgetLimit limit;
  private final RateBudgetStore store;
  private final TimeSource time;
  private final Object lock = new Object();
  // Guarded by lock
  private final FairOrder order = new FairOrder();
  // Guarded by lock. The thread sleeping for every waiter, and how deep it nests.
  private @Nullable Thread sleeper;
  // Guarded by lock
  private int sleeperDepth;
  // Guarded by lock. When the store expects a token (monotonic nanos); meaningful while
  // requests wait.
  private long tokenAt;

  BudgetGate(String name, BudgetLimit limit, RateBudgetStore store, TimeSource time) {
    this.name = name;
    this.limit = limit;
    this.store = store;
    this.time = time;
    this.tokenAt = time.nanoTime();
  }

  String name() {
    return name;
  }

  BudgetLimit limit() {
    return limit;
  }

  /**
   * Blocks until the request got its token.
   *
   * @param maxWait the longest wait; zero fails at once when no token is there
   * @param tickDeadlineNanos the tick's deadline on {@link TimeSource#nanoTime()}, or null
   * @param stopped true once the cycle must stop; checked at least every {@link #CHECK_EVERY}
   * @param onWait called once, outside the lock, when the request has to wait, with the expected
   *     wait
   * @throws BudgetTimeoutException when no token came before the deadline, or the cycle stopped
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws io.watukuy.StoreException when a shared store cannot be reached
   */
  void acquire(
      PollerKey key,
      Lane lane,
      int weight,
      Duration maxWait,
      @Nullable Long tickDeadlineNanos,
      BooleanSupplier stopped,
      Consumer<Duration> onWait)
      throws InterruptedException {
    Thread me = Thread.currentThread();
    long start = time.nanoTime();
    long deadline = start + bounded(maxWait);
    boolean tickCut = false;
    if (tickDeadlineNanos != null && tickDeadlineNanos - deadline < 0) {
      deadline = tickDeadlineNanos;
      tickCut = true;
    }
    Waiter w;
    Duration expected;
    boolean sleeping = false;
    synchronized (lock) {
      w = order.add(key, lane, weight, start, deadline, tickCut, stopped);
      try {
        settle();
      } catch (RuntimeException e) {
        order.remove(w);
        lock.notifyAll();
        throw e;
      }
      if (w.granted) return;
      expected = expectedWait(w, start);
    }
    try {
      onWait.accept(expected);
      while (true) {
        long wake;
        synchronized (lock) {
          while (!w.granted && !w.expired && sleeper != null && sleeper != me) lock.wait();
          if (w.granted) return;
          if (w.expired) throw timeout(w, maxWait);
          sleeper = me;
          sleeperDepth++;
          sleeping = true;
          long now = time.nanoTime();
          wake = earliest(tokenAt, now + CHECK_EVERY.toNanos());
          for (Waiter other : order.waiters()) wake = earliest(wake, other.deadlineNanos);
        }
        // Until an instant, not for a duration: a clock moved between the read above and the
        // sleep must not carry the wake-up past the token (a virtual clock would then wait for a
        // moment nobody moves it to).
        time.sleepUntil(wake);
        synchronized (lock) {
          sleeping = false;
          if (--sleeperDepth == 0) sleeper = null;
          settle();
        }
      }
    } finally {
      synchronized (lock) {
        if (sleeping && --sleeperDepth == 0) sleeper = null;
        // Interrupted, or the store failed: the request leaves the order.
        if (!w.granted && !w.expired) order.remove(w);
        lock.notifyAll();
      }
    }
  }

  /**
   * Ends the waits of stopped cycles, hands out tokens head first, ends the waits whose deadline
   * has come, and wakes every waiter. Tokens go out before deadlines are looked at, so a request
   * with {@code maxWait} zero still gets a token that is there, and one whose token comes exactly
   * at its deadline gets it. Caller holds lock.
   */
  private void settle() {
    for (Waiter w : order.waiters()) if (w.stopped.getAsBoolean()) order.expire(w, true);
    while (order.head() != null) {
      long at = time.nanoTime();
      Instant instant = time.now();
      Duration wait = store.tryTake(name, limit, 1, instant);
      if (wait.isZero() || wait.isNegative()) {
        order.grantHead();
      } else {
        tokenAt = at + bounded(wait);
        break;
      }
    }
    long now = time.nanoTime();
    for (Waiter w : order.waiters()) if (w.deadlineNanos - now <= 0) order.expire(w, false);
    lock.notifyAll();
  }

  /**
   * The wait the request can expect: until the store's next token, plus one refill step per request
   * ahead of it. Exact for the in-memory store when nothing of higher priority arrives.
   */
  private Duration expectedWait(Waiter w, long now) {
    long first = Math.max(0, tokenAt - now);
    long ahead = order.ahead(w);
    long stepNanos = bounded(limit.per()) / limit.requests();
    return Duration.ofNanos(saturatedAdd(first, saturatedMultiply(ahead, stepNanos)));
  }

  private BudgetTimeoutException timeout(Waiter w, Duration maxWait) {
    Duration waited = Duration.ofNanos(Math.max(0, time.nanoTime() - w.enqueuedNanos));
    BudgetTimeoutException.Reason reason =
        w.expiredByStop
            ? BudgetTimeoutException.Reason.STOPPED
            : w.deadlineIsTick
                ? BudgetTimeoutException.Reason.TICK_DEADLINE
                : BudgetTimeoutException.Reason.MAX_WAIT;
    return new BudgetTimeoutException(name, w.key, waited, maxWait, reason);
  }

  /** The earlier of two monotonic readings (which may wrap). */
  private static long earliest(long a, long b) {
    return a - b <= 0 ? a : b;
  }

  /**
   * A duration in nanoseconds, at most {@link #LONGEST_NANOS}: monotonic readings are compared by
   * their difference, which must not overflow, so no wait is taken as longer than about 73 years.
   */
  private static long bounded(Duration d) {
    if (d.isNegative()) return 0;
    if (d.compareTo(LONGEST) >= 0) return LONGEST_NANOS;
    return d.toNanos();
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    if (((a ^ sum) & (b ^ sum)) < 0) return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
    return sum;
  }

  private static long saturatedMultiply(long a, long b) {
    long high = Math.multiplyHigh(a, b);
    long low = a * b;
    if ((high == 0 && low >= 0) || (high == -1 && low < 0)) return low;
    return (a < 0) == (b < 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
  }
}
