package io.watukuy.effects;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * An invocation that has been running for at least {@link #THRESHOLD} (docs/effects.md,
 * "Position"): an HTTP call a receiver holds, or an arm blocked in a {@code ctx.call}, on a lane
 * that is not stuck. A stuck lane's running retry is listed as its {@link StuckLane} (with {@link
 * StuckLane#runningMs()}), never here as well (docs/effects.md, "States").
 *
 * @param lane the lane, {@code scheme:value}; {@code null} for an event that belongs to no lane
 * @param position the running position
 * @param attempt the attempt running, from 1
 * @param runningMs milliseconds since this attempt started, on the engine's clock
 * @param error the last transport error or re-sent status of the attempt's HTTP call, with the
 *     engine's secrets hidden; {@code null} when there is none
 * @since 0.1
 */
public record InFlightLane(
    @Nullable String lane, long position, int attempt, long runningMs, @Nullable String error) {
  /**
   * How long an attempt runs before it is reported in flight: 30 s, as long as one HTTP attempt may
   * take in all (docs/effects.md, "HTTP calls"), so a call that is merely slow is not reported.
   */
  public static final Duration THRESHOLD = Duration.ofSeconds(30);

  /** Entries a status or an admin body lists at most per source key. */
  public static final int MAX = 100;
}
