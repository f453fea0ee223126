package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static io.watukuy.engine.Items.liveCursor;
import static io.watukuy.engine.Items.liveCursorText;
import static io.watukuy.engine.Items.page;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.CustomCursor;
import io.watukuy.FetchException;
import io.watukuy.Fetcher;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The custom strategy (docs/architecture.md, "custom"). */
class CustomCursorTest {
  static final PollerKey ROWS = PollerKey.of("rows");

  /** A keyset over the id, as in the document's example. */
  record AfterId(String afterId) {}

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();

  /** Next cursor is the last item's id; a short page (or none) is the end. */
  static CustomCursor.Step<AfterId> keyset(CustomCursor.Input<AfterId> in, int limit) {
    if (in.items().isEmpty()) return new CustomCursor.Step<>(in.cursor(), true);
    JsonNode last = (JsonNode) in.items().get(in.items().size() - 1);
    return new CustomCursor.Step<>(new AfterId(last.get("id").asText()), in.items().size() < limit);
  }

  @Test
  void typedCursorAdvancesByTheUsersFunctionAndIsStoredAsJson() {
    f.seed(5);
    List<AfterId> sent = new ArrayList<>();
    CustomCursor<AfterId> cursor = Cursors.custom(new AfterId(""), in -> keyset(in, 2));
    Watukuy w =
        engine(
            cursor,
            ctx -> {
              sent.add(ctx.cursor());
              return f.api.afterId(ctx.cursor().afterId(), 2);
            });

    KeyReport first = w.tick().poller("rows").orElseThrow();

    // Pages of 2, 2 and 1: the short third page ends the cycle.
    assertThat(first.pages()).isEqualTo(3);
    assertThat(sent).containsExactly(new AfterId(""), new AfterId("o002"), new AfterId("o004"));
    assertThat(handler.changes()).hasSize(5);
    assertThat(liveCursor(f.store, ROWS))
        .isEqualTo(Items.MAPPER.createObjectNode().put("afterId", "o005"));

    f.api.put("o006", Map.of("n", 6));
    f.nextCycle();
    w.tick();

    // The cursor is kept across cycles (it was read back from its JSON).
    assertThat(sent).endsWith(new AfterId("o005"));
    assertThat(handler.changes()).endsWith("o006:created");
  }

  @Test
  void advanceReceivesTheSentCursorTheValidItemsAndWhatFetchReturned() {
    List<CustomCursor.Input<AfterId>> inputs = new ArrayList<>();
    CustomCursor<AfterId> cursor =
        Cursors.custom(
            new AfterId(""),
            in -> {
              inputs.add(in);
              return new CustomCursor.Step<>(new AfterId("next"), true);
            });
    Script<AfterId> script =
        new Script<AfterId>()
            .then(
                page(item("id", "a"), item("id", "b"))
                    .withCursor("end-cursor-1")
                    .withHasMore(true));
    Watukuy w = engine(cursor, script);

    w.tick();

    assertThat(inputs).hasSize(1);
    CustomCursor.Input<AfterId> in = inputs.get(0);
    assertThat(in.cursor()).isEqualTo(new AfterId(""));
    assertThat(List.<Object>copyOf(in.items())).containsExactly(item("id", "a"), item("id", "b"));
    assertThat(in.pageCursor()).isEqualTo("end-cursor-1");
    assertThat(in.hasMore()).isTrue();
  }

  @Test
  void advanceReceivesOnlyTheItemsThatPassedTheValidator() {
    List<List<?>> received = new ArrayList<>();
    CustomCursor<AfterId> cursor =
        Cursors.custom(
            new AfterId(""),
            in -> {
              received.add(in.items());
              return new CustomCursor.Step<>(new AfterId("next"), true);
            });
    Script<AfterId> script =
        new Script<AfterId>()
            .then(
                page(
                    item("id", "a", "price", 1),
                    item("id", "b", "price", -1),
                    item("id", "c", "price", 2)));
    Poller<JsonNode> rows =
        Poller.builder("rows", JsonNode.class)
            .identity(n -> n.get("id"))
            .validator(n -> n.path("price").asInt() < 0 ? List.of("price must be >= 0") : List.of())
            .cursor(cursor)
            .fetch(script)
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(rows).build().on(rows, handler);

    w.tick();

    // CustomCursor.Input: "items the page's valid items".
    assertThat(received).hasSize(1);
    assertThat(List.<Object>copyOf(received.get(0)))
        .containsExactly(item("id", "a", "price", 1), item("id", "c", "price", 2));
    assertThat(handler.changes()).containsExactly("a:created", "c:created");
  }

