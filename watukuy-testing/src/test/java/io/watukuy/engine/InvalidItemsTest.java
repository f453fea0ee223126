package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static io.watukuy.engine.Items.page;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.Cursors;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import java.util.List;
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
