package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code watukuy run} without {@code --once}, in its own JVM, stopped by SIGTERM: one line when it
 * starts, one line per failed cycle, one line when it has stopped, and nothing from the engine's
 * log in between.
 */
class DaemonTest {
  private static final String ORDERS =
      "[{\"id\":1,\"updatedAt\":\"2024-01-01T00:00:00Z\"},"
          + "{\"id\":2,\"updatedAt\":\"2024-01-02T00:00:00Z\"}]";

  @TempDir Path dir;

  private final AtomicInteger customerRequests = new AtomicInteger();
  private HttpServer server;
  private Path config;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/orders", ex -> reply(ex, 200, ORDERS));
    server.createContext(
        "/customers",
        ex -> {
          customerRequests.incrementAndGet();
          reply(ex, 500, "");
        });
    server.start();
    int port = server.getAddress().getPort();
    config = dir.resolve("watukuy.yaml");
    Files.writeString(
        config,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: orders
            request: { url: "http://127.0.0.1:%d/orders" }
            response: { items: "" }
            identity: /id
            cursor: { strategy: snapshotDiff }
          - name: customers
            request: { url: "http://127.0.0.1:%d/customers" }
            response: { items: "" }
            identity: /id
            cursor: { strategy: snapshotDiff }
        """
            .formatted(port, port));
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static void reply(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) ex.getResponseBody().write(bytes);
    ex.close();
  }

  private record Run(int code, List<String> out, List<String> err) {}

  /**
   * Starts the daemon, waits (up to 45 s) for {@code events} lines on stdout and for its stderr to
   * satisfy {@code errReady}, then {@code settleMillis} more, stops it with SIGTERM and waits for
   * it to exit.
   */
  private Run daemon(
      int events, Predicate<List<String>> errReady, long settleMillis, String... extra)
      throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "run",
                config.toString()));
    command.addAll(List.of(extra));
    Path out = dir.resolve("stdout");
    Path err = dir.resolve("stderr");
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
      while (System.nanoTime() < deadline
          && (Files.readAllLines(out).size() < events || !errReady.test(Files.readAllLines(err)))) {
        Thread.sleep(100);
      }
      Thread.sleep(settleMillis);
      p.destroy(); // SIGTERM: drain, then exit 0
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      p.destroyForcibly();
    }
    List<String> lines = new ArrayList<>(Files.readAllLines(err));
    // A first run creates the store and says so; these tests are about the lines after it.
    lines.removeIf(l -> l.startsWith(CliRun.NEW_STORE));
    return new Run(p.exitValue(), Files.readAllLines(out), lines);
  }

  private String storeText() {
    return "sqlite:" + dir.resolve("watukuy.db").toAbsolutePath();
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void startStopAndEachFailureIsOneLine() throws Exception {
    // Stopped once the customers poller has failed at least once, however slow the machine: a
    // fixed wait could end before its first request and leave no failure line to check. A request
    // in flight at the stop ends its cycle, and its line comes before the last one.
    Run r = daemon(2, err -> err.stream().anyMatch(l -> l.contains("poller customers:")), 0);

    assertThat(r.code()).as(String.join("\n", r.err())).isZero();
    assertThat(r.out()).hasSize(2).allMatch(l -> l.contains("\"source\":\"orders\""));
    assertThat(r.err().get(0))
        .isEqualTo(
            "watukuy: running 2 pollers (orders, customers) from "
                + config
                + ", store "
                + storeText()
                + "; Ctrl-C to stop");
    assertThat(r.err().get(r.err().size() - 1)).isEqualTo("watukuy: stopped, 2 events delivered");
    List<String> failures = r.err().subList(1, r.err().size() - 1);
    assertThat(failures)
        .hasSize(customerRequests.get())
        .containsOnly(
            "watukuy: poller customers: GET http://127.0.0.1:"
                + server.getAddress().getPort()
                + "/customers returned HTTP 500");
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void pollerSelectsWhatTheDaemonRuns() throws Exception {
    // The absence of a request needs a real wait: the first pass starts every poller's cycle at
    // once, so one that should not run would have sent its request within the settle time.
    Run r = daemon(2, err -> !err.isEmpty(), 500, "--poller", "orders");

    assertThat(r.code()).as(String.join("\n", r.err())).isZero();
    assertThat(r.err())
        .containsExactly(
            "watukuy: running 1 poller (orders) from "
                + config
                + ", store "
                + storeText()
                + "; Ctrl-C to stop",
            "watukuy: stopped, 2 events delivered");
    assertThat(customerRequests).hasValue(0);
  }
}
