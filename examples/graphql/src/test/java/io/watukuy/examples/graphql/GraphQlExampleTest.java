package io.watukuy.examples.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.examples.support.LocalServer;
import io.watukuy.examples.support.Peers;
import io.watukuy.examples.support.WatukuyCli;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed {@code watukuy.yaml} against the committed {@code server.js} (graphql-js,
 * graphql-http and graphql-relay as pinned in examples/peers) on a loopback port, seeded with the
 * committed {@code orders.json}: five orders, two a page. The expected events follow from the seed
 * and the mutations each test makes.
 */
class GraphQlExampleTest {
  private static final Path EXAMPLE = Peers.repositoryRoot().resolve("examples/graphql");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;
  private LocalServer server;
  private Path config;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

  @BeforeEach
  void startGraphQlServer() {
    int port = LocalServer.freePort();
    server =
        LocalServer.start(
            "graphql server",
            List.of(
                "env",
                "NODE_PATH=" + Peers.nodeModules(),
                "node",
                EXAMPLE.resolve("server.js").toString(),
                Integer.toString(port),
                EXAMPLE.resolve("orders.json").toString()),
            dir.resolve("server"),
            port,
            Duration.ofSeconds(30));
    config =
        WatukuyCli.config(
            EXAMPLE.resolve("watukuy.yaml"), dir, Map.of("127.0.0.1:4000", "127.0.0.1:" + port));
  }

  @AfterEach
  void stopGraphQlServer() {
    if (server != null) server.close();
  }

  @Test
  void theFirstRunWalksEveryPageOfTheConnectionAndTheSecondIsSilent() {
    WatukuyCli.Result first = run();

    List<String> seed =
        List.of("created o-1", "created o-2", "created o-3", "created o-4", "created o-5");
    assertThat(first.changes("orders")).containsExactlyElementsOf(seed);
    assertThat(first.changes("orders-feed")).containsExactlyElementsOf(seed);
    JsonNode three = first.event("orders", "o-3");
    assertThat(three.at("/data/node/customer").asText()).isEqualTo("initech");
    assertThat(three.at("/data/node/total").asDouble()).isEqualTo(7.25);

    assertThat(run().events()).isEmpty();
  }

  @Test
  void theSnapshotSeesEditsDeletesAndNewOrdersTheFeedOnlyNewOnes() throws Exception {
    run();

    graphql("mutation { setStatus(id: \"o-2\", status: \"shipped\") { id } }");
    graphql("mutation { deleteOrder(id: \"o-4\") }");
    graphql("mutation { addOrder(customer: \"hooli\", total: 5) { id } }");

    // The listing: o-1, o-2 (changed), o-3, o-5, o-6 (new); o-4, stored but not listed, last.
    WatukuyCli.Result all = run("--poller", "orders");
    assertThat(all.changes("orders")).containsExactly("updated o-2", "created o-6", "deleted o-4");
    assertThat(all.event("orders", "o-2").at("/data/node/status").asText()).isEqualTo("shipped");
    assertThat(all.event("orders", "o-6").at("/data/node/customer").asText()).isEqualTo("hooli");
    assertThat(run("--poller", "orders").events()).isEmpty();
  }

  @Test
  void theFeedKeepsItsLastEndCursorAndAsksOnlyForWhatCameAfter() throws Exception {
    run();
    graphql("mutation { addOrder(customer: \"hooli\", total: 5) { id } }");
    graphql("mutation { addOrder(customer: \"pied piper\", total: 9) { id } }");

    WatukuyCli.Result feed = run("--poller", "orders-feed");
    assertThat(feed.changes("orders-feed")).containsExactly("created o-6", "created o-7");
    // After the last order the connection has no edges and endCursor null: the end, token kept.
    assertThat(run("--poller", "orders-feed").events()).isEmpty();
    graphql("mutation { addOrder(customer: \"initrode\", total: 1) { id } }");
    assertThat(run("--poller", "orders-feed").changes("orders-feed"))
        .containsExactly("created o-8");
  }

  @Test
  void errorsInA200AreAFetchErrorQuotingTheServersFirstMessage() throws IOException {
    Files.writeString(
        config,
        Files.readString(config).replace("customer status total", "customer statuss total"));

    WatukuyCli.Result r = WatukuyCli.run("run", config.toString(), "--once", "--poller", "orders");

    assertThat(r.exit()).as("run --once after a failed cycle").isEqualTo(1);
    assertThat(r.events()).isEmpty();
    // graphql-js's FieldsOnCorrectTypeRule names the field and the type.
    assertThat(r.stderr())
        .contains(
            "the GraphQL response has errors: 'Cannot query field \"statuss\" on type \"Order\".");
  }

  /** {@code watukuy run CONFIG --once [extra…]}: exit 0 and nothing wrong on stderr. */
  private WatukuyCli.Result run(String... extra) {
    return WatukuyCli.runOnce(config, server, extra);
  }

  /** One GraphQL operation on the server; its {@code data}, which must come without errors. */
  private JsonNode graphql(String query) throws Exception {
    String body = JSON.writeValueAsString(Map.of("query", query));
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(server.url() + "/graphql"))
            .timeout(HTTP_TIMEOUT)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    HttpResponse<String> res = http.send(request, HttpResponse.BodyHandlers.ofString());
    JsonNode json = JSON.readTree(res.body());
    assertThat(json.has("errors")).as("%s: %s", query, res.body()).isFalse();
    return json.get("data");
  }
}
