package io.watukuy.internal;

import io.watukuy.Cancellable;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.TimeSource;
import io.watukuy.spi.Lease;
import io.watukuy.spi.StateStore;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one lease alive: renews every ttl/3 on a timer and after every committed page. A failed
 * renewal only marks the lease lost; the next fenced write then fails with LeaseLostException,
 * which is what stops the cycle.
 *
 * <p>A hand-off to a handler is not a fenced write, so it asks {@link #checkHandOff()} first
 * (docs/guarantees.md, G3 and G5): the keeper knows until when, by the process's monotonic clock,
 * the lease is certainly its own (the store's expiry, mapped onto {@link TimeSource#nanoTime()}
 * when the lease was acquired or renewed), and refuses once less than the hand-off margin is left.
 * Only a monotonic reading measures a pause: a frozen process (SIGSTOP, a suspended VM, a long GC)
 * wakes up with its in-memory lease looking fine, and the timer's renewal may come after the
 * hand-off.
 */
final class LeaseKeeper implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

  private final StateStore store;
  private final TimeSource time;
  private final PollerKey key;
  private final Duration ttl;
  private final Object lock = new Object();
  // Guarded by lock
  private Lease lease;
  // Guarded by lock
  private @Nullable Cancellable timer;
  // Guarded by lock
  private boolean closed;
  private volatile boolean lost;
  // Guarded by lock: the nanoTime() reading at which the lease expires in the store
  private long validUntilNanos;
  private final long marginNanos;
  private final Duration renewEvery;

  LeaseKeeper(StateStore store, TimeSource time, PollerKey key, Lease lease, Duration ttl) {
    this.store = store;
    this.time = time;
    this.key = key;
    this.lease = lease;
    this.ttl = ttl;
    this.renewEvery = handOffMargin(ttl); // ttl/3, as the renewal period
    this.marginNanos = renewEvery.toNanos();
    // The caller acquired the lease just now: its expiry, seen from now on the monotonic clock.
    this.validUntilNanos = untilNanos(time.nanoTime(), time.now(), lease);
    schedule();
  }

  /**
   * How much of the lease must be left, by the process's monotonic clock, for an event to be handed
   * to a handler: a third of the TTL (10 s of the default 30 s). A holder whose renewals succeed
   * renews every ttl/3 and so always has two thirds left, so the check never stops a healthy
   * holder; it stops a process that was frozen, or could not renew, for more than a renewal period.
   * The margin is also the bound of what remains possible: a hand-off that starts passes the check,
   * so a stale write needs a pause longer than the margin between the check and the write
   * (docs/guarantees.md, G5).
   */
  static Duration handOffMargin(Duration ttl) {
    // Nanosecond arithmetic: Duration.dividedBy goes through BigDecimal, a cost in every cycle.
    long seconds = ttl.getSeconds();
    return Duration.ofSeconds(seconds / 3, ((seconds % 3) * 1_000_000_000L + ttl.getNano()) / 3);
  }

  /** {@code 250 ms}, {@code 2.5 s}: what a log line needs. */
  private static String text(long nanos) {
    long ms = nanos / 1_000_000;
    if (ms < 1000) return ms + " ms";
    return BigDecimal.valueOf(ms, 3).stripTrailingZeros().toPlainString() + " s";
  }

  private static long untilNanos(long nanos, Instant now, Lease lease) {
    long left = Duration.between(now, lease.expiresAt()).toNanos();
    return nanos + left;
  }

  Lease lease() {
    synchronized (lock) {
      return lease;
    }
  }

  boolean lost() {
    return lost;
  }

  /**
   * Refuses a hand-off when the lease may no longer be this instance's by the time it is done: a
   * renewal found the lease gone, or less than {@link #handOffMargin} of it is left by the
   * monotonic clock. Called right before each event is handed to a handler.
   *
   * @throws LeaseLostException naming the key, the epoch and the reason
   */
  void checkHandOff() {
    Lease held;
    long left;
    synchronized (lock) {
      held = lease;
      left = validUntilNanos - time.nanoTime();
    }
    if (lost)
      throw LeaseLostException.givenUp(
          key,
          held.epoch(),
          "which a renewal found taken by another instance or released; no event is handed to a"
              + " handler under it, the loaded ones stay pending for the next holder");
    if (left < marginNanos)
      throw LeaseLostException.givenUp(
          key,
          held.epoch(),
          "which has "
              + text(Math.max(0, left))
              + " left by this process's clock, less than the hand-off margin of "
              + text(marginNanos)
              + " (a third of the lease TTL): the process was paused or could not renew; no"
              + " event is handed to a handler under it, the loaded ones stay pending for the next"
              + " holder");
  }

  /** Renews now; returns false when the lease is gone. */
  boolean renew() {
    Lease current;
    synchronized (lock) {
      if (closed) return false;
      current = lease;
    }
    Optional<Lease> renewed;
    // Read before the call: the store counts the new expiry from this instant.
    long nanos = time.nanoTime();
    Instant now = time.now();
    try {
      renewed = store.renewLease(key, current, ttl, now);
    } catch (RuntimeException e) {
      log.warn("{}: lease renewal failed: {}", Who.key(key), e.toString());
      return !lost;
    }
    synchronized (lock) {
      if (renewed.isPresent()) {
        lease = renewed.get();
        // A renewal that started earlier but answered later cannot shorten what a later one gave.
        validUntilNanos = Math.max(validUntilNanos, untilNanos(nanos, now, lease));
      } else lost = true;
    }
    return renewed.isPresent();
  }

  private void schedule() {
    synchronized (lock) {
      if (closed) return;
      timer = time.schedule(renewEvery, this::beat);
    }
  }

  private void beat() {
    if (renew()) schedule();
  }

  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      if (timer != null) timer.cancel();
      timer = null;
    }
  }
}
