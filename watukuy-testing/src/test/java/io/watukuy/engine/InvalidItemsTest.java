package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static io.watukuy.engine.Items.page;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.Cursors;
import io.watukuy.FetchException;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * An item without a usable identity (missing, null, empty, an object, a float, a boolean) is parked
 * as invalid with the item and the reason, and the rest of its page is delivered: one customer's
 * malformed record does not stop the other ten thousand (G7; docs/operations.md, "Invalid items").
 */
class InvalidItemsTest {
  static final PollerKey FEED = PollerKey.of("feed");
  static final ObjectMapper MAPPER = new ObjectMapper();

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();

  @Test
  void everyKindOfUnusableIdentityIsParkedAndTheRestOfThePageIsDelivered() throws Exception {
    ObjectNode missing = item("name", "no id");
    ObjectNode isNull = item("name", "null id");
    isNull.putNull("id");
    ObjectNode empty = item("id", "");
    ObjectNode object = item("id", item("nested", 1));
    ObjectNode decimal = item("id", 1.5);
    ObjectNode bool = item("id", true);
    Script<Void> script =
        new Script<Void>()
            .then(
                page(
                    item("id", "a"),
                    missing,
                    isNull,
                    empty,
                    object,
                    decimal,
                    bool,
                    item("id", "b")));
    Watukuy w = engine(script);

    KeyReport report = w.tick().poller("feed").orElseThrow();

    assertThat(report.error()).isNull();
    assertThat(handler.changes()).containsExactly("a:created", "b:created");
    List<ParkedRow> parked = f.store.listParked(FEED, ParkedKind.INVALID, 100);
    assertThat(parked).hasSize(6);
    assertThat(parked)
        .extracting(r -> MAPPER.readTree(r.error()).get("message").asText())
        .containsExactlyInAnyOrder(
            "item 2: identity is missing (null)",
            "item 3: identity is missing (null)",
            "item 4: identity is empty",
            "item 5: identity must be a string or an integer, but was a JSON object"
                + " ({\"nested\":1})",
            "item 6: identity must be a string or an integer, but was a JSON number (1.5)",
            "item 7: identity must be a string or an integer, but was a JSON boolean (true)");
    assertThat(parked)
        .allSatisfy(
            r ->
                assertThat(MAPPER.readTree(r.error()).get("name").asText())
                    .isEqualTo("IdentityError"));
    assertThat(parked).extracting(r -> MAPPER.readTree(r.item())).contains(missing, object);
    assertThat(f.store.loadState(FEED).orElseThrow().schedule().consecutiveFailures()).isZero();
  }

  @Test
  void aVersionOrOrderingKeyThatCannotBeReadParksOnlyItsItem() throws Exception {
    Script<Void> script =
        new Script<Void>()
            .then(
                page(
                    item("id", "a", "v", 1, "customer", "c1"),
                    item("id", "b", "v", 2.5, "customer", "c1"),
                    item("id", "c", "v", 3),
                    item("id", "d", "v", 4, "customer", "c2")));
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.get("v"))
            .orderingKey(n -> n.hasNonNull("customer") ? n.get("customer").asText() : null)
            .cursor(Cursors.snapshotDiff())
            .fetch(script)
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(feed).build().on(feed, handler);

    KeyReport report = w.tick().poller("feed").orElseThrow();

