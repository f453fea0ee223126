package io.watukuy.sink.jdbc;

import io.watukuy.store.jdbc.JdbcStore;
import io.watukuy.store.sqlite.SqliteStore;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table sink on SQLite: the store in one file, the tables of the sink's own connections in
 * another (one writer per file at a time), and the sameDatabase tables in the store's file.
 */
class SqliteTableSinkTest extends TableSinkScenarios {
  @TempDir Path dir;
  private int tables;

  @Override
  protected JdbcStore newStore() {
    return SqliteStore.open(dir.resolve("store.db"));
  }

  @Override
  protected String storeUrl() {
    return "jdbc:sqlite:" + dir.resolve("store.db");
  }

  @Override
  protected String sinkUrl() {
    return "jdbc:sqlite:" + dir.resolve("sink.db");
  }

  @Override
  protected String table(String base) {
    return base + "_" + ++tables;
  }

  @Override
  protected String jsonType() {
    return "TEXT";
  }
}
