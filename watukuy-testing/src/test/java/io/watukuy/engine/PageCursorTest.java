package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static io.watukuy.engine.Items.liveCursorText;
import static io.watukuy.engine.Items.page;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.Fetcher;
import io.watukuy.KeyReport;
import io.watukuy.PageCursor;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The page strategy (docs/architecture.md, "page"). */
class PageCursorTest {
  static final PollerKey PRODUCTS = PollerKey.of("products");

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();

  @Test
  void advancesPagePlusOneWhileHasMoreAndResetsToInitialWhenTheCycleCompletes() {
    f.seed(5);
    List<Integer> sent = new ArrayList<>();
    Watukuy w = engine(Cursors.page(), recording(sent, 2), 50);

    KeyReport first = w.tick().poller("products").orElseThrow();
    assertThat(first.pages()).isEqualTo(3);
    assertThat(sent).containsExactly(1, 2, 3);
    assertThat(handler.changes()).hasSize(5);

    f.nextCycle();
    w.tick();

    assertThat(sent).containsExactly(1, 2, 3, 1, 2, 3);
    assertThat(handler.changes()).hasSize(5); // the re-listing is suppressed by the version map
  }

  @Test
  void hasMoreAbsentEndsTheCycle() {
    Script<Integer> script =
        new Script<Integer>().then(page(item("id", "a"))).then(page(item("id", "a")));
    Watukuy w = engine(Cursors.page(), script, 50);

    KeyReport first = w.tick().poller("products").orElseThrow();
    f.nextCycle();
    w.tick();

    assertThat(first.pages()).isEqualTo(1);
    assertThat(script.cursors()).containsExactly(1, 1);
  }

  @Test
  void customInitialPageIsWhereEveryCycleStarts() {
    Script<Integer> script =
        new Script<Integer>()
            .then(page(item("id", "a")).withHasMore(true))
            .then(page(item("id", "b")).withHasMore(false))
            .then(page(item("id", "a")).withHasMore(false));
    Watukuy w = engine(Cursors.page(0), script, 50);

    w.tick();
    f.nextCycle();
    w.tick();

    assertThat(script.cursors()).containsExactly(0, 1, 0);
  }

  @Test
  void truncatedListingContinuesFromTheNextPageThenStartsOver() {
    f.seed(5);
    List<Integer> sent = new ArrayList<>();
    Watukuy w = engine(Cursors.page(), recording(sent, 1), 2);

    KeyReport first = w.tick().poller("products").orElseThrow();
    assertThat(first.truncated()).isTrue();
    assertThat(liveCursorText(f.store, PRODUCTS)).isEqualTo("3");

    w.tick(); // catch-up: due at once
    w.tick();
    w.tick(); // the completed cycle reset the cursor; nothing is due until the interval passes
    f.nextCycle();
    w.tick();

    assertThat(sent).containsExactly(1, 2, 3, 4, 5, 1, 2);
    assertThat(handler.changes()).hasSize(5);
  }

  private Fetcher<JsonNode, Integer> recording(List<Integer> sent, int size) {
    return ctx -> {
      sent.add(ctx.cursor());
      return f.api.page(ctx.cursor(), size);
    };
  }

  private Watukuy engine(PageCursor cursor, Fetcher<JsonNode, Integer> fetch, int maxPages) {
    Poller<JsonNode> products =
        Poller.builder("products", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(cursor)
            .fetch(fetch)
            .maxPagesPerCycle(maxPages)
            .schedule(Fixture.FIXED)
            .build();
    return f.engine("a").poller(products).build().on(products, handler);
  }
}
