package io.watukuy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.CancellationToken;
import io.watukuy.EventType;
import io.watukuy.FetchContext;
import io.watukuy.FetchException;
import io.watukuy.KeyReport;
import io.watukuy.KeyReport.Outcome;
import io.watukuy.Lane;
import io.watukuy.LeaseLostException;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Reconcile;
import io.watukuy.Retain;
import io.watukuy.ScheduleState;
import io.watukuy.Validator;
import io.watukuy.WatukuyListener;
import io.watukuy.internal.cursor.BadPage;
import io.watukuy.internal.cursor.LaneCursor;
import io.watukuy.internal.cursor.Step;
import io.watukuy.internal.diff.CanonicalizationException;
import io.watukuy.internal.diff.EventIds;
import io.watukuy.internal.diff.Sha256;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of one key (How it works, "The poll cycle"): due check, lease, drain, live lane page by
 * page with one commit per page, deletes after a completed full scan, schedule, release.
 */
final class KeyCycle {
  private static final Logger log = LoggerFactory.getLogger(KeyCycle.class);
  // Errors that are also in the KeyReport: a separate logger, so a caller that reports them can
  // mute it.
  private static final Logger errors = LoggerFactory.getLogger(io.watukuy.Watukuy.ERROR_LOGGER);
  private static final String LIVE = "live";
  private static final String BACKFILL = "backfill";
  private static final int IDENTITY_BATCH = 1000;

  private final CycleContext cx;
  private final Poller<Object> poller;
  private final LaneCursor<Object> lane;
  private final Supplier<@Nullable Attached> handler;
  private final Logger pollerLog;
  private final LaneCursor<Object> reconcileCursor;
  private final java.util.function.BooleanSupplier subscribed;

