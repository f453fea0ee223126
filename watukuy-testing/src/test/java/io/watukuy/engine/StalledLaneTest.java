package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static io.watukuy.engine.Items.liveCursorText;
import static io.watukuy.engine.Items.page;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.CursorStrategy;
import io.watukuy.Cursors;
import io.watukuy.FetchException;
import io.watukuy.Fetcher;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A lane that cannot move within its cycle is an error that monitoring sees (docs/operations.md,
 * "Stalled lanes"): the repeated request is not sent, the pages before it stay committed, {@code
 * lastError} names the cause, the failure counts for backoff and the circuit, {@code onError}
 * fires. Across cycles, repeating the previous cycle's last request is normal.
 */
class StalledLaneTest {
  static final PollerKey KEY = PollerKey.of("feed");
  static final String T = "2026-03-01T09:00:00Z";

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();
  final List<Throwable> errors = new CopyOnWriteArrayList<>();

  @Test
  void aTokenHandedBackWithANonEmptyPageIsTokenNotAdvancingAndTheThirdRequestIsNotSent() {
    Script<String> script =
        new Script<String>()
            .then(page(item("id", "a"), item("id", "b")).withCursor("t1"))
            .then(page(item("id", "c")).withCursor("t1"))
            .then(page(item("id", "never")));
    Watukuy w = engine(Cursors.token(), script);

    KeyReport report = w.tick().poller("feed").orElseThrow();

    assertThat(script.cursors()).containsExactly(null, "t1");
    assertThat(report.failed()).isTrue();
    FetchException e = (FetchException) report.error();
    assertThat(e.kind()).isEqualTo("TokenNotAdvancing");
    assertThat(e.getMessage())
        .startsWith("poller feed page 3: live lane stalled (TokenNotAdvancing)")
        .contains("'t1'", "response.next", "not sent");
    // What was committed stays and is delivered; the stored token is the one handed back.
    assertThat(handler.changes()).containsExactly("a:created", "b:created", "c:created");
    assertThat(liveCursorText(f.store, KEY)).isEqualTo("\"t1\"");
    ScheduleState s = state();
    assertThat(s.lastError().name()).isEqualTo("TokenNotAdvancing");
    assertThat(s.consecutiveFailures()).isEqualTo(1);
    assertThat(s.state()).isEqualTo(ScheduleState.Status.BACKING_OFF);
    assertThat(errors).containsExactly(e);
  }

  @Test
  void aStallAFetchNamesItselfIsReportedUnderItsNameAndThePagesBeforeItStay() {
    // A fetch that follows next-page URLs sees page 1 link to itself and refuses to ask again.
    Script<Integer> script =
        new Script<Integer>()
            .then(page(item("id", "a")).withHasMore(true))
            .thenAnswer(
                ctx -> {
                  throw FetchException.named(
                      ctx.poller(),
                      ctx.partition(),
                      ctx.page(),
                      "PageRepeated",
                      "live lane stalled (PageRepeated): the next URL of page 1 is page 1's own");
                });
    Watukuy w = engine(Cursors.page(1), script);

    KeyReport report = w.tick().poller("feed").orElseThrow();

    FetchException e = (FetchException) report.error();
    assertThat(e.kind()).isEqualTo("PageRepeated");
    assertThat(e.getMessage()).startsWith("poller feed page 2: live lane stalled (PageRepeated)");
    assertThat(handler.changes()).containsExactly("a:created");
    assertThat(state().lastError().name()).isEqualTo("PageRepeated");
    assertThat(state().consecutiveFailures()).isEqualTo(1);
  }

  @Test
  void aStalledLanesStoredErrorHidesTheEnginesSecretsEvenInACursor() {
    Script<String> script =
        new Script<String>()
            .then(page(item("id", "a")).withCursor("tok-s3cret-value"))
            .then(page(item("id", "b")).withCursor("tok-s3cret-value"));
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.token())
            .fetch(script)
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w =
        f.engine("a").secrets(List.of("tok-s3cret-value")).poller(feed).build().on(feed, handler);

    w.tick();

