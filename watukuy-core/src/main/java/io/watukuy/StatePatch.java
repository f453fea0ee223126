package io.watukuy;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A partial update of a {@link PollerState}: each non-null field replaces the stored one, a
 * null field leaves it alone. {@code cursors} replaces the whole cursor map.
 *
 * @since 0.1
 */
public record StatePatch(
    @Nullable Map<String, String> cursors,
    @Nullable ScheduleState schedule,
    @Nullable Integer schemaVersion,
    @Nullable Long lastSequence) {

  public StatePatch {
    if (cursors != null) cursors = Map.copyOf(cursors);
  }

  /** A patch that changes nothing. */
  public static final StatePatch NONE = new StatePatch(null, null, null, null);

  public static StatePatch schedule(ScheduleState s) {
    return new StatePatch(null, s, null, null);
  }

  public StatePatch withCursors(Map<String, String> c) {
    return new StatePatch(c, schedule, schemaVersion, lastSequence);
  }

  public StatePatch withSchedule(ScheduleState s) {
    return new StatePatch(cursors, s, schemaVersion, lastSequence);
  }

  public StatePatch withSchemaVersion(int v) {
    return new StatePatch(cursors, schedule, v, lastSequence);
  }

  public StatePatch withLastSequence(long seq) {
    return new StatePatch(cursors, schedule, schemaVersion, seq);
  }
}
