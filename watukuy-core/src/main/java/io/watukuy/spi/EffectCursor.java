package io.watukuy.spi;

import io.watukuy.PollerKey;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An effect's persisted place in the event log of one source key (docs/effects.md, "Position").
 *
 * @param effect the effect's name
 * @param source the key (poller, partition) whose log the effect reads
 * @param watermark the low-water mark: every position at or below it is complete in every lane (0
 *     before the first event); invocation rows above it record which lanes went further
 * @param liveBoundary the log head when the effect first started on this key, below which an {@code
 *     on live} arm treats events as history; {@code null} until that start
 * @param schemes the key scheme's declared name per event type ({@code created} → {@code customer})
 *     that the rows above the watermark were written under; a different scheme at start while such
 *     rows exist blocks the effect
 * @param updatedAt when the row last changed
 * @since 0.1
 */
public record EffectCursor(
    String effect,
    PollerKey source,
    long watermark,
    @Nullable Long liveBoundary,
    Map<String, String> schemes,
    Instant updatedAt) {
  /**
   * Creates a cursor; copies {@code schemes}.
   *
   * @throws NullPointerException if {@code effect}, {@code source}, {@code schemes} or {@code
   *     updatedAt} is null
   * @throws IllegalArgumentException if {@code watermark} is negative
   */
  public EffectCursor {
    Objects.requireNonNull(effect, "effect");
    Objects.requireNonNull(source, "source");
    schemes = Map.copyOf(schemes);
    Objects.requireNonNull(updatedAt, "updatedAt");
    if (watermark < 0) throw new IllegalArgumentException("watermark must be >= 0: " + watermark);
  }
}