  KeyCycle(
      CycleContext cx,
      Poller<Object> poller,
      LaneCursor<Object> lane,
      Supplier<@Nullable Attached> handler,
      java.util.function.BooleanSupplier subscribed) {
    this.subscribed = subscribed;
    this.cx = cx;
    this.poller = poller;
    this.lane = lane;
    this.handler = handler;
    this.pollerLog = LoggerFactory.getLogger("io.watukuy.poller." + poller.name());
    this.reconcileCursor =
        io.watukuy.internal.cursor.LaneCursors.of(poller.name(), io.watukuy.Cursors.page());
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

  /** The engine side of the poller's live strategy. */
  LaneCursor<Object> laneCursor() {
    return lane;
  }

  /**
   * The earliest time a key found not due can need a cycle, as far as its stored schedule says: the
   * live lane's due time (throttle end, circuit probe, next due), the next reconcile, and at the
   * latest {@code schedule.min} from now, so that a change made elsewhere (a trigger or resume from
   * another process) is seen within one minimum interval.
   */
  private Instant nextAttention(ScheduleState s, Instant now) {
    Instant at = now.plus(poller.schedule().min());
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

  /** Runs the key once; never throws for a cycle error (it is in the report). */
  KeyReport run(PollerKey key, RunLimits limits) throws InterruptedException {
    StateStore store = cx.store();
    Instant now = cx.time().now();
    Optional<PollerState> loaded = store.loadState(key);
    ScheduleState schedule =
        loaded
            .map(PollerState::schedule)
            .orElseGet(() -> ScheduleState.initial(poller.schedule().min().toMillis()));

    ScheduleMachine.Due due = ScheduleMachine.due(schedule, now, false);
    boolean blocked = !due.due() && due.skipped() != Outcome.SKIPPED_NOT_DUE;
    boolean liveDue = due.due();
    Outcome notDue = due.skipped() == null ? Outcome.SKIPPED_NOT_DUE : due.skipped();
    Reconcile<Object> reconcile = poller.reconcile();
    boolean reconcileDue =
        !blocked
            && reconcile != null
            && (schedule.lastReconcileAt() == null
                || !now.isBefore(schedule.lastReconcileAt().plus(reconcile.every())));
    // Backfill runs at the live lane's pace (and so under its pacing), after live and reconcile.
    boolean backfillDue = liveDue && schedule.backfill() != null;
    Attached attached = handler.get();
    if (!liveDue && !reconcileDue && !backfillDue) {
      if (attached == null || store.countPending(key) == 0) {
        limits.wakeAt(nextAttention(schedule, now));
        return KeyReport.skipped(key, notDue);
      }
    }

    Optional<Lease> acquired = store.acquireLease(key, cx.instanceId(), cx.leaseTtl(), now);
    if (acquired.isEmpty()) return KeyReport.skipped(key, Outcome.SKIPPED_LEASED);

    Run run = new Run(key, acquired.get(), attached, limits);
    try (LeaseKeeper keeper = run.keeper) {
      try {
        // Re-read under the lease: another instance may have moved the key since.
        PollerState state = store.loadState(key).orElse(null);
        run.state = state;
        run.lastSequence = state == null ? 0 : state.lastSequence();
        run.cursors = state == null ? new HashMap<>() : new HashMap<>(state.cursors());
        schedule = state == null ? schedule : state.schedule();
        if (liveDue) {
          // Informational (the lease decides who polls): inspect() shows polling / halfOpen.
          ScheduleState running = ScheduleMachine.polling(schedule);
          store.saveState(key, keeper.lease(), StatePatch.schedule(running), cx.time().now());
          schedule = running;
        }
        if (attached != null) {
          run.delivery = newDelivery(run, attached);
          cx.dispatcher().drain(run.delivery); // drain before fetch (G1, G9)
        }
        run.lastReconcileAt = schedule.lastReconcileAt();
        run.backfill = schedule.backfill();
        ScheduleState.Backfill backfill = run.backfill;
        if (liveDue) runLane(run, liveSpec());
        run.livePages = run.pages;
        if (reconcileDue && reconcileSpec() != null) {
          boolean complete = runLane(run, reconcileSpec());
          // A listing cut short is retried after `every` too, so it cannot run on every pass.
          if (complete || run.laneTruncated) run.lastReconcileAt = cx.time().now();
        }
        if (backfillDue && backfill != null && runLane(run, backfillSpec(run, backfill))) {
          log.info("{}: backfill from {} reached {}", key, backfill.from(), backfill.to());
          run.backfill = null;
          run.cursors.remove(BACKFILL);
        }
        Instant lastReconcileAt = run.lastReconcileAt;
        backfill = run.backfill;
        ScheduleState next = schedule;
        if (liveDue) {
          next =
              ScheduleMachine.afterCycle(
                  poller, schedule, run.outcome(null), cx.time().now(), cx.random());
          if (run.delivery != null && run.delivery.halted)
            next = ScheduleMachine.poisonHalt(poller, next, cx.time().now());
        } else if (run.delivery != null && run.delivery.halted) {
          next = ScheduleMachine.poisonHalt(poller, schedule, cx.time().now());
        }
        next = withLanes(next, lastReconcileAt, backfill);
        announce(key, schedule, next);
        next =
            Operations.mergeConcurrent(
                next, store.loadState(key).map(PollerState::schedule).orElse(null), schedule);
        if (!next.equals(schedule)
            || !run.cursors.equals(run.state == null ? Map.of() : run.state.cursors()))
          store.saveState(
              key,
              keeper.lease(),
              new StatePatch(Map.copyOf(run.cursors), next, null, null),
              cx.time().now());
        if (poller.log().enabled() && run.committed > 0)
          store.pruneLog(key, cx.time().now().minus(poller.log().retention()));
        noHandlerWarning(run);
        Delivery d = run.delivery;
        // Nothing left for a handler to retry: the key needs nothing before its schedule says.
        if (d != null && d.earliestRetry == null && d.unavailable == null && !d.halted)
          run.limits.wakeAt(nextAttention(next, cx.time().now()));
        return run.report(Outcome.POLLED, run.delivery == null ? null : run.delivery.unavailable);
      } catch (LeaseLostException e) {
        errors.warn("{}: {}", key, e.getMessage());
        cx.listener().onLeaseLost(key, e);
        return run.report(Outcome.POLLED, e);
      } catch (InterruptedException e) {
        throw e;
      } catch (RuntimeException e) {
        io.watukuy.@Nullable BudgetTimeoutException budget = ScheduleMachine.budgetTimeout(e);
        if (budget != null) return deferred(run, schedule, liveDue, e, budget);
        errors.warn("{}: cycle failed: {}", key, e.getMessage());
        cx.listener().onError(key, e);
        if (liveDue || reconcileDue || backfillDue || run.pages > 0) {
          ScheduleState next =
              ScheduleMachine.afterCycle(
                  poller, schedule, run.outcome(e), cx.time().now(), cx.random());
          try {
            next =
                Operations.mergeConcurrent(
                    next, store.loadState(key).map(PollerState::schedule).orElse(null), schedule);
          } catch (RuntimeException readFailed) {
            e.addSuppressed(readFailed);
          }
          announce(key, schedule, next);
          try {
            store.saveState(key, keeper.lease(), StatePatch.schedule(next), cx.time().now());
          } catch (RuntimeException saveFailed) {
            e.addSuppressed(saveFailed);
          }
        }
        return run.report(Outcome.POLLED, e);
      } finally {
        keeper.close();
        try {
          store.releaseLease(key, keeper.lease());
        } catch (RuntimeException e) {
          log.warn("{}: lease release failed, it expires by itself: {}", key, e.toString());
        }
      }
    }
  }

  /**
   * Ends a cycle whose request got no budget token in time (G6): not a failure. What was committed
   * stays. A live lane cut short is due again at once (ScheduleMachine's deferred transition); a
   * live lane that completed before a later lane was cut counts as a success; a reconcile listing
   * cut short is retried after {@code every} and a backfill at the live lane's next cycle, as when
   * they are truncated.
   */
  private KeyReport deferred(
      Run run,
      ScheduleState schedule,
      boolean liveDue,
      RuntimeException error,
      io.watukuy.BudgetTimeoutException budget) {
    PollerKey key = run.key;
    StateStore store = cx.store();
    log.info("{}: {}", key, budget.getMessage());
    Instant lastReconcileAt = run.lastReconcileAt;
    if (run.spec != null && run.spec.lane() == Lane.RECONCILE) lastReconcileAt = cx.time().now();
    ScheduleState next = schedule;
    boolean liveCut = run.spec == null || run.spec.lane() == Lane.LIVE;
    if (liveDue)
      next =
          ScheduleMachine.afterCycle(
              poller, schedule, run.outcome(liveCut ? error : null), cx.time().now(), cx.random());
    if (run.delivery != null && run.delivery.halted)
      next = ScheduleMachine.poisonHalt(poller, next, cx.time().now());
    next = withLanes(next, lastReconcileAt, run.backfill);
    announce(key, schedule, next);
    next =
        Operations.mergeConcurrent(
            next, store.loadState(key).map(PollerState::schedule).orElse(null), schedule);
    if (!next.equals(schedule)
        || !run.cursors.equals(run.state == null ? Map.of() : run.state.cursors()))
      store.saveState(
          key,
          run.keeper.lease(),
          new StatePatch(Map.copyOf(run.cursors), next, null, null),
          cx.time().now());
    noHandlerWarning(run);
    return run.report(Outcome.DEFERRED, budget);
  }

  private Delivery newDelivery(Run run, Attached attached) {
    Set<String> held = cx.store().heldKeys(run.key);
    return new Delivery(
        run.key,
        run.keeper,
        attached.handler(),
        attached.type(),
        poller.delivery(),
        held,
        run.limits.cancelled());
  }

  private void noHandlerWarning(Run run) {
    if (run.attached != null || run.committed == 0 || subscribed.getAsBoolean()) return;
    long pending = cx.store().countPending(run.key);
    log.warn("{}: {} events wait in the outbox: no handler attached", run.key, pending);
    cx.listener().onNoHandler(run.key, pending);
  }

  /**
   * What one lane of a cycle runs: its cursor driver, fetch function, where its cursor is kept,
   * whether it is a full listing (deletes after completion), where it stops, and whether known
   * items are re-emitted.
   *
   * @param cursorKey the key of the lane's cursor in the stored cursors, or null when the lane
   *     starts from its initial cursor every cycle
   * @param target backfill's target cursor, or null
   */
  record LaneSpec(
      Lane lane,
      LaneCursor<Object> cursor,
      io.watukuy.Fetcher<Object, Object> fetch,
      @Nullable String cursorKey,
      boolean fullScan,
      @Nullable Object target,
      boolean force) {}

  private static ScheduleState withLanes(
      ScheduleState s,
      @Nullable Instant lastReconcileAt,
      ScheduleState.@Nullable Backfill backfill) {
    return s.withLastReconcileAt(lastReconcileAt).withBackfill(backfill);
  }

  /** The reconcile lane: page numbers from 1 over the poller's reconcile fetch, a full listing. */
  @SuppressWarnings("unchecked")
  private @Nullable LaneSpec reconcileSpec() {
    Reconcile<Object> r = poller.reconcile();
    if (r == null) return null;
    io.watukuy.Fetcher<Object, Object> fetch =
        (io.watukuy.Fetcher<Object, Object>) (io.watukuy.Fetcher<?, ?>) r.fetch();
    return new LaneSpec(Lane.RECONCILE, reconcileCursor, fetch, null, true, null, false);
  }

  /** The backfill lane: the live strategy from {@code from}, until {@code to}. */
  @SuppressWarnings("unchecked")
  private LaneSpec backfillSpec(Run run, ScheduleState.Backfill b) {
    if (!run.cursors.containsKey(BACKFILL)) {
      String start = lane.encode(lane.fromRaw(b.from()));
      if (start != null) run.cursors.put(BACKFILL, start);
    }
    Object target = b.to() == null ? null : lane.fromRaw(b.to());
    // A page cursor back at its first page (a completed listing) is no target: list to the end.
    if (target != null
        && java.util.Objects.equals(lane.encode(target), lane.encode(lane.initial())))
      target = null;
    return new LaneSpec(
        Lane.BACKFILL,
        lane,
        (io.watukuy.Fetcher<Object, Object>) poller.fetch(),
        BACKFILL,
        false,
        target,
        b.force());
  }

  @SuppressWarnings("unchecked")
  LaneSpec liveSpec() {
    return new LaneSpec(
        Lane.LIVE,
        lane,
        (io.watukuy.Fetcher<Object, Object>) poller.fetch(),
        LIVE,
        lane.fullScan(),
        null,
        false);
  }

  /**
   * Runs one lane: fetch, diff, commit, dispatch, page by page.
   *
   * @return whether the lane reached its end (the listing completed, or backfill its target)
   */
  private boolean runLane(Run run, LaneSpec spec) throws InterruptedException {
    run.spec = spec;
    LaneCursor<Object> lc = spec.cursor();
    String key = spec.cursorKey();
    Object stored = key == null ? lc.initial() : lc.decode(run.cursors.get(key));
    Set<String> seen = spec.fullScan() ? new HashSet<>() : null;
    boolean completed = false;
    boolean truncated = false;
    int lastCyclePages = spec.lane() == Lane.LIVE ? run.previousPages() : -1;
    int pages = 0;
    List<String> previousIds = null; // the identities of the previous page, in order
    while (true) {
      if (spec.target() != null && lc.reached(stored, spec.target())) {
        completed = true;
        break;
      }
      if (pages >= poller.maxPagesPerCycle() || run.limits.expired(cx.time())) {
        truncated = true;
        break;
      }
      int pageNo = ++pages;
      // Before the first commit there is no watermark to overlap: the first request carries the
      // initial cursor exactly (Cursor strategies, pitfall 5).
      Object sent =
          key != null && run.cursors.containsKey(key) ? lc.forFetch(stored, pageNo) : stored;
      Page<Object> page = fetch(run, spec, sent, pageNo);
      run.pages++;
      if (page.isNotModified()) {
        if (pageNo == 1 && lastCyclePages == 1) {
          run.notModified = true;
          return false; // the whole listing is one page and unchanged: idle, no deletes
        }
        throw new FetchException(
            poller.name(),
            run.key.partition(),
            pageNo,
            -1,
            "a 304 Not Modified can only stand for a listing whose previous cycle was one page",
            null);
      }
      List<ItemView> views = views(run, page, pageNo);
      run.items += views.size();
      validate(views);
      Step<Object> step;
      try {
        step = lc.advance(stored, sent, page, views, cx.time().now());
      } catch (BadPage e) {
        throw new FetchException(
            poller.name(), run.key.partition(), pageNo, e.itemIndex(), e.getMessage(), null);
      }
      if (seen != null) for (ItemView v : views) seen.add(v.identity);
      if (spec.target() != null) step = stopAtTarget(lc, step, spec.target());
      commitPage(run, spec, page, step, pageNo);
      stored = step.next();
      if (step.done()) {
        completed = step.completed();
        break;
      }
      List<String> ids = new ArrayList<>(views.size());
      for (ItemView v : views) ids.add(v.identity);
      if (!spec.fullScan() && samePosition(lc, sent, lc.forFetch(stored, pageNo + 1))) {
        // The cursor did not move. A fetch that renders its request from the cursor alone would
        // ask for this page again, but one that pages by itself (a Link rel="next" URL, a
        // {{page}} template) moves on: ties wider than a page on a timestamp without tie-break
        // are read that way. So end the lane only once the API has returned the same items
        // twice in a row (e.g. more ties than a page and no way to page past them), instead of
        // burning the page cap, and say why.
        if (ids.equals(previousIds)) {
          log.warn(
              "{}: {} page {} returned the items of page {} again without moving the cursor ({}); ending"
                  + " the lane to avoid requesting the same page again; for timestamp cursors set a tieBreak or a"
                  + " larger page",
              run.key,
              spec.lane().wire(),
              pageNo,
              pageNo - 1,
              lc.encode(stored));
          break;
        }
      }
      previousIds = ids;
    }
    run.laneTruncated = truncated;
    if (truncated) {
      run.truncated = true;
      if (spec.fullScan())
        log.warn(
            "{}: the {} listing has more than maxPagesPerCycle={} pages or outlasted the tick deadline;"
                + " no deletes this cycle, and the next one starts again at page 1",
            run.key,
            spec.lane().wire(),
            poller.maxPagesPerCycle());
      else if (spec.lane() == Lane.LIVE) run.catchUp = true;
    }
    if (seen != null && completed && !truncated) deleteUnseen(run, spec, seen);
    return completed && !truncated;
  }

  /** A backfill page that crosses its target: the items past it are left out and the lane ends. */
  private static Step<Object> stopAtTarget(
      LaneCursor<Object> lc, Step<Object> step, Object target) {
    List<ItemView> kept = new ArrayList<>(step.kept().size());
    boolean crossed = false;
    for (ItemView v : step.kept()) {
      if (lc.beyond(v, target)) crossed = true;
      else kept.add(v);
    }
    return crossed ? new Step<>(step.next(), true, kept, true) : step;
  }

  private static boolean samePosition(
      LaneCursor<Object> lc, @Nullable Object a, @Nullable Object b) {
    return java.util.Objects.equals(lc.encode(a), lc.encode(b));
  }

  private Page<Object> fetch(Run run, LaneSpec spec, @Nullable Object cursor, int pageNo) {
    Ctx ctx = new Ctx(run, spec.lane(), cursor, pageNo);
    Page<Object> page;
    try {
      page = spec.fetch().fetch(ctx);
    } catch (io.watukuy.internal.http.NotModified e) {
      return Page.notModified();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FetchException(
          poller.name(), run.key.partition(), pageNo, -1, "fetch interrupted", e);
    } catch (io.watukuy.WatukuyException e) {
      if (e instanceof io.watukuy.BudgetTimeoutException) throw e;
      throw new FetchException(poller.name(), run.key.partition(), pageNo, -1, e.getMessage(), e);
    } catch (Exception e) {
      if (notModifiedCause(e)) return Page.notModified();
      throw new FetchException(
          poller.name(),
          run.key.partition(),
          pageNo,
          -1,
          "fetch threw " + e.getClass().getSimpleName() + ": " + e.getMessage(),
          e);
    }
    if (page == null)
      throw new FetchException(
          poller.name(), run.key.partition(), pageNo, -1, "fetch returned no page (null)", null);
    return page;
  }

  private static boolean notModifiedCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause())
      if (t instanceof io.watukuy.internal.http.NotModified) return true;
    return false;
  }

