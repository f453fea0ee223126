package io.watukuy.spi;

import io.watukuy.ScheduleState;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A partial update of a {@link PollerState}: each non-null field replaces the stored one, a null
 * field leaves it alone. {@code cursors} replaces the whole cursor map. Applied by {@link
 * PollerState#apply}.
 *
 * @param cursors the new lane-to-cursor-JSON map, replacing the stored one whole, or {@code null}
 * @param schedule the new schedule, or {@code null}
 * @param schemaVersion the new schema version, or {@code null}
 * @param lastSequence the new highest outbox sequence, or {@code null}
 * @since 0.1
 */
public record StatePatch(
    @Nullable Map<String, String> cursors,
    @Nullable ScheduleState schedule,
    @Nullable Integer schemaVersion,
    @Nullable Long lastSequence) {

  /**
   * Creates a patch; a cursor map is copied.
   *
   * @param cursors the new cursor map, or {@code null}
   * @param schedule the new schedule, or {@code null}
   * @param schemaVersion the new schema version, or {@code null}
   * @param lastSequence the new highest outbox sequence, or {@code null}
   * @throws NullPointerException if the cursor map holds a null name or text
   */
  public StatePatch {
    if (cursors != null) cursors = Map.copyOf(cursors);
  }

  /** A patch that changes nothing. */
  public static final StatePatch NONE = new StatePatch(null, null, null, null);

  /**
   * A patch that replaces the schedule only.
   *
   * @param s the new schedule
   * @return the patch
   */
  public static StatePatch schedule(ScheduleState s) {
    return new StatePatch(null, s, null, null);
  }

  /**
   * This patch with a cursor map.
   *
   * @param c the new lane-to-cursor-JSON map; copied
   * @return a new patch; this one is unchanged
   */
  public StatePatch withCursors(Map<String, String> c) {
    return new StatePatch(c, schedule, schemaVersion, lastSequence);
  }

  /**
   * This patch with a schedule.
   *
   * @param s the new schedule
   * @return a new patch; this one is unchanged
   */
  public StatePatch withSchedule(ScheduleState s) {
    return new StatePatch(cursors, s, schemaVersion, lastSequence);
  }

  /**
   * This patch with a schema version.
   *
   * @param v the new schema version
   * @return a new patch; this one is unchanged
   */
  public StatePatch withSchemaVersion(int v) {
    return new StatePatch(cursors, schedule, v, lastSequence);
  }

  /**
   * This patch with a highest outbox sequence.
   *
   * @param seq the new highest sequence
   * @return a new patch; this one is unchanged
   */
  public StatePatch withLastSequence(long seq) {
    return new StatePatch(cursors, schedule, schemaVersion, seq);
  }
}
