package io.watukuy.store.mariadb;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's own database on the local MariaDB ({@link MariaDbTest}) and a HikariCP pool on it:
 * created before the class's first test; after its last, the pool is closed and the database
 * dropped, whether the tests passed or not. Register it on a static field:
 *
 * <pre>{@code
 * @RegisterExtension static final MariaDbDatabase db = new MariaDbDatabase("wk_large", "watukuy-large", 2);
 * ...
 * MariaDbStore.builder(db.pool()).tablePrefix("t1_").build();
 * }</pre>
 */
final class MariaDbDatabase implements BeforeAllCallback, AfterAllCallback {
  private final String base;
  private final String poolName;
  private final int poolSize;
  private String name;
  private HikariDataSource pool;

  /**
   * @param base the database name before its random suffix ({@link MariaDbTest#unique})
   * @param poolName the pool's name in HikariCP's threads and logs
   * @param poolSize the pool's largest number of connections
   */
  MariaDbDatabase(String base, String poolName, int poolSize) {
    this.base = base;
    this.poolName = poolName;
    this.poolSize = poolSize;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    name = MariaDbTest.createDatabase(base);
    pool = MariaDbTest.pool(name, poolName, poolSize);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    try {
      if (pool != null) pool.close();
    } finally {
      if (name != null) MariaDbTest.dropDatabase(name);
    }
  }

  /**
   * The pool on this class's database.
   *
   * @throws IllegalStateException before the class's tests start
   */
  HikariDataSource pool() {
    if (pool == null) throw new IllegalStateException("the database is created before all tests");
    return pool;
  }

  /**
   * Empties every table whose name starts with {@code prefix}, except its meta table (which keeps
   * the schema version, so the next {@code migrate()} finds the tables current and creates
   * nothing). A contract suite migrates one set of tables per class and empties it before each
   * test: eight {@code CREATE TABLE}s per test cost more than the test itself, and an emptied table
   * holds no row of an earlier test, as a fresh one would not.
   *
   * @param prefix a table prefix, such as {@code t_}
   * @throws IllegalStateException before the class's tests start, or if a statement fails
   */
  void emptyTables(String prefix) {
    try (Connection c = pool().getConnection();
        Statement s = c.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet rs =
          s.executeQuery(
              "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()")) {
        while (rs.next()) {
          String table = rs.getString(1);
          if (table.startsWith(prefix) && !table.equals(prefix + "meta")) tables.add(table);
        }
      }
      for (String table : tables) s.execute("DELETE FROM `" + table + "`");
    } catch (SQLException e) {
      throw new IllegalStateException("emptying the tables of prefix " + prefix + ": " + e, e);
    }
  }

  /**
   * The database's name, random suffix included.
   *
   * @throws IllegalStateException before the class's tests start
   */
  String name() {
    if (name == null) throw new IllegalStateException("the database is created before all tests");
    return name;
  }
}
