package io.watukuy.internal;

import io.watukuy.Cancellable;
import io.watukuy.PollerKey;
import io.watukuy.TimeSource;
import io.watukuy.spi.Lease;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one lease alive: renews every ttl/3 on a timer and after every committed page. A failed
 * renewal only marks the lease lost; the next fenced write then fails with LeaseLostException,
 * which is what stops the cycle.
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

  LeaseKeeper(StateStore store, TimeSource time, PollerKey key, Lease lease, Duration ttl) {
    this.store = store;
    this.time = time;
    this.key = key;
    this.lease = lease;
    this.ttl = ttl;
    schedule();
  }

  Lease lease() {
    synchronized (lock) {
      return lease;
    }
  }

  boolean lost() {
    return lost;
  }

  /** Renews now; returns false when the lease is gone. */
  boolean renew() {
    Lease current;
    synchronized (lock) {
      if (closed) return false;
      current = lease;
    }
    Optional<Lease> renewed;
    try {
      renewed = store.renewLease(key, current, ttl, time.now());
    } catch (RuntimeException e) {
      log.warn("{}: lease renewal failed: {}", Who.key(key), e.toString());
      return !lost;
    }
    synchronized (lock) {
      if (renewed.isPresent()) lease = renewed.get();
      else lost = true;
    }
    return renewed.isPresent();
  }

  private void schedule() {
    synchronized (lock) {
      if (closed) return;
      timer = time.schedule(ttl.dividedBy(3), this::beat);
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
