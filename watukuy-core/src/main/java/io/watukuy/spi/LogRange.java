package io.watukuy.spi;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Which logged events {@link StateStore#readLog} returns: sequence strictly greater than {@code
 * afterSequence} (when set), created at or after {@code fromTime} and strictly before {@code
 * toTime} (when set), in sequence order.
 *
 * @param afterSequence exclusive lower bound on the sequence, or {@code null} for none
 * @param fromTime inclusive lower bound on the creation time, or {@code null} for none
 * @param toTime exclusive upper bound on the creation time, or {@code null} for none
 * @since 0.1
 */
public record LogRange(
    @Nullable Long afterSequence, @Nullable Instant fromTime, @Nullable Instant toTime) {
  /** Every logged event. */
  public static final LogRange ALL = new LogRange(null, null, null);

  /**
   * The events after a sequence, at any time.
   *
   * @param sequence exclusive lower bound; 0 selects every event
   * @return the range
   */
  public static LogRange after(long sequence) {
    return new LogRange(sequence, null, null);
  }
}
