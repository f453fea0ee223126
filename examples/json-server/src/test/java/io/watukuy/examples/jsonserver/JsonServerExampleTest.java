package io.watukuy.examples.jsonserver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.examples.support.JsonServerPeer;
import io.watukuy.examples.support.LocalServer;
import io.watukuy.examples.support.Peers;
import io.watukuy.examples.support.WatukuyCli;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed {@code watukuy.yaml} against a real json-server 0.17.4 on a loopback port, seeded
 * with the committed {@code db.json}: five orders, ids 2 and 3 tied on {@code updatedAt}, two rows
 * a page. The expected events follow from the seed and the writes each test makes.
 */
class JsonServerExampleTest {
  private static final Path EXAMPLE = Peers.repositoryRoot().resolve("examples/json-server");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private LocalServer server;
  private Path config;

  @BeforeEach
  void startJsonServer() throws IOException {
    // Each test gets its own copy of the seed.
    server = JsonServerPeer.start(EXAMPLE.resolve("db.json"), dir, false);
    config =
        WatukuyCli.config(
            EXAMPLE.resolve("watukuy.yaml"),
            dir,
            Map.of("127.0.0.1:3999", server.url().substring("http://".length())));
  }

  @AfterEach
  void stopJsonServer() {
    if (server != null) server.close();
  }

  @Test
  void theFirstRunListsTheSeedInUpdatedAtOrderAcrossPagesAndTheSecondIsSilent() {
    WatukuyCli.Result first = run();

    // (updatedAt, id) order, three rows a request: [1, 2, 3], then from 10:05 [2, 3, 4], then [4,
    // 5].
    assertThat(changes(first, "orders"))
        .containsExactly("created 1", "created 2", "created 3", "created 4", "created 5");
    assertThat(changes(first, "orders-all"))
        .containsExactly("created 1", "created 2", "created 3", "created 4", "created 5");
    JsonNode three = event(first, "orders", "3");
    assertThat(three.at("/data/customer").asText()).isEqualTo("initech");
    assertThat(three.at("/data/status").asText()).isEqualTo("new");
    assertThat(three.at("/data/id").isInt()).isTrue();
    assertThat(three.get("version").asText()).isEqualTo("2024-05-01T10:05:00.000Z");
    assertThat(event(first, "orders", "5").at("/data/total").asDouble()).isEqualTo(310.0);

    WatukuyCli.Result second = run();
    assertThat(second.events()).isEmpty();
    // A third run: orders' one-page listing now gets json-server's weak ETag answered with 304.
    assertThat(run().events()).isEmpty();
  }

  @Test
  void writesReachBothPollersButOnlyTheSnapshotSeesTheHardDelete() throws Exception {
    run();

    JsonNode created =
        send(
            "POST",
            "/orders",
            "{\"customer\":\"hooli\",\"status\":\"new\",\"total\":5,\"updatedAt\":\"2024-05-02T09:00:00.000Z\"}");
    assertThat(created.get("id").asInt()).isEqualTo(6); // the server assigns max + 1
    send("PATCH", "/orders/1", "{\"status\":\"paid\",\"updatedAt\":\"2024-05-02T09:30:00.000Z\"}");
    send("DELETE", "/orders/3", null);

    // updatedAt order: 6 (09:00) before 1 (09:30). No delete: a removed row is simply no longer
    // returned by `updatedAt_gte`, and a timestamp poller cannot tell that from "unchanged".
    WatukuyCli.Result orders = run("--poller", "orders");
    assertThat(changes(orders, "orders")).containsExactly("created 6", "updated 1");
    assertThat(changes(orders, "orders-all")).isEmpty();
    assertThat(event(orders, "orders", "1").at("/data/status").asText()).isEqualTo("paid");
    assertThat(event(orders, "orders", "6").at("/data/customer").asText()).isEqualTo("hooli");

    // snapshotDiff walks the whole table (sorted by id: 1,2 | 4,5 | 6) and, after the last page,
    // reports the stored id it did not see.
    WatukuyCli.Result all = run("--poller", "orders-all");
    assertThat(changes(all, "orders-all")).containsExactly("updated 1", "created 6", "deleted 3");
    assertThat(event(all, "orders-all", "1").at("/data/status").asText()).isEqualTo("paid");
    assertThat(event(all, "orders-all", "3").get("data").isNull()).isTrue();

    assertThat(run().events()).isEmpty();
  }

