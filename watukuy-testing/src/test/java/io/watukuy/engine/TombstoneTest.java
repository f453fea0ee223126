package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static io.watukuy.engine.Items.liveCursor;
import static io.watukuy.engine.Items.page;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.CursorStrategy;
import io.watukuy.Cursors;
import io.watukuy.EventType;
import io.watukuy.Fetcher;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Retain;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Tombstones: identities an API reports deleted (docs/architecture.md, "Tombstones"). */
class TombstoneTest {
  static final PollerKey FEED = PollerKey.of("feed");

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();

  @Test
  void tombstoneItemForAKnownIdentityCommitsADeletedEventWithTheLastStoredVersionAndRemovesTheRow()
      throws Exception {
    Watukuy w = engine(Cursors.token(), f.api.tokenFetcher(10));
    f.api.put("a", Map.of("price", 1));
    f.api.put("b", Map.of("price", 1));
    w.tick();
    f.api.put("a", Map.of("price", 2)); // rev 2
    f.nextCycle();
    w.tick();
    f.api.delete("a");
    f.nextCycle();

    w.tick();

    assertThat(handler.changes())
        .containsExactly("a:created", "b:created", "a:updated", "a:deleted");
    ChangeEvent<JsonNode> deleted = handler.events().get(3);
    assertThat(deleted.version()).isEqualTo("2");
    assertThat(deleted.id()).isEqualTo(sha256Hex("watukuy|v1|feed||a|2|1|deleted"));
    assertThat(deleted.data().get("price").asInt()).isEqualTo(2); // retain payload: the last one
    assertThat(f.store.countItems(FEED)).isEqualTo(1);
    assertThat(f.store.loadVersions(FEED, List.of("a"))).isEmpty();
    // The tombstone moved the token like any item: feed positions 1..4 are consumed.
    assertThat(Items.liveCursorText(f.store, FEED)).isEqualTo("\"4\"");
  }

  @Test
  void tombstoneForAnUnknownIdentityDoesNothing() {
    Script<String> script =
        new Script<String>()
            .then(
                page(item("id", "a"), item("id", "ghost", "deleted", true))
                    .withCursor("t1")
                    .withHasMore(false));
    Watukuy w = engine(Cursors.token(), script);

    KeyReport report = w.tick().poller("feed").orElseThrow();

    assertThat(report.error()).isNull();
    assertThat(handler.changes()).containsExactly("a:created");
    assertThat(f.store.countItems(FEED)).isEqualTo(1);
    assertThat(Items.liveCursorText(f.store, FEED)).isEqualTo("\"t1\"");
  }

  @Test
  void itemCreatedAndDeletedWithinOnePageProducesNothing() {
    f.api.put("x", Map.of());
    f.api.delete("x");
    Watukuy w = engine(Cursors.token(), f.api.tokenFetcher(10));

    w.tick();

    // The tombstone is the last occurrence of x and x was never stored.
    assertThat(handler.changes()).isEmpty();
    assertThat(f.store.countItems(FEED)).isZero();
  }

  @Test
  void pageTombstonesDeleteKnownIdentitiesAndIgnoreUnknownOnes() {
    Script<String> script =
        new Script<String>()
            .then(
                page(item("id", "a", "v", 1), item("id", "b", "v", 1))
                    .withCursor("t1")
                    .withHasMore(false))
            .then(
                page(item("id", "c", "v", 1))
                    .withTombstones(List.of("a", "ghost"))
                    .withCursor("t2")
                    .withHasMore(false));
    Watukuy w = engine(Cursors.token(), script);
    w.tick();
    f.nextCycle();

    w.tick();

    assertThat(handler.changes())
        .containsExactlyInAnyOrder("a:created", "b:created", "c:created", "a:deleted");
    assertThat(handler.changes()).containsSubsequence("a:created", "a:deleted");
    ChangeEvent<JsonNode> created = handler.events().get(0);
    ChangeEvent<JsonNode> deleted =
        handler.events().stream()
            .filter(e -> e.type() == EventType.DELETED)
            .findFirst()
            .orElseThrow();
    assertThat(deleted.version()).isEqualTo(created.version()); // no version value: the hash
    assertThat(deleted.hash()).isEqualTo(created.hash());
    assertThat(f.store.countItems(FEED)).isEqualTo(2);
    assertThat(Items.liveCursorText(f.store, FEED)).isEqualTo("\"t2\"");
  }

  @Test
  void tombstoneStillMovesTheTimestampCursor() {
    Script<Watermark> script =
        new Script<Watermark>()
            .then(page(item("id", "a", "updatedAt", "2026-03-01T09:00:00Z")))
            .then(
                page(
                    item("id", "a", "updatedAt", "2026-03-01T09:10:00Z", "deleted", true),
                    item("id", "ghost", "updatedAt", "2026-03-01T09:20:00Z", "deleted", true)));
    Watukuy w = engine(Cursors.timestamp("updatedAt").tieBreak("id").build(), script);
    w.tick();
    f.nextCycle();

    w.tick();

    assertThat(handler.changes()).containsExactly("a:created", "a:deleted");
    assertThat(liveCursor(f.store, FEED))
        .isEqualTo(
            Items.MAPPER
                .createObjectNode()
                .put("value", "2026-03-01T09:20:00Z")
                .put("tieBreak", "ghost"));
    assertThat(f.store.countItems(FEED)).isZero();
  }

  @Test
  void tombstoneIsNotValidatedLikeAnItem() {
    Script<String> script =
        new Script<String>()
            .then(page(item("id", "a", "price", 1)).withCursor("t1").withHasMore(false))
            .then(page(item("id", "a", "deleted", true)).withCursor("t2").withHasMore(false));
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .tombstone(n -> n.path("deleted").asBoolean())
            .validator(n -> n.has("price") ? List.of() : List.of("price is required"))
            .cursor(Cursors.token())
            .fetch(script)
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(feed).build().on(feed, handler);
    w.tick();
    f.nextCycle();

    KeyReport second = w.tick().poller("feed").orElseThrow();

    assertThat(second.parked()).isZero();
    assertThat(handler.changes()).containsExactly("a:created", "a:deleted");
  }

  private <C> Watukuy engine(CursorStrategy<C> cursor, Fetcher<JsonNode, C> fetch) {
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.path("rev"))
            .tombstone(n -> n.path("deleted").asBoolean())
            .cursor(cursor)
            .fetch(fetch)
            .retain(Retain.PAYLOAD)
            .schedule(Fixture.FIXED)
            .build();
    return f.engine("a").poller(feed).build().on(feed, handler);
  }

  private static String sha256Hex(String s) throws Exception {
    return HexFormat.of()
        .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
  }
}
