package io.watukuy.internal.budget;

import io.watukuy.Cancellable;
import io.watukuy.TimeSource;
import java.time.Duration;
import java.time.Instant;

/**
 * A test clock for the budget gate. Skipping: a sleeper moves the clock to its wake-up instant at
 * once (the gate has one sleeper at a time). Stepping: a sleeper waits until the test's {@link
 * #advance} carries the clock there, so a test can line up waiters before any token frees.
 */
final class StepClock implements TimeSource {
  static final Instant START = Instant.parse("2026-03-01T10:00:00Z");
  private final boolean skipping;
  // Guarded by this
  private long nanos;
  // Guarded by this
  private int sleepers;

  private StepClock(boolean skipping) {
    this.skipping = skipping;
  }

  static StepClock skipping() {
    return new StepClock(true);
  }

  static StepClock stepping() {
    return new StepClock(false);
  }

  @Override
  public synchronized Instant now() {
    return START.plusNanos(nanos);
  }

  @Override
  public synchronized long nanoTime() {
    return nanos;
  }

  /** Time since the start. */
  synchronized Duration elapsed() {
    return Duration.ofNanos(nanos);
  }

  @Override
  public synchronized void sleep(Duration d) throws InterruptedException {
    if (d.isZero() || d.isNegative()) return;
    sleepUntil(nanos + d.toNanos());
  }

  @Override
  public synchronized void sleepUntil(long wake) throws InterruptedException {
    if (nanos >= wake) return;
    sleepers++;
    notifyAll();
    try {
      if (skipping) nanos = Math.max(nanos, wake);
      while (nanos < wake) wait();
    } finally {
      sleepers--;
    }
  }

  synchronized void advance(Duration d) {
    nanos += d.toNanos();
    notifyAll();
  }

  /** Waits in real time, at most 10 s, until a thread sleeps on this clock. */
  synchronized boolean awaitSleeper() throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (sleepers == 0) {
      long left = end - System.nanoTime();
      if (left <= 0) return false;
      wait(Math.max(1, left / 1_000_000));
    }
    return true;
  }

  @Override
  public Cancellable schedule(Duration delay, Runnable task) {
    throw new UnsupportedOperationException("the gate uses no timers");
  }
}
