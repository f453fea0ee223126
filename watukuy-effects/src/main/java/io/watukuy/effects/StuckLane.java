package io.watukuy.effects;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A lane whose head position failed (docs/effects.md, "Position" and "States"): it waits for its
 * retry, or its retry attempt is running ({@link #runningMs()} not null). Either way the lane is
 * stuck, and it is never listed among the in-flight lanes as well.
 *
 * @param lane the lane, {@code scheme:value}; {@code null} for an event whose key could not be
 *     resolved (it belongs to no lane)
 * @param position the failed position
 * @param attempt attempts so far: the failed one while it waits, the running one while its retry
 *     runs (as its stored row says)
 * @param error the last failure's message, or the running retry's last HTTP re-send reason
 * @param retryInMs milliseconds until the next attempt, 0 when due or running
 * @param runningMs milliseconds the retry attempt has been running, on the reader's clock; {@code
 *     null} while the lane waits for its retry
 * @since 0.1
 */
public record StuckLane(
    @Nullable String lane,
    long position,
    int attempt,
    String error,
    long retryInMs,
    @Nullable Long runningMs) {
  /**
   * Creates an entry.
   *
   * @throws NullPointerException if {@code error} is null
   */
  public StuckLane {
    Objects.requireNonNull(error, "error");
  }

  /**
   * Creates an entry for a lane that waits for its retry ({@code runningMs} null).
   *
   * @throws NullPointerException if {@code error} is null
   */
  public StuckLane(
      @Nullable String lane, long position, int attempt, String error, long retryInMs) {
    this(lane, position, attempt, error, retryInMs, null);
  }
}
