package io.watukuy.examples.oauth2refresh;

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
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code examples/oauth2-refresh-token} against a real authorization server (issue 19, section 1):
 * {@code servers.mjs} runs oauth2-mock-server 9.3.0 (pinned in examples/peers) made strict, so each
 * refresh token is good for one grant and a reused one gets {@code invalid_grant}, with access
 * tokens that live 4 s. Two {@code watukuy run} daemons, two JVMs, share the credential on the
 * local PostgreSQL: no grant is refused, refreshes come one per expiry (never two for one token),
 * and both daemons send the same access tokens.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OAuth2RefreshTokenExampleTest {
  private static final String SEED = "rt-first-0123456789";
  private static final String KEY = "q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80="; // 32 bytes
  private static final int TTL_SECONDS = 4;
  private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir Path dir;
  private LocalServer servers;
  private int apiPort;
  private int authPort;
  private final String schema = "wk_refresh_" + Long.toHexString(System.nanoTime());
  private final List<Process> daemons = new ArrayList<>();

  @BeforeEach
  void start() {
    Path example = Peers.repositoryRoot().resolve("examples/oauth2-refresh-token");
    Path bin = Peers.bin("oauth2-mock-server").getParent();
    authPort = LocalServer.freePort();
    apiPort = LocalServer.freePort();
    servers =
        LocalServer.start(
            "oauth2-mock-server (single-use refresh tokens) and the API",
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
                Integer.toString(TTL_SECONDS),
                "--refresh-token",
                SEED),
            dir.resolve("servers"),
            apiPort,
            Duration.ofSeconds(30));
  }

  @AfterEach
  void stop() throws Exception {
    for (Process p : daemons) p.destroyForcibly();
    if (servers != null) servers.close();
    try (Connection c = DriverManager.getConnection(PG);
        Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  private Path config(String name, boolean invoices) {
    Path example = Peers.repositoryRoot().resolve("examples/oauth2-refresh-token/watukuy.yaml");
    Map<String, String> replace =
        new java.util.LinkedHashMap<>(
            Map.of(
                "127.0.0.1:3995",
                "127.0.0.1:" + authPort,
                "127.0.0.1:3994/orders",
                "127.0.0.1:" + apiPort + (invoices ? "/invoices" : "/orders"),
                "schema: watukuy_crm",
                "schema: " + schema));
    if (invoices) replace.put("- name: orders", "- name: invoices");
    return WatukuyCli.config(example, dir.resolve(name), replace);
  }

  private Process daemon(Path config, String name) throws IOException {
    return watukuy("run", config, name);
  }

  /** {@code watukuy COMMAND CONFIG} in a JVM of its own, with the example's two variables. */
  private Process watukuy(String command, Path config, String name) throws IOException {
    ProcessBuilder b =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "io.watukuy.cli.Main",
                command,
                config.toString())
            .redirectOutput(dir.resolve("out-" + name).toFile())
            .redirectError(dir.resolve("err-" + name).toFile());
    b.environment().put("WATUKUY_SECRET_KEY", KEY);
    b.environment().put("CRM_REFRESH_TOKEN", SEED);
    Process p = b.start();
    daemons.add(p);
    return p;
  }

  @Test
  void twoDaemonsShareOneRotatingRefreshTokenWithOneRefreshPerExpiryAndNoInvalidGrant()
      throws Exception {
    Path orders = config("a", false);
    Path invoices = config("b", true);
    // Tables first, so the two daemons do not both create them.
    Process migrate = watukuy("migrate", orders, "migrate");
    assertThat(migrate.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(migrate.exitValue()).as(Files.readString(dir.resolve("err-migrate"))).isZero();

    daemon(orders, "a");
    daemon(invoices, "b");
    // A loaded machine starts a JVM slowly: the window starts once both daemons run.
    for (String err : List.of("err-a", "err-b")) {
      for (int i = 0;
          i < 450 && !Files.readString(dir.resolve(err)).contains("watukuy: running");
          i++) Thread.sleep(200);
      assertThat(Files.readString(dir.resolve(err))).contains("watukuy: running");
    }
    long started = System.nanoTime();
    Thread.sleep(14_000); // real servers, real tokens: about six expiries
    for (Process p : daemons) p.destroy(); // SIGTERM
    for (Process p : daemons) assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    long elapsed = (System.nanoTime() - started) / 1_000_000; // ms

    JsonNode stats = stats();
    String logs =
        Files.readString(dir.resolve("err-a"))
            + "\n---\n"
            + Files.readString(dir.resolve("err-b"))
            + "\n---\n"
            + servers.log();
    assertThat(stats.get("invalidGrants").asInt()).as(logs).isZero();
    assertThat(stats.get("unauthorized").asInt()).as(logs).isZero();

    // One refresh per expiry: a token is replaced half its lifetime after it was issued
    // (earlyRefresh is capped at half), by one daemon; a second refresh of the same token by the
    // other daemon would follow within milliseconds.
    List<Long> grants = new ArrayList<>();
    stats.get("refreshGrants").forEach(g -> grants.add(g.asLong()));
    assertThat(grants).as(logs).hasSizeGreaterThanOrEqualTo(3);
    for (int i = 1; i < grants.size(); i++)
      assertThat(grants.get(i) - grants.get(i - 1))
          .as("gap between refresh grants %d and %d; %s", i, i + 1, logs)
          .isGreaterThanOrEqualTo(TTL_SECONDS * 1000L / 2 - 300);
    assertThat(grants.size()).isLessThanOrEqualTo((int) (elapsed / (TTL_SECONDS * 500L)) + 2);

    // Both daemons called with tokens from the same row.
    Set<String> ordersTokens = new HashSet<>();
    Set<String> invoicesTokens = new HashSet<>();
    for (JsonNode call : stats.get("calls"))
      (call.get("path").asText().equals("/orders") ? ordersTokens : invoicesTokens)
          .add(call.get("token").asText());
    assertThat(ordersTokens).isNotEmpty();
    assertThat(invoicesTokens).isNotEmpty();
    assertThat(ordersTokens).containsAnyElementsOf(invoicesTokens);

    // At rest, the row is sealed: neither the seed nor anything readable as a token.
    try (Connection c = DriverManager.getConnection(PG);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM " + schema + ".watukuy_credentials")) {
      assertThat(rs.next()).isTrue();
      StringBuilder row = new StringBuilder();
      for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++)
        row.append(rs.getString(i)).append(' ');
      assertThat(row.toString()).contains("crm").contains("v1:default:").doesNotContain(SEED);
    }
    for (String err : List.of("err-a", "err-b"))
      assertThat(Files.readString(dir.resolve(err))).doesNotContain(SEED, KEY);
  }

  private JsonNode stats() throws Exception {
    HttpResponse<String> res =
        HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort + "/stats")).build(),
            HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(res.body());
  }
}
