package io.watukuy.internal;

import io.watukuy.TimeSource;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * When a cycle must stop fetching: the tick deadline (monotonic nanos) or a stop without drain.
 * {@code stopping} ends a rate-budget wait: true once the daemon stops, with or without drain,
 * since a cycle waiting for a token has nothing in flight to finish (G6).
 */
record RunLimits(@Nullable Long deadlineNanos, BooleanSupplier cancelled, BooleanSupplier stopping) {
  static final RunLimits NONE = new RunLimits(null, () -> false, () -> false);

  RunLimits(@Nullable Long deadlineNanos, BooleanSupplier cancelled) {
    this(deadlineNanos, cancelled, cancelled);
  }

  boolean expired(TimeSource time) {
    return cancelled.getAsBoolean() || (deadlineNanos != null && time.nanoTime() - deadlineNanos >= 0);
  }
}
