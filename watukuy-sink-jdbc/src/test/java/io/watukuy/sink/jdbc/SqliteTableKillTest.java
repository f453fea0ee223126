package io.watukuy.sink.jdbc;

import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TableKillCampaign} on SQLite: the store and the table in one file (WAL), the trigger in
 * SQLite's own syntax; exactly-once into the table with {@code sameDatabase} under 20 kills (issue
 * 18). The parent reads the file while the child writes it: WAL lets a reader in beside the writer.
 */
class SqliteTableKillTest extends TableKillCampaign {
  @Override
  protected String database() {
    return "sqlite";
  }

  @Override
  protected String url() {
    return "jdbc:sqlite:" + dir.resolve("store.db") + "?busy_timeout=5000";
  }

  @Override
  protected @Nullable String schema() {
    return null;
  }

  @Override
  protected void createTables() throws Exception {
    TableSinkScenarios.execute(
        url(),
        "CREATE TABLE kill_rows (delivery_key TEXT PRIMARY KEY, event_id TEXT NOT NULL,"
            + " item_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL)");
    TableSinkScenarios.execute(
        url(),
        "CREATE TABLE kill_writes (n INTEGER PRIMARY KEY AUTOINCREMENT, delivery_key TEXT,"
            + " item_id TEXT, seq INTEGER)");
    TableSinkScenarios.execute(
        url(),
        "CREATE TRIGGER kill_audit BEFORE INSERT ON kill_rows BEGIN INSERT INTO kill_writes"
            + " (delivery_key, item_id, seq) VALUES (NEW.delivery_key, NEW.item_id, NEW.seq); END");
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void sigkilledWithSameDatabaseTheSqliteTableHasEveryCommittedEventOnceInOrderPerItem()
      throws Exception {
    campaign(true, KILLS);
  }
}