  /** Runs the validator before the cursor advances, so custom advance() sees only valid items. */
  private void validate(List<ItemView> views) {
    Validator<? super Object> validator = poller.validator();
    if (validator == null) return;
    for (ItemView v : views) {
      if (v.tombstone) continue;
      List<String> problems;
      try {
        problems = validator.validate(v.item());
      } catch (RuntimeException e) {
        problems =
            List.of("validator threw " + e.getClass().getSimpleName() + ": " + e.getMessage());
      }
      if (problems != null && !problems.isEmpty()) v.problems = List.copyOf(problems);
    }
  }

  /** Identity, version, ordering key and JSON form of every item; any bad item fails the page. */
  private List<ItemView> views(Run run, Page<Object> page, int pageNo) {
    List<Object> items = page.items();
    List<ItemView> views = new ArrayList<>(items.size());
    Predicate<? super Object> tombstone = poller.tombstone();
    Function<? super Object, String> ordering = poller.orderingKey();
    for (int i = 0; i < items.size(); i++) {
      Object item = items.get(i);
      if (item == null) throw bad(run, pageNo, i, "item is null", null);
      try {
        JsonNode json = item instanceof JsonNode n ? n : Json.MAPPER.valueToTree(item);
        String identity = valueText(run, pageNo, i, "identity", poller.identity().apply(item));
        if (identity == null) throw bad(run, pageNo, i, "identity is missing (null)", null);
        if (identity.isEmpty()) throw bad(run, pageNo, i, "identity is empty", null);
        String version =
            poller.version() == null
                ? null
                : valueText(run, pageNo, i, "version", poller.version().apply(item));
        String orderingKey = ordering == null ? identity : ordering.apply(item);
        if (orderingKey == null) throw bad(run, pageNo, i, "orderingKey is null", null);
        boolean dead = tombstone != null && tombstone.test(item);
        Object fingerprint = poller.fingerprint() == null ? null : poller.fingerprint().apply(item);
        views.add(new ItemView(i, item, json, identity, version, orderingKey, dead, fingerprint));
      } catch (FetchException e) {
        throw e;
      } catch (RuntimeException e) {
        throw bad(run, pageNo, i, e.getClass().getSimpleName() + ": " + e.getMessage(), e);
      }
    }
    return views;
  }

