package io.watukuy.internal;

import io.watukuy.ScheduleState;
import io.watukuy.ScheduleState.DueReason;
import io.watukuy.ScheduleState.Listing;
import io.watukuy.ScheduleState.PauseReason;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The schedule side of pause, resume and trigger, as pure functions, and how a cycle keeps an
 * operation that landed while it ran (operations are unfenced writes: the cycle must not undo them
 * with its own final write).
 */
final class Operations {
  private Operations() {}

  static ScheduleState pause(ScheduleState s, PauseReason reason) {
    return ScheduleMachine.pause(s, reason);
  }

  /** Back to idle and due now; a pending throttle or an open circuit still applies. */
  static ScheduleState resume(ScheduleState s, Instant now) {
    return ScheduleMachine.resume(s, now);
  }

  /** Due now; on an open circuit the next run is the half-open probe. */
  static ScheduleState trigger(ScheduleState s, Instant now) {
    return ScheduleMachine.trigger(s, now);
  }

  /** The held deletes released: the next complete listing emits its deletes once. */
  static ScheduleState confirmDeletes(ScheduleState s) {
    Listing l = s.listing() == null ? Listing.NONE : s.listing();
    return s.withListing(new Listing(l.heldDeletes(), true, l.inconsistentInARow()));
  }

  private static boolean confirmed(ScheduleState s) {
    return s.listing() != null && s.listing().deletesConfirmed();
  }

  /**
   * The schedule a cycle writes at its end, keeping a pause, resume, trigger, backfill or deletes
   * confirmation that another caller stored while the cycle ran.
   *
   * @param computed what the cycle computed from {@code atStart}
   * @param stored what the store holds now
   * @param atStart what the cycle read when it started
   */
  static ScheduleState mergeConcurrent(
      ScheduleState computed, @Nullable ScheduleState stored, ScheduleState atStart) {
    if (stored == null || stored.equals(atStart)) return computed;
    ScheduleState out = computed;
    if (!Objects.equals(stored.paused(), atStart.paused()))
      out =
          stored.paused() != null
              ? ScheduleMachine.pause(out, stored.paused())
              : out.withPaused(null);
    boolean triggered =
        stored.dueReason() == DueReason.TRIGGER
            && !(atStart.dueReason() == DueReason.TRIGGER
                && Objects.equals(stored.nextDueAt(), atStart.nextDueAt()));
    if (triggered && stored.nextDueAt() != null)
      out = ScheduleMachine.trigger(out, stored.nextDueAt());
    if (!Objects.equals(stored.backfill(), atStart.backfill()))
      out = out.withBackfill(stored.backfill());
    if (confirmed(stored) && !confirmed(atStart)) out = confirmDeletes(out);
    return out;
  }
}
