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

/** A timestamp poller whose YAML {@code reconcile} listing catches a hard delete. */
class ReconcileTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  record Order(int id, String updatedAt) {
    String json() {
      return "{\"id\":" + id + ",\"updatedAt\":\"" + updatedAt + "\"}";
    }
  }

  @TempDir Path dir;

  private final List<Order> orders = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private Path config;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/orders", this::changed);
    server.createContext("/all", this::all);
    server.start();
    int port = server.getAddress().getPort();
    config = dir.resolve("watukuy.yaml");
    Files.writeString(
        config,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: orders
            request:
              url: http://127.0.0.1:%d/orders
              query: { updated_since: "{{cursor.value}}" }
            response: { items: "", hasMore: nonEmpty }
            identity: /id
            version: /updatedAt
            cursor: { strategy: timestamp, field: updatedAt }
            reconcile:
              every: 1ms
              request:
                url: http://127.0.0.1:%d/all
                query: { page: "{{page}}" }
              response: { items: "", next: { header: Link } }
        """
            .formatted(port, port));
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  // The incremental listing: strictly newer than updated_since, so a caught-up cycle is empty.
  private void changed(HttpExchange ex) throws IOException {
    String raw = ex.getRequestURI().getRawQuery();
    String since =
        raw == null
            ? null
            : java.net.URLDecoder.decode(
                raw.substring(raw.indexOf('=') + 1), StandardCharsets.UTF_8);
    List<Order> page =
        orders.stream().filter(o -> since == null || o.updatedAt().compareTo(since) > 0).toList();
    send(ex, page, null);
  }

  // The full listing, one item per page, with GitHub-style Link paging; the last page has an empty
  // Link.
  private void all(HttpExchange ex) throws IOException {
    int page =
        Integer.parseInt(
            ex.getRequestURI().getRawQuery().replaceAll("^(?:.*&)?page=(\\d+).*$", "$1"));
    List<Order> all = List.copyOf(orders);
    List<Order> items = page <= all.size() ? List.of(all.get(page - 1)) : List.of();
    String link =
        page < all.size()
            ? "<http://127.0.0.1:"
                + server.getAddress().getPort()
                + "/all?page="
                + (page + 1)
                + ">; rel=\"next\""
            : "";
    send(ex, items, link);
  }

  private static void send(HttpExchange ex, List<Order> items, String link) throws IOException {
    StringBuilder body = new StringBuilder("[");
    for (int i = 0; i < items.size(); i++)
      body.append(i == 0 ? "" : ",").append(items.get(i).json());
    byte[] bytes = body.append(']').toString().getBytes(StandardCharsets.UTF_8);
    if (link != null) ex.getResponseHeaders().set("Link", link);
    ex.getResponseHeaders().set("Content-Type", "application/json");
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
            Map.<String, String>of()::get);
    assertThat(CliRun.withoutNewStore(err.toString(StandardCharsets.UTF_8))).isEmpty();
    assertThat(code).isZero();
    return out.toString(StandardCharsets.UTF_8).lines().map(ReconcileTest::parse).toList();
  }

  private static JsonNode parse(String line) {
    try {
      return JSON.readTree(line);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void aHardDeleteBecomesADeletedEventOnTheReconcileLane() throws InterruptedException {
    orders.addAll(
        List.of(
            new Order(1, "2024-01-01T00:00:00Z"),
            new Order(2, "2024-01-02T00:00:00Z"),
            new Order(3, "2024-01-03T00:00:00Z")));
    List<JsonNode> first = once();
    assertThat(first)
        .extracting(e -> e.get("type").asText() + " " + e.get("identity").asText())
        .containsExactlyInAnyOrder("created 1", "created 2", "created 3");

    orders.removeIf(o -> o.id() == 2);
    Thread.sleep(5); // past reconcile.every
    List<JsonNode> second = once();

    assertThat(second)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.get("type").asText()).isEqualTo("deleted");
              assertThat(e.get("identity").asText()).isEqualTo("2");
              assertThat(e.get("lane").asText()).isEqualTo("reconcile");
            });
  }
}