  private @Nullable String valueText(
      Run run, int pageNo, int index, String field, @Nullable Object value) {
    try {
      return Values.text(value);
    } catch (IllegalArgumentException e) {
      throw bad(
          run,
          pageNo,
          index,
          field + " must be a string or an integer, but was " + e.getMessage(),
          null);
    }
  }

  private FetchException bad(
      Run run, int pageNo, int index, String problem, @Nullable Throwable cause) {
    return new FetchException(poller.name(), run.key.partition(), pageNo, index, problem, cause);
  }

  /** Diffs one page and commits cursor, rows, events and parked items in one transaction. */
  private void commitPage(Run run, LaneSpec spec, Page<Object> page, Step<Object> step, int pageNo)
      throws InterruptedException {
    Instant now = cx.time().now();
    // Duplicate identities in one page: the last occurrence wins, one event.
    LinkedHashMap<String, ItemView> latest = new LinkedHashMap<>();
    for (ItemView v : step.kept()) {
      latest.remove(v.identity);
      latest.put(v.identity, v);
    }
    List<ParkedRow> parked = new ArrayList<>();
    for (Iterator<ItemView> it = latest.values().iterator(); it.hasNext(); ) {
      ItemView v = it.next();
      if (v.problems != null) {
        it.remove();
        parked.add(invalid(run, v, v.problems, now, pageNo));
      }
    }
    Set<String> lookups = new HashSet<>(latest.keySet());
    lookups.addAll(page.tombstones());
    Map<String, ItemRow> stored =
        lookups.isEmpty() ? Map.of() : cx.store().loadVersions(run.key, lookups);

    Batch batch = new Batch(run, now);
    for (ItemView v : latest.values()) {
      ItemRow row = stored.get(v.identity);
      if (v.tombstone) {
        if (row != null) batch.delete(row);
        continue;
      }
      if (row != null && v.version != null && v.version.equals(row.version())) {
        if (spec.force())
          batch.change(EventType.UPDATED, v, row.hash(), row); // backfill force re-emits
        continue; // unchanged, no hash
      }
      String hash;
      try {
        hash = v.hash();
      } catch (CanonicalizationException e) {
        throw bad(
            run, pageNo, v.index(), "cannot be canonicalized (RFC 8785): " + e.getMessage(), e);
      }
      if (row != null && hash.equals(row.hash())) {
        if (spec.force()) batch.change(EventType.UPDATED, v, hash, row);
        else if (v.version != null && !v.version.equals(row.version()))
          batch.upserts.add(itemRow(v, hash, now));
        continue;
      }
      batch.change(row == null ? EventType.CREATED : EventType.UPDATED, v, hash, row);
    }
    for (String identity : page.tombstones()) {
      ItemRow row = stored.get(identity);
      if (row != null && !latest.containsKey(identity)) batch.delete(row);
    }
    boolean cursorMoved = false;
    if (spec.cursorKey() != null) {
      String before = run.cursors.get(spec.cursorKey());
      String after = spec.cursor().encode(step.next());
      cursorMoved = !java.util.Objects.equals(before, after);
      if (after == null) run.cursors.remove(spec.cursorKey());
      else run.cursors.put(spec.cursorKey(), after);
    }
    if (!cursorMoved && batch.isEmpty() && parked.isEmpty() && run.state != null) return;
    commit(run, batch, parked);
  }

