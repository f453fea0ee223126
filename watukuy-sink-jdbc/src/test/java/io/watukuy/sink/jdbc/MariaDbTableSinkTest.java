package io.watukuy.sink.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.ConfigException;
import io.watukuy.store.jdbc.JdbcStore;
import io.watukuy.store.mariadb.MariaDbStore;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The table sink on the local MariaDB: one database per run of this class, dropped after. Also what
 * is MariaDB's own: {@code ON DUPLICATE KEY} fires on any unique key, so {@code open()} refuses a
 * table with another unique key that could repeat (docs/sinks.md, "Database tables").
 */
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

  private static final String HISTORY_COLUMNS =
      "delivery_key VARCHAR(200) NOT NULL, event_id VARCHAR(200), kind VARCHAR(20),"
          + " item_id VARCHAR(200), seq BIGINT, body JSON, envelope JSON";

  /** A sink on a new table with the history columns, {@code before} them and {@code keys} after. */
  private static TableSink eventLog(String before, String keys) throws SQLException {
    String t = "event_log_" + ++tables;
    execute(URL, "CREATE TABLE " + t + " (" + before + HISTORY_COLUMNS + ", " + keys + ")");
    return new TableSink(history(t, URL, false));
  }

  @Test
  void anotherUniqueKeyThanTheDeliveryKeyIsRefusedAtOpenNamingTheSinkTableAndIndex()
      throws Exception {
    try (TableSink sink =
        eventLog("", "PRIMARY KEY (delivery_key), UNIQUE KEY uq_item (item_id)")) {
      assertThatThrownBy(sink::open)
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith(sink.name() + ": table event_log_")
          .hasMessageContaining(
              "unique index uq_item (item_id) besides its key column delivery_key")
          .hasMessageContaining("ON DUPLICATE KEY");
    }
  }

  @Test
  void aUniquePrimaryKeyOnAnotherColumnIsRefusedToo() throws Exception {
    try (TableSink sink =
        eventLog("", "PRIMARY KEY (event_id, kind), UNIQUE KEY uq_delivery (delivery_key)")) {
      assertThatThrownBy(sink::open)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("unique primary key (event_id, kind) besides its key column");
    }
  }

  @Test
  void anAutoIncrementKeyTheSinkDoesNotWriteAndKeysWithTheDeliveryKeyAreAccepted()
      throws Exception {
    try (TableSink sink =
        eventLog(
            "id BIGINT AUTO_INCREMENT PRIMARY KEY, ",
            "UNIQUE KEY uq_delivery (delivery_key), UNIQUE KEY uq_pair (delivery_key, kind)")) {
      sink.open();
      assertThat(sink.health().healthy()).isTrue();
    }
  }
}
