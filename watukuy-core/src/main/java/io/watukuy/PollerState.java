package io.watukuy;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a store keeps for one {@link PollerKey} besides items, outbox, parked rows,
 * validators and log: per-lane cursors, the schedule, the schema version and the last outbox
 * sequence. Immutable.
 *
 * @param cursors lane name ({@code live}, {@code reconcile}, {@code backfill}) to the cursor as
 *     JSON text; a lane without an entry is at its strategy's initial cursor
 * @param schedule the persisted schedule
 * @param schemaVersion the poller's schema version at the last commit
 * @param lastSequence the highest outbox sequence ever assigned for the key (0 before the first)
 * @param createdAt when the key's state was first written
 * @param updatedAt when it was last written
 * @since 0.1
 */
public record PollerState(
    Map<String, String> cursors,
    ScheduleState schedule,
    int schemaVersion,
    long lastSequence,
    Instant createdAt,
    Instant updatedAt) {
  public PollerState {
    cursors = Map.copyOf(cursors);
    Objects.requireNonNull(schedule, "schedule");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
  }

  /**
   * This state with {@code patch} applied: each non-null field of the patch replaces the
   * current one; {@code updatedAt} becomes {@code now}.
   */
  public PollerState apply(StatePatch patch, Instant now) {
    return new PollerState(
        patch.cursors() != null ? patch.cursors() : cursors,
        patch.schedule() != null ? patch.schedule() : schedule,
        patch.schemaVersion() != null ? patch.schemaVersion() : schemaVersion,
        patch.lastSequence() != null ? patch.lastSequence() : lastSequence,
        createdAt,
        now);
  }

  /** The state a store creates for a key on its first write: {@code patch} over defaults. */
  public static PollerState create(StatePatch patch, Instant now) {
    return new PollerState(Map.of(), ScheduleState.initial(0), 1, 0, now, now).apply(patch, now);
  }
}
