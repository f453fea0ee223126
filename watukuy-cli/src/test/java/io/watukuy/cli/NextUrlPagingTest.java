package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code response.next: {url, end, keep}} (docs/config.md, "Next URL in the body") against a
 * listing server on 127.0.0.1: a relative {@code /links/next}, an end flag beside a URL, an export
 * whose last URL is where the next cycle starts, a URL that points at its own page, and loops of
 * two pages in the body and in the Link header.
 */
class NextUrlPagingTest {

  @TempDir Path dir;

  private final List<Integer> items = new CopyOnWriteArrayList<>(List.of(1, 2, 3, 4, 5));
  private ListingServer server;

  @AfterEach
  void stop() {
    if (server != null) server.close();
  }

  /**
   * Items from index {@code from}, two a page, as {@code {"data":[{"id":..},..]}} plus {@code
   * tail}.
   */
  private String page(int from, Function<Integer, String> tail) {
    List<Integer> all = List.copyOf(items);
    int to = Math.min(from + 2, all.size());
    StringBuilder b = new StringBuilder("{\"data\":[");
    for (int i = from; i < to; i++)
      b.append(i == from ? "" : ",").append("{\"id\":" + all.get(i) + "}");
    return b.append("],").append(tail.apply(to)).append('}').toString();
  }

  private static int from(URI uri) {
    String at = ListingServer.query(uri).get("from");
    return at == null ? 0 : Integer.parseInt(at);
  }

