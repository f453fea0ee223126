package io.watukuy.store.mariadb;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The local MariaDB every test of this module uses: 127.0.0.1:3306, database {@code test}, user
 * {@code root} with an empty password ({@code -Dwatukuy.mariadb.url=...} points elsewhere). Each
 * test class works in a database of its own with a random suffix and drops it, so concurrent runs
 * never collide.
 */
final class MariaDbTest {
  static final String URL =
      System.getProperty("watukuy.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test?user=root");

  private static final Pattern PARTS = Pattern.compile("^(jdbc:mariadb://[^/?]+/)([^?]*)(\\?.*)?$");

  private MariaDbTest() {}

  /** A name nobody else uses: {@code base} plus 8 random hex digits. */
  static String unique(String base) {
    byte[] b = new byte[4];
    ThreadLocalRandom.current().nextBytes(b);
    return base + "_" + HexFormat.of().formatHex(b);
  }

  /** {@link #URL} with another database. */
  static String url(String database) {
    Matcher m = PARTS.matcher(URL);
    if (!m.matches()) {
      throw new IllegalStateException("not a jdbc:mariadb://host/database URL: " + URL);
    }
    return m.group(1) + database + (m.group(3) == null ? "" : m.group(3));
  }

  /** Creates a database of the test's own; drop it with {@link #dropDatabase}. */
  static String createDatabase(String base) {
    String database = unique(base);
    execute("CREATE DATABASE `" + database + "`");
    return database;
  }

  static void dropDatabase(String database) {
    execute("DROP DATABASE IF EXISTS `" + database + "`");
  }

  /** A small HikariCP pool on {@code database}. */
  static HikariDataSource pool(String database, String name, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url(database));
    config.setPoolName(name);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(5_000);
    config.setValidationTimeout(1_000);
    return new HikariDataSource(config);
  }

  static Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(url(database));
  }

  static void execute(String sql) {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /**
   * A connection to {@link #URL}; fails at once, with the way out, when the server is not there.
   */
  static Connection connect() throws SQLException {
    try {
      return DriverManager.getConnection(URL);
    } catch (SQLException e) {
      throw new SQLException(
          "MariaDB is not reachable at "
              + URL
              + " ("
              + e.getMessage()
              + "); start it with scripts/services or point -Dwatukuy.mariadb.url elsewhere",
          e.getSQLState(),
          e);
    }
  }
}
