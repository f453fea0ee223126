package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.CustomCursor;
import io.watukuy.Fetcher;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Reconcile;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.testing.RecordingFetcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which lanes fetch a page ahead (docs/architecture.md, "A page ahead"): every cursor strategy of
 * the live lane, the reconcile lane and the backfill lane, since each computes the next cursor from
 * the page alone. Ten items in pages of two. After each page's commit, {@code onPage} holds the
 * cycle's thread until the next page of the lane has been fetched on the cycle pool (real-time
 * bound {@link PrefetchTest#WAIT}); a lane's last page has no next page. The events are those of a
 * cycle without prefetch (a direct executor), id for id and sequence for sequence.
 */
class PrefetchLanesTest {
  final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void shutDown() {
    pool.shutdownNow();
  }

  /** A poller of the fixture whose fetches go through the recorders given. */
  interface Scenario extends BiFunction<Fixture, List<RecordingFetcher<?, ?>>, Poller<JsonNode>> {}

  /** What one run of a scenario delivered, and what onPage saw after each page. */
  record Outcome(List<String> delivered, List<String> pages) {}

  /**
   * Runs {@code scenario} over ten items: one tick, or two with {@code second} run in between.
   *
   * @param ahead on the cycle pool (prefetch), else a direct executor (no prefetch)
   * @param last the pages of the run (counted across lanes, from 1) that end their lane
   */
  Outcome run(Scenario scenario, boolean ahead, Set<Integer> last, boolean backfill) {
    Fixture f = new Fixture();
    f.seed(10);
    Recorder handler = new Recorder();
    List<RecordingFetcher<?, ?>> fetchers = new CopyOnWriteArrayList<>();
    Poller<JsonNode> p = scenario.apply(f, fetchers);
    List<String> pages = new CopyOnWriteArrayList<>();
    WatukuyListener gate =
        new WatukuyListener() {
          @Override
          public void onPage(PollerKey key, int page, int items, int events, Duration elapsed) {
            if (!ahead) return;
            boolean next = !last.contains(page);
            boolean fetched = next && awaitCalls(fetchers, page + 1);
            pages.add(page + (next ? (fetched ? " ahead" : " missing") : " last"));
          }
        };
    Watukuy.Builder b = f.engine("a").poller(p).listener(gate);
    if (ahead) b.executor(pool);
    Watukuy w = b.build().on(p, handler);
    KeyReport first = w.tick().poller(p.name()).orElseThrow();
    assertThat(first.error()).isNull();
    if (backfill) {
      handler.clear();
      pages.clear();
      fetchers.forEach(RecordingFetcher::clear);
      w.backfill(p.name(), null, null, true);
      w.trigger(p.name());
      assertThat(w.tick().poller(p.name()).orElseThrow().error()).isNull();
    }
    return new Outcome(PrefetchTest.delivered(handler), pages);
  }

  /** Waits (bounded, real time) until the recorders together returned {@code count} pages. */
  private static boolean awaitCalls(List<RecordingFetcher<?, ?>> fetchers, int count) {
    Duration slice = PrefetchTest.WAIT.dividedBy(100L * fetchers.size());
    for (int i = 0; i < 100; i++) {
      for (RecordingFetcher<?, ?> r : fetchers) {
        if (fetchers.stream().mapToInt(x -> x.calls().size()).sum() >= count) return true;
        try {
          r.awaitCalls(r.calls().size() + 1, slice); // wakes on this recorder's next page
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return fetchers.stream().mapToInt(x -> x.calls().size()).sum() >= count;
  }

  private static <C> Fetcher<JsonNode, C> recorded(
      Fixture f, List<RecordingFetcher<?, ?>> into, Fetcher<JsonNode, C> fetch) {
    RecordingFetcher<JsonNode, C> r = RecordingFetcher.of(fetch, f.clock);
    into.add(r);
    return r;
  }

  /**
   * Prefetch on and off deliver the same events; with it on, every page but a lane's last went
   * ahead.
   */
  void check(Scenario scenario, Set<Integer> last, int pages, boolean backfill) {
    Outcome ahead = run(scenario, true, last, backfill);
    Outcome sequential = run(scenario, false, last, backfill);
    assertThat(ahead.delivered()).isNotEmpty().isEqualTo(sequential.delivered());
    List<String> expected = new ArrayList<>();
    for (int page = 1; page <= pages; page++)
      expected.add(page + (last.contains(page) ? " last" : " ahead"));
    assertThat(ahead.pages()).isEqualTo(expected);
  }

  @Test
  void theTimestampLaneFetchesAhead() {
    check(
        (f, r) -> f.timestamp("orders", 2).fetch(recorded(f, r, f.api.timestampFetcher(2))).build(),
        Set.of(5),
        5,
        false);
  }

  @Test
  void theTokenLaneFetchesAhead() {
    check(
        (f, r) ->
            Poller.builder("feed", JsonNode.class)
                .identity(n -> n.get("id"))
                .cursor(Cursors.token())
                .fetch(recorded(f, r, f.api.tokenFetcher(2)))
                .schedule(Fixture.FIXED)
                .build(),
        Set.of(5),
        5,
        false);
  }

  @Test
  void thePageLaneFetchesAhead() {
    check((f, r) -> pages(f, r), Set.of(5), 5, false);
  }

  @Test
  void theSnapshotDiffLaneFetchesAhead() {
    check(
        (f, r) -> f.snapshot("all", 2).fetch(recorded(f, r, f.api.snapshotFetcher(2))).build(),
        Set.of(5),
        5,
        false);
  }

  @Test
  void aCustomLaneFetchesAhead() {
    CustomCursor<CustomCursorTest.AfterId> keyset =
        Cursors.custom(new CustomCursorTest.AfterId(""), in -> CustomCursorTest.keyset(in, 2));
    // Pages of 2: the fifth is full, so a sixth, empty page ends the lane.
    check(
        (f, r) ->
            Poller.builder("rows", JsonNode.class)
                .identity(n -> n.get("id"))
                .cursor(keyset)
                .fetch(
                    recorded(
                        f,
                        r,
                        (Fetcher<JsonNode, CustomCursorTest.AfterId>)
                            ctx -> f.api.afterId(ctx.cursor().afterId(), 2)))
                .schedule(Fixture.FIXED)
                .build(),
        Set.of(6),
        6,
        false);
  }

  @Test
  void theReconcileLaneFetchesAhead() {
    // Live: pages 1 to 5 of the run; reconcile: pages 6 to 10.
    check(
        (f, r) ->
            f.timestamp("orders", 2)
                .fetch(recorded(f, r, f.api.timestampFetcher(2)))
                .reconcile(
                    Reconcile.every(
                        Duration.ofHours(6), recorded(f, r, ctx -> f.api.page(ctx.page(), 2))))
                .build(),
        Set.of(5, 10),
        10,
        false);
  }

  @Test
  void theBackfillLaneFetchesAhead() {
    // The second run: live lists pages 1 to 5 again; the forced backfill, pages 6 to 10.
    check((f, r) -> pages(f, r), Set.of(5, 10), 10, true);
  }

  private static Poller<JsonNode> pages(Fixture f, List<RecordingFetcher<?, ?>> r) {
    return Poller.builder("pages", JsonNode.class)
        .identity(n -> n.get("id"))
        .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
        .cursor(Cursors.page())
        .fetch(recorded(f, r, f.api.pageFetcher(2)))
        .schedule(Fixture.FIXED)
        .build();
  }
}
