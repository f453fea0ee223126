package io.watukuy;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Which logged events {@link StateStore#readLog} returns: sequence strictly greater than
 * {@code afterSequence} (when set), created at or after {@code fromTime} and strictly before
 * {@code toTime} (when set), in sequence order.
 *
 * @since 0.1
 */
public record LogRange(@Nullable Long afterSequence, @Nullable Instant fromTime, @Nullable Instant toTime) {
  public static final LogRange ALL = new LogRange(null, null, null);

  public static LogRange after(long sequence) {
    return new LogRange(sequence, null, null);
  }
}
