package io.watukuy;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Options of one {@code tick()}.
 *
 * @param maxDuration a deadline for the whole tick, or null for none; a listing cut by it is
 *     truncated (no deletes) and continues next time
 * @param pollers the poller names to run, or empty for all
 * @since 0.1
 */
public record TickOptions(@Nullable Duration maxDuration, Set<String> pollers) {
  /** No deadline, every poller. */
  public static final TickOptions DEFAULT = new TickOptions(null, Set.of());

  /**
   * Validates the options; the poller set is copied.
   *
   * @param maxDuration a deadline for the whole tick, measured on {@link TimeSource#nanoTime()}, or
   *     {@code null} for none; zero or more
   * @param pollers the poller names to run, or empty for all
   * @throws NullPointerException if {@code pollers} or one of its names is null
   * @throws ConfigException if {@code maxDuration} is negative
   */
  public TickOptions {
    pollers = Set.copyOf(Objects.requireNonNull(pollers, "pollers"));
    if (maxDuration != null && maxDuration.isNegative())
      throw new ConfigException("tick maxDuration must be >= 0, but was " + maxDuration);
  }

  /**
   * Options with a deadline, for every poller.
   *
   * @param maxDuration the deadline for the whole tick; zero or more
   * @return the options
   * @throws ConfigException if {@code maxDuration} is negative
   */
  public static TickOptions deadline(Duration maxDuration) {
    return new TickOptions(maxDuration, Set.of());
  }

  /**
   * Options that run only some pollers, with no deadline.
   *
   * @param pollers the poller names; each must be registered with the engine when the tick runs
   * @return the options
   * @throws IllegalArgumentException if a name is given twice
   * @throws NullPointerException if a name is null
   */
  public static TickOptions only(String... pollers) {
    return new TickOptions(null, Set.of(pollers));
  }

  /**
   * These options with another deadline.
   *
   * @param d the deadline for the whole tick, or {@code null} for none; zero or more
   * @return new options; these are unchanged
   * @throws ConfigException if {@code d} is negative
   */
  public TickOptions withMaxDuration(@Nullable Duration d) {
    return new TickOptions(d, pollers);
  }
}
