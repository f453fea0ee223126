package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static io.watukuy.engine.Items.page;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.EventType;
import io.watukuy.Fetcher;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Retain;
import io.watukuy.TickOptions;
import io.watukuy.Watukuy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The snapshotDiff strategy (docs/architecture.md, "snapshotDiff"). */
class SnapshotDiffTest {
  static final PollerKey CATALOG = PollerKey.of("catalog");

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();

  @Test
  void completedListingDeletesEveryStoredIdentityNotListed() {
    f.seed(5);
    Watukuy w = engine(f.api.snapshotFetcher(2), 50);
    w.tick();
    f.api.delete("o002");
    f.api.delete("o005");
    f.nextCycle();

    KeyReport second = w.tick().poller("catalog").orElseThrow();

    assertThat(second.truncated()).isFalse();
    assertThat(handler.changes()).endsWith("o002:deleted", "o005:deleted");
    assertThat(handler.count(EventType.DELETED)).isEqualTo(2);
    assertThat(f.store.countItems(CATALOG)).isEqualTo(3);
  }

  @Test
  void everyCycleListsFromPageOneByTheRequestIndex() {
    f.seed(5);
    List<Integer> pages = new ArrayList<>();
    Watukuy w =
        engine(
            ctx -> {
              pages.add(ctx.page());
              assertThat(ctx.cursor()).isNull();
              return f.api.page(ctx.page(), 2);
            },
            50);

    w.tick();
    f.nextCycle();
    w.tick();

    assertThat(pages).containsExactly(1, 2, 3, 1, 2, 3);
  }

  @Test
  void listingTruncatedByThePageCapEmitsNoDeletesAndALaterCompleteListingDoes() {
    f.seed(5);
    AtomicInteger size = new AtomicInteger(10);
    List<Integer> pages = new ArrayList<>();
    Watukuy w =
        engine(
            ctx -> {
              pages.add(ctx.page());
              return f.api.page(ctx.page(), size.get());
            },
            2);
    w.tick();
    f.api.delete("o005");
    size.set(1); // four items now take four pages, the cap is two

    f.nextCycle();
    KeyReport truncated = w.tick().poller("catalog").orElseThrow();

    assertThat(truncated.truncated()).isTrue();
    assertThat(handler.count(EventType.DELETED)).isZero();
    assertThat(f.store.countItems(CATALOG)).isEqualTo(5);

    // No catch-up for a full scan (it would only restart at page 1 and hammer the API): the key is
    // due at its next interval, restarts from page 1, and is still truncated, still no deletes.
    assertThat(w.tick().poller("catalog").orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_NOT_DUE);
    f.nextCycle();
    KeyReport again = w.tick().poller("catalog").orElseThrow();
    assertThat(again.truncated()).isTrue();
    assertThat(pages).containsExactly(1, 1, 2, 1, 2);
    assertThat(handler.count(EventType.DELETED)).isZero();

    size.set(10);
    f.nextCycle();
    KeyReport complete = w.tick().poller("catalog").orElseThrow();

    assertThat(complete.truncated()).isFalse();
    assertThat(handler.changes())
        .containsExactly(
            "o001:created",
            "o002:created",
            "o003:created",
            "o004:created",
            "o005:created",
            "o005:deleted");
    assertThat(f.store.countItems(CATALOG)).isEqualTo(4);
  }

  @Test
  void listingTruncatedByATickDeadlineEmitsNoDeletesAndALaterCompleteListingDoes() {
    f.seed(7);
    Watukuy w =
        engine(
            ctx -> {
              f.clock.advance(Duration.ofSeconds(6)); // a slow API
              return f.api.page(ctx.page(), 2);
            },
            50);
    w.tick();
    f.api.delete("o001");
    f.nextCycle();

    // Six items, three pages: pages 1 and 2 fit in 10 s; page 3 would start after the deadline.
    KeyReport cut =
        w.tick(TickOptions.deadline(Duration.ofSeconds(10))).poller("catalog").orElseThrow();

    assertThat(cut.truncated()).as("%s", cut).isTrue();
    assertThat(cut.pages()).isEqualTo(2);
    assertThat(handler.count(EventType.DELETED)).isZero();
    assertThat(f.store.countItems(CATALOG)).isEqualTo(7);

    f.nextCycle();
    KeyReport complete = w.tick().poller("catalog").orElseThrow();

    assertThat(complete.truncated()).isFalse();
    assertThat(complete.pages()).isEqualTo(3);
    assertThat(handler.changes()).endsWith("o001:deleted");
    assertThat(handler.count(EventType.DELETED)).isEqualTo(1);
  }

  @Test
  void failedPageEmitsNoDeletes() {
    f.seed(3);
    AtomicInteger failOnPage = new AtomicInteger(0);
    Watukuy w =
        engine(
            ctx -> {
              if (ctx.page() == failOnPage.get()) throw new IllegalStateException("vendor down");
              return f.api.page(ctx.page(), 1);
            },
            50);
    w.tick();
    f.api.delete("o001");
    failOnPage.set(2);
    f.nextCycle();

    KeyReport failed = w.tick().poller("catalog").orElseThrow();

    assertThat(failed.error()).isNotNull();
    assertThat(handler.count(EventType.DELETED)).isZero();
    assertThat(f.store.countItems(CATALOG)).isEqualTo(3);
  }

  @Test
  void deletedEventCarriesTheLastPayloadAndVersionWithRetainPayload() {
    f.api.put("a", Map.of("price", 7));
    Watukuy w = engine(f.api.snapshotFetcher(10), 50, Retain.PAYLOAD);
    w.tick();
    String created = handler.events().get(0).version();
    f.api.delete("a");
    f.nextCycle();

    w.tick();

    var deleted = handler.events().get(1);
    assertThat(deleted.type()).isEqualTo(EventType.DELETED);
    assertThat(deleted.version()).isEqualTo(created);
    assertThat(deleted.data().get("price").asInt()).isEqualTo(7);
  }

  @Test
  void emptyCompletedListingDeletesEverything() {
    f.seed(2);
    Watukuy w = engine(f.api.snapshotFetcher(10), 50);
    w.tick();
    f.api.delete("o001");
    f.api.delete("o002");
    f.nextCycle();

    w.tick();

    assertThat(handler.count(EventType.DELETED)).isEqualTo(2);
    assertThat(f.store.countItems(CATALOG)).isZero();
  }

  @Test
  void notModifiedForAOnePageListingIsIdleWithoutDeletes() {
    Script<Void> script =
        new Script<Void>()
            .then(page(item("id", "a"), item("id", "b")).withHasMore(false))
            .then(Page.notModified());
    Watukuy w = engine(script, 50);
    w.tick();
    f.nextCycle();

    KeyReport second = w.tick().poller("catalog").orElseThrow();

    assertThat(second.error()).isNull();
    assertThat(second.notModified()).isTrue();
    assertThat(handler.changes()).containsExactly("a:created", "b:created");
    assertThat(f.store.countItems(CATALOG)).isEqualTo(2);
  }

  private Watukuy engine(Fetcher<JsonNode, Void> fetch, int maxPages) {
    return engine(fetch, maxPages, Retain.HASH);
  }

  private Watukuy engine(Fetcher<JsonNode, Void> fetch, int maxPages, Retain retain) {
    Poller<JsonNode> catalog =
        Poller.builder("catalog", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(fetch)
            .maxPagesPerCycle(maxPages)
            .retain(retain)
            .schedule(Fixture.FIXED)
            .build();
    return f.engine("a").poller(catalog).build().on(catalog, handler);
  }
}
