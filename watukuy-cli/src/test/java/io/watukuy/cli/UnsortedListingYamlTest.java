package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cursor.sorted: false} (docs/config.md, "Unsorted listings"): what {@code validate} refuses
 * with {@code FILE:LINE}, the poller and the key, and a run against a search on 127.0.0.1 that
 * filters by modification time but orders its pages by id (HubSpot contacts, issue 19 §5).
 */
class UnsortedListingYamlTest {
  @TempDir Path dir;

  private ListingServer server;

  @AfterEach
  void stop() {
    if (server != null) server.close();
  }

  // ---- validate

  /** Line 1 is {@code store:}; the cursor map starts at line 10, its keys one per line. */
  private static String poller(String request, String response, String cursor) {
    return """
        store: memory
        pollers:
          - name: contacts
            request:
              url: http://127.0.0.1:9/contacts
              query: %s
            response: %s
            identity: /id
            cursor:
        %s
        """
        .formatted(request, response, cursor.indent(6).stripTrailing());
  }

  private String[] validate(String yaml) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(file, yaml);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"validate", file.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.<String, String>of()::get);
    return new String[] {
      String.valueOf(code),
      err.toString(StandardCharsets.UTF_8).replace(file.toString(), "watukuy.yaml")
    };
  }

  @Test
  void validateAcceptsSortedFalseWithPageNumbers() throws IOException {
    String[] r =
        validate(
            poller(
                "{ since: \"{{cursor.value}}\", page: \"{{page}}\" }",
                "{ items: /results, hasMore: /has_more }",
                "strategy: timestamp\nfield: updatedAt\nsorted: false"));
    assertThat(r[0]).isEqualTo("0");
    assertThat(r[1]).isEmpty();
  }

  @Test
  void validateRefusesSortedFalseWhenTheWatermarkIsThePaging() throws IOException {
    String[] r =
        validate(
            poller(
                "{ since: \"{{cursor.value}}\" }",
                "{ items: /results, hasMore: /has_more }",
                "strategy: timestamp\nfield: updatedAt\nsorted: false"));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1])
        .isEqualTo(
            "watukuy: watukuy.yaml:12: poller contacts: cursor.sorted: false with a request that"
                + " pages by {{cursor.value}} alone: each page would ask from the last page's"
                + " watermark, which does not move while the listing runs, so every page would be"
                + " page 1 again; an unsorted listing moves its watermark only when the whole"
                + " listing has completed. Page by {{page}}, {{offset}}, next: {header: Link} or"
                + " next: {url: ...}, or remove cursor.sorted\n");
  }

  @Test
  void validateRefusesSortedFalseWithMaxOffset() throws IOException {
    String[] r =
        validate(
            poller(
                "{ since: \"{{cursor.value}}\", offset: \"{{offset}}\" }",
                "{ items: /results, total: /total }",
                "strategy: timestamp\nfield: updatedAt\nsorted: false\nmaxOffset: 10000"));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1])
        .startsWith(
            "watukuy: watukuy.yaml:13: poller contacts: cursor.maxOffset: '10000' with"
                + " cursor.sorted false: maxOffset starts each new query from the watermark the"
                + " pages before it committed");
  }

  @Test
  void validateRefusesSortedFalseWithATokenFromTheResponse() throws IOException {
    String[] r =
        validate(
            poller(
                "{ since: \"{{cursor.value}}\" }",
                "\n      items: /results\n      hasMore: /has_more\n      next: /next",
                "strategy: timestamp\nfield: updatedAt\nsorted: false"));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1])
        .startsWith(
            "watukuy: watukuy.yaml:10: poller contacts: response.next: '/next' with cursor.sorted"
                + " false: a token from the response moves the watermark between pages");
  }

  @Test
  void validateRefusesSortedOnAnotherStrategy() throws IOException {
    String[] r =
        validate(
            poller(
                "{ page: \"{{page}}\" }",
                "{ items: /results, hasMore: /has_more }",
                "strategy: page\nsorted: false"));
    assertThat(r[0]).isEqualTo("2");
    assertThat(r[1])
        .isEqualTo(
            "watukuy: watukuy.yaml:11: poller contacts: cursor.sorted: applies to the timestamp"
                + " strategy only\n");
  }

  // ---- a run

  /** The search's contacts by id: id to updatedAt. */
  private final Map<Integer, String> contacts = new TreeMap<>();

  private final AtomicBoolean failPage3 = new AtomicBoolean();

  /**
   * {@code GET /contacts?since=T&page=N&limit=2}: contacts with {@code updatedAt >= since}, ordered
   * by id, two a page; a 500 on page 3 when armed.
   */
  private ListingServer.Answer search(Map<String, String> q) {
    String since = q.get("since");
    int page = Integer.parseInt(q.get("page"));
    if (page == 3 && failPage3.compareAndSet(true, false))
      return new ListingServer.Answer(500, "{\"message\":\"internal error\"}");
    List<String> matching = new ArrayList<>();
    synchronized (contacts) {
      contacts.forEach(
          (id, at) -> {
            if (since == null || at.compareTo(since) >= 0)
              matching.add("{\"id\":" + id + ",\"updatedAt\":\"" + at + "\"}");
          });
    }
    int from = Math.min(matching.size(), (page - 1) * 2);
    int to = Math.min(matching.size(), from + 2);
    return ListingServer.Answer.ok(
        "{\"results\":["
            + String.join(",", matching.subList(from, to))
            + "],\"has_more\":"
            + (to < matching.size())
            + "}");
  }

  private void put(int id, String at) {
    synchronized (contacts) {
      contacts.put(id, at);
    }
  }

  @Test
  void aRunPagesBySearchPagesKeepsTheWatermarkWhenPage3FailsAndDeliversEveryEditNext()
      throws IOException {
    server = ListingServer.start("/contacts", uri -> search(ListingServer.query(uri)));
    // Page 1 (ids 1, 2) holds the newest, page 3 (ids 5, 6) older ones.
    put(1, "2026-01-01T00:00:01Z");
    put(2, "2026-01-01T00:00:09Z");
    put(3, "2026-01-01T00:00:02Z");
    put(4, "2026-01-01T00:00:08Z");
    put(5, "2026-01-01T00:00:03Z");
    put(6, "2026-01-01T00:00:07Z");
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(
        file,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: contacts
            request:
              url: %s/contacts
              query: { since: "{{cursor.value}}", page: "{{page}}", limit: 2 }
            response: { items: /results, hasMore: /has_more }
            identity: /id
            version: /updatedAt
            cursor: { strategy: timestamp, field: updatedAt, sorted: false }
        """
            .formatted(server.origin()));

    CliRun first = CliRun.of("run", file.toString(), "--once");
    assertThat(first.exit()).isZero();
    assertThat(first.changes()).hasSize(6);
    assertThat(server.seen())
        .containsExactly(
            "/contacts?page=1&limit=2", "/contacts?page=2&limit=2", "/contacts?page=3&limit=2");

    // Edits, each page in timestamp order by itself; page 3's are older than page 1's newest.
    put(1, "2026-01-02T00:00:01Z");
    put(2, "2026-01-02T00:00:09Z");
    put(3, "2026-01-02T00:00:02Z");
    put(4, "2026-01-02T00:00:08Z");
    put(5, "2026-01-02T00:00:03Z");
    failPage3.set(true);
    CliRun cut = CliRun.of("run", file.toString(), "--once");

    assertThat(cut.exit()).isEqualTo(1);
    assertThat(cut.changes()).containsExactly("updated 1", "updated 2", "updated 3", "updated 4");
    assertThat(cut.stderr())
        .contains("the watermark was kept at '2026-01-01T00:00:09Z'")
        .contains("the next cycle lists again from it");

    CliRun next = CliRun.of("run", file.toString(), "--once");

    assertThat(next.exit()).isZero();
    assertThat(next.changes()).containsExactly("updated 5"); // pages 1 and 2: no repeats
    // Every page of a listing carries the watermark its page 1 did: the one cycle 1 left.
    String since = "since=2026-01-01T00%3A00%3A09Z";
    assertThat(server.seen().subList(3, server.seen().size()))
        .containsExactly(
            "/contacts?" + since + "&page=1&limit=2",
            "/contacts?" + since + "&page=2&limit=2",
            "/contacts?" + since + "&page=3&limit=2",
            "/contacts?" + since + "&page=1&limit=2",
            "/contacts?" + since + "&page=2&limit=2",
            "/contacts?" + since + "&page=3&limit=2");

    CliRun after = CliRun.of("run", file.toString(), "--once");
    assertThat(after.changes()).isEmpty();
    // The completed listing moved it to the largest value seen, 2026-01-02T00:00:09Z.
    assertThat(server.seen().get(server.seen().size() - 1))
        .isEqualTo("/contacts?since=2026-01-02T00%3A00%3A09Z&page=1&limit=2");
  }

  @Test
  void aLinkPagedUnsortedListingFollowsTheLinkAndMovesTheWatermarkOnlyAtItsEnd()
      throws IOException {
    put(1, "2026-01-01T00:00:01Z");
    put(2, "2026-01-01T00:00:09Z");
    put(3, "2026-01-01T00:00:02Z");
    put(4, "2026-01-01T00:00:08Z");
    put(5, "2026-01-01T00:00:03Z");
    List<String> seen = new CopyOnWriteArrayList<>();
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    String origin = "http://127.0.0.1:" + http.getAddress().getPort();
    http.createContext(
        "/contacts",
        ex -> {
          String raw = ex.getRequestURI().getRawQuery();
          seen.add(raw == null ? "" : raw);
          Map<String, String> q = new java.util.HashMap<>(ListingServer.query(ex.getRequestURI()));
          q.putIfAbsent("page", "1");
          ListingServer.Answer a = search(q);
          if (a.json().endsWith("\"has_more\":true}")) {
            String since = q.get("since");
            ex.getResponseHeaders()
                .set(
                    "Link",
                    "<"
                        + origin
                        + "/contacts?"
                        + (since == null ? "" : "since=" + since + "&")
                        + "page="
                        + (Integer.parseInt(q.get("page")) + 1)
                        + ">; rel=\"next\"");
          }
          byte[] body = a.json().getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(a.status(), body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    http.start();
    try {
      Path file = dir.resolve("watukuy.yaml");
      Files.writeString(
          file,
          """
          store: sqlite:watukuy.db
          pollers:
            - name: contacts
              request:
                url: %s/contacts
                query: { since: "{{cursor.value}}" }
              response: { items: /results, next: { header: Link } }
              identity: /id
              version: /updatedAt
              cursor: { strategy: timestamp, field: updatedAt, sorted: false }
          """
              .formatted(origin));

      CliRun first = CliRun.of("run", file.toString(), "--once");
      put(5, "2026-01-02T00:00:03Z");
      CliRun second = CliRun.of("run", file.toString(), "--once");

      assertThat(first.exit()).isZero();
      assertThat(first.changes()).hasSize(5);
      assertThat(second.exit()).isZero();
      assertThat(second.changes()).containsExactly("updated 5");
      // Page 1 of each listing asks from the watermark, the pages after it follow the Link. The
      // watermark stayed at the beginning until the first listing's last page, then took its
      // largest value, 00:00:09, from page 1; the second listing (ids 2 and 5) is one page.
      assertThat(seen).containsExactly("", "page=2", "page=3", "since=2026-01-01T00%3A00%3A09Z");
    } finally {
      http.stop(0);
    }
  }
}
