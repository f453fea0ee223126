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

  /** Starts the daemon, waits for {@code events} lines on stdout, stops it with SIGTERM. */
  private Run daemon(int events, String... extra) throws Exception {
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
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < deadline
          && (Files.readAllLines(out).size() < events || Files.readAllLines(err).isEmpty())) {
        Thread.sleep(100);
      }
      Thread.sleep(500); // a poller that should not run would have had its first cycle by now
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
    Run r = daemon(2);

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
    Run r = daemon(2, "--poller", "orders");

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
