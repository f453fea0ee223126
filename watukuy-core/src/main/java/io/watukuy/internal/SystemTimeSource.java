package io.watukuy.internal;

import io.watukuy.Cancellable;
import io.watukuy.TimeSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The production {@link TimeSource}: the only place that reads the real clock. */
public final class SystemTimeSource implements TimeSource {
  public static final SystemTimeSource INSTANCE = new SystemTimeSource();

  private final Clock clock = Clock.systemUTC();

  // Lazily created so that merely referencing the system clock starts no thread.
  private static final class Timer {
    static final ScheduledExecutorService EXECUTOR = executor();

    private static ScheduledExecutorService executor() {
      ScheduledThreadPoolExecutor e =
          new ScheduledThreadPoolExecutor(
              1,
              r -> {
                Thread t = new Thread(r, "watukuy-timer");
                t.setDaemon(true);
                return t;
              });
      // Every cycle schedules its lease renewal and cancels it a few milliseconds later: kept in
      // the queue, each cancelled renewal woke this thread once at its time, thousands a minute
      // with many keys (docs/architecture.md, "What an idle poll costs").
      e.setRemoveOnCancelPolicy(true);
      return e;
    }
  }

  private SystemTimeSource() {}

  @Override
  public Instant now() {
    return clock.instant();
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public void sleep(Duration duration) throws InterruptedException {
    if (duration.isNegative() || duration.isZero()) return;
    TimeUnit.NANOSECONDS.sleep(duration.toNanos());
  }

  @Override
  public Cancellable schedule(Duration delay, Runnable task) {
    ScheduledFuture<?> f =
        Timer.EXECUTOR.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
    return () -> f.cancel(false);
  }
}
