package io.watukuy.internal;

import io.watukuy.TimeSource;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * When a cycle must stop fetching: the tick deadline (monotonic nanos) or a stop without drain.
 */
record RunLimits(@Nullable Long deadlineNanos, BooleanSupplier cancelled) {
  static final RunLimits NONE = new RunLimits(null, () -> false);

  boolean expired(TimeSource time) {
    return cancelled.getAsBoolean() || (deadlineNanos != null && time.nanoTime() - deadlineNanos >= 0);
  }
}
