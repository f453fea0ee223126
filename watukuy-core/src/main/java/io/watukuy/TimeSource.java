package io.watukuy;

import io.watukuy.internal.SystemTimeSource;
import java.time.Duration;
import java.time.Instant;

/**
 * Every clock read, sleep and timer of the engine goes through this port, so tests drive time with
 * a virtual clock (guarantee G8) and main code never reads the system clock or sleeps directly.
 * {@link #system()} is the production implementation.
 *
 * <p>Implementations are thread-safe.
 *
 * @since 0.1
 */
public interface TimeSource {

  /**
   * Wall-clock time: persisted, compared with leases and schedules.
   *
   * @return the current instant
   */
  Instant now();

  /**
   * Monotonic nanoseconds for measuring elapsed time (tick deadlines, cycle durations). Only
   * differences between two readings mean anything.
   *
   * @return nanoseconds since an arbitrary origin; never decreases
   */
  long nanoTime();

  /**
   * Blocks the calling thread for {@code duration} (zero or negative returns at once).
   *
   * @param duration how long to block
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  void sleep(Duration duration) throws InterruptedException;

  /**
   * Blocks the calling thread until {@link #nanoTime()} reaches {@code deadlineNanos} (a deadline
   * already reached returns at once). Unlike {@code sleep(deadline - nanoTime())}, a clock that
   * moves between the read and the sleep cannot push the wake-up past the deadline: a virtual clock
   * moved by another thread in that gap would otherwise leave the sleeper waiting for a moment
   * nobody moves it to. The default reads {@link #nanoTime()} and sleeps the difference, which is
   * exact for a clock that moves by itself; {@code VirtualClock} overrides it.
   *
   * @param deadlineNanos the {@link #nanoTime()} reading to wake at
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  default void sleepUntil(long deadlineNanos) throws InterruptedException {
    long remaining = deadlineNanos - nanoTime();
    if (remaining > 0) sleep(Duration.ofNanos(remaining));
  }

  /**
   * Runs {@code task} once after {@code delay}, on a thread of the implementation's choosing. Does
   * not block.
   *
   * @param delay how long from now; zero or negative makes it due at once
   * @param task what to run
   * @return a handle that calls the task off
   */
  Cancellable schedule(Duration delay, Runnable task);

  /**
   * The real clock: {@link java.time.Clock#systemUTC()}, {@link System#nanoTime()}, and one shared
   * daemon timer thread, started on the first {@link #schedule}.
   *
   * @return the shared instance
   */
  static TimeSource system() {
    return SystemTimeSource.INSTANCE;
  }
}
