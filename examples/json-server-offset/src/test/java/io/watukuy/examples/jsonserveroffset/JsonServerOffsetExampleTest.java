package io.watukuy.examples.jsonserveroffset;

import static org.assertj.core.api.Assertions.assertThat;

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
 * with the committed {@code db.json} (five orders, ids 1 to 5), paged by {@code _start} = {@code
 * {{offset}}}, two rows a request, {@code X-Total-Count} as the total. The expected events and
 * requests follow from the seed and the writes each test makes.
 */
class JsonServerOffsetExampleTest {
  private static final Path EXAMPLE = Peers.repositoryRoot().resolve("examples/json-server-offset");

  @TempDir Path dir;
  private LocalServer server;
  private Path config;

  @BeforeEach
  void startJsonServer() throws IOException {
    // Each test gets its own copy of the seed; the request log shows the offsets asked for.
    server = JsonServerPeer.start(EXAMPLE.resolve("db.json"), dir, true);
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
  void theFirstRunAsksForOffsetsZeroTwoAndFourAndStopsAtTheTotal() {
    WatukuyCli.Result first = run();

    assertThat(first.changes())
        .containsExactly("created 1", "created 2", "created 3", "created 4", "created 5");
    // Five rows, two a request: _start 0, 2, 4; X-Total-Count 5 ends it without a fourth request.
    assertThat(starts()).containsExactly("0", "2", "4");
  }

  @Test
  void writesAndAHardDeleteShowInTheNextListingAndAThirdRunIsSilent() throws Exception {
    run();
    send(
        "POST",
        "/orders",
        "{\"customer\":\"hooli\",\"status\":\"new\",\"total\":5,\"updatedAt\":\"2024-05-02T09:00:00.000Z\"}");
    send("PATCH", "/orders/2", "{\"status\":\"refunded\"}");
    send("DELETE", "/orders/3", null);

    // id order 1, 2 | 4, 5 | 6; after the last page the stored id it did not see.
    WatukuyCli.Result second = run();
    assertThat(second.changes()).containsExactly("updated 2", "created 6", "deleted 3");

    assertThat(run().changes()).isEmpty();
  }

  /** The {@code _start} of every GET of the listing json-server logged, in order. */
  private List<String> starts() {
    return server
        .log()
        .lines()
        .filter(l -> l.contains("GET /orders?"))
        .map(l -> l.replaceAll("^.*[?&]_start=(\\d+).*$", "$1"))
        .toList();
  }

  /** {@code watukuy run CONFIG --once}: exit 0 and nothing wrong on stderr. */
  private WatukuyCli.Result run() {
    WatukuyCli.Result r = WatukuyCli.run("run", config.toString(), "--once");
    assertThat(r.exit())
        .as("exit code; stderr:\n%s\njson-server:\n%s", r.stderr(), server.log())
        .isZero();
    assertThat(r.stderr().lines().filter(l -> l.matches("(?i).*\\b(error|warn|exception)\\b.*")))
        .as("problems on stderr")
        .isEmpty();
    return r;
  }

  /** One write to json-server, which must answer 2xx. */
  private void send(String method, String path, String body) throws Exception {
    HttpResponse<String> res = JsonServerPeer.send(server, method, path, body);
    assertThat(res.statusCode()).as("%s %s: %s", method, path, res.body()).isBetween(200, 299);
  }
}