    assertThat(report.error()).isNull();
    assertThat(handler.changes()).containsExactly("a:created", "d:created");
    assertThat(f.store.listParked(FEED, ParkedKind.INVALID, 100))
        .extracting(r -> MAPPER.readTree(r.error()).get("message").asText())
        .containsExactlyInAnyOrder(
            "item 2: version must be a string or an integer, but was a JSON number (2.5)",
            "item 3: orderingKey is null");
    assertThat(f.store.loadState(FEED).orElseThrow().schedule().consecutiveFailures()).isZero();
  }

  @Test
  void threeFullListingsInARowThatParkAnItemWithoutAnIdentityAreAnError() {
    Script<Void> script = new Script<Void>().then(page(item("id", "a"), item("id", "b")));
    for (int i = 0; i < 3; i++) script.then(page(item("id", "a"), item("name", "b without id")));
    Watukuy w = engine(script);
    w.tick();

    KeyReport last = null;
    for (int i = 0; i < 3; i++) {
      f.nextCycle();
      last = w.tick().poller("feed").orElseThrow();
    }

    assertThat(((FetchException) last.error()).kind()).isEqualTo("ListingInconsistent");
    assertThat(last.error().getMessage()).contains("parked an item without an identity");
    assertThat(handler.changes()).containsExactly("a:created", "b:created");
  }

  @Test
  void theSameInvalidItemSeenAgainReplacesItsParkedRow() {
    ObjectNode missing = item("name", "no id");
    Script<Void> script =
        new Script<Void>()
            .then(page(item("id", "a"), missing))
            .then(page(missing, item("id", "a")));
    Watukuy w = engine(script);

    w.tick();
    f.nextCycle();
    w.tick();

    assertThat(f.store.listParked(FEED, ParkedKind.INVALID, 100)).hasSize(1);
  }

  @Test
  void aFullListingThatParkedAnItemWithoutAnIdentityEmitsNoDeletes() {
    Script<Void> script =
        new Script<Void>()
            .then(page(item("id", "a"), item("id", "b"), item("id", "c")))
            // b may be the item without an identity: nothing can be deleted this time.
            .then(page(item("id", "a"), item("name", "b without its id")))
            .then(page(item("id", "a")));
    Watukuy w = engine(script);
    w.tick();
    f.nextCycle();
    w.tick();
    assertThat(handler.changes()).containsExactly("a:created", "b:created", "c:created");

    f.nextCycle();
    w.tick();

    assertThat(handler.changes()).endsWith("b:deleted", "c:deleted");
  }

  @Test
  void parkedRetryDiffsAnItemThatNowPassesAndDropsOneSeenSinceOrStillInvalid() {
    AtomicBoolean strict = new AtomicBoolean(true);
    Script<String> script =
        new Script<String>()
            .then(page(item("id", "a", "email", "x"), item("id", "b", "email", "y")))
            .then(page(item("id", "b", "email", "y2")));
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .validator(n -> strict.get() ? List.of("email must hold an @") : List.of())
            .cursor(Cursors.token())
            .fetch(script)
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(feed).build().on(feed, handler);
    w.tick(); // a and b parked
    strict.set(false);
    f.nextCycle();
    w.tick(); // b arrives again, now valid: created, newer than its parked row
    f.clock.advance(Duration.ofSeconds(1));
    List<String> ids =
        f.store.listParked(FEED, ParkedKind.INVALID, 100).stream().map(ParkedRow::id).toList();
    assertThat(ids).hasSize(2);

    int removed = w.parked().retry(FEED, ids);
    f.nextCycle();
    w.tick();

    assertThat(removed).isEqualTo(2);
    assertThat(f.store.listParked(FEED, ParkedKind.INVALID, 100)).isEmpty();
    // a is diffed from its parked state; b's parked state is older than the one seen since.
    assertThat(handler.changes()).containsExactly("b:created", "a:created");
    assertThat(handler.of("b")).hasSize(1);
  }

  @Test
  void parkedRetryOfAnItemThatIsStillInvalidDropsItWithoutAnEvent() {
    Script<Void> script =
        new Script<Void>()
            .then(page(item("id", "a"), item("name", "no id")))
            .then(page(item("id", "a")));
    Watukuy w = engine(script);
    w.tick();
    List<String> ids =
        f.store.listParked(FEED, ParkedKind.INVALID, 100).stream().map(ParkedRow::id).toList();

    assertThat(w.parked().retry(FEED, ids)).isEqualTo(1);
    f.nextCycle();
    w.tick();

    assertThat(handler.changes()).containsExactly("a:created");
    assertThat(f.store.listParked(FEED, ParkedKind.INVALID, 100)).isEmpty();
  }

  private Watukuy engine(Script<Void> script) {
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(script)
            .schedule(Fixture.FIXED)
            .build();
    return f.engine("a").poller(feed).build().on(feed, handler);
  }
}
