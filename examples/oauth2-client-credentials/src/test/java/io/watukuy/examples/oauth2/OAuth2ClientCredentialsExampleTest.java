package io.watukuy.examples.oauth2;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.Cursors;
import io.watukuy.KeyInspection;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.RequestOptions;
import io.watukuy.Schedule;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.auth.ClientCredentialsSigner;
import io.watukuy.examples.support.LocalServer;
import io.watukuy.examples.support.Peers;
import io.watukuy.examples.support.WatukuyCli;
import io.watukuy.store.memory.MemoryStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples/oauth2-client-credentials} against a real authorization server: {@code
 * servers.mjs} runs oauth2-mock-server 9.3.0 (pinned in examples/peers) and an orders API that
 * accepts only the tokens it issued, for a few seconds each (issue 19, section 1).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class OAuth2ClientCredentialsExampleTest {
  private static final String SECRET = "s3cret-for-the-example";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir Path dir;
  private LocalServer servers;
  private int authPort;

  private void start(int ttlSeconds) {
    Path example = Peers.repositoryRoot().resolve("examples/oauth2-client-credentials");
    Path bin = Peers.bin("oauth2-mock-server").getParent();
    authPort = LocalServer.freePort();
    int apiPort = LocalServer.freePort();
    servers =
        LocalServer.start(
            "oauth2-mock-server and the orders API",
            List.of(
                "node",
                example.resolve("servers.mjs").toString(),
                "--peers",
                bin.toString(),
                "--auth-port",
                Integer.toString(authPort),
                "--api-port",
                Integer.toString(apiPort),
                "--ttl",
                Integer.toString(ttlSeconds),
                "--client-secret",
                SECRET),
            dir.resolve("servers"),
            apiPort,
            Duration.ofSeconds(30));
  }

  @AfterEach
  void stop() {
    if (servers != null) servers.close();
  }

  @Test
  void theReadmeRunGetsOneTokenWithScopeAudienceAndBasicClientAuthAndListsEveryOrder() {
    start(60);

    WatukuyCli.Result run = runReadme(SECRET);

    assertThat(run.exit()).as(run.stderr()).isEqualTo(0);
    assertThat(run.changes()).containsExactly("created 1", "created 2", "created 3");
    JsonNode stats = stats();
    assertThat(stats.get("tokenRequests").asInt()).isEqualTo(1);
    assertThat(stats.get("clientAuth").get(0).asText()).isEqualTo("basic");
    assertThat(stats.get("scopes").get(0).asText()).isEqualTo("orders:read");
    assertThat(stats.get("audiences").get(0).asText()).isEqualTo("https://erp.example.com/api");
    assertThat(stats.get("unauthorized").asInt()).isZero();
    assertThat(run.stdout() + run.stderr()).doesNotContain(SECRET);
  }

  @Test
  void aWrongSecretIsAFailedRunNamingTheTokenEndpointAndNeverTheSecret() {
    start(60);
    String wrong = "wrong-secret-0123456789";

    WatukuyCli.Result run = runReadme(wrong);

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.stderr())
        .contains("token endpoint http://127.0.0.1:" + authPort + "/token refused")
        .contains("invalid_client")
        .doesNotContain(wrong);
    assertThat(stats().get("apiRequests").asInt()).isZero();
  }

  @Test
  void aTokenIsReusedUntilShortlyBeforeItExpiresAndThenReplacedWithoutA401()
      throws InterruptedException {
    start(4); // renewed 2 s after it was issued (at most half its lifetime early)
    ClientCredentialsSigner signer = signer(SECRET, ClientCredentialsSigner.ClientAuth.POST);
    try (Watukuy w = engine(List.of(poller("orders", signer)))) {
      assertThat(w.tick().failed()).isFalse();
      assertThat(w.tick().failed()).isFalse(); // due again at once: same token
      assertThat(stats().get("tokenRequests").asInt()).isEqualTo(1);
      Thread.sleep(2_500); // a real server's token: only real time makes it old
      assertThat(w.tick().failed()).isFalse();
    }
    JsonNode stats = stats();
    assertThat(stats.get("tokenRequests").asInt()).isEqualTo(2);
    assertThat(stats.get("unauthorized").asInt()).isZero();
    assertThat(stats.get("clientAuth").get(0).asText()).isEqualTo("post");
    assertThat(signer.tokenRequests()).isEqualTo(2);
  }

  @Test
  void a401GetsOneNewTokenAndOneRetryOfThatRequestNotOfTheCycle() throws Exception {
    start(60);
    ClientCredentialsSigner signer = signer(SECRET, ClientCredentialsSigner.ClientAuth.BASIC);
    try (Watukuy w = engine(List.of(poller("orders", signer)))) {
      assertThat(w.tick().failed()).isFalse();
      int apiBefore = stats().get("apiRequests").asInt(); // two pages
      post("/revoke");

      TickReport report = w.tick();

      assertThat(report.failed()).isFalse();
      KeyReport key = report.poller("orders").orElseThrow();
      assertThat(key.pages()).isEqualTo(2);
    }
    JsonNode stats = stats();
    assertThat(stats.get("tokenRequests").asInt()).isEqualTo(2);
    assertThat(stats.get("unauthorized").asInt()).isEqualTo(1);
    // page 1 refused, page 1 again with the new token, page 2: one retry, not a new cycle
    assertThat(stats.get("apiRequests").asInt()).isEqualTo(2 + 3);
  }

  @Test
  void tokenRequestsAreNotChargedToThePollersBudget() {
    start(60);
    ClientCredentialsSigner signer = signer(SECRET, ClientCredentialsSigner.ClientAuth.BASIC);
    // Two tokens a minute and no waiting: the two pages fit only if the token request is free.
    Poller<JsonNode> orders = poller("orders", signer, "erp");
    try (Watukuy w =
        Watukuy.builder()
            .store(new MemoryStore())
            .budget("erp", 2, Duration.ofMinutes(1))
            .poller(orders)
            .build()) {
      w.on(orders, event -> {});

      KeyReport key = w.tick().poller("orders").orElseThrow();

      assertThat(key.outcome()).isEqualTo(KeyReport.Outcome.POLLED);
      assertThat(key.error()).isNull();
      assertThat(key.pages()).isEqualTo(2);
    }
    assertThat(stats().get("tokenRequests").asInt()).isEqualTo(1);
    assertThat(stats().get("apiRequests").asInt()).isEqualTo(2);
  }

  @Test
  void aRefusingTokenEndpointIsAskedOnceForEveryPollerSharingTheCredentialUntilItsBackoffPasses() {
    start(60);
    String wrong = "wrong-secret-0123456789";
    ClientCredentialsSigner signer = signer(wrong, ClientCredentialsSigner.ClientAuth.BASIC);
    try (Watukuy w = engine(List.of(poller("orders", signer), poller("invoices", signer)))) {
      TickReport report = w.tick();

      assertThat(report.poller("orders").orElseThrow().failed()).isTrue();
      assertThat(report.poller("invoices").orElseThrow().failed()).isTrue();
      for (String name : List.of("orders", "invoices")) {
        KeyInspection key = w.inspect().poller(name).orElseThrow();
        assertThat(key.lastError()).isNotNull();
        assertThat(key.lastError().message())
            .contains("token endpoint http://127.0.0.1:" + authPort + "/token")
            .contains("invalid_client")
            .doesNotContain(wrong);
        assertThat(key.consecutiveFailures()).isEqualTo(1);
      }
    }
    // the second poller got the first one's failure: no second request within the backoff
    assertThat(stats().get("tokenRequests").asInt()).isEqualTo(1);
    assertThat(stats().get("apiRequests").asInt()).isZero();
  }

  /** {@code watukuy run watukuy.yaml --once} as the README runs it, on this test's ports. */
  private WatukuyCli.Result runReadme(String secret) {
    Path example = Peers.repositoryRoot().resolve("examples/oauth2-client-credentials");
    Path config =
        WatukuyCli.config(
            example.resolve("watukuy.yaml"),
            dir,
            Map.of(
                "127.0.0.1:3997",
                "127.0.0.1:" + authPort,
                "127.0.0.1:3996",
                servers.url().substring("http://".length()),
                "${ERP_CLIENT_SECRET}",
                secret));
    return WatukuyCli.run("run", config.toString(), "--once");
  }

  private ClientCredentialsSigner signer(String secret, ClientCredentialsSigner.ClientAuth how) {
    return ClientCredentialsSigner.builder(
            "http://127.0.0.1:" + authPort + "/token", "watukuy", secret)
        .scopes(List.of("orders:read"))
        .clientAuth(how)
        .backoff(Duration.ofMinutes(1))
        .build();
  }

  private Poller<JsonNode> poller(String name, ClientCredentialsSigner signer) {
    return poller(name, signer, null);
  }

  /** A poller of the orders API; with a budget, a request waits for none of its tokens. */
  private Poller<JsonNode> poller(
      String name, ClientCredentialsSigner signer, @Nullable String budget) {
    String url = servers.url() + "/orders";
    Poller.Builder<JsonNode, Void> b = Poller.builder(name, JsonNode.class);
    if (budget != null) b.budget(budget).maxWait(Duration.ZERO);
    return b.identity(item -> item.get("id"))
        .cursor(Cursors.snapshotDiff())
        .fetch(
            ctx -> {
              JsonNode body =
                  ctx.http()
                      .get(url, RequestOptions.builder().query("page", ctx.page()).build())
                      .json(JsonNode.class);
              List<JsonNode> items = new ArrayList<>();
              body.get("items").forEach(items::add);
              return Page.of(items).withHasMore(body.get("hasMore").asBoolean());
            })
        .schedule(Schedule.every(Duration.ofMillis(1)))
        .requestSigner(url, signer)
        .build();
  }

  private static Watukuy engine(List<Poller<JsonNode>> pollers) {
    Watukuy.Builder b = Watukuy.builder().store(new MemoryStore());
    pollers.forEach(b::poller);
    Watukuy w = b.build();
    pollers.forEach(p -> w.on(p, event -> {}));
    return w;
  }

  private JsonNode stats() {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(servers.url() + "/stats")).build(),
              HttpResponse.BodyHandlers.ofString());
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw new IllegalStateException(servers.log(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void post(String path) throws IOException, InterruptedException {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(servers.url() + path))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
  }
}
