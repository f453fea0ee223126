package io.watukuy.sink.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.store.jdbc.JdbcStore;
import io.watukuy.store.mariadb.MariaDbStore;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The table sink on the local MariaDB: one database per run of this class, dropped after. */
class MariaDbTableSinkTest extends TableSinkScenarios {
  private static final String SERVER =
      System.getProperty("watukuy.mariadb.server", "jdbc:mariadb://127.0.0.1:3306/");
  private static final String DATABASE =
      "wk_sink_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  static final String URL = SERVER + DATABASE + "?user=root";

  private static HikariDataSource pool;
  private static int tables;
  private static int stores;

  @BeforeAll
  static void createDatabase() throws SQLException {
    execute(SERVER + "test?user=root", "CREATE DATABASE " + DATABASE);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(URL);
    config.setMaximumPoolSize(6);
    config.setMinimumIdle(0);
    config.setPoolName("watukuy-table-sink-store");
    pool = new HikariDataSource(config);
  }

  @AfterAll
  static void dropDatabase() throws SQLException {
    pool.close();
    execute(SERVER + "test?user=root", "DROP DATABASE " + DATABASE);
  }

  @Override
  protected JdbcStore newStore() {
    return MariaDbStore.builder(pool).tablePrefix("s" + ++stores + "_").build();
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
    return base + "_" + ++tables;
  }

  @Override
  protected String jsonType() {
    return "JSON";
  }
}