    assertThat(state().lastError().name()).isEqualTo("TokenNotAdvancing");
    assertThat(state().lastError().message()).contains("[redacted]").doesNotContain("s3cret");
  }

  @Test
  void tiesWiderThanAPageWithoutATieBreakArePageRepeatedNamingTheInstantAndTheFix() {
    Script<?> script =
        new Script<>()
            .then(page(at("c0", "2026-03-01T08:00:00Z"), at("c1", T)).withHasMore(true))
            .then(page(at("c1", T), at("c2", T)).withHasMore(true))
            .then(page(at("c3", T)));
    Watukuy w = engine(Cursors.timestamp("updatedAt").build(), script);

    KeyReport report = w.tick().poller("feed").orElseThrow();

    // Page 2 was sent with the watermark T; page 3 would be sent with T again: not sent.
    assertThat(script.requests()).hasSize(2);
    FetchException e = (FetchException) report.error();
    assertThat(e.kind()).isEqualTo("PageRepeated");
    assertThat(e.getMessage())
        .contains(
            "page 3",
            "at least 2 items share updatedAt " + T + " and fill a page",
            "raise the page size above the widest tie",
            "set cursor.tieBreak");
    assertThat(handler.changes()).containsExactly("c0:created", "c1:created", "c2:created");
    assertThat(state().lastError().name()).isEqualTo("PageRepeated");
  }

  @Test
  void aTieBreakTheApiIgnoresIsPageRepeatedSayingSo() {
    Script<?> script =
        new Script<>()
            .then(page(at("c0", "2026-03-01T08:00:00Z"), at("c1", T)).withHasMore(true))
            .then(page(at("c1", T), at("c2", T)).withHasMore(true))
            .then(page(at("c1", T), at("c2", T)).withHasMore(true))
            .then(page(at("c3", T)));
    Watukuy w = engine(Cursors.timestamp("updatedAt").tieBreak("id").build(), script);

    KeyReport report = w.tick().poller("feed").orElseThrow();

    // The third request carried the new tie-break (c2) and came back with page 2's items.
    assertThat(script.requests()).hasSize(3);
    FetchException e = (FetchException) report.error();
    assertThat(e.kind()).isEqualTo("PageRepeated");
    assertThat(e.getMessage())
        .contains("page 3 lists exactly the items of page 2", "ignored the tie-break", "'c2'");
    assertThat(liveCursorText(f.store, KEY))
        .isEqualTo("{\"value\":\"" + T + "\",\"tieBreak\":\"c2\"}");
  }

  @Test
  void aFullListingWhoseApiAnswersItsLastPageForEveryPageNumberStallsWithoutDeletes() {
    // The API pages by number but answers every page past 2 with page 2.
    Fetcher<JsonNode, Void> stuck =
        ctx ->
            ctx.page() == 1
                ? page(item("id", "a"), item("id", "b")).withHasMore(true)
                : page(item("id", "c"), item("id", "d")).withHasMore(true);
    Watukuy w = engine(Cursors.snapshotDiff(), stuck);

    KeyReport report = w.tick().poller("feed").orElseThrow();

    assertThat(report.pages()).isEqualTo(3);
    assertThat(((FetchException) report.error()).kind()).isEqualTo("PageRepeated");
    assertThat(report.error().getMessage()).contains("page 3 lists exactly the items of page 2");
    assertThat(handler.changes())
        .containsExactly("a:created", "b:created", "c:created", "d:created");
  }

  @Test
  void aFetcherThatPagesByThePageNumberIsNotStalledByAnUnchangedCursor() {
    Fetcher<JsonNode, Void> byPage =
        ctx -> page(item("id", "p" + ctx.page())).withHasMore(ctx.page() < 4);
    Watukuy w = engine(Cursors.snapshotDiff(), byPage);

    KeyReport report = w.tick().poller("feed").orElseThrow();

    assertThat(report.error()).isNull();
    assertThat(report.pages()).isEqualTo(4);
  }

  @Test
  void aChangeFeedRepeatingThePreviousCyclesLastRequestIsIdleNotStalled() {
    Script<String> script =
        new Script<String>()
            .then(page(item("id", "a")).withCursor("t1").withHasMore(false))
            .thenAnswer(ctx -> page().withCursor(ctx.cursor()))
            .thenAnswer(ctx -> page().withCursor(ctx.cursor()));
    Watukuy w = engine(Cursors.token(), script);
    w.tick();
    f.nextCycle();
    w.tick();
    f.nextCycle();

    KeyReport third = w.tick().poller("feed").orElseThrow();

    assertThat(third.error()).isNull();
    assertThat(script.cursors()).containsExactly(null, "t1", "t1");
    assertThat(state().lastError()).isNull();
  }

  @Test
  void aRequestThatDoesNotCarryTheCursorIsRefusedBeforeItIsSentEvenWhenFetchSwallowsTheRefusal()
      throws IOException {
    AtomicInteger served = new AtomicInteger();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/feed",
        ex -> {
          served.incrementAndGet();
          byte[] body =
              ("{\"items\":[{\"id\":\"x"
                      + served.get()
                      + "\"}],\"next\":\"n"
                      + served.get()
                      + "\"}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.start();
    try {
      String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/feed?limit=1";
      // The token is read from the response but never sent: every request is the first page.
      Fetcher<JsonNode, String> forgetful =
          ctx -> {
            JsonNode body;
            try {
              body = ctx.http().get(url).json();
            } catch (RuntimeException swallowed) {
              return Page.empty(); // fetch code that hides failures cannot hide the stall
            }
            return Page.of(List.of(body.get("items").get(0))).withCursor(body.get("next").asText());
          };
      Watukuy w = engine(Cursors.token(), forgetful);

      KeyReport report = w.tick().poller("feed").orElseThrow();

      assertThat(served.get()).isEqualTo(1);
      FetchException e = (FetchException) report.error();
      assertThat(e.kind()).isEqualTo("PageRepeated");
      assertThat(e.getMessage())
          .contains("page 2 would repeat page 1's although the cursor moved", "{{cursor.value}}");
      assertThat(handler.changes()).containsExactly("x1:created");
    } finally {
      server.stop(0);
    }
  }

  private static JsonNode at(String id, String updatedAt) {
    return item("id", id, "updatedAt", updatedAt);
  }

  private ScheduleState state() {
    return f.store.loadState(KEY).orElseThrow().schedule();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private Watukuy engine(CursorStrategy<?> cursor, Fetcher<JsonNode, ?> fetch) {
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor((CursorStrategy) cursor)
            .fetch((Fetcher) fetch)
            .schedule(Fixture.FIXED)
            .build();
    WatukuyListener listener =
        new WatukuyListener() {
          @Override
          public void onError(PollerKey key, Throwable error) {
            errors.add(error);
          }
        };
    return f.engine("a").listener(listener).poller(feed).build().on(feed, handler);
  }
}
