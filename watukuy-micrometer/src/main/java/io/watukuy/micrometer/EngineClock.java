package io.watukuy.micrometer;

import io.micrometer.core.instrument.Clock;
import io.watukuy.TimeSource;
import java.util.Objects;

/**
 * A Micrometer {@link Clock} that reads the engine's {@link TimeSource}. Observations (and so the
 * {@code watukuy.poll}, {@code watukuy.http.client.requests} and {@code watukuy.budget.wait}
 * timers) are timed by the meter registry's clock, not by the engine: a registry built on this
 * clock times them on the engine's clock, which with a virtual clock makes every timer value exact
 * (docs/operations.md, "Metrics"). With the system clock it measures what {@link Clock#SYSTEM}
 * measures, so production registries need not use it.
 *
 * <pre>{@code
 * MeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, new EngineClock(clock));
 * }</pre>
 *
 * @since 0.3
 */
public final class EngineClock implements Clock {
  private final TimeSource time;

  /**
   * A clock over a time source.
   *
   * @param time the engine's time source, the one given to {@code Watukuy.builder().time(..)}
   * @throws NullPointerException if time is null
   */
  public EngineClock(TimeSource time) {
    this.time = Objects.requireNonNull(time, "time");
  }

  /** {@return milliseconds since the epoch of the time source's {@link TimeSource#now()}} */
  @Override
  public long wallTime() {
    return time.now().toEpochMilli();
  }

  /** {@return the time source's {@link TimeSource#nanoTime()}} */
  @Override
  public long monotonicTime() {
    return time.nanoTime();
  }
}
