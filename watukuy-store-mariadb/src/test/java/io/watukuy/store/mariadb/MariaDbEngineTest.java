package io.watukuy.store.mariadb;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreEngineTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The engine scenarios on MariaDbStore (the same ids as on MemoryStore, a restart from the stored
 * cursor, two instances on one store): one database for the class, fresh tables (a table prefix)
 * per test, every client a store on the class's pool, as instances sharing one server would be.
 */
class MariaDbEngineTest extends StoreEngineTest {
  private static String database;
  private static HikariDataSource pool;
  private static int prefixes;
  private String prefix;

  @BeforeAll
  static void openPool() {
    database = MariaDbTest.createDatabase("wk_engine");
    pool = MariaDbTest.pool(database, MariaDbTest.unique("watukuy-engine"), 4);
  }

  @BeforeEach
  void freshTables() {
    prefix = "e" + ++prefixes + "_";
  }

  @Override
  protected StateStore openStore() {
    return MariaDbStore.builder(pool).tablePrefix(prefix).build();
  }

  @AfterAll
  static void dropDatabase() {
    pool.close();
    MariaDbTest.dropDatabase(database);
  }
}
