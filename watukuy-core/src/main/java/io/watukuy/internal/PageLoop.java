package io.watukuy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BudgetTimeoutException;
import io.watukuy.FetchException;
import io.watukuy.HttpResult;
import io.watukuy.Lane;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Validator;
import io.watukuy.WatukuyException;
import io.watukuy.internal.cursor.BadPage;
import io.watukuy.internal.cursor.LaneCursor;
import io.watukuy.internal.cursor.Stall;
import io.watukuy.internal.cursor.Step;
import io.watukuy.internal.http.NotModified;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lane's page loop: fetch a page through a fresh {@link FetchScope}, read its items (identity,
 * version, ordering key, JSON form, validation), advance the cursor, hand the page to {@link
 * PageCommit}, and stop at the lane's end, its target, the page cap or the deadline. Every lane
 * (live, reconcile, backfill) runs this one loop; it is kept apart from the run, which only decides
 * which lanes run, and from the commit, because reading a page never writes. One per poller; holds
 * no state of a run.
 */
final class PageLoop {
  private static final Logger log = LoggerFactory.getLogger(PageLoop.class);

  /** The {@code lastError} name of a full listing cut short. */
  static final String LISTING_TRUNCATED = "ListingTruncated";

  private final CycleContext cx;
  private final Poller<Object> poller;
  private final PageCommit commit;
  private final Logger pollerLog;

  /** The page commit this loop hands its pages to. */
  PageCommit commit() {
    return commit;
  }

  PageLoop(CycleContext cx, Poller<Object> poller, PageCommit commit) {
    this.cx = cx;
    this.poller = poller;
    this.commit = commit;
    this.pollerLog = LoggerFactory.getLogger("io.watukuy.poller." + poller.name());
  }