  private ParkedRow invalid(Run run, ItemView v, List<String> problems, Instant now, int pageNo) {
    com.fasterxml.jackson.databind.node.ObjectNode error = Json.MAPPER.createObjectNode();
    error.put("name", "ValidationError");
    error.put("message", String.join("; ", problems));
    error.put("page", pageNo);
    error.put("index", v.index());
    error.set("problems", Json.MAPPER.valueToTree(problems));
    String itemJson = v.json.toString();
    // Deterministic, so the same invalid item seen again replaces its parked row.
    String id = "invalid-" + Sha256.hex(v.identity + "\n" + itemJson).substring(0, 16);
    return new ParkedRow(
        id,
        ParkedKind.INVALID,
        null,
        null,
        v.orderingKey,
        null,
        itemJson,
        error.toString(),
        0,
        now,
        null);
  }

  private ItemRow itemRow(ItemView v, String hash, Instant now) {
    String payload = poller.retain() == Retain.PAYLOAD ? v.json.toString() : null;
    return new ItemRow(
        v.identity, v.version, hash, poller.schemaVersion(), payload, v.orderingKey, now);
  }

  private void commit(Run run, Batch batch, List<ParkedRow> parked) throws InterruptedException {
    StatePatch patch =
        new StatePatch(
            Map.copyOf(run.cursors),
            run.state == null ? ScheduleState.initial(poller.schedule().min().toMillis()) : null,
            poller.schemaVersion(),
            run.lastSequence);
    CommitBatch commit =
        new CommitBatch(
            patch, batch.upserts, batch.deletes, batch.events, poller.log().enabled(), parked);
    cx.store().commitPoll(run.key, run.keeper.lease(), commit, batch.now);
    if (run.state == null) run.state = PollerState.create(patch, batch.now);
    run.committed += batch.events.size();
    run.parked += parked.size();
    for (ParkedRow p : parked) cx.listener().onParked(run.key, p);
    run.keeper.renew();
    if (run.delivery != null && !batch.events.isEmpty())
      cx.dispatcher().deliver(run.delivery, batch.events);
  }

