package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.watukuy.PollerKey;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.store.sqlite.SqliteStore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/config.md, "Effects", Outcomes: a request an event's values make impossible to build (here a
 * header value with a non-ASCII character, which the HTTP client cannot send) is a terminal failure
 * of the YAML effect, naming the effect and the header, never the value; the other event is sent as
 * usual; so is a redirect, which is never followed. A real {@code watukuy run} against a server on
 * 127.0.0.1.
 */
class EffectsYamlRequestTest {
  @TempDir Path dir;
  private HttpServer server;
  private final List<String> received = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/items",
        ex -> {
          byte[] body =
              ("{\"items\":[{\"id\":1,\"customer\":\"c-1\"},{\"id\":2,\"customer\":\"Jürgen\"},"
                      + "{\"id\":3,\"customer\":\"moved\"}]}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.createContext(
        "/notify",
        ex -> {
          String customer = ex.getRequestHeaders().getFirst("X-Customer");
          received.add(customer);
          if (customer.equals("moved")) // the receiver moved: a redirect to elsewhere
          ex.getResponseHeaders()
                .set("Location", "https://user:pw-9d1f@other.example:8443/hook?sig=q7w1");
          ex.sendResponseHeaders(customer.equals("moved") ? 302 : 204, -1);
          ex.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private Optional<InvocationRow> row(Path db, long position) {
    if (!Files.exists(db)) return Optional.empty();
    try (SqliteStore store = SqliteStore.open(db)) {
      return store
          .effects()
          .orElseThrow()
          .loadInvocation("welcome", PollerKey.of("orders"), position)
          .filter(r -> r.status().completed());
    } catch (RuntimeException e) {
      return Optional.empty(); // the daemon has not made the tables yet
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aHeaderValueTheClientCannotSendIsATerminalFailureNamingTheHeader() throws Exception {
    int port = server.getAddress().getPort();
    Path yaml = dir.resolve("watukuy.yaml");
    Files.writeString(
        yaml,
        OrdersYaml.head(port, "{ enabled: true }")
            + """
                - name: welcome
                  source: orders
                  on: [created]
                  request:
                    url: "http://127.0.0.1:%d/notify"
                    headers: { X-Customer: "{{/item/customer}}" }
              """
                .formatted(port));
    Path db = dir.resolve("watukuy.db");
    Process p =
        CliProcess.of(List.of(), "run", yaml.toString())
            .redirectOutput(dir.resolve("stdout").toFile())
            .redirectError(dir.resolve("stderr").toFile())
            .start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while ((row(db, 1).isEmpty() || row(db, 2).isEmpty() || row(db, 3).isEmpty())
          && System.nanoTime() < deadline) Thread.sleep(50);
      p.destroy();
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    } finally {
      p.destroyForcibly();
    }

    assertThat(row(db, 1).orElseThrow().status()).isEqualTo(InvocationStatus.DONE);
    InvocationRow bad = row(db, 2).orElseThrow();
    assertThat(bad.status()).isEqualTo(InvocationStatus.TERMINAL);
    assertThat(bad.attempt()).isEqualTo(1);
    assertThat(bad.error())
        .isEqualTo(
            "effect welcome: the request cannot be built: HTTP header X-Customer: its value has a"
                + " non-ASCII character at index 1, which the HTTP client cannot send (encode the"
                + " value first)");
    // A 3xx is not followed; completing the event on it would report a delivery that never
    // happened, so it is terminal, naming where it points without its user info or query.
    InvocationRow moved = row(db, 3).orElseThrow();
    assertThat(moved.status()).isEqualTo(InvocationStatus.TERMINAL);
    assertThat(moved.error())
        .isEqualTo(
            "effect welcome: POST http://127.0.0.1:"
                + port
                + "/notify answered 302 (a redirect to https://other.example:8443/hook, not"
                + " followed: point url at the address that answers)");
    assertThat(received).containsExactlyInAnyOrder("c-1", "moved");
    String stderr = Files.readString(dir.resolve("stderr"));
    assertThat(stderr).doesNotContain("J?rgen").doesNotContain("pw-9d1f").doesNotContain("q7w1");
  }
}
