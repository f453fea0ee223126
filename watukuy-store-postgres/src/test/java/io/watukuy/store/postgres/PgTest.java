package io.watukuy.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The local PostgreSQL every test of this module uses: 127.0.0.1:5432, database {@code test}, user
 * {@code postgres}, trust authentication ({@code -Dwatukuy.postgres.url=...} points elsewhere).
 * Each test class works in schemas of its own with a random suffix and drops them, so concurrent
 * runs never collide.
 */
final class PgTest {
  static final String URL =
      System.getProperty(
          "watukuy.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

  private PgTest() {}

  /**
   * A small HikariCP pool whose connections carry {@code applicationName}, so a test can find (and
   * terminate) exactly its own backends in {@code pg_stat_activity}.
   */
  static HikariDataSource pool(String applicationName, int size) {
    return pool(applicationName, size, URL);
  }

  /**
   * As {@link #pool(String, int)}, on another URL of the same server. Commits do not wait for the
   * WAL flush ({@code synchronous_commit = off}): the tests never crash the server, so that
   * durability is not under test, and every transaction's atomicity and visibility are unchanged.
   */
  static HikariDataSource pool(String applicationName, int size, String url) {
    requireServer();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setPoolName(applicationName);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(5_000);
    config.setValidationTimeout(1_000);
    config.addDataSourceProperty("ApplicationName", applicationName);
    config.setConnectionInitSql("SET synchronous_commit = off");
    return new HikariDataSource(config);
  }

  /** A name nobody else uses: {@code base} plus 8 random hex digits. */
  static String unique(String base) {
    byte[] b = new byte[4];
    ThreadLocalRandom.current().nextBytes(b);
    return base + "_" + HexFormat.of().formatHex(b);
  }

  static Connection connect() throws SQLException {
    return DriverManager.getConnection(URL);
  }

  static void execute(DataSource ds, String sql) {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  static void dropSchema(DataSource ds, String schema) {
    execute(ds, "DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
  }

  /** Fails at once, with the way out, when the server is not there. */
  static void requireServer() {
    try (Connection c = connect()) {
      c.isValid(2);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "PostgreSQL is not reachable at "
              + URL
              + " ("
              + e.getMessage()
              + "); start it (pg_ctlcluster --skip-systemctl-redirect <version> main start)"
              + " or point -Dwatukuy.postgres.url elsewhere",
          e);
    }
  }
}
