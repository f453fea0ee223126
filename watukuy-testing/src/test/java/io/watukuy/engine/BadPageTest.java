package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.Cursors;
import io.watukuy.FetchException;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.spi.PollerState;
import io.watukuy.testing.FakeApi;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * A page that is not what fetch promised ends the cycle with an error naming the poller, partition,
 * page and item; nothing of that page is committed and the cursor does not move. No handler is
 * attached, so the outbox count shows exactly what was committed. (An item without a usable
 * identity is not such a page: it is parked, see {@code InvalidItemsTest}.)
 */
class BadPageTest {
  static final PollerKey EU = new PollerKey("orders", "eu");
  static final Instant START = Instant.parse("2026-03-01T10:00:00Z");

  final Fixture f = new Fixture();
  final List<Watermark> sent = new ArrayList<>();
  // Applied to the next page only; null passes pages through.
  final AtomicReference<UnaryOperator<Page<JsonNode>>> corruptNext = new AtomicReference<>();
  final Watukuy w = f.engine("a").poller(orders(10)).build();

  @Test
  void fetchReturningNullPageIsRejected() {
    FetchException e = rejects(p -> null, -1);
    assertThat(e).hasMessageContaining("null");
  }

  @Test
  void nullItemIsRejectedWithItsIndex() {
    FetchException e = rejects(p -> withExtra(p, null), 1);
    assertThat(e).hasMessageContaining("null");
  }

  @Test
  void nanThatRfc8785CannotCanonicalizeIsRejected() {
    ObjectNode nan = bad("x");
    nan.put("score", Double.NaN);
    FetchException e = rejects(p -> withExtra(p, nan), 1);
    assertThat(e).hasMessageContaining("RFC 8785");
  }

  @Test
  void unpairedSurrogateThatRfc8785CannotCanonicalizeIsRejected() {
    ObjectNode surrogate = bad("x");
    surrogate.put("name", "broken \uD800 text");
    FetchException e = rejects(p -> withExtra(p, surrogate), 1);
    assertThat(e).hasMessageContaining("RFC 8785");
  }

  @Test
  void exceptionThrownByFetchIsRejectedWithItAsCause() {
    IllegalStateException boom = new IllegalStateException("vendor said 500");
    FetchException e =
        rejects(
            p -> {
              throw boom;
            },
            -1);
    assertThat(e).hasMessageContaining("vendor said 500").hasCause(boom);
  }

  @Test
  void fetchBuildingAPageFromANullItemsListIsRejected() {
    // Page.of refuses a null list; the fetch that tries it fails the page like any fetch error.
    FetchException e = rejects(p -> Page.of(null), -1);
    assertThat(e).hasMessageContaining("items").hasCauseInstanceOf(NullPointerException.class);
  }

  @Test
  void badSecondPageKeepsTheFirstPagesCommitAndNamesPageTwo() {
    Watukuy engine = f.engine("b").poller(orders(1)).build();
    f.api.put("seed", Map.of());
    engine.tick();
    f.nextCycle();
    f.api.put("c1", Map.of());
    f.api.put("c2", Map.of());
    // Page 1 passes through and arms the corruption of page 2: a null item after c2.
    corruptNext.set(
        p -> {
          corruptNext.set(q -> withExtra(q, null));
          return p;
        });

    KeyReport report = engine.tick().key(EU).orElseThrow();

    assertThat(report.error()).isInstanceOf(FetchException.class);
    FetchException e = (FetchException) report.error();
    assertThat(e.page()).isEqualTo(2);
    assertThat(e.itemIndex()).isEqualTo(1);
    assertThat(e)
        .hasMessageContaining("page 2")
        .hasMessageContaining("item 2"); // the second item: messages count from 1
    assertThat(f.store.countItems(EU)).isEqualTo(2); // seed and c1
    assertThat(f.store.countPending(EU)).isEqualTo(2);
    assertThat(Items.liveCursor(f.store, EU).path("tieBreak").asText()).isEqualTo("c1");

    f.nextCycle();
    engine.tick();
    assertThat(sent).last().isEqualTo(new Watermark(FakeApi.iso(START.plus(Fixture.MIN)), "c1"));
    assertThat(f.store.countItems(EU)).isEqualTo(3);
  }

