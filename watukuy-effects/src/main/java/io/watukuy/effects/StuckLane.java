package io.watukuy.effects;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A lane whose head position failed and waits for its retry (docs/effects.md, "Position").
 *
 * @param lane the lane, {@code scheme:value}; {@code null} for an event whose key could not be
 *     resolved (it belongs to no lane)
 * @param position the failed position
 * @param attempt attempts so far
 * @param error the last failure's message
 * @param retryInMs milliseconds until the next attempt, 0 when due
 * @since 0.1
 */
public record StuckLane(
    @Nullable String lane, long position, int attempt, String error, long retryInMs) {
  /**
   * Creates an entry.
   *
   * @throws NullPointerException if {@code error} is null
   */
  public StuckLane {
    Objects.requireNonNull(error, "error");
  }
}
