package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table sink with {@code sameDatabase: true} from YAML (docs/sinks.md, "Database tables"):
 * {@code validate} makes the sink without a store and {@code run} hands it the store, so the rows
 * land in a table of the store's own SQLite file, one per event, keyed by the delivery key.
 */
class SameDatabaseTableTest {
  @TempDir Path dir;
  private JsonServer vendor;

  @BeforeEach
  void start() throws Exception {
    vendor = new JsonServer().answer("[{\"id\":1},{\"id\":2}]");
  }

  @AfterEach
  void stop() {
    vendor.close();
  }

  @Test
  void aSameDatabaseTableSinkInYamlValidatesRunsAndWritesOneRowPerEvent() throws Exception {
    String url = "jdbc:sqlite:" + dir.resolve("state.db");
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE changes (delivery_key TEXT PRIMARY KEY, kind TEXT, item_id TEXT,"
              + " seq INTEGER)");
    }
    Path config =
        Files.writeString(
            dir.resolve("watukuy.yaml"),
            """
            store: sqlite:state.db
            pollers:
              - name: items
                request: { url: "%s" }
                response: { items: "" }
                identity: /id
                cursor: { strategy: snapshotDiff }
                sink:
                  type: table
                  sameDatabase: true
                  table: changes
                  columns: { delivery_key: deliveryKey, kind: type, item_id: identity, seq: sequence }
            """
                .formatted(vendor.url("/items")));

    CliRun validate = CliRun.of("validate", config.toString());
    CliRun run = CliRun.of("run", config.toString(), "--once");

    assertThat(validate.exit()).as(validate.stderr()).isZero();
    assertThat(run.exit()).as(run.stderr()).isZero();
    List<String> rows = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery("SELECT delivery_key, kind, item_id, seq FROM changes ORDER BY seq")) {
      while (r.next())
        rows.add(
            r.getString(1).replaceAll("^[0-9a-f]{64}-", "ID-")
                + " "
                + r.getString(2)
                + " "
                + r.getString(3)
                + " "
                + r.getLong(4));
    }
    assertThat(rows).containsExactly("ID-1 created 1 1", "ID-2 created 2 2");
  }
}