  @Test
  void recordItemWithANanFieldIsRejectedAndNothingOfItsPageIsCommitted() {
    record Reading(String id, double value) {}
    Poller<Reading> readings =
        Poller.builder("readings", Reading.class)
            .identity(Reading::id)
            .cursor(Cursors.snapshotDiff())
            .fetch(ctx -> Page.of(List.of(new Reading("a", 1.0), new Reading("b", Double.NaN))))
            .schedule(Fixture.FIXED)
            .build();
    Watukuy engine = f.engine("b").poller(readings).build();

    KeyReport report = engine.tick().poller("readings").orElseThrow();

    assertThat(report.error()).isInstanceOf(FetchException.class);
    FetchException e = (FetchException) report.error();
    assertThat(e.poller()).isEqualTo("readings");
    assertThat(e.partition()).isEmpty();
    assertThat(e.page()).isEqualTo(1);
    assertThat(e.itemIndex()).isEqualTo(1);
    assertThat(e).hasMessageContaining("readings").hasMessageContaining("item 2");
    assertThat(f.store.countItems(PollerKey.of("readings"))).isZero();
    assertThat(f.store.countPending(PollerKey.of("readings"))).isZero();
  }

  // ---- the scenario every bad page goes through

  /**
   * Polls "seed" into the store, then serves the next page through {@code corruption}: the cycle
   * must fail naming the poller, partition, page 1 and {@code itemIndex}, commit nothing and leave
   * the cursor; the cycle after that continues from the old cursor.
   */
  private FetchException rejects(UnaryOperator<Page<JsonNode>> corruption, int itemIndex) {
    f.api.put("seed", Map.of());
    w.tick();
    Map<String, String> cursorsBefore = cursors();
    assertThat(cursorsBefore).containsKey("live");
    f.nextCycle();
    f.api.put("c", Map.of()); // a legitimately new item on the bad page
    corruptNext.set(corruption);

    KeyReport report = w.tick().key(EU).orElseThrow();

    assertThat(report.error()).isInstanceOf(FetchException.class);
    FetchException e = (FetchException) report.error();
    assertThat(e.poller()).isEqualTo("orders");
    assertThat(e.partition()).isEqualTo("eu");
    assertThat(e.page()).isEqualTo(1);
    assertThat(e.itemIndex()).isEqualTo(itemIndex);
    assertThat(e)
        .hasMessageContaining("orders")
        .hasMessageContaining("eu")
        .hasMessageContaining("page 1");
    if (itemIndex >= 0) assertThat(e).hasMessageContaining("item " + (itemIndex + 1));
    assertThat(report.eventsCommitted()).isZero();
    assertThat(cursors()).isEqualTo(cursorsBefore);
    assertThat(f.store.countItems(EU)).isEqualTo(1);
    assertThat(f.store.countPending(EU)).isEqualTo(1);

    f.nextCycle();
    KeyReport good = w.tick().key(EU).orElseThrow();

    assertThat(good.error()).isNull();
    Watermark old = watermarkOf(cursorsBefore);
    assertThat(old).isEqualTo(new Watermark(FakeApi.iso(START), "seed"));
    assertThat(sent.subList(sent.size() - 2, sent.size())).containsExactly(old, old);
    assertThat(f.store.countItems(EU)).isEqualTo(2);
    assertThat(f.store.countPending(EU)).isEqualTo(2);
    return e;
  }

  private Poller<JsonNode> orders(int pageSize) {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id"))
        .version(n -> n.path("updatedAt").asText() + "#" + n.path("rev").asText())
        .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
        .fetch(
            ctx -> {
              sent.add(ctx.cursor());
              Page<JsonNode> p = f.api.updatedSince(ctx.cursor(), pageSize);
              UnaryOperator<Page<JsonNode>> c = corruptNext.getAndSet(null);
              return c == null ? p : c.apply(p);
            })
        .partitions(List.of("eu"))
        .schedule(Fixture.FIXED)
        .build();
  }

  /** An otherwise well-formed item that sorts after everything the tests put. */
  private static ObjectNode bad(String id) {
    return item("id", id, "updatedAt", "2026-03-01T12:00:00.000Z", "rev", 1);
  }

  private static Page<JsonNode> withExtra(Page<JsonNode> p, JsonNode extra) {
    List<JsonNode> items = new ArrayList<>(p.items());
    items.add(extra); // may be null: Page.of keeps nulls so that the engine can report them
    return Page.<JsonNode>of(items).withHasMore(p.hasMore());
  }

  private Map<String, String> cursors() {
    return f.store.loadState(EU).map(PollerState::cursors).orElse(Map.of());
  }

  private static Watermark watermarkOf(Map<String, String> cursors) {
    try {
      JsonNode n = Items.MAPPER.readTree(cursors.get("live"));
      return new Watermark(n.path("value").asText(null), n.path("tieBreak").asText(null));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
