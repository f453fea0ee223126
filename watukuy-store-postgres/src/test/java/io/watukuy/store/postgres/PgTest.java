package io.watukuy.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * HikariCP pools on the local PostgreSQL of {@link TestPostgres}, for this module's tests (HikariCP
 * is this module's test dependency, so pools are made here, not in {@code watukuy-testing}). A pool
 * is closed by the {@link TestPostgres} extension after the test that opened it, or after the
 * class.
 */
final class PgTest {
  private PgTest() {}

  /**
   * A small pool whose connections carry {@code applicationName}, so a test can find (and
   * terminate) exactly its own backends in {@code pg_stat_activity}.
   */
  static HikariDataSource pool(TestPostgres server, String applicationName, int size) {
    return pool(server, applicationName, size, server.url());
  }

  /**
   * As {@link #pool(TestPostgres, String, int)}, on another URL of the same server. Commits do not
   * wait for the WAL flush ({@code synchronous_commit = off}): the tests never crash the server, so
   * that durability is not under test, and every transaction's atomicity and visibility are
   * unchanged.
   */
  static HikariDataSource pool(TestPostgres server, String applicationName, int size, String url) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setPoolName(applicationName);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(5_000);
    config.setValidationTimeout(1_000);
    config.addDataSourceProperty("ApplicationName", applicationName);
    config.setConnectionInitSql("SET synchronous_commit = off");
    return server.closeAfter(new HikariDataSource(config));
  }

  /**
   * A name nobody else uses for what is not a schema (an application name, a role): {@code base}
   * plus 8 random hex digits. Schemas come from {@link TestPostgres#newSchema(String)}.
   */
  static String unique(String base) {
    byte[] b = new byte[4];
    ThreadLocalRandom.current().nextBytes(b);
    return base + "_" + HexFormat.of().formatHex(b);
  }

  static void execute(DataSource ds, String sql) {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /**
   * Empties every table of {@code schema} whose name starts with {@code prefix}, except its meta
   * table (which keeps the schema version, so the next {@code migrate()} finds the tables current
   * and creates nothing), with one {@code DELETE} each in one batch (a {@code TRUNCATE} of small
   * tables costs more). A contract suite migrates one set of tables per class and empties it before
   * each test: creating the tables anew costs more than most tests, and an emptied table holds no
   * row of an earlier test, as a fresh one would not. Nothing happens before the first test's
   * {@code migrate()} created them.
   *
   * @throws IllegalStateException if a statement fails
   */
  static void emptyTables(DataSource ds, String schema, String prefix) {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet rs =
          c.getMetaData().getTables(null, schema, prefix.replace("_", "\\_") + "%", null)) {
        while (rs.next()) {
          String table = rs.getString("TABLE_NAME");
          if ("TABLE".equals(rs.getString("TABLE_TYPE")) && !table.equals(prefix + "meta"))
            tables.add("\"" + schema + "\".\"" + table + "\"");
        }
      }
      for (String table : tables) s.addBatch("DELETE FROM " + table);
      s.executeBatch();
    } catch (SQLException e) {
      throw new IllegalStateException(
          "emptying the tables of prefix " + prefix + " in " + schema + ": " + e, e);
    }
  }

  static void dropSchema(DataSource ds, String schema) {
    execute(ds, "DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
  }
}