  /** After a completed full listing: deleted events for stored identities not listed. */
  private void deleteUnseen(Run run, LaneSpec spec, Set<String> seen) throws InterruptedException {
    List<List<String>> missingBatches = new ArrayList<>();
    try (Stream<List<String>> batches = cx.store().streamIdentities(run.key, IDENTITY_BATCH)) {
      Iterator<List<String>> it = batches.iterator();
      while (it.hasNext()) {
        List<String> missing = new ArrayList<>();
        for (String id : it.next()) if (!seen.contains(id)) missing.add(id);
        if (!missing.isEmpty()) missingBatches.add(missing);
      }
    }
    for (List<String> missing : missingBatches) {
      Map<String, ItemRow> rows = cx.store().loadVersions(run.key, missing);
      Batch batch = new Batch(run, cx.time().now());
      for (String id : missing) {
        ItemRow row = rows.get(id);
        if (row != null) batch.delete(row);
      }
      if (!batch.isEmpty()) commit(run, batch, List.of());
    }
  }

  /** The events, upserts and deletes of one commit, with sequences assigned in order. */
  private final class Batch {
    final Run run;
    final Instant now;
    final List<ItemRow> upserts = new ArrayList<>();
    final List<String> deletes = new ArrayList<>();
    final List<OutboxRow> events = new ArrayList<>();

