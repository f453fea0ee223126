package io.watukuy.internal;

import io.watukuy.TimeSource;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * When a cycle must stop fetching: the tick deadline (monotonic nanos) or a stop without drain.
 * {@code stopping} ends a rate-budget wait: true once the daemon stops, with or without drain,
 * since a cycle waiting for a token has nothing in flight to finish (G6).
 */
record RunLimits(
    @Nullable Long deadlineNanos,
    BooleanSupplier cancelled,
    BooleanSupplier stopping,
    @Nullable Consumer<Instant> wake) {
  static final RunLimits NONE = new RunLimits(null, () -> false, () -> false, null);

  RunLimits(@Nullable Long deadlineNanos, BooleanSupplier cancelled) {
    this(deadlineNanos, cancelled, cancelled, null);
  }

  /**
   * Tells the daemon that a key it found not due needs no visit before {@code at} (a hint: the
   * daemon also looks again after {@code schedule.min}, and an operation of this engine clears it).
   * {@code tick()} passes no receiver.
   */
  void wakeAt(Instant at) {
    if (wake != null) wake.accept(at);
  }

  /**
   * Whether the daemon runs this cycle (it passes a wake receiver, {@code tick()} none): it logs a
   * store or destination outage once per change ({@link Outages}), so the cycle logs the attempt at
   * debug only.
   */
  boolean daemon() {
    return wake != null;
  }

  boolean expired(TimeSource time) {
    return cancelled.getAsBoolean()
        || (deadlineNanos != null && time.nanoTime() - deadlineNanos >= 0);
  }
}