  private Path config(String pollerTail) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(
        file,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: users
            request:
              url: %s/users
              query: { size: 2 }
            identity: /id
        """
                .formatted(server.origin())
            + pollerTail);
    return file;
  }

  @Test
  void aRelativeNextUrlIsFollowedVerbatimToTheLastPageAndAHardDeleteShowsNextCycle()
      throws IOException {
    server =
        ListingServer.start(
            "/users",
            uri ->
                ListingServer.Answer.ok(
                    page(
                        from(uri),
                        to ->
                            "\"links\":{\"next\":"
                                + (to < items.size() ? "\"/users?from=" + to + "&size=2\"" : "null")
                                + "}")));
    Path file =
        config(
            """
                response: { items: /data, next: { url: /links/next } }
                cursor: { strategy: snapshotDiff }
            """);

    CliRun first = CliRun.of("run", file.toString(), "--once");

    assertThat(first.exit()).isZero();
    assertThat(first.changes())
        .containsExactly("created 1", "created 2", "created 3", "created 4", "created 5");
    assertThat(server.seen())
        .containsExactly("/users?size=2", "/users?from=2&size=2", "/users?from=4&size=2");

    items.remove(Integer.valueOf(3));
    CliRun second = CliRun.of("run", file.toString(), "--once");

    assertThat(second.exit()).isZero();
    assertThat(second.changes()).containsExactly("deleted 3");
  }

  @Test
  void anEndFlagEndsTheListingAlthoughAUrlIsThere() throws IOException {
    server =
        ListingServer.start(
            "/users",
            uri ->
                ListingServer.Answer.ok(
                    page(
                        from(uri),
                        to ->
                            "\"paging\":{\"next\":\""
                                + server.origin()
                                + "/users?from="
                                + to
                                + "&size=2\"},\"end_of_stream\":"
                                + (to >= items.size()))));
    Path file =
        config(
            """
                response: { items: /data, next: { url: /paging/next, end: /end_of_stream } }
                cursor: { strategy: snapshotDiff }
            """);

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).isZero();
    assertThat(run.changes()).hasSize(5);
    assertThat(server.seen()).hasSize(3);
  }

  @Test
  void anExportKeepsItsLastUrlAndTheNextCycleStartsThere() throws IOException {
    server =
        ListingServer.start(
            "/users",
            uri ->
                ListingServer.Answer.ok(
                    page(
                        from(uri),
                        to ->
                            "\"next_page\":\""
                                + server.origin()
                                + "/users?from="
                                + to
                                + "&size=2\",\"end_of_stream\":"
                                + (to >= items.size()))));
    Path file =
        config(
            """
                response: { items: /data, next: { url: /next_page, end: /end_of_stream, keep: true } }
                cursor: { strategy: token }
            """);

    CliRun first = CliRun.of("run", file.toString(), "--once");
    items.addAll(List.of(6, 7));
    CliRun second = CliRun.of("run", file.toString(), "--once");

    assertThat(first.exit()).isZero();
    assertThat(second.exit()).isZero();
    assertThat(first.changes())
        .containsExactly("created 1", "created 2", "created 3", "created 4", "created 5");
    assertThat(second.changes()).containsExactly("created 6", "created 7");
    assertThat(server.seen())
        .containsExactly(
            "/users?size=2",
            "/users?from=2&size=2",
            "/users?from=4&size=2",
            "/users?from=5&size=2");
  }

  @Test
  void aNextUrlThatIsItsOwnPageStallsTheLaneWithoutRequestingItAgain() throws IOException {
    // Page 2 links to itself, as a vendor with an off-by-one in its paging would.
    server =
        ListingServer.start(
            "/users",
            uri -> {
              int from = from(uri);
              int next = from == 2 ? 2 : from + 2;
              return ListingServer.Answer.ok(
                  // A link that is only a query: it keeps the page's path (RFC 3986, 5.2.2).
                  page(from, to -> "\"links\":{\"next\":\"?from=" + next + "&size=2\"}"));
            });
    Path file =
        config(
            """
                response: { items: /data, next: { url: /links/next } }
                cursor: { strategy: snapshotDiff }
            """);

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.stderr()).contains("PageRepeated").contains("response.next.url of page 2");
    assertThat(run.changes()).containsExactly("created 1", "created 2", "created 3", "created 4");
    assertThat(server.seen()).containsExactly("/users?size=2", "/users?from=2&size=2");
  }

  @Test
  void anExportWhoseUrlIsItsOwnPageStallsBeforeAskingAgain() throws IOException {
    server =
        ListingServer.start(
            "/users",
            uri -> {
              int from = from(uri);
              int next = from == 2 ? 2 : from + 2;
              return ListingServer.Answer.ok(
                  page(
                      from,
                      to ->
                          "\"next_page\":\""
                              + server.origin()
                              + "/users?from="
                              + next
                              + "&size=2\",\"end_of_stream\":false"));
            });
    Path file =
        config(
            """
                response: { items: /data, next: { url: /next_page, end: /end_of_stream, keep: true } }
                cursor: { strategy: token }
            """);

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.stderr()).contains("PageRepeated").contains("response.next.url of page 2");
    assertThat(run.changes()).containsExactly("created 1", "created 2", "created 3", "created 4");
    assertThat(server.seen()).containsExactly("/users?size=2", "/users?from=2&size=2");
  }

  @Test
  void validateRefusesANextUrlBesideHasMore() throws IOException {
    server = ListingServer.start("/users", uri -> ListingServer.Answer.ok("{}"));
    Path file =
        config(
            """
                response:
                  items: /data
                  hasMore: /has_more
                  next: { url: /links/next }
                cursor: { strategy: snapshotDiff }
            """);

    CliRun run = CliRun.of("validate", file.toString());

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr())
        .contains(file + ":10: poller users: response.hasMore: '/has_more': must be omitted");
  }

  @Test
  void validateRefusesKeepWithoutTheTokenStrategy() throws IOException {
    server = ListingServer.start("/users", uri -> ListingServer.Answer.ok("{}"));
    Path file =
        config(
            """
                response: { items: /data, next: { url: /next_page, keep: true } }
                cursor: { strategy: page }
            """);

    CliRun run = CliRun.of("validate", file.toString());

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr()).contains(file + ":8: poller users: response.next.keep: true needs");
  }

  @Test
  void aNextUrlLoopOfTwoPagesStallsAtTheThirdRequestNamingThePageThatHadTheUrl()
      throws IOException {
    // The report: page 1 gives page 2's URL, and page 2 gives page 1's back.
    server =
        ListingServer.start(
            "/users",
            uri ->
                ListingServer.Answer.ok(
                    page(
                        from(uri),
                        to ->
                            "\"links\":{\"next\":\""
                                + (from(uri) == 0 ? "/users?from=2&size=2" : "/users?size=2")
                                + "\"}")));
    Path file =
        config(
            """
                response: { items: /data, next: { url: /links/next } }
                cursor: { strategy: snapshotDiff }
            """);

    CliRun run = CliRun.of("run", file.toString(), "--once");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.stderr())
        .contains("PageRepeated")
        .contains("response.next.url of page 2 is " + server.origin() + "/users?size=2")
        .contains("which page 1 was read from");
    assertThat(run.changes()).containsExactly("created 1", "created 2", "created 3", "created 4");
    assertThat(server.seen()).containsExactly("/users?size=2", "/users?from=2&size=2");
  }

  @Test
  void aLinkHeaderLoopOfTwoPagesStallsTheSameWay() throws IOException {
    List<String> seen = new CopyOnWriteArrayList<>();
    HttpServer links = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    links.createContext(
        "/",
        ex -> {
          String path = ex.getRequestURI().getRawPath();
          seen.add(path);
          boolean a = path.equals("/loopa");
          byte[] body =
              ("{\"data\":[{\"id\":" + (a ? 1 : 2) + "}]}").getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.getResponseHeaders().set("Link", "<" + (a ? "/loopb" : "/loopa") + ">; rel=\"next\"");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    links.start();
    try {
      Path file = dir.resolve("watukuy.yaml");
      Files.writeString(
          file,
          """
          store: sqlite:watukuy.db
          pollers:
            - name: users
              request: { url: "http://127.0.0.1:%d/loopa" }
              response: { items: /data, next: { header: Link } }
              identity: /id
              cursor: { strategy: snapshotDiff }
          """
              .formatted(links.getAddress().getPort()));

      CliRun run = CliRun.of("run", file.toString(), "--once");

      assertThat(run.exit()).isEqualTo(1);
      assertThat(run.stderr())
          .contains("PageRepeated")
          .contains("Link rel=\"next\" URL of page 2 is http://127.0.0.1:")
          .contains("/loopa, which page 1 was read from");
      assertThat(run.changes()).containsExactly("created 1", "created 2");
      assertThat(seen).containsExactly("/loopa", "/loopb");
    } finally {
      links.stop(0);
    }
  }
}
