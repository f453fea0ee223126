package io.watukuy.examples.postsearch;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.examples.support.LocalServer;
import io.watukuy.examples.support.Peers;
import io.watukuy.examples.support.WatukuyCli;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed {@code watukuy.yaml} against the committed {@code server.js} (Node.js, no
 * packages), a HubSpot-like contact search on a loopback port: seven contacts modified one second
 * apart, two a request. HubSpot refuses {@code after} of 10 000 or more; seven contacts cannot
 * reach that, so the tests that need the cap start the server with a cap of 4 and the YAML with
 * {@code maxOffset: 4}, the same rule at a size a test can read.
 */
class PostSearchExampleTest {
  private static final Path EXAMPLE = Peers.repositoryRoot().resolve("examples/post-search");
  private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(10);
  private static final String SINCE_1970 =
      "[[{\"propertyName\":\"lastmodifieddate\",\"operator\":\"GTE\","
          + "\"value\":\"1970-01-01T00:00:00.000Z\"}]]";

  @TempDir Path dir;
  private LocalServer server;
  private Path config;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

  /** Starts server.js refusing {@code after >= cap}, and a YAML with {@code maxOffset}. */
  private void start(int cap, int maxOffset) {
    int port = LocalServer.freePort();
    server =
        LocalServer.start(
            "search server",
            List.of(
                "node",
                EXAMPLE.resolve("server.js").toString(),
                Integer.toString(port),
                Integer.toString(cap)),
            dir.resolve("server"),
            port,
            Duration.ofSeconds(30));
    config =
        WatukuyCli.config(
            EXAMPLE.resolve("watukuy.yaml"),
            dir,
            Map.of(
                "127.0.0.1:4030",
                "127.0.0.1:" + port,
                "maxOffset: 10000",
                "maxOffset: " + maxOffset));
  }

  @AfterEach
  void stopServer() {
    if (server != null) server.close();
  }

  @Test
  void underTheCapOneSearchPagesThroughEveryContact() {
    start(10000, 10000);

    WatukuyCli.Result first = WatukuyCli.runOnce(config, server);

    assertThat(first.changes("contacts"))
        .containsExactly(
            "created 1",
            "created 2",
            "created 3",
            "created 4",
            "created 5",
            "created 6",
            "created 7");
    // One search from the initial watermark, after 0, 2, 4, 6; total 7 ends it.
    assertThat(searches())
        .containsExactly(
            "search after=0 filters=" + SINCE_1970,
            "search after=2 filters=" + SINCE_1970,
            "search after=4 filters=" + SINCE_1970,
            "search after=6 filters=" + SINCE_1970);
  }

  @Test
  void maxOffsetStartsANewSearchFromTheCommittedWatermarkInsteadOfAskingPastTheCap() {
    start(4, 4);

    WatukuyCli.Result first = WatukuyCli.runOnce(config, server);

    assertThat(first.changes("contacts"))
        .containsExactly(
            "created 1",
            "created 2",
            "created 3",
            "created 4",
            "created 5",
            "created 6",
            "created 7");
    // after=4 would be refused: the third request is a new search from contact 4's timestamp.
    String since4 =
        "[[{\"propertyName\":\"lastmodifieddate\",\"operator\":\"GTE\","
            + "\"value\":\"2024-05-01T09:00:04.000Z\"}]]";
    assertThat(searches())
        .containsExactly(
            "search after=0 filters=" + SINCE_1970,
            "search after=2 filters=" + SINCE_1970,
            "search after=0 filters=" + since4,
            "search after=2 filters=" + since4);
    assertThat(server.log()).doesNotContain("search after=4");
  }

  @Test
  void anEditedContactIsAnUpdateAndANewOneACreateOnTheNextRun() throws Exception {
    start(4, 4);
    WatukuyCli.runOnce(config, server);
    send("PATCH", "/crm/v3/objects/contacts/2", "{\"properties\":{\"firstname\":\"Ada\"}}");
    send("POST", "/crm/v3/objects/contacts", "{\"properties\":{\"email\":\"new@example.com\"}}");

    WatukuyCli.Result second = WatukuyCli.runOnce(config, server);

    // From contact 7's timestamp: 7 again (unchanged, no event), then 2 and 8 by their new times.
    assertThat(second.changes("contacts")).containsExactly("updated 2", "created 8");
    assertThat(second.event("contacts", "2").at("/data/properties/firstname").asText())
        .isEqualTo("Ada");
    assertThat(WatukuyCli.runOnce(config, server).events()).isEmpty();
  }

  /** The searches the server logged, in order. */
  private List<String> searches() {
    return server.log().lines().filter(l -> l.startsWith("search ")).toList();
  }

  /** One write to the server, which must answer 2xx. */
  private void send(String method, String path, String body) throws Exception {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(server.url() + path))
            .timeout(HTTP_TIMEOUT)
            .header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofString(body))
            .build();
    HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString());
    assertThat(res.statusCode()).as("%s %s: %s", method, path, res.body()).isBetween(200, 299);
  }
}
