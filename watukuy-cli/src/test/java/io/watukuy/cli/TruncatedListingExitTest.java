package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full listing cut at {@code maxPagesPerCycle} makes {@code run --once} exit 1 with one line
 * naming {@code ListingTruncated}, and {@code inspect} shows it (docs/operations.md, "Truncated
 * listings"); the listing used to be cut every cycle with exit 0.
 */
class TruncatedListingExitTest {
  @TempDir Path dir;

  @Test
  void aSnapshotListingLongerThanItsCapExitsOneAndInspectShowsListingTruncated()
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/catalog",
        ex -> {
          // Page n holds item n, and there is always more: a listing no cap of 3 pages covers.
          String page = ex.getRequestURI().getQuery().replaceAll(".*page=(\\d+).*", "$1");
          byte[] body =
              ("{\"data\":[{\"id\":" + page + "}],\"more\":true}").getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.start();
    try {
      String config =
          Files.writeString(
                  dir.resolve("watukuy.yaml"),
                  """
          store: sqlite:watukuy.db
          pollers:
            - name: catalog
              request: { url: "http://127.0.0.1:%d/catalog", query: { page: "{{page}}" } }
              response: { items: /data, hasMore: /more }
              identity: /id
              cursor: { strategy: snapshotDiff }
              maxPagesPerCycle: 3
          """
                      .formatted(server.getAddress().getPort()))
              .toString();

      CliRun run = CliRun.of("run", config, "--once");

      assertThat(run.exit()).as(run.stderr()).isEqualTo(1);
      assertThat(run.stdout().lines()).hasSize(3);
      assertThat(run.stderr()).contains("poller catalog", "ListingTruncated", "maxPagesPerCycle=3");
      assertThat(CliRun.of("inspect", config).stdout()).contains("maxPagesPerCycle=3");
    } finally {
      server.stop(0);
    }
  }
}
