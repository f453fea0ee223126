package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table sink whose database refuses the password, against the local MariaDB (docs/sinks.md,
 * "Database tables"): {@code run} exits 2 before anything is fetched, naming the sink, with the
 * server's own sentence whole ({@code (using password: YES)}) and the password nowhere.
 */
class SinkCredentialsRefusedTest {
  private static final String SERVER =
      System.getProperty("watukuy.mariadb.server", "jdbc:mariadb://127.0.0.1:3306/");

  @TempDir Path dir;
  private JsonServer vendor;

  @BeforeEach
  void start() throws IOException {
    vendor = new JsonServer().answer("[{\"id\":1}]");
  }

  @AfterEach
  void stop() {
    vendor.close();
  }

  @Test
  void refusedCredentialsAtStartExitTwoWithTheServersSentenceAndNoPassword() throws IOException {
    String config =
        Files.writeString(
                dir.resolve("watukuy.yaml"),
                """
                store: sqlite:state.db
                sink:
                  type: table
                  url: "%stest"
                  user: root
                  password: "${DB_PASSWORD}"
                  table: orders
                  columns: { k: deliveryKey, body: data }
                pollers:
                  - name: orders
                    request: { url: "%s" }
                    response: { items: "" }
                    identity: /id
                    cursor: { strategy: snapshotDiff }
                """
                    .formatted(SERVER, vendor.url("/orders")))
            .toString();

    CliRun run = CliRun.withEnv(Map.of("DB_PASSWORD", "n0t-the-passw0rd"), "run", config, "--once");

    assertThat(run.exit()).as(run.stderr()).isEqualTo(Main.USAGE);
    assertThat(CliRun.withoutNewStore(run.stderr()))
        .startsWith(
            "watukuy: sink table orders at 127.0.0.1:3306/test: the database refused the"
                + " credentials (user, password): ")
        .contains("Access denied for user 'root'@")
        .endsWith("(using password: YES)\n")
        .doesNotContain("n0t-the-passw0rd")
        .doesNotContain("cannot start")
        .doesNotContain("outage")
        .doesNotContain("pending");
    assertThat(vendor.requests.get()).isZero();
  }
}