  @Test
  void aTieAtTheWatermarkLosesNothing() throws Exception {
    run();
    // Two rows (ids 6, 7) at one instant after the watermark (order 5, 2024-05-02T08:00): one
    // page [5, 6, 7], the watermark now on the tie.
    for (String customer : List.of("a", "b")) {
      send(
          "POST",
          "/orders",
          "{\"customer\":\""
              + customer
              + "\",\"status\":\"new\",\"total\":1,\"updatedAt\":\"2024-05-03T00:00:00.000Z\"}");
    }
    WatukuyCli.Result ties = run("--poller", "orders");
    assertThat(changes(ties, "orders")).containsExactly("created 6", "created 7");

    // A third row at the same instant: `_gte` lists the tie again, the two known rows are
    // re-seen silently and only the new one is an event.
    send(
        "POST",
        "/orders",
        "{\"customer\":\"c\",\"status\":\"new\",\"total\":1,\"updatedAt\":\"2024-05-03T00:00:00.000Z\"}");
    WatukuyCli.Result third = run("--poller", "orders");
    assertThat(changes(third, "orders")).containsExactly("created 8");
    assertThat(event(third, "orders", "8").at("/data/customer").asText()).isEqualTo("c");
    assertThat(run("--poller", "orders").events()).isEmpty();
  }

  @Test
  void anEditThatKeepsUpdatedAtIsSeenOnlyByTheSnapshot() throws Exception {
    run();
    // json-server never touches updatedAt itself: this PATCH leaves it at 2024-05-01T11:30.
    send("PATCH", "/orders/4", "{\"status\":\"returned\"}");

    WatukuyCli.Result after = run();
    assertThat(changes(after, "orders")).isEmpty();
    assertThat(changes(after, "orders-all")).containsExactly("updated 4");
    assertThat(event(after, "orders-all", "4").at("/data/status").asText()).isEqualTo("returned");
  }

  /** {@code watukuy run CONFIG --once [extra…]}: exit 0 and nothing wrong on stderr. */
  private WatukuyCli.Result run(String... extra) {
    String[] args = new String[3 + extra.length];
    args[0] = "run";
    args[1] = config.toString();
    args[2] = "--once";
    System.arraycopy(extra, 0, args, 3, extra.length);
    WatukuyCli.Result r = WatukuyCli.run(args);
    assertThat(r.exit())
        .as("exit code; stderr:\n%s\njson-server:\n%s", r.stderr(), server.log())
        .isZero();
    assertThat(r.stderr().lines().filter(l -> l.matches("(?i).*\\b(error|warn|exception)\\b.*")))
        .as("problems on stderr")
        .isEmpty();
    return r;
  }

  @Test
  void threeDaemonsShareOnePostgresStoreSoOnlyTheFirstRunPrintsTheSeed() throws Exception {
    String schema = "wk_example_" + Long.toHexString(System.nanoTime());
    Path shared =
        WatukuyCli.config(
            EXAMPLE.resolve("three-daemons.yaml"),
            dir.resolve("shared"),
            Map.of(
                "127.0.0.1:3999",
                server.url().substring("http://".length()),
                "schema: watukuy_orders",
                "schema: " + schema));
    try {
      List<WatukuyCli.Result> runs =
          List.of(
              WatukuyCli.run("run", shared.toString(), "--once"),
              WatukuyCli.run("run", shared.toString(), "--once"),
              WatukuyCli.run("run", shared.toString(), "--once"));
      assertThat(runs).allMatch(r -> r.exit() == 0, "exit 0");
      assertThat(changes(runs.get(0), "orders"))
          .containsExactly("created 1", "created 2", "created 3", "created 4", "created 5");
      assertThat(runs.get(1).events()).isEmpty();
      assertThat(runs.get(2).events()).isEmpty();
    } finally {
      try (java.sql.Connection c =
              java.sql.DriverManager.getConnection(
                  "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
          java.sql.Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
    }
  }

  private static List<String> changes(WatukuyCli.Result r, String source) {
    return r.events().stream()
        .filter(e -> e.get("source").asText().equals(source))
        .map(e -> e.get("type").asText() + " " + e.get("identity").asText())
        .toList();
  }

  private static JsonNode event(WatukuyCli.Result r, String source, String identity) {
    return r.events().stream()
        .filter(
            e ->
                e.get("source").asText().equals(source)
                    && e.get("identity").asText().equals(identity))
        .findFirst()
        .orElseThrow(
            () ->
                new AssertionError(
                    "no " + source + " event for " + identity + " in\n" + r.stdout()));
  }

  /** One write to json-server; the response body, which must be 2xx. */
  private JsonNode send(String method, String path, String body) throws Exception {
    HttpResponse<String> res = JsonServerPeer.send(server, method, path, body);
    assertThat(res.statusCode()).as("%s %s: %s", method, path, res.body()).isBetween(200, 299);
    return JSON.readTree(res.body());
  }
}