    Batch(Run run, Instant now) {
      this.run = run;
      this.now = now;
    }

    boolean isEmpty() {
      return upserts.isEmpty() && deletes.isEmpty() && events.isEmpty();
    }

    void change(EventType type, ItemView v, String hash, @Nullable ItemRow previous) {
      String versionOrHash = v.version != null ? v.version : hash;
      JsonNode prior =
          previous != null && previous.payload() != null && poller.retain() == Retain.PAYLOAD
              ? Json.tree(previous.payload())
              : null;
      event(type, v.identity, v.orderingKey, versionOrHash, hash, v.json, prior);
      upserts.add(itemRow(v, hash, now));
    }

    void delete(ItemRow row) {
      JsonNode last =
          row.payload() != null && poller.retain() == Retain.PAYLOAD
              ? Json.tree(row.payload())
              : null;
      event(
          EventType.DELETED,
          row.identity(),
          row.orderingKey(),
          row.versionOrHash(),
          row.hash(),
          last,
          last);
      deletes.add(row.identity());
    }

    private void event(
        EventType type,
        String identity,
        String orderingKey,
        String versionOrHash,
        String hash,
        @Nullable JsonNode data,
        @Nullable JsonNode previous) {
      long seq = ++run.lastSequence;
      String id =
          EventIds.eventId(
              poller.name(),
              run.key.partition(),
              identity,
              versionOrHash,
              poller.schemaVersion(),
              type.wire());
      String envelope =
          Envelope.of(
                  id,
                  type,
                  poller.name(),
                  run.key.partition(),
                  identity,
                  orderingKey,
                  versionOrHash,
                  hash,
                  poller.schemaVersion(),
                  run.spec == null ? Lane.LIVE : run.spec.lane(),
                  seq,
                  now,
                  data,
                  previous)
              .toString();
      events.add(OutboxRow.pending(seq, id, orderingKey, envelope, now));
    }
  }

