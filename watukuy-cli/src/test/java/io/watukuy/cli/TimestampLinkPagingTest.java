package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A timestamp poller over an offset-paged listing with a Link header, the way json-server pages
 * ({@code updatedAt_gte}, {@code _sort=updatedAt,id}, {@code _page}, {@code _limit}): a row updated
 * between two page requests must not make another row fall through a page boundary.
 */
class TimestampLinkPagingTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** id to updatedAt, as the vendor stores them. */
  private final Map<Integer, String> rows = new TreeMap<>();

  private final List<String> queries = new CopyOnWriteArrayList<>();
  private Runnable afterFirstPage = () -> {};
  private HttpServer server;
  private Path config;

  @BeforeEach
  void start() throws IOException {
    rows.put(1, "2024-05-01T10:00:00.000Z");
    rows.put(2, "2024-05-01T10:05:00.000Z");
    rows.put(3, "2024-05-01T10:05:00.000Z");
    rows.put(4, "2024-05-01T10:10:00.000Z");
    rows.put(5, "2024-05-01T10:20:00.000Z");
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/orders", this::list);
    server.start();
    config =
        Files.writeString(
            dir.resolve("watukuy.yaml"),
            """
        store: sqlite:watukuy.db
        pollers:
          - name: orders
            request:
              url: http://127.0.0.1:%d/orders
              query: { _sort: "updatedAt,id", updatedAt_gte: "{{cursor.value}}", _limit: 3, _page: 1 }
            response: { items: "", next: { header: Link } }
            identity: /id
            version: /updatedAt
            cursor: { strategy: timestamp, field: updatedAt }
        """
                .formatted(server.getAddress().getPort()));
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aRowUpdatedBetweenTwoPageRequestsPushesNoOtherRowThroughTheBoundary() {
    // Once page 1 (rows 1, 2, 3) is out, row 1 moves to the end: with offsets, page 2 of the
    // first query would now start at row 5, and row 4 would never be listed.
    afterFirstPage = () -> rows.put(1, "2024-05-02T09:00:00.000Z");

    assertThat(run())
        .containsExactly(
            "created 1", "created 2", "created 3", "created 4", "created 5", "updated 1");
    // Every request is page 1 of the query from the watermark the previous page left.
    assertThat(queries)
        .allMatch(q -> q.contains("_page=1"))
        .first()
        .asString()
        .doesNotContain("updatedAt_gte");
    assertThat(URLDecoder.decode(queries.get(1), StandardCharsets.UTF_8))
        .contains("updatedAt_gte=2024-05-01T10:05:00.000Z");
    assertThat(run()).isEmpty();
  }

  private List<String> run() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"run", config.toString(), "--once"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.<String, String>of()::get);
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
    List<String> changes = new ArrayList<>();
    out.toString(StandardCharsets.UTF_8)
        .lines()
        .forEach(
            l -> {
              try {
                var e = JSON.readTree(l);
                changes.add(e.get("type").asText() + " " + e.get("identity").asText());
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    return changes;
  }

  private synchronized void list(HttpExchange ex) throws IOException {
    String raw = ex.getRequestURI().getRawQuery();
    queries.add(raw);
    Map<String, String> q = new HashMap<>();
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      q.put(
          pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    String since = q.get("updatedAt_gte");
    int limit = Integer.parseInt(q.get("_limit"));
    int page = Integer.parseInt(q.get("_page"));
    List<Map.Entry<Integer, String>> match = new ArrayList<>();
    for (Map.Entry<Integer, String> r : rows.entrySet()) {
      if (since == null || r.getValue().compareTo(since) >= 0)
        match.add(Map.entry(r.getKey(), r.getValue()));
    }
    match.sort(
        Map.Entry.<Integer, String>comparingByValue()
            .thenComparing(Map.Entry.comparingByKey(Comparator.naturalOrder())));
    int from = Math.min((page - 1) * limit, match.size());
    int to = Math.min(from + limit, match.size());
    ArrayNode body = JSON.createArrayNode();
    for (Map.Entry<Integer, String> r : match.subList(from, to))
      body.addObject().put("id", r.getKey()).put("updatedAt", r.getValue());
    String self =
        "http://127.0.0.1:"
            + server.getAddress().getPort()
            + "/orders?"
            + raw.replace("_page=" + page, "_page=");
    ex.getResponseHeaders()
        .set("Link", to < match.size() ? "<" + self + (page + 1) + ">; rel=\"next\"" : "");
    byte[] bytes = JSON.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, bytes.length);
    ex.getResponseBody().write(bytes);
    ex.close();
    if (page == 1 && queries.size() == 1) afterFirstPage.run();
  }
}
