package io.watukuy.internal;

import io.watukuy.FetchException;
import io.watukuy.ScheduleState;
import io.watukuy.ScheduleState.LastError;
import io.watukuy.ScheduleState.LastPoll;
import io.watukuy.ScheduleState.Listing;
import java.time.Instant;

/**
 * What a run's full listing leaves in the schedule (docs/operations.md, "Truncated listings" and
 * "False deletes"): the deletes the guard holds, whether a confirmation was used up, inconsistent
 * listings in a row, {@code lastPoll.truncated} and {@code lastPoll.inconsistent} when the live
 * lane was the listing, and the {@code lastError} of a listing that must not pass in silence. A
 * class of its own so the run's finish stays one call; pure, like {@link ScheduleMachine}.
 */
final class ListingFacts {
  /** Inconsistent full listings in a row that make {@code ListingInconsistent} an error. */
  static final int INCONSISTENT_LIMIT = 3;

  static final String LISTING_INCONSISTENT = "ListingInconsistent";
  static final String DELETE_GUARD = "DeleteGuard";

  private ListingFacts() {}

  /**
   * The schedule with this run's listing facts; unchanged when no full listing completed or was cut
   * in the run.
   *
   * @param liveListing whether the live lane ran and is a full listing (snapshotDiff)
   */
  static ScheduleState record(KeyRun run, ScheduleState next, boolean liveListing, Instant now) {
    ScheduleState out = next;
    if (run.listingCompleted) {
      Listing before = next.listing() == null ? Listing.NONE : next.listing();
      Listing after =
          run.inconsistent
              // An inconsistent listing says nothing about deletes: the held count and a
              // confirmation wait for the next consistent one.
              ? new Listing(
                  before.heldDeletes(), before.deletesConfirmed(), before.inconsistentInARow() + 1)
              : new Listing(run.heldDeletes, false, 0);
      out = out.withListing(after);
      if (after.inconsistentInARow() >= INCONSISTENT_LIMIT) {
        run.notice =
            notice(
                run,
                LISTING_INCONSISTENT,
                "the "
                    + run.listingLane.wire()
                    + " listing was inconsistent "
                    + after.inconsistentInARow()
                    + " times in a row (its pages reported different totals, it listed a different"
                    + " number of items than its total, or it parked an item without an identity):"
                    + " no deletes since; page by a key that edits do not change, ask for larger"
                    + " pages, or fix the items without an identity (watukuy parked list)");
      } else if (after.heldDeletes() > 0) {
        run.notice =
            notice(
                run,
                DELETE_GUARD,
                after.heldDeletes()
                    + " stored items are missing from the complete "
                    + run.listingLane.wire()
                    + " listing, more than the delete guard lets through (deletes.minCount and"
                    + " deletes.maxRatio): their deletes are held, creates and updates flow. If"
                    + " they are really gone, run watukuy confirm-deletes (Watukuy.confirmDeletes)"
                    + " and the next complete listing emits them");
      }
      if (liveListing
          && out.lastPoll() != null
          && out.lastPoll().inconsistent() != run.inconsistent)
        out = out.withLastPoll(inconsistent(out.lastPoll(), run.inconsistent));
    }
    if (run.notice != null) {
      FetchException n = run.notice;
      out = out.withLastError(new LastError(n.kind(), n.getMessage(), now));
      if (liveListing
          && n.kind().equals(PageLoop.LISTING_TRUNCATED)
          && out.lastPoll() != null
          && !out.lastPoll().truncated()) out = out.withLastPoll(truncated(out.lastPoll()));
    }
    return out;
  }

  private static FetchException notice(KeyRun run, String kind, String problem) {
    return FetchException.named(run.key.poller(), run.key.partition(), run.pages, kind, problem);
  }

  private static LastPoll inconsistent(LastPoll p, boolean inconsistent) {
    return copy(p, p.truncated(), inconsistent);
  }

  private static LastPoll truncated(LastPoll p) {
    return copy(p, true, p.inconsistent());
  }

  private static LastPoll copy(LastPoll p, boolean truncated, boolean inconsistent) {
    return new LastPoll(
        p.at(),
        p.pages(),
        p.items(),
        p.events(),
        truncated,
        p.notModified(),
        p.durationMs(),
        inconsistent);
  }
}
