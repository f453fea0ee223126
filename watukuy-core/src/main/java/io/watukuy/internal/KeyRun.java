package io.watukuy.internal;

import io.watukuy.CycleInfo;
import io.watukuy.FetchException;
import io.watukuy.HttpResult;
import io.watukuy.KeyReport;
import io.watukuy.KeyReport.Outcome;
import io.watukuy.Lane;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.spi.Lease;
import io.watukuy.spi.PollerState;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The mutable state of one run of one key, shared by its stages: the run ({@link KeyRunner}), the
 * lane's page loop ({@link PageLoop}), the page commit ({@link PageCommit}) and the fetch scope
 * ({@link FetchScope}). A separate class so that each stage reads and writes named fields of one
 * run instead of reaching into another stage; it is confined to the thread running the key.
 */
final class KeyRun {
  final PollerKey key;
  final LeaseKeeper keeper;
  final @Nullable Attached attached;
  final RunLimits limits;
  private final CycleContext cx;

  /** The stored state read under the lease, or null for a key that never committed. */
  @Nullable PollerState state;

  Map<String, String> cursors = new HashMap<>();
  long lastSequence;
  @Nullable Delivery delivery;

  /** The cycle this run is, for {@code onCommit}; null for a run outside a cycle (a replay). */
  @Nullable CycleInfo cycle;

  /** The lane running now. */
  @Nullable LaneSpec spec;

  /** The reconcile time to store: the stored one, or now once this run's listing ended. */
  @Nullable Instant lastReconcileAt;

  /** The backfill to store: the stored one, or null once this run reached its target. */
  ScheduleState.@Nullable Backfill backfill;

  int pages;

  /** Items fetched, all pages. */
  int items;

  /** Pages of the live lane: what decides whether the next 304 can be trusted. */
  int livePages;

  /** Whether the lane that ran last was cut short (page cap or deadline). */
  boolean laneTruncated;

  int committed;
  int parked;
  boolean truncated;

  /**
   * What a full listing of this run must report without failing (docs/operations.md): {@code
   * ListingTruncated}, {@code ListingInconsistent} or {@code DeleteGuard}; recorded as {@code
   * lastError} and in the report, but no backoff and no circuit. Null when there is nothing.
   */
  @Nullable FetchException notice;

  /**
   * Whether an item without a usable identity was parked in this run: it may be one of the stored
   * items, so a full listing cannot delete what it did not list (docs/operations.md, "False
   * deletes").
   */
  boolean parkedWithoutIdentity;

  /**
   * Why an unsorted timestamp listing of this run kept its watermark when an error ended it, one
   * sentence added to {@code lastError}; null when none did (docs/config.md, "Unsorted listings").
   */
  @Nullable String watermarkKept;

  /** Whether a stop of the engine ended a lane of this run after the page in flight. */
  boolean stopped;

  /** Whether a full listing ran to its last page in this run. */
  boolean listingCompleted;

  /** Whether that listing was inconsistent (its totals disagreed): it emitted no deletes. */
  boolean inconsistent;

  /** The lane of that listing. */
  @Nullable Lane listingLane;

  /**
   * Identities a forced backfill re-emitted in this run: each once (docs/architecture.md, "Lanes").
   */
  final Set<String> reemitted = new HashSet<>();

  /** Deletes the delete guard held after that listing; 0 when it emitted them (or had none). */
  int heldDeletes;

  /** Truncated with progress kept in the cursor: due again at once. */
  boolean catchUp;

  boolean notModified;

  /** Whether the lease was released with the run's last state write: nothing to release after. */
  boolean released;

  @Nullable HttpResult lastResponse;
  private final long startedNanos;

  KeyRun(
      CycleContext cx, PollerKey key, Lease lease, @Nullable Attached attached, RunLimits limits) {
    this.cx = cx;
    this.key = key;
    this.keeper = new LeaseKeeper(cx.store(), cx.time(), key, lease, cx.leaseTtl());
    this.attached = attached;
    this.limits = limits;
    this.startedNanos = cx.time().nanoTime();
  }

  /**
   * Starts the run from the state read under the lease: its sequence and cursors, which the run's
   * pages then move.
   *
   * @param loaded the stored state, or null for a key that never committed
   */
  void startFrom(@Nullable PollerState loaded) {
    state = loaded;
    lastSequence = loaded == null ? 0 : loaded.lastSequence();
    cursors = loaded == null ? new HashMap<>() : new HashMap<>(loaded.cursors());
  }

  /** Pages of the previous cycle's live lane, or -1 when unknown or cut short. */
  int previousPages() {
    if (state == null || state.schedule().lastPoll() == null) return -1;
    ScheduleState.LastPoll p = state.schedule().lastPoll();
    return p.truncated() ? -1 : p.pages();
  }

  /** Whether the cursors differ from the stored ones: the run must write them. */
  boolean cursorsChanged() {
    return !cursors.equals(state == null ? Map.of() : state.cursors());
  }

  /** A bad item or page of this run's key, for the message and the report. */
  FetchException bad(int pageNo, int index, String problem, @Nullable Throwable cause) {
    return new FetchException(key.poller(), key.partition(), pageNo, index, problem, cause);
  }

  CycleOutcome outcome(@Nullable RuntimeException error) {
    return new CycleOutcome(
        livePages,
        items,
        committed,
        catchUp,
        notModified,
        durationMs(),
        delivery != null && delivery.halted,
        error,
        lastResponse);
  }

  long durationMs() {
    return (cx.time().nanoTime() - startedNanos) / 1_000_000;
  }

  KeyReport report(Outcome outcome, @Nullable Throwable error) {
    int delivered = delivery == null ? 0 : delivery.delivered;
    int parkedEvents = delivery == null ? 0 : delivery.parked;
    return new KeyReport(
        key,
        outcome,
        pages,
        committed,
        delivered,
        parked + parkedEvents,
        truncated,
        notModified,
        error);
  }
}
