package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static io.watukuy.engine.Items.liveCursorText;
import static io.watukuy.engine.Items.page;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.TokenCursor;
import io.watukuy.Watukuy;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The token strategy (docs/architecture.md, "token"). */
class TokenCursorTest {
  static final PollerKey INVOICES = PollerKey.of("invoices");

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();

  @Test
  void nonEmptyTokenContinuesTheCycleAtOnce() {
    Script<String> script =
        new Script<String>()
            .then(page(item("id", "a")).withCursor("t1"))
            .then(page(item("id", "b")).withCursor("t2"))
            .then(page(item("id", "c")));
    Watukuy w = engine(Cursors.token(), script);

    KeyReport report = w.tick().poller("invoices").orElseThrow();

    assertThat(report.pages()).isEqualTo(3);
    assertThat(script.cursors()).containsExactly(null, "t1", "t2");
    assertThat(handler.changes()).containsExactly("a:created", "b:created", "c:created");
  }

  @Test
  void nullTokenEndsTheListingAndResetsToInitial() {
    Script<String> script =
        new Script<String>()
            .then(page(item("id", "a")).withCursor("t1"))
            .then(page(item("id", "b")).withCursor(null))
            .then(page(item("id", "a")));
    Watukuy w = engine(Cursors.token("start"), script);

    w.tick();
    assertThat(script.cursors()).containsExactly("start", "t1");
    f.nextCycle();
    w.tick();

    assertThat(script.cursors()).containsExactly("start", "t1", "start");
  }

  @Test
  void emptyTokenEndsTheListingAndResetsToInitial() {
    Script<String> script =
        new Script<String>()
            .then(page(item("id", "a")).withCursor("t1"))
            .then(page(item("id", "b")).withCursor(""))
            .then(page());
    Watukuy w = engine(Cursors.token(), script);

    w.tick();
    f.nextCycle();
    w.tick();

    assertThat(script.cursors()).containsExactly(null, "t1", null);
    assertThat(liveCursorText(f.store, INVOICES)).isNull();
  }

  @Test
  void tokenWithHasMoreFalseIsKeptForTheNextCycle() {
    Script<String> script =
        new Script<String>()
            .then(page(item("id", "a")).withCursor("sync-1").withHasMore(false))
            .then(page(item("id", "b")).withCursor("sync-2").withHasMore(false))
            .then(page().withCursor("sync-2").withHasMore(false));
    Watukuy w = engine(Cursors.token(), script);

    KeyReport first = w.tick().poller("invoices").orElseThrow();
    assertThat(first.pages()).isEqualTo(1);
    f.nextCycle();
    w.tick();
    f.nextCycle();
    w.tick();

    assertThat(script.cursors()).containsExactly(null, "sync-1", "sync-2");
    assertThat(liveCursorText(f.store, INVOICES)).isEqualTo("\"sync-2\"");
  }

  @Test
  void emptyPageEchoingTheSentTokenEndsTheCycleAndKeepsTheToken() {
    Script<String> script =
        new Script<String>()
            .then(page(item("id", "a")).withCursor("t1").withHasMore(false))
            // "nothing new" with the same token, even while claiming more: must not loop.
            .thenAnswer(ctx -> page().withCursor(ctx.cursor()).withHasMore(true))
            .thenAnswer(ctx -> page().withCursor(ctx.cursor()).withHasMore(true));
    Watukuy w = engine(Cursors.token(), script);
    w.tick();
    f.nextCycle();

    KeyReport second = w.tick().poller("invoices").orElseThrow();

    assertThat(second.error()).isNull();
    assertThat(second.pages()).isEqualTo(1);
    assertThat(script.cursors()).containsExactly(null, "t1");
    assertThat(liveCursorText(f.store, INVOICES)).isEqualTo("\"t1\"");

    f.nextCycle();
    w.tick();
    assertThat(script.cursors()).containsExactly(null, "t1", "t1");
  }

  @Test
  void changeFeedDeliversEachMutationOnceAcrossCycles() {
    Poller<JsonNode> feed =
        Poller.builder("invoices", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.path("rev"))
            .cursor(Cursors.token())
            .fetch(f.api.tokenFetcher(2))
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(feed).build().on(feed, handler);
    f.api.put("a", Map.of("n", 1));
    f.api.put("b", Map.of("n", 1));
    f.api.put("c", Map.of("n", 1));

    KeyReport first = w.tick().poller("invoices").orElseThrow();

    // Two pages of 2: the second holds one entry and says hasMore false with token "3".
    assertThat(first.pages()).isEqualTo(2);
    assertThat(handler.changes()).containsExactly("a:created", "b:created", "c:created");
    assertThat(liveCursorText(f.store, INVOICES)).isEqualTo("\"3\"");

    f.api.put("b", Map.of("n", 2));
    f.nextCycle();
    w.tick();

    assertThat(handler.changes())
        .containsExactly("a:created", "b:created", "c:created", "b:updated");
    assertThat(liveCursorText(f.store, INVOICES)).isEqualTo("\"4\"");
  }

  @Test
  void numericTokenIsKeptAsItsJsonText() {
    Script<String> script =
        new Script<String>().then(page(item("id", "a")).withCursor(42L).withHasMore(false));
    Watukuy w = engine(Cursors.token(), script);

    w.tick();
    f.nextCycle();
    w.tick();

    assertThat(script.cursors()).containsExactly(null, "42");
  }

  private Watukuy engine(TokenCursor cursor, Script<String> script) {
    Poller<JsonNode> invoices =
        Poller.builder("invoices", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(cursor)
            .fetch(script)
            .schedule(Fixture.FIXED)
            .build();
    return f.engine("a").poller(invoices).build().on(invoices, handler);
  }
}
