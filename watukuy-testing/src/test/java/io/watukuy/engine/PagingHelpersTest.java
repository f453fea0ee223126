package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.Cursors;
import io.watukuy.FetchException;
import io.watukuy.HttpResult;
import io.watukuy.KeyReport;
import io.watukuy.NextUrlPaging;
import io.watukuy.OffsetPaging;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link NextUrlPaging} and {@link OffsetPaging} from a Java fetcher (docs/architecture.md, "Paging
 * shapes from Java"), the same implementation the YAML poller runs, against a real HTTP server on
 * 127.0.0.1 that serves at most 2 items a request whatever {@code limit} asks for.
 */
class PagingHelpersTest {
  private static final int CAP = 2;

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();
  final List<String> seen = new CopyOnWriteArrayList<>();
  final List<String> ids = new CopyOnWriteArrayList<>(List.of("a", "b", "c", "d", "e"));
  HttpServer server;
  String base;

  /**
   * Starts the server; {@code answer} maps a request's query to its JSON body, or to null for a
   * 400.
   */
  private void serve(Function<Map<String, String>, String> answer) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/items",
        ex -> {
          URI uri = ex.getRequestURI();
          seen.add(uri.getRawQuery() == null ? "" : uri.getRawQuery());
          String body = answer.apply(query(uri));
          // null: the API refuses the request, as a search API does past its offset cap.
          byte[] bytes =
              (body == null ? "{\"message\":\"offset too large\"}" : body)
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(body == null ? 400 : 200, bytes.length);
          ex.getResponseBody().write(bytes);
          ex.close();
        });
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort() + "/items";
  }

  @AfterEach
  void stop() {
    if (server != null) server.stop(0);
  }

  private static Map<String, String> query(URI uri) {
    Map<String, String> q = new LinkedHashMap<>();
    String raw = uri.getQuery();
    if (raw != null)
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        q.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    return q;
  }

  /** Items {@code from..} (at most CAP), with a relative {@code links.next} while more follow. */
  private String fromPage(Map<String, String> q) {
    int from = Integer.parseInt(q.getOrDefault("from", "0"));
    List<String> all = List.copyOf(ids);
    int to = Math.min(all.size(), from + CAP);
    String next = to < all.size() ? "\"/items?from=" + to + "&limit=100\"" : "null";
    return "{\"items\":"
        + json(all.subList(Math.min(from, to), to))
        + ",\"total\":"
        + all.size()
        + ",\"links\":{\"next\":"
        + next
        + "}}";
  }

  private static String json(List<String> ids) {
    List<String> out = new ArrayList<>();
    for (String id : ids) out.add("{\"id\":\"" + id + "\"}");
    return "[" + String.join(",", out) + "]";
  }

  private static List<JsonNode> items(JsonNode body) {
    List<JsonNode> out = new ArrayList<>();
    body.get("items").forEach(out::add);
    return out;
  }

  /** A fetch that reads {@code /links/next} with {@code paging}, starting at {@code first}. */
  private <C> io.watukuy.Fetcher<JsonNode, C> nextUrlFetch(NextUrlPaging paging, String first) {
    return ctx -> {
      String followed = paging.next(ctx);
      String url = followed != null ? followed : first;
      HttpResult r = ctx.http().get(url);
      JsonNode body = r.json();
      JsonNode next = body.at("/links/next");
      return paging.read(
          ctx, Page.of(items(body)), url, r, next.isTextual() ? next.textValue() : null, false);
    };
  }

  @Test
  void aRelativeNextUrlIsFollowedVerbatimAndTheListingStartsOverEachCycle() throws IOException {
    serve(this::fromPage);
    Poller<JsonNode> p =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(nextUrlFetch(NextUrlPaging.startOver(), base + "?from=0&limit=100"))
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);

    w.tick();
    ids.remove("c");
    f.nextCycle();
    w.tick();

    assertThat(handler.changes())
        .containsExactly(
            "a:created", "b:created", "c:created", "d:created", "e:created", "c:deleted");
    // The relative /items?from=2&limit=100 resolved against the page's URL; cycle 2 starts over.
    assertThat(seen)
        .containsExactly(
            "from=0&limit=100",
            "from=2&limit=100",
            "from=4&limit=100",
            "from=0&limit=100",
            "from=2&limit=100");
  }

  @Test
  void anExportKeepsItsLastUrlAsTheTokenAndTheNextCycleStartsThere() throws IOException {
    serve(this::fromPage);
    Poller<JsonNode> p =
        Poller.builder("export", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.token())
            .fetch(nextUrlFetch(NextUrlPaging.keep(), base + "?from=0&limit=100"))
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);

    w.tick();
    ids.add("f");
    f.nextCycle();
    w.tick();

    assertThat(handler.changes())
        .containsExactly(
            "a:created", "b:created", "c:created", "d:created", "e:created", "f:created");
    // The last page had no next URL: the URL it was read from is the stored token.
    assertThat(seen)
        .containsExactly(
            "from=0&limit=100", "from=2&limit=100", "from=4&limit=100", "from=4&limit=100");
  }

  @Test
  void aNextUrlThatPointsAtItsOwnPageStallsTheLaneWithoutSendingIt() throws IOException {
    // An off-by-one vendor: every page's next URL is the page itself.
    serve(q -> "{\"items\":" + json(ids.subList(0, CAP)) + ",\"links\":{\"next\":\"?from=0\"}}");
    Poller<JsonNode> p =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(nextUrlFetch(NextUrlPaging.startOver().label("/links/next"), base + "?from=0"))
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);

    KeyReport report = w.tick().poller("feed").orElseThrow();

    assertThat(handler.changes()).containsExactly("a:created", "b:created");
    assertThat(seen).containsExactly("from=0");
    assertThat(report.error()).isInstanceOf(FetchException.class);
    FetchException e = (FetchException) report.error();
    assertThat(e.kind()).isEqualTo("PageRepeated");
    assertThat(e.getMessage())
        .contains("live lane stalled (PageRepeated): the /links/next of page 1 is the URL")
        .contains("?from=0");
  }

  @Test
  void aNextUrlLoopOfTwoPagesStallsTheLaneNamingTheUrlAndThePageThatHadIt() throws IOException {
    // The report: page ?from=a says next ?from=b, and ?from=b says next ?from=a again.
    serve(
        q ->
            "{\"items\":"
                + json(
                    ids.subList(
                        q.get("from").equals("a") ? 0 : CAP,
                        q.get("from").equals("a") ? CAP : 2 * CAP))
                + ",\"links\":{\"next\":\"?from="
                + (q.get("from").equals("a") ? "b" : "a")
                + "\"}}");
    Poller<JsonNode> p =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(nextUrlFetch(NextUrlPaging.startOver().label("/links/next"), base + "?from=a"))
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);

    KeyReport report = w.tick().poller("feed").orElseThrow();

    assertThat(handler.changes())
        .containsExactly("a:created", "b:created", "c:created", "d:created");
    // Two requests, not maxPagesPerCycle: the third would read ?from=a again.
    assertThat(seen).containsExactly("from=a", "from=b");
    FetchException e = (FetchException) report.error();
    assertThat(e.kind()).isEqualTo("PageRepeated");
    assertThat(e.getMessage())
        .contains(
            "live lane stalled (PageRepeated): the /links/next of page 2 is " + base + "?from=a")
        .contains("which page 1 was read from")
        .contains("request was not sent");

    // The next cycle starts over at page 1 with nothing remembered, and stops at the loop again.
    seen.clear();
    f.nextCycle();
    report = w.tick().poller("feed").orElseThrow();
    assertThat(seen).containsExactly("from=a", "from=b");
    assertThat(((FetchException) report.error()).kind()).isEqualTo("PageRepeated");
  }

  @Test
  void theOffsetAdvancesByTheItemsReturnedAndTheListingEndsAtTheTotal() throws IOException {
    serve(this::fromPage);
    OffsetPaging<JsonNode> paging = OffsetPaging.create();
    Poller<JsonNode> p =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(
                ctx -> {
                  long offset = paging.position(ctx).offset();
                  JsonNode body = ctx.http().get(base + "?from=" + offset + "&limit=100").json();
                  return paging.read(
                      ctx, Page.of(items(body)).withTotal(body.get("total").asLong()));
                })
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);

    w.tick();

    assertThat(handler.changes())
        .containsExactly("a:created", "b:created", "c:created", "d:created", "e:created");
    // 0, 2, 4 (not 0, 100, 200: the server caps limit); the total 5 ends it, no empty page.
    assertThat(seen).containsExactly("from=0&limit=100", "from=2&limit=100", "from=4&limit=100");
  }

  @Test
  void aCursorFromTheLastRecordEndsOnAnEmptyPage() throws IOException {
    serve(
        q -> {
          List<String> all = List.copyOf(ids);
          int from = q.containsKey("after") ? all.indexOf(q.get("after")) + 1 : 0;
          return "{\"items\":" + json(all.subList(from, Math.min(all.size(), from + CAP))) + "}";
        });
    OffsetPaging<JsonNode> paging = OffsetPaging.create();
    Poller<JsonNode> p =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(
                ctx -> {
                  JsonNode last = paging.position(ctx).last();
                  String after = last == null ? "" : "?after=" + last.get("id").asText();
                  JsonNode body = ctx.http().get(base + after).json();
                  return paging.read(ctx, Page.of(items(body)));
                })
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);

    w.tick();

    assertThat(handler.changes())
        .containsExactly("a:created", "b:created", "c:created", "d:created", "e:created");
    assertThat(seen).containsExactly("", "after=b", "after=d", "after=e");
  }

  /** Contacts 1..n, contact i updated at {@code at.apply(i)}, at or after {@code since}. */
  private void serveSearch(int n, Function<Integer, String> at, int refuseFrom) throws IOException {
    serve(
        q -> {
          int offset = Integer.parseInt(q.get("offset"));
          // Like HubSpot past 10 000: the request fails rather than answer.
          if (offset >= refuseFrom) return null;
          String since = q.get("since");
          List<String> matching = new ArrayList<>();
          for (int i = 1; i <= n; i++)
            if (since == null || at.apply(i).compareTo(since) >= 0)
              matching.add("{\"id\":" + i + ",\"updatedAt\":\"" + at.apply(i) + "\"}");
          List<String> page =
              matching.subList(
                  Math.min(offset, matching.size()), Math.min(offset + CAP, matching.size()));
          return "{\"items\":[" + String.join(",", page) + "],\"total\":" + matching.size() + "}";
        });
  }

  private Poller<JsonNode> search(OffsetPaging<JsonNode> paging) {
    return Poller.builder("contacts", JsonNode.class)
        .identity(n -> n.get("id"))
        .version(n -> n.get("updatedAt"))
        .cursor(Cursors.timestamp("updatedAt").build())
        .fetch(
            ctx -> {
              OffsetPaging.Position<JsonNode> at = paging.position(ctx);
              // The query's own watermark, not ctx.cursor(): the engine moves that every page.
              Watermark from = (Watermark) at.query();
              String since = from == null || from.value() == null ? "" : "since=" + from.value();
              JsonNode body =
                  ctx.http()
                      .get(
                          base
                              + "?"
                              + (since.isEmpty() ? "" : since.replace(":", "%3A") + "&")
                              + "offset="
                              + at.offset())
                      .json();
              return paging.read(ctx, Page.of(items(body)).withTotal(body.get("total").asLong()));
            })
        .schedule(Fixture.FIXED)
        .build();
  }

  @Test
  void maxOffsetStartsANewQueryFromTheCommittedWatermarkInsteadOfAskingPastTheCap()
      throws IOException {
    serveSearch(6, i -> "2026-01-01T00:00:0" + i + "Z", 4);
    Poller<JsonNode> p = search(OffsetPaging.<JsonNode>builder().maxOffset(4).build());
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);

    KeyReport report = w.tick().poller("contacts").orElseThrow();

    assertThat(report.error()).isNull();
    assertThat(handler.changes())
        .containsExactly(
            "1:created", "2:created", "3:created", "4:created", "5:created", "6:created");
    assertThat(seen)
        .containsExactly(
            "offset=0",
            "offset=2",
            "since=2026-01-01T00%3A00%3A04Z&offset=0",
            "since=2026-01-01T00%3A00%3A04Z&offset=2");
  }

  @Test
  void aTieWiderThanMaxOffsetStallsTheLaneInsteadOfRepeatingItsPages() throws IOException {
    // Five contacts share one updatedAt; offsets of 4 and more are refused.
    serveSearch(5, i -> "2026-01-01T00:00:05Z", 4);
    Poller<JsonNode> p = search(OffsetPaging.<JsonNode>builder().maxOffset(4).build());
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);

    KeyReport report = w.tick().poller("contacts").orElseThrow();

    assertThat(handler.changes())
        .containsExactly("1:created", "2:created", "3:created", "4:created");
    // The second query starts from the tie; a third would start from it again and is not sent.
    assertThat(seen)
        .containsExactly(
            "offset=0",
            "offset=2",
            "since=2026-01-01T00%3A00%3A05Z&offset=0",
            "since=2026-01-01T00%3A00%3A05Z&offset=2");
    FetchException e = (FetchException) report.error();
    assertThat(e.kind()).isEqualTo("PageRepeated");
    assertThat(e.getMessage())
        .contains("the tie at 2026-01-01T00:00:05Z is wider than maxOffset 4")
        .contains("request was not sent");
  }
}
