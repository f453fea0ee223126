package io.watukuy.store.mariadb;

import com.zaxxer.hikari.HikariDataSource;
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
   * The database's name, random suffix included.
   *
   * @throws IllegalStateException before the class's tests start
   */
  String name() {
    if (name == null) throw new IllegalStateException("the database is created before all tests");
    return name;
  }
}