  /**
   * Runs one lane: fetch, diff, commit, dispatch, page by page.
   *
   * @return whether the lane reached its end (the listing completed, or backfill its target)
   */
  boolean run(KeyRun run, LaneSpec spec) throws InterruptedException {
    run.spec = spec;
    LaneCursor<Object> lc = spec.cursor();
    String key = spec.cursorKey();
    Object stored = key == null ? lc.initial() : lc.decode(run.cursors.get(key));
    Set<String> seen = spec.fullScan() ? new HashSet<>() : null;
    boolean completed = false;
    boolean truncated = false;
    int lastCyclePages = spec.lane() == Lane.LIVE ? run.previousPages() : -1;
    int pages = 0;
    int cap = spec.fullScan() ? poller.maxPagesPerListing() : poller.maxPagesPerCycle();
    // What page n was, for the stall checks of page n+1 (docs/operations.md, "Stalled lanes").
    Previous previous = null;
    Totals totals = new Totals();
    // Page n+1, fetched while page n is committed and delivered (docs/architecture.md, "A page
    // ahead"); dropped unseen whenever the loop ends before taking it.
    Prefetch ahead = null;
    // An unsorted timestamp listing's largest value and start, in memory for this run only: its
    // pages commit the watermark it started from, so a run cut short or killed stores nothing of
    // it (docs/config.md, "Unsorted listings").
    Object listing = null;
    boolean holds = lc.holdsUntilComplete();
    Object kept = stored;
    try {
      while (true) {
        if (spec.target() != null && lc.reached(stored, spec.target())) {
          completed = true;
          break;
        }
        if (pages >= cap || run.limits.expired(cx.time())) {
          truncated = true;
          break;
        }
        // A stop (SIGTERM, Watukuy.stop) ends the lane after the page in flight: that page is
        // committed and, with drain, delivered; the next start resumes from its cursor.
        if ((pages > 0 || run.stopped) && run.limits.stopping().getAsBoolean()) {
          truncated = true;
          run.stopped = true;
          break;
        }
        // A destination that is down ends the lane: the outbox is drained before any new fetch
        // (G1, G9), so more pages would only pile their events up behind the failed one.
        if (deliveryDown(run)) {
          truncated = true;
          break;
        }
        int pageNo = ++pages;
        if (pageNo == 1) listing = lc.startListing(cx.time().now());
        Object sent = sendCursor(lc, key, run.cursors.containsKey(key), stored, pageNo);
        // A fetch that sent nothing through the HTTP helper and never read the page number asks
        // for what its cursor says: the same cursor is the same request, so it is not sent. A full
        // listing pages by number whether fetch reads it or not (snapshotDiff has no cursor at
        // all): there, only an API that repeats a page's items is a stall (below).
        if (repeats(spec, lc, previous, sent))
          throw stalled(run, spec, pageNo, Stall.Mode.SAME_CURSOR, previous.sent, sent, previous);
        FetchScope scope;
        Page<Object> page;
        if (ahead != null && ahead.pageNo() == pageNo && samePosition(lc, ahead.sent(), sent)) {
          Prefetch taken = ahead;
          ahead = null;
          scope = taken.scope();
          page = fetched(run, scope, pageNo, taken.take());
        } else {
          if (ahead != null) ahead.discard(); // not the request this page makes
          ahead = null;
          scope =
              new FetchScope(
                  cx,
                  poller,
                  pollerLog,
                  run,
                  spec.lane(),
                  sent,
                  pageNo,
                  previous == null ? null : previous.request);
          page = fetched(run, scope, pageNo, Prefetch.Fetched.call(spec.fetch(), scope));
        }
        if (page == null) {
          Stall.Mode mode =
              samePosition(lc, previous.sent, sent)
                  ? Stall.Mode.SAME_CURSOR
                  : Stall.Mode.REQUEST_IGNORES_CURSOR;
          throw stalled(run, spec, pageNo, mode, previous.sent, sent, previous);
        }
        run.pages++;
        if (page.isNotModified()) {
          if (pageNo == 1 && lastCyclePages == 1) {
            run.notModified = true;
            return false; // the whole listing is one page and unchanged: idle, no deletes
          }
          throw run.bad(
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
          step = lc.advance(stored, sent, page, views, cx.time().now(), listing);
        } catch (BadPage e) {
          throw run.bad(pageNo, e.itemIndex(), e.getMessage(), null);
        }
        List<String> ids = new ArrayList<>(views.size());
        for (ItemView v : views) if (!v.noIdentity) ids.add(v.identity);
        // The request moved on but the API answered the same items: a full listing whose API
        // ignores the page number, or ties the tie-break did not page past. Nothing new to commit.
        if (previous != null
            && !ids.isEmpty()
            && ids.equals(previous.ids)
            && sameItems(views, previous.views)
            && (spec.fullScan() || samePosition(lc, stored, step.next())))
          throw stalled(
              run, spec, pageNo, Stall.Mode.API_IGNORES_CURSOR, sent, step.next(), previous);
        if (seen != null) {
          seen.addAll(ids);
          totals.add(page.total());
        }
        if (spec.target() != null) step = stopAtTarget(lc, step, spec.target());
        // Page n-1 is let go here, before page n+1 is asked for: a key holds two pages at most.
        previous = new Previous(sent, scope.firstRequest(), scope.pageRead(), ids, views);
        ahead = ahead(run, spec, scope, step, previous, pages, cap);
        commit.page(run, spec, page, step, pageNo);
        cx.listener()
            .onPage(
                run.key, run.pages, run.items, run.committed, Duration.ofMillis(run.durationMs()));
        stored = step.next();
        if (step.done()) {
          completed = step.completed();
          break;
        }
      }
    } catch (RuntimeException e) {
      if (holds && pages > 0) keptOnError(run, spec, lc, kept, pages, e);
      throw e;
    } finally {
      if (ahead != null) ahead.discard(); // a failed commit, a lost lease, a stop, the deadline
    }
    run.laneTruncated = truncated;
    if (truncated) {
      run.truncated = true;
      // A deadline that passed before the first page cut nothing: the listing never started.
      // Nor is a listing cut by a stop an error: the next start lists it again.
      if (holds && pages > 0) {
        // Not due again at once: the next cycle lists from the same watermark, and a catch-up
        // would cut it at the same page again.
        if (run.stopped)
          log.info(
              "{}: stopped after page {}; {}",
              Who.key(run.key),
              pages,
              watermarkKept(lc, kept, "the next start lists again from it"));
        else run.notice = unsortedTruncated(run, spec, lc, kept, pages, cap);
      } else if (spec.fullScan() && pages > 0 && !run.stopped)
        run.notice = listingTruncated(run, spec, pages, cap);
      else if (spec.lane() == Lane.LIVE) run.catchUp = true;
    }
    if (seen != null && completed && !truncated) endListing(run, spec, seen, totals);
    return completed && !truncated;
  }

  /**
   * A full listing cut short (docs/operations.md, "Truncated listings"): it cannot tell which items
   * are gone, so it emits no deletes, and the next one starts again at page 1. Not a failure (no
   * backoff, no circuit): what it read is committed. But it is never silent either: {@code
   * lastError} {@code ListingTruncated}, {@code lastPoll.truncated}, and an error in the key's
   * report, so that {@code run --once} exits 1.
   */
  private FetchException listingTruncated(KeyRun run, LaneSpec spec, int pages, int cap) {
    String why =
        pages >= cap
            ? "read "
                + pages
                + " pages and reached its page cap, maxPagesPerCycle="
                + cap
                + ", before its last page; ask for larger pages, or raise maxPagesPerCycle above the"
                + " listing's length in pages"
            : "outlasted the tick deadline after "
                + pages
                + " page(s); give the tick more time, or ask for larger pages";
    String problem =
        "the "
            + spec.lane().wire()
            + " listing was cut short ("
            + LISTING_TRUNCATED
            + "): it "
            + why
            + ". No deletes this cycle; the next listing starts again at page 1";
    log.warn("{}: {}", Who.key(run.key), problem);
    return FetchException.named(
        run.key.poller(), run.key.partition(), pages, LISTING_TRUNCATED, problem);
  }

  /** The sentence every cut-short unsorted listing ends with: where the watermark stays. */
  private static String watermarkKept(LaneCursor<Object> lc, @Nullable Object kept, String then) {
    String raw = lc.toRaw(kept);
    return "the watermark was kept at "
        + (raw == null ? "its initial value (the beginning)" : "'" + raw + "'")
        + " (cursor.sorted false moves it only when a listing completes); "
        + then;
  }

  /**
   * An unsorted listing cut at its page cap or the tick deadline: as loud as a truncated full
   * listing ({@code ListingTruncated}, {@code lastError}, the report's error, {@code run --once}
   * exits 1), since a listing that never completes never moves its watermark.
   */
  private FetchException unsortedTruncated(
      KeyRun run, LaneSpec spec, LaneCursor<Object> lc, @Nullable Object kept, int pages, int cap) {
    String why =
        pages >= cap
            ? "read "
                + pages
                + " pages and reached its page cap, maxPagesPerCycle="
                + cap
                + ", before its last page; raise maxPagesPerCycle above the listing's length in"
                + " pages, or ask for larger pages"
            : "outlasted the tick deadline after "
                + pages
                + " page(s); give the tick more time, or ask for larger pages";
    String problem =
        "the "
            + spec.lane().wire()
            + " listing was cut short ("
            + LISTING_TRUNCATED
            + "): it "
            + why
            + ". Its pages are committed; "
            + watermarkKept(lc, kept, "the next cycle lists again from it");
    log.warn("{}: {}", Who.key(run.key), problem);
    return FetchException.named(
        run.key.poller(), run.key.partition(), pages, LISTING_TRUNCATED, problem);
  }

  /**
   * An unsorted listing ended by an error after {@code pages} requests: the log says the watermark
   * was kept, and so will {@code lastError} ({@link KeyRun#watermarkKept}).
   */
  private static void keptOnError(
      KeyRun run,
      LaneSpec spec,
      LaneCursor<Object> lc,
      @Nullable Object kept,
      int pages,
      RuntimeException e) {
    String note =
        "the "
            + spec.lane().wire()
            + " listing ended at page "
            + pages
            + " ("
            + (e instanceof WatukuyException w ? w.kind() : e.getClass().getSimpleName())
            + "); its pages before are committed, and "
            + watermarkKept(lc, kept, "the next cycle lists again from it");
    run.watermarkKept = note;
    run.truncated = true;
    // The report's error says it too, beside the error itself.
    e.addSuppressed(
        FetchException.named(
            run.key.poller(), run.key.partition(), pages, FetchException.WATERMARK_KEPT, note));
    log.warn("{}: {}", Who.key(run.key), note);
  }

  /**
   * A full listing that reached its last page: deletes for the stored identities it did not list,
   * unless the listing was inconsistent (it shifted under the scan, so an item it missed may still
   * exist) or the delete guard holds them (docs/operations.md, "False deletes").
   */
  private void endListing(KeyRun run, LaneSpec spec, Set<String> seen, Totals totals)
      throws InterruptedException {
    run.listingCompleted = true;
    run.listingLane = spec.lane();
    run.inconsistent = totals.inconsistent(seen.size());
    if (run.inconsistent) {
      log.warn(
          "{}: the {} listing is inconsistent ({}): no deletes this cycle; the next consistent"
              + " listing computes them afresh",
          Who.key(run.key),
          spec.lane().wire(),
          totals.describe(seen.size()));
      return;
    }
    if (run.parkedWithoutIdentity) {
      // Counted as an inconsistent listing: three in a row say so in lastError, not only a warning.
      run.inconsistent = true;
      log.warn(
          "{}: the {} listing parked an item without an identity: no deletes this cycle, since the"
              + " stored item it may be cannot be told from one that is gone",
          Who.key(run.key),
          spec.lane().wire());
      return;
    }
    boolean confirmed =
        run.state != null
            && run.state.schedule().listing() != null
            && run.state.schedule().listing().deletesConfirmed();
    run.heldDeletes = commit.deleteUnseen(run, seen, confirmed);
  }

  /** The totals a full listing's pages reported ({@link Page#withTotal}). */
  private static final class Totals {
    private @Nullable Long first;
    private @Nullable Long last;
    private boolean differ;

    void add(@Nullable Long total) {
      if (total == null) return;
      if (first == null) first = total;
      else if (!total.equals(first)) differ = true;
      last = total;
    }

    /** Pages disagree, or the distinct identities listed are not the last page's total. */
    boolean inconsistent(int listed) {
      return differ || (last != null && last != listed);
    }

    String describe(int listed) {
      return differ
          ? "its pages reported totals " + first + " and then " + last
          : "it listed "
              + listed
              + " distinct items where its last page reported a total of "
              + last;
    }
  }

  /** Page n of a lane, as the stall checks of page n+1 need it. */
  private record Previous(
      @Nullable Object sent,
      @Nullable String request,
      boolean pageRead,
      List<String> ids,
      List<ItemView> views) {}

  /**
   * The error of a lane that cannot move within this cycle: a failure (backoff, circuit, onError,
   * lastError, exit 1 of run --once) whose name and fix come from the cursor strategy. Pages
   * committed before it stay.
   */
  private FetchException stalled(
      KeyRun run,
      LaneSpec spec,
      int pageNo,
      Stall.Mode mode,
      @Nullable Object before,
      @Nullable Object after,
      Previous previous) {
    LaneCursor<Object> lc = spec.cursor();
    Stall stall = lc.stall(before, after, previous.views, mode);
    String what =
        switch (mode) {
          case SAME_CURSOR ->
              "the request for page " + pageNo + " would repeat page " + (pageNo - 1) + "'s";
          case REQUEST_IGNORES_CURSOR ->
              "the request for page "
                  + pageNo
                  + " would repeat page "
                  + (pageNo - 1)
                  + "'s although the cursor moved";
          case API_IGNORES_CURSOR ->
              "page " + pageNo + " lists exactly the items of page " + (pageNo - 1);
        };
    String cursor = lc.encode(after);
    String problem =
        spec.lane().wire()
            + " lane stalled ("
            + stall.kind()
            + "): "
            + what
            + (cursor == null ? "" : " (cursor " + cursor + ")")
            + "; "
            + stall.fix()
            + ". The pages before it are committed; the lane stops here for this cycle"
            + (mode == Stall.Mode.API_IGNORES_CURSOR ? "" : " and that request was not sent");
    log.debug("{}: {}", run.key, problem);
    return FetchException.named(
        run.key.poller(), run.key.partition(), pageNo, stall.kind(), problem);
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

  /**
   * Whether two pages hold equal items, in order: an item updated between two requests and listed
   * again is a new state, not a repeated page. Only asked once the identities matched, so the deep
   * comparison is rare.
   */
  private static boolean sameItems(List<ItemView> a, List<ItemView> b) {
    if (a.size() != b.size()) return false;
    for (int i = 0; i < a.size(); i++) if (!a.get(i).json.equals(b.get(i).json)) return false;
    return true;
  }

  private static boolean samePosition(
      LaneCursor<Object> lc, @Nullable Object a, @Nullable Object b) {
    return Objects.equals(lc.encode(a), lc.encode(b));
  }

  /**
   * The cursor page {@code pageNo} is requested with: before the first commit there is no watermark
   * to overlap, so the first request carries the initial cursor exactly (docs/architecture.md,
   * "timestamp", item 5); later pages send the stored cursor itself.
   *
   * @param stored whether the run holds a stored cursor of the lane
   */
  private static @Nullable Object sendCursor(
      LaneCursor<Object> lc,
      @Nullable String key,
      boolean stored,
      @Nullable Object cursor,
      int pageNo) {
    return key != null && stored ? lc.forFetch(cursor, pageNo) : cursor;
  }

  /** Whether the request of the next page would repeat the previous page's and is not sent. */
  private static boolean repeats(
      LaneSpec spec, LaneCursor<Object> lc, @Nullable Previous previous, @Nullable Object sent) {
    return previous != null
        && !spec.fullScan()
        && previous.request == null
        && !previous.pageRead
        && samePosition(lc, previous.sent, sent);
  }

  /**
   * Starts fetching page n+1 before page n is committed, when a cycle without prefetch would
   * request it right after that commit anyway (docs/architecture.md, "A page ahead"): the lane goes
   * on (not done, not at its target, page cap or deadline, no stop), the request is one that would
   * be sent (no stall), page n's response asked for no wait (no 429, no 503, no Retry-After), and
   * the fetch allows it ({@link io.watukuy.Fetcher#prefetch()}). Its cursor is the one the commit
   * stores: every strategy computes it from the page alone, before the commit ({@link
   * LaneCursor#advance}), and the commit only writes it.
   *
   * @return the page on its way, or null when the next page is fetched after the commit
   */
  private @Nullable Prefetch ahead(
      KeyRun run,
      LaneSpec spec,
      FetchScope scope,
      Step<Object> step,
      Previous current,
      int pages,
      int cap) {
    if (step.done() || pages >= cap || !spec.fetch().prefetch()) return null;
    LaneCursor<Object> lc = spec.cursor();
    Object next = step.next();
    if (spec.target() != null && lc.reached(next, spec.target())) return null;
    if (run.limits.expired(cx.time()) || run.limits.stopping().getAsBoolean()) return null;
    if (asksToWait(scope.lastResponse()) || deliveryDown(run)) return null;
    String key = spec.cursorKey();
    // The commit stores the cursor under its key when it encodes to anything (PageCommit.page).
    Object sent = sendCursor(lc, key, key != null && lc.encode(next) != null, next, pages + 1);
    if (repeats(spec, lc, current, sent)) return null;
    FetchScope nextScope =
        new FetchScope(cx, poller, pollerLog, run, spec.lane(), sent, pages + 1, current.request);
    return Prefetch.start(cx.ahead(), run.key, spec.fetch(), nextScope, sent, pages + 1);
  }

  /** Whether this run's delivery stopped on a destination that is down. */
  private static boolean deliveryDown(KeyRun run) {
    return run.delivery != null && run.delivery.unavailable != null;
  }

  /**
   * Whether a response asks the client to wait: a 429, a 503, or a Retry-After. The next page is
   * then requested only after the commit, as without prefetch, and the cycle's outcome decides the
   * wait (docs/architecture.md, "Poller state machine").
   */
  private static boolean asksToWait(@Nullable HttpResult response) {
    if (response == null) return false;
    if (response.status() == 429 || response.status() == 503) return true;
    try {
      return response.retryAfter().isPresent();
    } catch (RuntimeException e) {
      return true; // unreadable: no page ahead
    }
  }

  /**
   * What one fetch gave, as the page loop reads it: the responses it saw are handed to the run,
   * then its page, or null when its first request repeated the previous page's and was refused
   * (whatever fetch code made of the refusal); an error fails the page ({@link #failed}).
   */
  private @Nullable Page<Object> fetched(
      KeyRun run, FetchScope scope, int pageNo, Prefetch.Fetched fetched) {
    if (scope.lastResponse() != null) run.lastResponse = scope.lastResponse();
    Exception e = fetched.error();
    if (e instanceof InterruptedException) throw run.bad(pageNo, -1, "fetch interrupted", e);
    if (e instanceof RuntimeException) {
      if (scope.refused()) return null;
      return failed(run, pageNo, e);
    }
    if (e != null) return failed(run, pageNo, e);
    if (scope.refused()) return null;
    Page<Object> page = fetched.page();
    if (page == null) throw run.bad(pageNo, -1, "fetch returned no page (null)", null);
    return page;
  }

  /**
   * A fetch that threw: a 304 is a page of its own kind, a stall fetch named ({@link
   * FetchException#named}) is reported as it is, everything else fails the page.
   */
  private static Page<Object> failed(KeyRun run, int pageNo, Exception e) {
    if (e instanceof NotModified || notModifiedCause(e)) return Page.notModified();
    if (e instanceof BudgetTimeoutException b) throw b;
    // A fetch that saw its next request would repeat the page before it names the stall itself.
    if (e instanceof FetchException f && Stall.isStall(f.kind())) throw f;
    if (e instanceof WatukuyException) throw run.bad(pageNo, -1, e.getMessage(), e);
    throw run.bad(
        pageNo, -1, "fetch threw " + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
  }

  private static boolean notModifiedCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) if (t instanceof NotModified) return true;
    return false;
  }

  /** Runs the validator before the cursor advances, so custom advance() sees only valid items. */
  void validate(List<ItemView> views) {
    Validator<? super Object> validator = poller.validator();
    if (validator == null) return;
    for (ItemView v : views) {
      if (v.tombstone || v.problems != null) continue; // parked already, for what views() found
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

  /**
   * Identity, version, ordering key and JSON form of every item. An item without a usable identity,
   * version or ordering key is parked as invalid and the page goes on (G7: one malformed record
   * does not stop the other ten thousand); a null item, or a function that throws, fails the page.
   */
  List<ItemView> views(KeyRun run, Page<Object> page, int pageNo) {
    List<Object> items = page.items();
    List<ItemView> views = new ArrayList<>(items.size());
    Predicate<? super Object> tombstone = poller.tombstone();
    Function<? super Object, String> ordering = poller.orderingKey();
    for (int i = 0; i < items.size(); i++) {
      Object item = items.get(i);
      if (item == null) throw run.bad(pageNo, i, "item is null", null);
      try {
        JsonNode json = item instanceof JsonNode n ? n : Json.MAPPER.valueToTree(item);
        // Measured before anything hashes, copies or stores it: one huge item must not take the
        // process down, nor block the page (G7).
        long size = ItemView.oversize(json, poller.maxItemSize());
        String tooLarge =
            size == 0
                ? null
                : "item "
                    + (i + 1)
                    + ": "
                    + size
                    + " bytes as compact JSON, more than maxItemSize "
                    + poller.maxItemSize()
                    + " bytes; parked without its body";
        String noIdentity = identityProblem(item);
        if (noIdentity != null) {
          ItemView v =
              new ItemView(
                  i, item, json, ItemView.NO_IDENTITY, null, ItemView.NO_IDENTITY, false, null);
          v.noIdentity = true;
          v.problems =
              tooLarge == null
                  ? List.of("item " + (i + 1) + ": " + noIdentity)
                  : List.of("item " + (i + 1) + ": " + noIdentity, tooLarge);
          if (tooLarge != null) v.oversize = size;
          views.add(v);
          run.parkedWithoutIdentity = true;
          continue;
        }
        String identity = Values.text(poller.identity().apply(item));
        // A version or ordering key that cannot be read is this item's fault alone: it is parked
        // as invalid like a missing identity, and the page flows (G7).
        List<String> problems = new ArrayList<>(0);
        String version = null;
        if (poller.version() != null) {
          try {
            version = Values.text(poller.version().apply(item));
          } catch (IllegalArgumentException e) {
            problems.add(
                "item "
                    + (i + 1)
                    + ": version must be a string or an integer, but was "
                    + e.getMessage());
          }
        }
        String orderingKey = ordering == null ? identity : ordering.apply(item);
        if (orderingKey == null) {
          problems.add("item " + (i + 1) + ": orderingKey is null");
          orderingKey = identity;
        }
        boolean dead = tombstone != null && tombstone.test(item);
        Object fingerprint = poller.fingerprint() == null ? null : poller.fingerprint().apply(item);
        ItemView v = new ItemView(i, item, json, identity, version, orderingKey, dead, fingerprint);
        if (tooLarge != null) {
          v.oversize = size;
          problems.add(tooLarge);
        }
        if (!problems.isEmpty()) v.problems = List.copyOf(problems);
        views.add(v);
      } catch (FetchException e) {
        throw e;
      } catch (RuntimeException e) {
        throw run.bad(pageNo, i, e.getClass().getSimpleName() + ": " + e.getMessage(), e);
      }
    }
    return views;
  }

  /** Why an item has no usable identity, or null when it has one. */
  private @Nullable String identityProblem(Object item) {
    Object raw;
    try {
      raw = poller.identity().apply(item);
    } catch (RuntimeException e) {
      // A YAML poller's identity function says which pointer missed, and why.
      return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
    String text;
    try {
      text = Values.text(raw);
    } catch (IllegalArgumentException e) {
      return "identity must be a string or an integer, but was " + e.getMessage();
    }
    if (text == null) return "identity is missing (null)";
    if (text.isEmpty()) return "identity is empty";
    return null;
  }
}
