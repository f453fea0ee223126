package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code response.next: {header: Link}} on a snapshotDiff listing: two servers stand for the
 * vendor's API and another origin that its last Link points at.
 */
class LinkPagingTest {
  private static final int PER_PAGE = 2;
  private static final String TOKEN = "t0k3n-s3cret";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a server saw: its port, the raw query, and the Authorization header or null. */
  record Seen(int port, String query, String authorization) {}

  @TempDir Path dir;

  private final List<Integer> users = new CopyOnWriteArrayList<>(List.of(1, 2, 3, 4, 5, 6));
  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private HttpServer home;
  private HttpServer other;
  private Path config;

  @BeforeEach
  void start() throws IOException {
    home = serve();
    other = serve();
    config = dir.resolve("watukuy.yaml");
    Files.writeString(
        config,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: users
            request:
              url: http://127.0.0.1:%d/users
              headers: { Authorization: "Bearer ${VENDOR_TOKEN}" }
              query: { page: "{{page}}", per_page: %d }
            response:
              items: /users
              next: { header: Link }
            identity: /id
            cursor: { strategy: snapshotDiff }
        """
            .formatted(home.getAddress().getPort(), PER_PAGE));
  }

  private HttpServer serve() throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    s.createContext("/users", ex -> list(ex, s.getAddress().getPort()));
    s.start();
    return s;
  }

  @AfterEach
  void stop() {
    home.stop(0);
    other.stop(0);
  }

  // Page 2 links to the other origin for page 3, as an API behind a CDN might.
  private void list(HttpExchange ex, int port) throws IOException {
    String query = ex.getRequestURI().getRawQuery();
    seen.add(new Seen(port, query, ex.getRequestHeaders().getFirst("Authorization")));
    int page = Integer.parseInt(query.replaceAll("^(?:.*&)?page=(\\d+).*$", "$1"));
    List<Integer> all = List.copyOf(users);
    int from = Math.min((page - 1) * PER_PAGE, all.size());
    int to = Math.min(from + PER_PAGE, all.size());
    StringBuilder body = new StringBuilder("{\"users\":[");
    for (int i = from; i < to; i++)
      body.append(i == from ? "" : ",").append("{\"id\":").append(all.get(i)).append('}');
    body.append("]}");
    int nextPort = page == 2 ? other.getAddress().getPort() : home.getAddress().getPort();
    String link =
        to < all.size()
            ? "<http://127.0.0.1:"
                + nextPort
                + "/users?page="
                + (page + 1)
                + "&per_page="
                + PER_PAGE
                + ">; rel=\"next\""
            : "";
    ex.getResponseHeaders().set("Link", link);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(200, bytes.length);
    ex.getResponseBody().write(bytes);
    ex.close();
  }

  private List<JsonNode> once() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"run", config.toString(), "--once"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of("VENDOR_TOKEN", TOKEN)::get);
    assertThat(CliRun.withoutNewStore(err.toString(StandardCharsets.UTF_8))).isEmpty();
    assertThat(code).isZero();
    return out.toString(StandardCharsets.UTF_8).lines().map(LinkPagingTest::parse).toList();
  }

  private static JsonNode parse(String line) {
    try {
      return JSON.readTree(line);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> summary(List<JsonNode> events) {
    return events.stream()
        .map(e -> e.get("type").asText() + " " + e.get("identity").asText())
        .toList();
  }

  @Test
  void linkPagedSnapshotListsEveryPageThenCatchesAHardDelete() {
    List<JsonNode> first = once();

    assertThat(summary(first))
        .containsExactly(
            "created 1", "created 2", "created 3", "created 4", "created 5", "created 6");

    users.remove(Integer.valueOf(4));
    List<JsonNode> second = once();

    assertThat(summary(second)).containsExactly("deleted 4");
  }

  @Test
  void laterPagesFollowTheLinkVerbatimAndCredentialsStayWithTheConfiguredOrigin() {
    once();

    int homePort = home.getAddress().getPort();
    int otherPort = other.getAddress().getPort();
    assertThat(seen)
        .containsExactly(
            new Seen(homePort, "page=1&per_page=2", "Bearer " + TOKEN),
            new Seen(homePort, "page=2&per_page=2", "Bearer " + TOKEN),
            new Seen(otherPort, "page=3&per_page=2", null));
  }
}
