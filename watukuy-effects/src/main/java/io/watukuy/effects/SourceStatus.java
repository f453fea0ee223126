package io.watukuy.effects;

import io.watukuy.PollerKey;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An effect's standing on one source key (docs/effects.md, "Position").
 *
 * @param source the key (poller, partition) whose log is read
 * @param position the watermark: every position at or below it is complete in every lane
 * @param head the key's log head: the highest position in its log ({@code
 *     PollerState.lastSequence}, read from the store when the status is asked for), or the highest
 *     position read when that is higher
 * @param lag {@code head - position}, the events of the log above the watermark; a wedge at 3 with
 *     4 and 5 done reads position 2, lag 3. It counts the whole backlog, beyond the events the
 *     reader holds ({@code readAhead})
 * @param wedgedLanes stuck lanes: lanes whose head position failed, waiting for a retry or with the
 *     retry running (docs/effects.md, "States")
 * @param stuckLanes at most 100 of them, lowest position first; with more, the rest are left out
 * @param pinningKey the lane holding the watermark down, or {@code null} when nothing does or the
 *     position belongs to no lane
 * @param pinningPosition the first incomplete position, or {@code null} when caught up
 * @param blocked whether a key scheme change stops this source key
 * @param lastError the last failure of the key as a whole (a blocked scheme, a store error), or
 *     {@code null}
 * @param inFlightLanes the invocations running for at least {@link InFlightLane#THRESHOLD} (30 s):
 *     an HTTP call a receiver holds or an arm blocked in a call, on lanes that are not stuck; at
 *     most {@link InFlightLane#MAX}, lowest position first
 * @since 0.1
 */
public record SourceStatus(
    PollerKey source,
    long position,
    long head,
    long lag,
    int wedgedLanes,
    List<StuckLane> stuckLanes,
    @Nullable String pinningKey,
    @Nullable Long pinningPosition,
    boolean blocked,
    @Nullable String lastError,
    List<InFlightLane> inFlightLanes) {
  /** Entries {@link #stuckLanes()} lists at most. */
  public static final int MAX_STUCK_LANES = 100;

  /**
   * Creates a status; copies {@code stuckLanes} and {@code inFlightLanes}.
   *
   * @throws NullPointerException if {@code source}, {@code stuckLanes} or {@code inFlightLanes} is
   *     null
   */
  public SourceStatus {
    Objects.requireNonNull(source, "source");
    stuckLanes = List.copyOf(stuckLanes);
    inFlightLanes = List.copyOf(inFlightLanes);
  }
}
