package io.watukuy.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commit floor ({@link CommitFloor}) on SQLite: it reads the whole listing and leaves exactly
 * what the protocol leaves after a first sync whose events were all acknowledged. Never how fast.
 */
class CommitFloorTest {
  @TempDir Path dir;

  @Test
  void onSqliteEveryItemIsUpsertedAndEveryOutboxRowDeletedOnePagePerTransaction() throws Exception {
    Path file = dir.resolve("floor.db");
    CommitFloor.Result result;
    // 1 200 items in pages of 500: 500, 500 and 200.
    try (ListingServer server = new ListingServer(1_200);
        CommitFloor floor = CommitFloor.sqlite(file)) {
      result = floor.run("sqlite", server);
    }

    assertThat(result.items()).isEqualTo(1_200);
    assertThat(result.pages()).isEqualTo(3);
    assertThat(result.seconds()).isPositive();
    assertThat(result.sql()).hasSize(3);
    assertThat(result.sql().get(0))
        .startsWith("INSERT INTO floor_items (poller, \"partition\", identity,")
        .contains("(500 in all) ON CONFLICT (poller, \"partition\", identity) DO UPDATE SET");
    assertThat(result.sql().get(1))
        .startsWith("INSERT INTO floor_outbox (poller, \"partition\", seq, event_id,")
        .endsWith("(500 in all)");
    assertThat(result.sql().get(2))
        .isEqualTo(
            "DELETE FROM floor_outbox WHERE poller = 'items' AND \"partition\" = ''"
                + " AND seq IN (?, ... (500 in all))");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      // The warm-up pages were removed: each item once, as a first sync leaves it.
      assertThat(count(c, "SELECT COUNT(*) FROM floor_items")).isEqualTo(1_200);
      assertThat(count(c, "SELECT COUNT(DISTINCT identity) FROM floor_items")).isEqualTo(1_200);
      assertThat(count(c, "SELECT COUNT(*) FROM floor_outbox")).isZero();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
        rs.next();
        assertThat(rs.getString(1)).isEqualTo("wal");
      }
    }
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