  /** Mutable state of one run. */
  final class Run {
    final PollerKey key;
    final LeaseKeeper keeper;
    final @Nullable Attached attached;
    final RunLimits limits;
    @Nullable PollerState state;
    Map<String, String> cursors = new HashMap<>();
    long lastSequence;
    @Nullable Delivery delivery;

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

    /** Truncated with progress kept in the cursor: due again at once. */
    boolean catchUp;

    boolean notModified;
    io.watukuy.@Nullable HttpResult lastResponse;
    final long startedNanos;

    Run(PollerKey key, Lease lease, @Nullable Attached attached, RunLimits limits) {
      this.key = key;
      this.keeper = new LeaseKeeper(cx.store(), cx.time(), key, lease, cx.leaseTtl());
      this.attached = attached;
      this.limits = limits;
      this.startedNanos = cx.time().nanoTime();
    }

    int previousPages() {
      if (state == null || state.schedule().lastPoll() == null) return -1;
      ScheduleState.LastPoll p = state.schedule().lastPoll();
      return p.truncated() ? -1 : p.pages();
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

  /** The fetch context of one page request. */
  private final class Ctx implements FetchContext<Object>, io.watukuy.internal.http.HttpScope {
    private final Run run;
    private final Lane laneName;
    private final @Nullable Object cursor;
    private final int page;
    private io.watukuy.@Nullable Http http;

    Ctx(Run run, Lane laneName, @Nullable Object cursor, int page) {
      this.run = run;
      this.laneName = laneName;
      this.cursor = cursor;
      this.page = page;
    }

    @Override
    public @Nullable Object cursor() {
      return cursor;
    }

    @Override
    public int page() {
      return page;
    }

    @Override
    public String poller() {
      return poller.name();
    }

    @Override
    public String partition() {
      return run.key.partition();
    }

    @Override
    public Lane lane() {
      return laneName;
    }

    @Override
    public int attempt() {
      return 1;
    }

    @Override
    public CancellationToken cancellation() {
      return () -> run.limits.expired(cx.time());
    }

    @Override
    public Logger logger() {
      return pollerLog;
    }

    @Override
    public io.watukuy.Http http() {
      if (http == null)
        http = new io.watukuy.internal.http.DefaultHttp(cx.httpClient().get(), this);
      return http;
    }

    // ---- HttpScope

    @Override
    public boolean trustNotModified() {
      // Only a one-page listing can be vouched for by one 304 (DESIGN.md "304 Not Modified").
      return laneName == Lane.LIVE && page == 1 && run.previousPages() == 1;
    }

    @Override
    public boolean keepsValidators() {
      return laneName == Lane.LIVE && page == 1;
    }

    @Override
    public io.watukuy.spi.@Nullable HttpValidator loadValidator(String urlHash) {
      return cx.store().getValidator(run.key, urlHash).orElse(null);
    }

    @Override
    public void storeValidator(String urlHash, io.watukuy.spi.HttpValidator validator) {
      cx.store().setValidator(run.key, run.keeper.lease(), urlHash, validator);
    }

    @Override
    public Instant now() {
      return cx.time().now();
    }

    @Override
    public java.time.Duration requestTimeout() {
      return poller.requestTimeout();
    }

    @Override
    public Set<String> secretValues() {
      return cx.secrets();
    }

    @Override
    public void observe(io.watukuy.HttpResult result) {
      run.lastResponse = result;
    }

    @Override
    public void beforeSend() {
      String budget = poller.budget();
      if (budget == null) return;
      try {
        cx.budgets()
            .acquire(
                budget,
                run.key,
                laneName,
                poller.weight(),
                poller.maxWait(),
                run.limits.deadlineNanos(),
                run.limits.stopping(),
                wait -> cx.listener().onBudgetWait(run.key, budget, wait));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        java.io.InterruptedIOException cause =
            new java.io.InterruptedIOException(
                "interrupted while waiting for a token of budget " + budget);
        cause.initCause(e);
        throw new java.io.UncheckedIOException(cause.getMessage(), cause);
      }
    }
  }
}
