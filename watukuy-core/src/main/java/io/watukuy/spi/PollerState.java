package io.watukuy.spi;

import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a store keeps for one {@link PollerKey} besides items, outbox, parked rows, validators
 * and log: per-lane cursors, the schedule, the schema version and the last outbox sequence.
 * Immutable.
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
  /**
   * Creates a state; the cursor map is copied.
   *
   * @param cursors lane name to cursor JSON text
   * @param schedule the persisted schedule
   * @param schemaVersion the poller's schema version
   * @param lastSequence the highest outbox sequence assigned
   * @param createdAt when the state was first written
   * @param updatedAt when it was last written
   * @throws NullPointerException if an argument, a cursor name or a cursor text is null
   */
  public PollerState {
    cursors = Map.copyOf(cursors);
    Objects.requireNonNull(schedule, "schedule");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
  }

  /**
   * This state with {@code patch} applied: each non-null field of the patch replaces the current
   * one; {@code updatedAt} becomes {@code now}. Stores call it to apply {@link
   * StateStore#saveState} and the patch of {@link StateStore#commitPoll}.
   *
   * @param patch the fields to replace
   * @param now the write time, passed in by the caller
   * @return a new state; this one is unchanged
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

  /**
   * The state a store creates for a key on its first write: {@code patch} over the defaults (no
   * cursors, {@link ScheduleState#initial(long) ScheduleState.initial(0)}, schema version 1, last
   * sequence 0).
   *
   * @param patch the fields of the first write
   * @param now the write time; becomes both {@code createdAt} and {@code updatedAt}
   * @return the new state
   */
  public static PollerState create(StatePatch patch, Instant now) {
    return new PollerState(Map.of(), ScheduleState.initial(0), 1, 0, now, now).apply(patch, now);
  }
}
