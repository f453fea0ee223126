package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code validate} says about a sink without any server (docs/sinks.md, "Configuration"):
 * every destination name checked for each poller that uses it, the Kafka bootstrap list, a JDBC URL
 * no driver takes; each a config error (exit 2) at its line, naming the poller, the key and the
 * value, and {@code run} refuses the same file the same way before it touches the store.
 */
class SinkDestinationChecksTest {
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

  /**
   * Pollers {@code orders} (line 3, or 4 under a one-line {@code top}; its extra lines from 8) and
   * {@code refunds-eu}.
   */
  private String config(String top, String ordersExtra) throws IOException {
    String yaml =
        top
            + """
            pollers:
              - name: orders
                request: { url: "%s" }
                response: { items: "" }
                identity: /id
                cursor: { strategy: snapshotDiff }
            %s
              - name: refunds-eu
                request: { url: "%s" }
                response: { items: "" }
                identity: /id
                cursor: { strategy: snapshotDiff }
            """
                .formatted(vendor.url("/o"), ordersExtra, vendor.url("/r"));
    return Files.writeString(dir.resolve("watukuy.yaml"), "store: sqlite:state.db\n" + yaml)
        .toString();
  }

  private static final String COLUMNS = "columns: { k: deliveryKey, body: data }";

  @Test
  void aTableNameWithSqlInItIsRefusedByValidateAndByRunAtItsLine() throws IOException {
    String config =
        config(
            "",
            "    sink: { type: table, url: \"jdbc:sqlite:t.db\", table: \"t1.x; drop table y\", "
                + COLUMNS
                + " }");

    for (String command : new String[] {"validate", "run"}) {
      CliRun run = CliRun.of(command, config, command.equals("run") ? "--once" : "--verbose");
      assertThat(run.exit()).as(run.stderr()).isEqualTo(Main.USAGE);
      assertThat(run.stderr().lines().findFirst().orElseThrow())
          .isEqualTo(
              "watukuy: "
                  + config
                  + ":8: poller orders: sink.table: 't1.x; drop table y' is invalid: 'x; drop"
                  + " table y' is not a valid table name (letters, digits and underscores, not"
                  + " starting with a digit, at most 63)");
    }
    assertThat(dir.resolve("state.db")).doesNotExist();
    assertThat(vendor.requests.get()).isZero();
  }

  @Test
  void aTableTemplateThatOnePollersNameMakesInvalidIsRefusedNamingThatPoller() throws IOException {
    String config =
        config(
            "sink: { type: table, url: \"jdbc:sqlite:t.db\", table: \"changes_{{source}}\", "
                + COLUMNS
                + " }\n",
            "");

    CliRun run = CliRun.of("validate", config);

    assertThat(run.exit()).isEqualTo(Main.USAGE);
    assertThat(run.stderr())
        .isEqualTo(
            "watukuy: "
                + config
                + ":2: sink.table: 'changes_{{source}}' renders 'changes_refunds-eu' for poller"
                + " refunds-eu, which is invalid: 'changes_refunds-eu' is not a valid table name"
                + " (letters, digits and underscores, not starting with a digit, at most 63)\n");
  }

  @Test
  void aKafkaBootstrapWithoutAHostIsRefusedNamingTheKeyAndTheValue() throws IOException {
    String config = config("", "    sink: { type: kafka, bootstrap: 9092, topic: orders }");

    CliRun run = CliRun.of("validate", config);

    assertThat(run.exit()).isEqualTo(Main.USAGE);
    assertThat(run.stderr())
        .isEqualTo(
            "watukuy: "
                + config
                + ":8: poller orders: sink.bootstrap: '9092' is not a host:port list: '9092'"
                + " needs a host and a port from 1 to 65535, e.g. 127.0.0.1:9092\n");
  }

  @Test
  void aTopicWithPartitionForAPollerWithoutPartitionsIsAConfigError() throws IOException {
    String config =
        config(
            "",
            "    sink: { type: kafka, bootstrap: \"127.0.0.1:9\", topic: \"o.{{partition}}\" }");

    CliRun run = CliRun.of("validate", config);

    assertThat(run.exit()).isEqualTo(Main.USAGE);
    assertThat(run.stderr())
        .isEqualTo(
            "watukuy: "
                + config
                + ":8: poller orders: sink.topic: 'o.{{partition}}' uses {{partition}}, but poller"
                + " orders has no partitions (it would render empty): remove it, or give that"
                + " poller a sink: of its own\n");
  }

  @Test
  void aPartitionedPollersTopicIsCheckedForEachPartition() throws IOException {
    String config =
        config(
            "",
            "    partitions: [eu, \"us:east\"]\n"
                + "    sink: { type: kafka, bootstrap: \"127.0.0.1:9\", topic: \"o.{{partition}}\" }");

    CliRun run = CliRun.of("validate", config);

    assertThat(run.exit()).isEqualTo(Main.USAGE);
    assertThat(run.stderr())
        .isEqualTo(
            "watukuy: "
                + config
                + ":9: poller orders: sink.topic: 'o.{{partition}}' renders 'o.us:east' for poller"
                + " orders partition us:east, which is invalid: topic name 'o.us:east' may only"
                + " hold letters, digits, '.', '_' and '-'\n");
  }

  @Test
  void aJdbcUrlNoDriverTakesIsAConfigErrorWithItsPasswordHidden() throws IOException {
    String config =
        config(
            "",
            "    sink: { type: table, url: \"jdbc:oracle:thin:@//db:1521/x?password=hunter22\","
                + " table: t, "
                + COLUMNS
                + " }");

    CliRun run = CliRun.of("run", config, "--once");

    assertThat(run.exit()).isEqualTo(Main.USAGE);
    assertThat(run.stderr())
        .isEqualTo(
            "watukuy: "
                + config
                + ":8: poller orders: sink.url: 'jdbc:oracle:thin:@//db:1521/x?password=***' has"
                + " no JDBC driver here (jdbc:postgresql:, jdbc:mariadb: and jdbc:sqlite: have"
                + " one)\n");
    assertThat(dir.resolve("state.db")).doesNotExist();
  }
}
