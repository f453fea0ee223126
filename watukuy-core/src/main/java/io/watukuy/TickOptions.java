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
  public static final TickOptions DEFAULT = new TickOptions(null, Set.of());

  public TickOptions {
    pollers = Set.copyOf(Objects.requireNonNull(pollers, "pollers"));
    if (maxDuration != null && maxDuration.isNegative())
      throw new ConfigException("tick maxDuration must be >= 0, but was " + maxDuration);
  }

  public static TickOptions deadline(Duration maxDuration) {
    return new TickOptions(maxDuration, Set.of());
  }

  public static TickOptions only(String... pollers) {
    return new TickOptions(null, Set.of(pollers));
  }

  public TickOptions withMaxDuration(@Nullable Duration d) {
    return new TickOptions(d, pollers);
  }
}
