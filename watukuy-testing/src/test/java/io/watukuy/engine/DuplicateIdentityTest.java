package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static io.watukuy.engine.Items.liveCursor;
import static io.watukuy.engine.Items.page;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.CursorStrategy;
import io.watukuy.Cursors;
import io.watukuy.Fetcher;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The same identity more than once in one page: the last occurrence wins, one event. */
class DuplicateIdentityTest {
  static final PollerKey ITEMS = PollerKey.of("items");

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();

  @Test
  void lastOccurrenceInAPageWinsWithOneEvent() {
    Script<Void> script =
        new Script<Void>()
            .then(page(item("id", "a", "v", 1), item("id", "b", "v", 1), item("id", "a", "v", 2)));
    Watukuy w = engine(Cursors.snapshotDiff(), script);

    KeyReport report = w.tick().poller("items").orElseThrow();

    assertThat(report.eventsCommitted()).isEqualTo(2);
    assertThat(handler.of("a")).containsExactly("created@2");
    ChangeEvent<JsonNode> a =
        handler.events().stream().filter(e -> e.identity().equals("a")).findFirst().orElseThrow();
    assertThat(a.data().get("v").asInt()).isEqualTo(2);
    assertThat(f.store.loadVersions(ITEMS, List.of("a")).get("a").version()).isEqualTo("2");
  }

  @Test
  void lastOccurrenceEqualToTheStoredVersionProducesNoEvent() {
    Script<Void> script =
        new Script<Void>()
            .then(page(item("id", "a", "v", 1)))
            .then(page(item("id", "a", "v", 2), item("id", "a", "v", 1)));
    Watukuy w = engine(Cursors.snapshotDiff(), script);
    w.tick();
    f.nextCycle();

    KeyReport second = w.tick().poller("items").orElseThrow();

    assertThat(second.eventsCommitted()).isZero();
    assertThat(handler.of("a")).containsExactly("created@1");
    assertThat(f.store.loadVersions(ITEMS, List.of("a")).get("a").version()).isEqualTo("1");
  }

  @Test
  void knownItemUpdatedTwiceInOnePageProducesOneUpdatedEvent() {
    Script<Void> script =
        new Script<Void>()
            .then(page(item("id", "a", "v", 1)))
            .then(page(item("id", "a", "v", 2), item("id", "a", "v", 3)));
    Watukuy w = engine(Cursors.snapshotDiff(), script);
    w.tick();
    f.nextCycle();

    w.tick();

    assertThat(handler.of("a")).containsExactly("created@1", "updated@3");
  }

  @Test
  void numberAndStringOfTheSameDecimalAreOneIdentity() {
    Script<Void> script =
        new Script<Void>().then(page(item("id", 7, "v", 1), item("id", "7", "v", 2)));
    Watukuy w = engine(Cursors.snapshotDiff(), script);

    w.tick();

    assertThat(handler.changes()).containsExactly("7:created");
    assertThat(handler.of("7")).containsExactly("created@2");
  }

  @Test
  void sameIdentityOnTwoPagesOfACycleIsDiffedPageByPage() {
    Script<Void> script =
        new Script<Void>()
            .then(page(item("id", "a", "v", 1)).withHasMore(true))
            .then(page(item("id", "a", "v", 2)));
    Watukuy w = engine(Cursors.snapshotDiff(), script);

    w.tick();

    assertThat(handler.of("a")).containsExactly("created@1", "updated@2");
  }

  @Test
  void everyOccurrenceStillCountsForTheTimestampCursor() {
    Script<Watermark> script =
        new Script<Watermark>()
            .then(
                page(
                    item("id", "a", "v", 1, "updatedAt", "2026-03-01T09:00:00Z"),
                    item("id", "b", "v", 1, "updatedAt", "2026-03-01T09:05:00Z"),
                    item("id", "a", "v", 2, "updatedAt", "2026-03-01T09:10:00Z")));
    Watukuy w = engine(Cursors.timestamp("updatedAt").tieBreak("id").build(), script);

    w.tick();

    assertThat(handler.of("a")).containsExactly("created@2");
    assertThat(liveCursor(f.store, ITEMS))
        .isEqualTo(
            Items.MAPPER
                .createObjectNode()
                .put("value", "2026-03-01T09:10:00Z")
                .put("tieBreak", "a"));
  }

  private <C> Watukuy engine(CursorStrategy<C> cursor, Fetcher<JsonNode, C> fetch) {
    Poller<JsonNode> items =
        Poller.builder("items", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.get("v"))
            .cursor(cursor)
            .fetch(fetch)
            .schedule(Fixture.FIXED)
            .build();
    return f.engine("a").poller(items).build().on(items, handler);
  }
}
