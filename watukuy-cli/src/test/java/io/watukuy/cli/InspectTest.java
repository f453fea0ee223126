package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.testing.ReadsWallClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code watukuy inspect}: human durations in the table, machine values in {@code --json}. */
@ReadsWallClock(
    "runs the CLI, which keeps time on the system clock: the lag it reports is bounded by two reads")
class InspectTest {
  /** How far behind the one item's updatedAt is: the lag the table shows, cut to 2h5m. */
  private static final Duration BEHIND = Duration.ofHours(2).plusMinutes(5).plusSeconds(30);

  @TempDir Path dir;

  private HttpServer server;
  private Path config;
  private Instant updatedAt;

  @BeforeEach
  void start() throws IOException {
    updatedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(BEHIND);
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/orders", this::list);
    server.start();
    config = dir.resolve("watukuy.yaml");
    Files.writeString(
        config,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: orders
            request: { url: "http://127.0.0.1:%d/orders", query: { since: "{{cursor.value}}" } }
            response: { items: "" }
            identity: /id
            cursor: { strategy: timestamp, field: updatedAt }
            schedule: { min: 10m, max: 10m, jitter: 0 }
        """
            .formatted(server.getAddress().getPort()));
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private volatile int status = 200;

  private void list(HttpExchange ex) throws IOException {
    if (status != 200) {
      ex.sendResponseHeaders(status, -1);
      ex.close();
      return;
    }
    byte[] body =
        ("[{\"id\":1,\"updatedAt\":\"" + updatedAt + "\"}]").getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, body.length);
    ex.getResponseBody().write(body);
    ex.close();
  }

  private String cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.<String, String>of()::get);
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void theTableShowsDurationsInHumanUnits() {
    cli("run", config.toString(), "--once");

    List<String> all = cli("inspect", config.toString()).lines().toList();
    // The keys' table, then a blank line and the sinks' table (InspectSinksTest).
    List<String> lines = all.subList(0, all.indexOf(""));

    assertThat(lines).hasSize(2);
    assertThat(all.subList(lines.size() + 1, all.size())).hasSize(2);
    assertThat(lines.get(0))
        .startsWith("POLLER")
        .contains("NEXT DUE")
        .contains("LAG")
        .endsWith("LAST SUCCESS   LAST ERROR");
    List<String> row = List.of(lines.get(1).trim().split("\\s+"));
    // The key polled a moment ago on a fixed 10-minute schedule, so it is due in just under 10m,
    // and succeeded a moment ago.
    assertThat(row).hasSize(11);
    assertThat(row.subList(0, 3)).containsExactly("orders", "-", "idle");
    assertThat(row.get(3)).isEqualTo("in");
    assertThat(row.get(4)).matches("9m[0-5]?[0-9]s|10m");
    assertThat(row.subList(5, 8)).containsExactly("2h5m", "0", "0");
    assertThat(row.get(8)).matches("[0-9]+(ms|s)");
    assertThat(row.subList(9, 11)).containsExactly("ago", "-");
  }

  @Test
  void theLastErrorSaysHowLongAgoAndWhetherTheKeySucceededSince() {
    status = 500;
    CliRun failed = CliRun.of("run", config.toString(), "--once");
    assertThat(failed.exit()).isEqualTo(1);
    assertThat(cli("inspect", config.toString()).lines().toList().get(1))
        .matches(
            ".* - +[0-9]+(\\.[0-9])?(ms|s) ago: FetchException: poller orders page 1: GET .* returned HTTP"
                + " 500");

    status = 200;
    assertThat(CliRun.of("run", config.toString(), "--once").exit()).isZero();

    assertThat(cli("inspect", config.toString()).lines().toList().get(1))
        .matches(
            ".* [0-9]+(\\.[0-9])?(ms|s) ago +[0-9]+(\\.[0-9])?(ms|s) ago \\(succeeded since\\): FetchException: .*");
  }

  @Test
  void inspectWithStoreNeedsNoConfigAndShowsLagAsUnknown() {
    cli("run", config.toString(), "--once");

    List<String> lines =
        cli("inspect", "--store", "sqlite:" + dir.resolve("watukuy.db")).lines().toList();

    assertThat(lines).hasSize(2);
    List<String> row = List.of(lines.get(1).trim().split("\\s+"));
    assertThat(row.subList(0, 3)).containsExactly("orders", "-", "idle");
    assertThat(row.get(5)).isEqualTo("-"); // the stand-in knows no cursor strategy
    CliRun both = CliRun.of("inspect", config.toString(), "--store", "sqlite:x.db");
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.stderr()).contains("give CONFIG or --store URI, not both");
  }

  @Test
  void theJsonKeepsMachineValues() throws IOException {
    cli("run", config.toString(), "--once");
    Instant before = Instant.now();

    JsonNode key =
        new ObjectMapper()
            .readTree(cli("inspect", config.toString(), "--json"))
            .path("pollers")
            .get(0);

    Instant after = Instant.now();
    assertThat(key.path("lagMs").isIntegralNumber()).isTrue();
    assertThat(key.path("lagMs").asLong())
        .isBetween(
            Duration.between(updatedAt, before).toMillis() - 1000,
            Duration.between(updatedAt, after).toMillis());
    assertThat(key.path("intervalMs").asLong()).isEqualTo(Duration.ofMinutes(10).toMillis());
    assertThat(Instant.parse(key.path("nextDueAt").asText())).isAfter(before);
  }
}
