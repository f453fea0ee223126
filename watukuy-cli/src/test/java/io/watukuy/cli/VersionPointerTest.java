package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A {@code version} pointer that no item has is said once, not silently replaced by the hash. */
class VersionPointerTest {
  @TempDir Path dir;

  @Test
  void aVersionPointerNoItemHasIsAWarningNamingPollerAndPointer() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/items",
        ex -> {
          byte[] body =
              "[{\"id\":1,\"updatedAt\":\"2024-05-01T10:00:00Z\"}]"
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.start();
    PrintStream jvmErr = System.err;
    ByteArrayOutputStream logs = new ByteArrayOutputStream();
    try {
      Path config =
          Files.writeString(
              dir.resolve("watukuy.yaml"),
              """
          store: memory
          pollers:
            - name: items
              request: { url: "http://127.0.0.1:%d/items" }
              response: { items: "" }
              identity: /id
              version: /updated
              cursor: { strategy: snapshotDiff }
          """
                  .formatted(server.getAddress().getPort()));
      System.setErr(new PrintStream(logs, true, StandardCharsets.UTF_8));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int code =
          Main.run(
              new String[] {"run", config.toString(), "--once"},
              new PrintStream(out, true, StandardCharsets.UTF_8),
              System.err,
              Map.<String, String>of()::get);
      assertThat(code).isZero();
      assertThat(out.toString(StandardCharsets.UTF_8).lines()).hasSize(1);
    } finally {
      System.setErr(jvmErr);
      server.stop(0);
    }
    assertThat(logs.toString(StandardCharsets.UTF_8))
        .containsOnlyOnce(
            "poller items: version /updated is in none of the 1 items of this page; their events carry the content"
                + " hash as version (check the pointer)");
  }
}
