package io.watukuy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BudgetTimeoutException;
import io.watukuy.FetchException;
import io.watukuy.Lane;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Validator;
import io.watukuy.WatukuyException;
import io.watukuy.internal.cursor.BadPage;
import io.watukuy.internal.cursor.LaneCursor;
import io.watukuy.internal.cursor.Step;
import io.watukuy.internal.http.NotModified;
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

  private final CycleContext cx;
  private final Poller<Object> poller;
  private final PageCommit commit;
  private final Logger pollerLog;

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
      // initial cursor exactly (docs/architecture.md, "timestamp", item 5).
      Object sent =
          key != null && run.cursors.containsKey(key) ? lc.forFetch(stored, pageNo) : stored;
      Page<Object> page = fetch(run, spec, sent, pageNo);
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
        step = lc.advance(stored, sent, page, views, cx.time().now());
      } catch (BadPage e) {
        throw run.bad(pageNo, e.itemIndex(), e.getMessage(), null);
      }
      if (seen != null) for (ItemView v : views) seen.add(v.identity);
      if (spec.target() != null) step = stopAtTarget(lc, step, spec.target());
      commit.page(run, spec, page, step, pageNo);
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
    if (seen != null && completed && !truncated) commit.deleteUnseen(run, seen);
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
    return Objects.equals(lc.encode(a), lc.encode(b));
  }

  private Page<Object> fetch(KeyRun run, LaneSpec spec, @Nullable Object cursor, int pageNo) {
    FetchScope scope = new FetchScope(cx, poller, pollerLog, run, spec.lane(), cursor, pageNo);
    Page<Object> page;
    try {
      page = spec.fetch().fetch(scope);
    } catch (NotModified e) {
      return Page.notModified();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw run.bad(pageNo, -1, "fetch interrupted", e);
    } catch (WatukuyException e) {
      if (e instanceof BudgetTimeoutException) throw e;
      throw run.bad(pageNo, -1, e.getMessage(), e);
    } catch (Exception e) {
      if (notModifiedCause(e)) return Page.notModified();
      throw run.bad(
          pageNo, -1, "fetch threw " + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
    if (page == null) throw run.bad(pageNo, -1, "fetch returned no page (null)", null);
    return page;
  }

  private static boolean notModifiedCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) if (t instanceof NotModified) return true;
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
  private List<ItemView> views(KeyRun run, Page<Object> page, int pageNo) {
    List<Object> items = page.items();
    List<ItemView> views = new ArrayList<>(items.size());
    Predicate<? super Object> tombstone = poller.tombstone();
    Function<? super Object, String> ordering = poller.orderingKey();
    for (int i = 0; i < items.size(); i++) {
      Object item = items.get(i);
      if (item == null) throw run.bad(pageNo, i, "item is null", null);
      try {
        JsonNode json = item instanceof JsonNode n ? n : Json.MAPPER.valueToTree(item);
        String identity = valueText(run, pageNo, i, "identity", poller.identity().apply(item));
        if (identity == null) throw run.bad(pageNo, i, "identity is missing (null)", null);
        if (identity.isEmpty()) throw run.bad(pageNo, i, "identity is empty", null);
        String version =
            poller.version() == null
                ? null
                : valueText(run, pageNo, i, "version", poller.version().apply(item));
        String orderingKey = ordering == null ? identity : ordering.apply(item);
        if (orderingKey == null) throw run.bad(pageNo, i, "orderingKey is null", null);
        boolean dead = tombstone != null && tombstone.test(item);
        Object fingerprint = poller.fingerprint() == null ? null : poller.fingerprint().apply(item);
        views.add(new ItemView(i, item, json, identity, version, orderingKey, dead, fingerprint));
      } catch (FetchException e) {
        throw e;
      } catch (RuntimeException e) {
        throw run.bad(pageNo, i, e.getClass().getSimpleName() + ": " + e.getMessage(), e);
      }
    }
    return views;
  }

  private static @Nullable String valueText(
      KeyRun run, int pageNo, int index, String field, @Nullable Object value) {
    try {
      return Values.text(value);
    } catch (IllegalArgumentException e) {
      throw run.bad(
          pageNo,
          index,
          field + " must be a string or an integer, but was " + e.getMessage(),
          null);
    }
  }
}
