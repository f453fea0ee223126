package io.watukuy.sink.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.store.jdbc.JdbcStore;
import io.watukuy.store.postgres.PostgresStore;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The table sink on the local PostgreSQL: one schema per run of this class, dropped after. */
class PostgresTableSinkTest extends TableSinkScenarios {
  static final String URL =
      System.getProperty(
          "watukuy.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

  private static final String SCHEMA =
      "wk_sink_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  private static HikariDataSource pool;
  private static int tables;
  private static int stores;

  @BeforeAll
  static void createSchema() throws SQLException {
    execute(URL, "CREATE SCHEMA " + SCHEMA);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(URL);
    config.setMaximumPoolSize(6);
    config.setMinimumIdle(0);
    config.setPoolName("watukuy-table-sink-store");
    pool = new HikariDataSource(config);
  }

  @AfterAll
  static void dropSchema() throws SQLException {
    pool.close();
    execute(URL, "DROP SCHEMA " + SCHEMA + " CASCADE");
  }

  @Override
  protected JdbcStore newStore() {
    return PostgresStore.builder(pool).schema(SCHEMA).tablePrefix("s" + ++stores + "_").build();
  }

  @Override
  protected String storeUrl() {
    return URL;
  }

  @Override
  protected String sinkUrl() {
    return URL;
  }

  @Override
  protected String table(String base) {
    return SCHEMA + "." + base + "_" + ++tables;
  }

  @Override
  protected String jsonType() {
    return "jsonb";
  }
}
