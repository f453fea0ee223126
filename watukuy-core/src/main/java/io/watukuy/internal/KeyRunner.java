package io.watukuy.internal;

import io.watukuy.BudgetTimeoutException;
import io.watukuy.Cursors;
import io.watukuy.CycleInfo;
import io.watukuy.Fetcher;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.KeyReport;
import io.watukuy.KeyReport.Outcome;
import io.watukuy.Lane;
import io.watukuy.LeaseLostException;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Reconcile;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.internal.cursor.LaneCursor;
import io.watukuy.internal.cursor.LaneCursors;
import io.watukuy.internal.cursor.Step;
import io.watukuy.internal.http.Redactor;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LeasedState;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of one key (docs/architecture.md, "The poll cycle"): the due check, the lease, the drain
 * of the outbox, the lanes that are due (live, then reconcile, then backfill), then one {@link
 * #finish} for a run that got through its lanes and for one a budget timeout deferred, and the
 * lease release. It decides what runs and how the run ends; how a lane reads its pages is {@link
 * PageLoop}, how a page is diffed and written is {@link PageCommit}, what a request sees is {@link
 * FetchScope}. One per poller; the state of one run is a {@link KeyRun}.
 */
final class KeyRunner {
  private static final Logger log = LoggerFactory.getLogger(KeyRunner.class);
  // Errors that are also in the KeyReport: a separate logger, so a caller that reports them can
  // mute it.
  private static final Logger errors = LoggerFactory.getLogger(Watukuy.ERROR_LOGGER);
  private static final String LIVE = "live";
  private static final String BACKFILL = "backfill";

  private final CycleContext cx;
  private final Poller<Object> poller;
  private final LaneCursor<Object> lane;
  private final Supplier<@Nullable Attached> handler;
  private final BooleanSupplier subscribed;
  private final LaneCursor<Object> reconcileCursor;
  private final PageLoop pages;
  private final Redactor redactor;

  /**
   * When each key of this poller is next due, as this engine last wrote or read its schedule: a key
   * whose time has come is leased without a read first (an idle poll is two store calls); any other
   * is read first. A stale entry costs one lease and release, never a wrong poll: the lanes are
   * decided on the state read under the lease. One small entry per key.
   */
  private final Map<PollerKey, Instant> expectedDue = new ConcurrentHashMap<>();

  /** {@code schedule.min × (1 + jitter)}: see {@link #nextAttention}. */
  private final Duration attentionBound;

  KeyRunner(
      CycleContext cx,
      Poller<Object> poller,
      LaneCursor<Object> lane,
      Supplier<@Nullable Attached> handler,
      BooleanSupplier subscribed) {
    this.cx = cx;
    this.poller = poller;
    this.lane = lane;
    this.handler = handler;
    this.subscribed = subscribed;
    this.reconcileCursor = LaneCursors.of(poller.name(), Cursors.page());
    this.pages = new PageLoop(cx, poller, new PageCommit(cx, poller));
    this.redactor = Redactor.of(cx.secrets());
    Duration min = poller.schedule().min();
    this.attentionBound = min.plusNanos((long) (min.toNanos() * poller.schedule().jitter()));
  }

  /**
   * Diffs a parked invalid item again, for {@code parked retry} (docs/operations.md, "Invalid
   * items"): the stored item is read back as the poller's type and checked again (identity,
   * validator, schema); when it now passes and its identity has not been seen since it was parked,
   * it is committed as a one-item page of the live lane (its event is delivered by the key's next
   * run). Runs under {@code lease}, which the caller holds.
   *
   * @return what happened, one sentence: diffed, or why the row is dropped instead
   */
  @SuppressWarnings("unchecked")
  String replayInvalid(PollerKey key, Lease lease, ParkedRow row) throws InterruptedException {
    if (row.item() == null) return "dropped: the row keeps no item";
    Object item;
    try {
      item = Json.MAPPER.treeToValue(Json.tree(row.item()), poller.type());
    } catch (Exception e) {
      return "dropped: the stored item is no "
          + poller.type().getSimpleName()
          + ": "
          + e.getMessage();
    }
    KeyRun run = new KeyRun(cx, key, lease, null, RunLimits.NONE);
    try (LeaseKeeper keeper = run.keeper) {
      run.startFrom(cx.store().loadState(key).orElse(null));
      Page<Object> page = Page.of(List.of(item));
      List<ItemView> views = pages.views(run, page, 1);
      pages.validate(views);
      ItemView v = views.get(0);
      if (v.problems != null) return "dropped: still invalid: " + String.join("; ", v.problems);
      ItemRow stored = cx.store().loadVersions(key, List.of(v.identity)).get(v.identity);
      if (stored != null && stored.seenAt().isAfter(row.parkedAt()))
        return "dropped: "
            + v.identity
            + " was seen since it was parked ("
            + stored.seenAt()
            + "): its newer state is the one that counts";
      LaneSpec spec =
          new LaneSpec(
              Lane.LIVE, lane, (Fetcher<Object, Object>) poller.fetch(), null, false, null, false);
      pages.commit().page(run, spec, page, new Step<>(null, true, views, true), 1);
      return run.committed > 0
          ? "diffed: " + v.identity + " committed, delivered by the next run"
          : "diffed: " + v.identity + " is unchanged";
    }
  }

  /** The engine side of the poller's live strategy. */
  LaneCursor<Object> laneCursor() {
    return lane;
  }

  /**
   * Runs the key once; never throws for a cycle error (it is in the report). An idle poll (due, an
   * empty page or a 304, nothing pending) makes two store calls, {@link
   * StateStore#acquireLeaseAndLoad} and {@link StateStore#saveStateAndRelease}
   * (docs/architecture.md, "What an idle poll costs"); a key this engine does not know to be due is
   * read first ({@link StateStore#loadState}), so that one that is not due costs a read and no
   * lease.
   */
  KeyReport run(PollerKey key, RunLimits limits) throws InterruptedException {
    StateStore store = cx.store();
    Instant now = cx.time().now();
    Attached attached = handler.get();
    Instant expected = expectedDue.get(key);
    if (expected == null || expected.isAfter(now)) {
      Lanes lanes = lanes(store.loadState(key).map(PollerState::schedule).orElse(null), now);
      if (!lanes.any() && (attached == null || store.countPending(key) == 0))
        return notDue(key, lanes, limits, now);
    }

    Optional<LeasedState> acquired =
        store.acquireLeaseAndLoad(key, cx.instanceId(), cx.leaseTtl(), now);
    if (acquired.isEmpty()) return KeyReport.skipped(key, Outcome.SKIPPED_LEASED);
    LeasedState start = acquired.get();
    // Decided on the state read under the lease: another instance may have moved the key since.
    Lanes lanes = lanes(start.state() == null ? null : start.state().schedule(), now);
    if (!lanes.any() && (attached == null || !start.pending())) {
      try {
        store.releaseLease(key, start.lease());
      } catch (RuntimeException e) {
        log.warn("{}: lease release failed, it expires by itself: {}", Who.key(key), e.toString());
      }
      return notDue(key, lanes, limits, now);
    }
    KeyRun run = new KeyRun(cx, key, start.lease(), attached, limits);
    EnumSet<Lane> due = EnumSet.noneOf(Lane.class);
    if (lanes.live()) due.add(Lane.LIVE);
    if (lanes.reconcile()) due.add(Lane.RECONCILE);
    if (lanes.backfill()) due.add(Lane.BACKFILL);
    CycleInfo cycle = new CycleInfo(key, cx.cycleIds().incrementAndGet(), now, due);
    run.cycle = cycle;
    cx.listener().onCycleStart(cycle);
    @Nullable KeyReport report = null;
    @Nullable Throwable thrown = null;
    try {
      report = leased(key, run, lanes, attached, start);
      return report;
    } catch (InterruptedException | RuntimeException | Error e) {
      thrown = e;
      throw e;
    } finally {
      // Exactly one end per start, however the cycle ends (WatukuyListener.onCycleEnd).
      KeyReport ended =
          report != null
              ? report
              : new KeyReport(key, Outcome.POLLED, 0, 0, 0, 0, false, false, thrown);
      Duration elapsed = Duration.between(now, cx.time().now());
      cx.listener().onCycleEnd(cycle, ended, elapsed.isNegative() ? Duration.ZERO : elapsed);
    }
  }

  /** The cycle of a key whose lease {@code start} holds, with the lanes due. */
  private KeyReport leased(
      PollerKey key, KeyRun run, Lanes lanes, @Nullable Attached attached, LeasedState start)
      throws InterruptedException {
    StateStore store = cx.store();
    boolean liveDue = lanes.live();
    boolean reconcileDue = lanes.reconcile();
    boolean backfillDue = lanes.backfill();
    ScheduleState atStart = lanes.schedule();
    ScheduleState schedule = atStart;
    try (LeaseKeeper keeper = run.keeper) {
      try {
        run.startFrom(start.state());
        // Informational, and not stored (the lease decides who polls): inspect() shows a leased,
        // due key as polling or halfOpen.
        if (liveDue) schedule = ScheduleMachine.polling(atStart);
        if (attached != null) {
          run.delivery = newDelivery(run, attached);
          if (start.pending()) cx.dispatcher().drain(run.delivery); // drain before fetch (G1, G9)
        }
        run.lastReconcileAt = atStart.lastReconcileAt();
        run.backfill = atStart.backfill();
        runLanes(run, liveDue, reconcileDue, backfillDue);
        if (poller.log().enabled() && run.committed > 0)
          store.pruneLog(key, cx.time().now().minus(poller.log().retention()));
        ScheduleState next = finish(run, atStart, schedule, liveDue, null);
        noHandlerWarning(run);
        Delivery d = run.delivery;
        // Nothing left for a handler to retry: the key needs nothing before its schedule says.
        if (d != null && d.earliestRetry == null && d.unavailable == null && !d.halted)
          run.limits.wakeAt(nextAttention(next, cx.time().now()));
        RuntimeException unavailable = d == null ? null : d.unavailable;
        if (unavailable != null && !run.limits.daemon())
          errors.warn(
              "{}: handler unavailable, delivery stops: {}",
              Who.key(key),
              unavailable.getMessage());
        return run.report(Outcome.POLLED, unavailable != null ? unavailable : run.notice);
      } catch (LeaseLostException e) {
        expectedDue.remove(key);
        errors.warn("{}: {}", Who.key(key), redactor.message(e.getMessage()));
        cx.listener().onLeaseLost(key, e);
        return run.report(Outcome.POLLED, e);
      } catch (InterruptedException e) {
        throw e;
      } catch (RuntimeException e) {
        BudgetTimeoutException budget = ScheduleMachine.budgetTimeout(e);
        if (budget != null) return deferred(run, atStart, schedule, liveDue, e, budget);
        return failed(run, atStart, schedule, liveDue || reconcileDue || backfillDue, e);
      } catch (Error e) {
        // Out of memory or stack in fetch, diff or commit: the stack is unwound, what filled the
        // heap is garbage now. The cycle ends like a failed one (backoff, circuit), nothing of it
        // committed past its last page, and the process and the other keys go on. failed() logs it
        // by its class name.
        return failed(
            run,
            atStart,
            schedule,
            true,
            new IllegalStateException(
                "cycle stopped by "
                    + e.getClass().getName()
                    + ": "
                    + e.getMessage()
                    + (e instanceof OutOfMemoryError
                        ? " (raise the heap, -Xmx, or lower request.maxBodySize; its events stay"
                            + " pending)"
                        : ""),
                e));
      } finally {
        keeper.close();
        if (!run.released) {
          try {
            store.releaseLease(key, keeper.lease());
          } catch (RuntimeException e) {
            log.warn(
                "{}: lease release failed, it expires by itself: {}", Who.key(key), e.toString());
          }
        }
      }
    }
  }

  /**
   * The lanes due for a stored schedule ({@code null}: a key that never committed), and the
   * schedule they were decided on.
   */
  private Lanes lanes(@Nullable ScheduleState stored, Instant now) {
    ScheduleState schedule =
        stored != null ? stored : ScheduleState.initial(poller.schedule().min().toMillis());
    ScheduleMachine.Due due = ScheduleMachine.due(schedule, now, false);
    boolean blocked = !due.due() && due.skipped() != Outcome.SKIPPED_NOT_DUE;
    Outcome notDue = due.skipped() == null ? Outcome.SKIPPED_NOT_DUE : due.skipped();
    Reconcile<Object> reconcile = poller.reconcile();
    boolean reconcileDue =
        !blocked
            && reconcile != null
            && (schedule.lastReconcileAt() == null
                || !now.isBefore(schedule.lastReconcileAt().plus(reconcile.every())));
    // Backfill runs at the live lane's pace (and so under its pacing), after live and reconcile.
    boolean backfillDue = due.due() && schedule.backfill() != null;
    return new Lanes(schedule, due.due(), reconcileDue, backfillDue, notDue);
  }

  /** The lanes due now, and why the live lane is not when it is not. */
  private record Lanes(
      ScheduleState schedule, boolean live, boolean reconcile, boolean backfill, Outcome notDue) {
    boolean any() {
      return live || reconcile || backfill;
    }
  }

  /** A key with nothing to do now: a skip, and when to look at it again. */
  private KeyReport notDue(PollerKey key, Lanes lanes, RunLimits limits, Instant now) {
    Instant at = nextAttention(lanes.schedule(), now);
    expect(key, lanes.schedule(), at);
    limits.wakeAt(at);
    return KeyReport.skipped(key, lanes.notDue());
  }

  /**
   * Remembers when the key is next due as far as its schedule says, so that the run at that time
   * leases it straight away instead of reading it first; a paused key is read first, since only an
   * operation ends its pause.
   */
  private void expect(PollerKey key, ScheduleState s, Instant at) {
    if (ScheduleMachine.isPaused(s)) expectedDue.remove(key);
    else expectedDue.put(key, at);
  }

  /** The lanes that are due, in order: live, reconcile, backfill. */
  private void runLanes(KeyRun run, boolean liveDue, boolean reconcileDue, boolean backfillDue)
      throws InterruptedException {
    ScheduleState.Backfill backfill = run.backfill;
    if (liveDue) pages.run(run, liveSpec());
    run.livePages = run.pages;
    LaneSpec reconcile = reconcileDue ? reconcileSpec() : null;
    if (reconcile != null) {
      boolean complete = pages.run(run, reconcile);
      // A listing cut short is retried after `every` too, so it cannot run on every pass.
      if (complete || run.laneTruncated) run.lastReconcileAt = cx.time().now();
    }
    if (backfillDue && backfill != null && pages.run(run, backfillSpec(run, backfill))) {
      log.info("{}: backfill from {} reached {}", run.key, backfill.from(), backfill.to());
      run.backfill = null;
      run.cursors.remove(BACKFILL);
    }
  }

  /**
   * Ends a run whose lanes ended, or that a budget timeout deferred: the schedule after the live
   * lane when it ran, a poison halt, the reconcile time and backfill the lanes leave, the listener
   * told what changed, then cursors and schedule written and the lease released in one call ({@link
   * StateStore#saveStateAndRelease}). When an operation stored a schedule meanwhile (pause, resume,
   * trigger: unfenced writes), that call writes nothing, and the operation is merged into the
   * schedule ({@link Operations#mergeConcurrent}) and written with the lease kept for the release
   * that ends every run.
   *
   * @param atStart the schedule stored when the run took the lease
   * @param schedule the schedule the run computes from: {@code atStart}, polling when the live lane
   *     ran
   * @param liveDue whether the live lane ran, so the state machine computes its next due time
   * @param liveError the budget timeout that cut the live lane short, or null when it ended
   * @return the schedule now stored
   */
  private ScheduleState finish(
      KeyRun run,
      ScheduleState atStart,
      ScheduleState schedule,
      boolean liveDue,
      @Nullable RuntimeException liveError) {
    StateStore store = cx.store();
    ScheduleState next = schedule;
    if (liveDue)
      next =
          ScheduleMachine.afterCycle(
              poller, schedule, run.outcome(liveError), cx.time().now(), cx.random());
    if (run.delivery != null && run.delivery.halted)
      next = ScheduleMachine.poisonHalt(poller, next, cx.time().now());
    next = keptNote(run, next);
    next = next.withLastReconcileAt(run.lastReconcileAt).withBackfill(run.backfill);
    next = ListingFacts.record(run, next, liveDue && lane.fullScan(), cx.time().now());
    // A destination that is down is no fetch error (no backoff of the schedule, no circuit), but
    // inspect must say why the events wait: lastError names it (docs/operations.md, "Health").
    if (run.delivery != null && run.delivery.unavailable != null)
      next =
          next.withLastError(ScheduleMachine.lastError(run.delivery.unavailable, cx.time().now()));
    else if (run.delivery != null && !run.delivery.halted)
      next = deliveryError(run.delivery, next); // a poison halt names itself
    next = redacted(next);
    announce(run.key, schedule, next);
    // What the store holds now, as far as this run wrote it: the schedule it read, or the one its
    // first commit created.
    ScheduleState stored = run.state == null ? null : run.state.schedule();
    Instant now = cx.time().now();
    run.keeper.close();
    if (store.saveStateAndRelease(
        run.key,
        run.keeper.lease(),
        stored,
        new StatePatch(Map.copyOf(run.cursors), next, null, null),
        now)) {
      run.released = true;
      expect(run.key, next, nextAttention(next, now));
      return next;
    }
    next =
        Operations.mergeConcurrent(
            next, store.loadState(run.key).map(PollerState::schedule).orElse(null), atStart);
    store.saveState(
        run.key,
        run.keeper.lease(),
        new StatePatch(Map.copyOf(run.cursors), next, null, null),
        cx.time().now());
    expect(run.key, next, nextAttention(next, now));
    return next;
  }

  /**
   * {@code lastError} after a cycle's delivery: an event the handler refused (retried or parked) is
   * named, so that {@code inspect} and monitoring see why events wait; a cycle that delivered
   * events and had no such failure clears a delivery error (a refusal or an unavailable
   * destination) recorded before. Fetch errors are left as they are.
   */
  private ScheduleState deliveryError(Delivery d, ScheduleState next) {
    String failure = d.failure;
    if (failure != null)
      return next.withLastError(
          new ScheduleState.LastError(ScheduleMachine.DELIVERY_FAILURE, failure, cx.time().now()));
    ScheduleState.LastError last = next.lastError();
    if (d.delivered > 0
        && last != null
        && (last.name().equals(ScheduleMachine.DELIVERY_FAILURE)
            || last.name().equals(HandlerUnavailableException.class.getSimpleName())))
      return next.withLastError(null);
    return next;
  }

  /**
   * Ends a run whose request got no budget token in time (G6): not a failure. What was committed
   * stays. A live lane cut short is due again at once (ScheduleMachine's deferred transition); a
   * live lane that completed before a later lane was cut counts as a success; a reconcile listing
   * cut short is retried after {@code every} and a backfill at the live lane's next cycle, as when
   * they are truncated.
   */
  private KeyReport deferred(
      KeyRun run,
      ScheduleState atStart,
      ScheduleState schedule,
      boolean liveDue,
      RuntimeException error,
      BudgetTimeoutException budget) {
    log.info("{}: {}", run.key, budget.getMessage());
    if (run.spec != null && run.spec.lane() == Lane.RECONCILE)
      run.lastReconcileAt = cx.time().now();
    boolean liveCut = run.spec == null || run.spec.lane() == Lane.LIVE;
    finish(run, atStart, schedule, liveDue, liveCut ? error : null);
    noHandlerWarning(run);
    return run.report(Outcome.DEFERRED, budget);
  }

  /**
   * Ends a run that failed: the error is logged and reported; when a lane was due or a page was
   * fetched, the state machine counts the failure (backoff, circuit) and the schedule is written if
   * the store still takes it, with a failed read or write added to the error as suppressed.
   */
  private KeyReport failed(
      KeyRun run,
      ScheduleState atStart,
      ScheduleState schedule,
      boolean laneDue,
      RuntimeException e) {
    PollerKey key = run.key;
    StateStore store = cx.store();
    // The daemon logs a store outage once per change (Outages), not at every attempt.
    String message = redactor.message(e.getMessage());
    if (run.watermarkKept != null) message += "; " + run.watermarkKept;
    @Nullable ScheduleState after =
        laneDue || run.pages > 0
            ? redacted(
                keptNote(
                    run,
                    ScheduleMachine.afterCycle(
                        poller, schedule, run.outcome(e), cx.time().now(), cx.random())))
            : null;
    // A 429 (or a 503 with Retry-After) is the vendor saying when to come back, not a failure
    // (docs/operations.md, "Health"): an INFO line on the engine's logger, as a budget deferral.
    if (after != null
        && after.dueReason() == ScheduleState.DueReason.THROTTLE
        && after.throttledUntil() != null)
      log.info("{}: throttled until {}: {}", Who.key(key), after.throttledUntil(), message);
    else if (run.limits.daemon() && Outages.kind(e) != null)
      errors.debug("{}: cycle failed: {}", Who.key(key), message);
    else errors.warn("{}: cycle failed: {}", Who.key(key), message);
    cx.listener().onError(key, e);
    if (after != null) {
      ScheduleState next = after;
      try {
        next =
            Operations.mergeConcurrent(
                next, store.loadState(key).map(PollerState::schedule).orElse(null), atStart);
      } catch (RuntimeException readFailed) {
        e.addSuppressed(readFailed);
      }
      announce(key, schedule, next);
      try {
        store.saveState(key, run.keeper.lease(), StatePatch.schedule(next), cx.time().now());
      } catch (RuntimeException saveFailed) {
        e.addSuppressed(saveFailed);
      }
      expect(key, next, nextAttention(next, cx.time().now()));
    }
    return run.report(Outcome.POLLED, e);
  }

  /**
   * The schedule with {@code lastError} saying that an unsorted listing the error ended kept its
   * watermark (docs/config.md, "Unsorted listings"); unchanged when none did.
   */
  private static ScheduleState keptNote(KeyRun run, ScheduleState s) {
    ScheduleState.LastError e = s.lastError();
    if (run.watermarkKept == null || e == null || e.message().endsWith(run.watermarkKept)) return s;
    return s.withLastError(
        new ScheduleState.LastError(e.name(), e.message() + "; " + run.watermarkKept, e.at()));
  }

  /**
   * The schedule with the engine's secrets hidden in {@code lastError}: a message built from a
   * cursor, an item or fetch code's own exception may quote a credential, and the stored state ends
   * up in backups (docs/config.md, "A poller": Environment).
   */
  private ScheduleState redacted(ScheduleState s) {
    ScheduleState.LastError e = s.lastError();
    if (e == null || cx.secrets().isEmpty()) return s;
    String hidden = redactor.message(e.message());
    return hidden.equals(e.message())
        ? s
        : s.withLastError(new ScheduleState.LastError(e.name(), hidden, e.at()));
  }

  /** Tells the listener what the new schedule changed: throttle, circuit opened or closed. */
  private void announce(PollerKey key, ScheduleState before, ScheduleState after) {
    WatukuyListener l = cx.listener();
    if (after.throttledUntil() != null && !after.throttledUntil().equals(before.throttledUntil()))
      l.onThrottled(key, after.throttledUntil());
    if (after.circuit() != null
        && (before.circuit() == null
            || !after.circuit().probeAt().equals(before.circuit().probeAt())))
      l.onCircuitOpen(key, after.circuit().probeAt());
    if (before.circuit() != null && after.circuit() == null) l.onCircuitClose(key);
  }

  /**
   * The earliest time a key found not due can need a cycle, as far as its stored schedule says: the
   * live lane's due time (throttle end, circuit probe, next due), the next reconcile, and at the
   * latest {@code schedule.min} with its jitter from now, so that a change made elsewhere (a
   * trigger or resume from another process) is seen within one jittered minimum interval. The
   * jitter is part of the bound because a key polled at {@code schedule.min} is next due up to that
   * much later: a bound of {@code schedule.min} alone visited half of all idle keys once more, to
   * find them not due yet (docs/architecture.md, "What an idle poll costs").
   */
  private Instant nextAttention(ScheduleState s, Instant now) {
    Instant at = now.plus(attentionBound);
    if (!ScheduleMachine.isPaused(s)) {
      Instant live = s.nextDueAt();
      if (s.throttledUntil() != null && s.throttledUntil().isAfter(now)) live = s.throttledUntil();
      else if (s.circuit() != null) live = s.circuit().probeAt();
      if (live == null || live.isBefore(at)) at = live == null ? now : live;
      Reconcile<Object> reconcile = poller.reconcile();
      if (reconcile != null) {
        Instant next =
            s.lastReconcileAt() == null ? now : s.lastReconcileAt().plus(reconcile.every());
        if (next.isBefore(at)) at = next;
      }
    }
    return at;
  }

  private Delivery newDelivery(KeyRun run, Attached attached) {
    // Read when the first event is delivered: an idle cycle delivers none and does not read them.
    StateStore store = cx.store();
    PollerKey key = run.key;
    Delivery d =
        new Delivery(
            run.key,
            run.keeper,
            attached.handler(),
            attached.batch(),
            attached.type(),
            poller.delivery(),
            () -> store.heldKeys(key),
            run.limits.cancelled());
    d.redactor = redactor;
    return d;
  }

  private void noHandlerWarning(KeyRun run) {
    if (run.attached != null || run.committed == 0 || subscribed.getAsBoolean()) return;
    long pending = cx.store().countPending(run.key);
    log.warn("{}: {} events wait in the outbox: no handler attached", Who.key(run.key), pending);
    cx.listener().onNoHandler(run.key, pending);
  }

  // ---- the lanes

  @SuppressWarnings("unchecked")
  private LaneSpec liveSpec() {
    return new LaneSpec(
        Lane.LIVE,
        lane,
        (Fetcher<Object, Object>) poller.fetch(),
        LIVE,
        lane.fullScan(),
        null,
        false);
  }

  /** The reconcile lane: page numbers from 1 over the poller's reconcile fetch, a full listing. */
  @SuppressWarnings("unchecked")
  private @Nullable LaneSpec reconcileSpec() {
    Reconcile<Object> r = poller.reconcile();
    if (r == null) return null;
    Fetcher<Object, Object> fetch = (Fetcher<Object, Object>) (Fetcher<?, ?>) r.fetch();
    return new LaneSpec(Lane.RECONCILE, reconcileCursor, fetch, null, true, null, false);
  }

  /** The backfill lane: the live strategy from {@code from}, until {@code to}. */
  @SuppressWarnings("unchecked")
  private LaneSpec backfillSpec(KeyRun run, ScheduleState.Backfill b) {
    if (!run.cursors.containsKey(BACKFILL)) {
      String start = lane.encode(lane.fromRaw(b.from()));
      if (start != null) run.cursors.put(BACKFILL, start);
    }
    Object target = b.to() == null ? null : lane.fromRaw(b.to());
    // A page cursor back at its first page (a completed listing) is no target: list to the end.
    if (target != null && Objects.equals(lane.encode(target), lane.encode(lane.initial())))
      target = null;
    return new LaneSpec(
        Lane.BACKFILL,
        lane,
        (Fetcher<Object, Object>) poller.fetch(),
        BACKFILL,
        false,
        target,
        b.force());
  }
}