  @Test
  void doneEndsTheCycleEvenWhenFetchSaysHasMore() {
    CustomCursor<AfterId> cursor =
        Cursors.custom(new AfterId(""), in -> new CustomCursor.Step<>(new AfterId("x"), true));
    Script<AfterId> script =
        new Script<AfterId>()
            .then(page(item("id", "a")).withHasMore(true))
            .then(page(item("id", "b")));
    Watukuy w = engine(cursor, script);

    KeyReport report = w.tick().poller("rows").orElseThrow();

    assertThat(report.pages()).isEqualTo(1);
    assertThat(script.cursors()).containsExactly(new AfterId(""));
  }

  @Test
  void genericCursorTypeRoundTripsThroughJson() {
    CustomCursor<Map<String, Integer>> cursor =
        Cursors.custom(
            Map.of("offset", 0),
            new TypeReference<Map<String, Integer>>() {},
            in ->
                new CustomCursor.Step<>(
                    Map.of("offset", in.cursor().get("offset") + in.items().size()), true));
    Script<Map<String, Integer>> script =
        new Script<Map<String, Integer>>()
            .then(page(item("id", "a"), item("id", "b"), item("id", "c")))
            .then(page(item("id", "d")));
    Watukuy w = engine(cursor, script);

    w.tick();
    f.nextCycle();
    w.tick();

    assertThat(script.cursors()).containsExactly(Map.of("offset", 0), Map.of("offset", 3));
    assertThat(liveCursor(f.store, ROWS))
        .isEqualTo(Items.MAPPER.createObjectNode().put("offset", 4));
  }

  @Test
  void userCodecStoresTheCursorInItsOwnText() {
    CustomCursor<java.math.BigInteger> cursor =
        Cursors.custom(
                java.math.BigInteger.ZERO,
                in ->
                    new CustomCursor.Step<>(
                        in.cursor().add(java.math.BigInteger.valueOf(in.items().size())), true))
            .withCodec(
                b -> "\"big:" + b + "\"",
                s -> new java.math.BigInteger(s.substring(5, s.length() - 1)));
    Script<java.math.BigInteger> script =
        new Script<java.math.BigInteger>()
            .then(page(item("id", "a"), item("id", "b")))
            .then(page());
    Watukuy w = engine(cursor, script);

    w.tick();
    f.nextCycle();
    w.tick();

    assertThat(liveCursorText(f.store, ROWS)).isEqualTo("\"big:2\"");
    assertThat(script.cursors())
        .containsExactly(java.math.BigInteger.ZERO, java.math.BigInteger.TWO);
  }

  @Test
  void advanceReturningNoCursorFailsThePageAndCommitsNothing() {
    CustomCursor<AfterId> cursor = Cursors.custom(new AfterId(""), in -> null);
    Script<AfterId> script = new Script<AfterId>().then(page(item("id", "a")));
    Watukuy w = engine(cursor, script);

    KeyReport report = w.tick().poller("rows").orElseThrow();

    assertThat(report.error()).isInstanceOf(FetchException.class).hasMessageContaining("rows");
    assertThat(f.store.countItems(ROWS)).isZero();
    assertThat(liveCursorText(f.store, ROWS)).isNull();
  }

  private <C> Watukuy engine(CustomCursor<C> cursor, Fetcher<JsonNode, C> fetch) {
    Poller<JsonNode> rows =
        Poller.builder("rows", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(cursor)
            .fetch(fetch)
            .schedule(Fixture.FIXED)
            .build();
    return f.engine("a").poller(rows).build().on(rows, handler);
  }
}
