package io.watukuy.examples.nexturl;

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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed {@code watukuy.yaml} against the committed {@code server.js} (Node.js, no packages)
 * on a loopback port: five users paged by an absolute {@code @odata.nextLink}, three articles by a
 * relative JSON:API {@code links.next}, two a page. The expected events and requests follow from
 * the seed in server.js and the writes each test makes.
 */
class NextUrlExampleTest {
  private static final Path EXAMPLE = Peers.repositoryRoot().resolve("examples/next-url");
  private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(10);

  @TempDir Path dir;
  private LocalServer server;
  private Path config;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

  @BeforeEach
  void startServer() {
    int port = LocalServer.freePort();
    server =
        LocalServer.start(
            "next-url server",
            List.of("node", EXAMPLE.resolve("server.js").toString(), Integer.toString(port)),
            dir.resolve("server"),
            port,
            Duration.ofSeconds(30));
    config =
        WatukuyCli.config(
            EXAMPLE.resolve("watukuy.yaml"), dir, Map.of("127.0.0.1:4020", "127.0.0.1:" + port));
  }

  @AfterEach
  void stopServer() {
    if (server != null) server.close();
  }

  @Test
  void theFirstRunFollowsEveryNextUrlAndTheSecondIsSilent() {
    WatukuyCli.Result first = WatukuyCli.runOnce(config, server);

    assertThat(first.changes("users"))
        .containsExactly("created u1", "created u2", "created u3", "created u4", "created u5");
    assertThat(first.changes("articles")).containsExactly("created 1", "created 2", "created 3");
    // $top=100 on the first request only; then the nextLinks verbatim ($top capped at 2 by the
    // server, the skiptoken base64url of the last id) and the relative links.next resolved.
    assertThat(requests())
        .containsExactly(
            "GET /v1.0/users?%24top=100",
            "GET /v1.0/users?$top=100&$skiptoken=dTI",
            "GET /v1.0/users?$top=100&$skiptoken=dTQ",
            "GET /articles?page%5Bsize%5D=2",
            "GET /articles?page%5Bsize%5D=2&page%5Bafter%5D=2");

    assertThat(WatukuyCli.runOnce(config, server).events()).isEmpty();
  }

  @Test
  void aNewUserAndADeletedArticleShowOnTheNextWalk() throws Exception {
    WatukuyCli.runOnce(config, server);
    send("POST", "/v1.0/users", "{\"displayName\":\"Lee Gu\",\"mail\":\"lee@example.com\"}");
    send("DELETE", "/articles/2", null);

    WatukuyCli.Result second = WatukuyCli.runOnce(config, server);

    assertThat(second.changes("users")).containsExactly("created u6");
    // Deleted once the last page (of 1, 3) is read: the listing is complete without it.
    assertThat(second.changes("articles")).containsExactly("deleted 2");
  }

  /** The listing requests the server logged, in order, without the startup line. */
  private List<String> requests() {
    return server.log().lines().filter(l -> l.startsWith("GET ")).toList();
  }

  /** One write to the server, which must answer 2xx. */
  private void send(String method, String path, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(server.url() + path)).timeout(HTTP_TIMEOUT);
    b.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) b.header("Content-Type", "application/json");
    HttpResponse<String> res = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(res.statusCode()).as("%s %s: %s", method, path, res.body()).isBetween(200, 299);
  }
}
