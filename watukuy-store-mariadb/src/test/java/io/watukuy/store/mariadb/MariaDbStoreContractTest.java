package io.watukuy.store.mariadb;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.StoreContractTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * MariaDbStore against the published store contract, on the local MariaDB: one database per run of
 * this class (dropped after), a fresh table prefix per test.
 */
class MariaDbStoreContractTest extends StoreContractTest {

  private static String database;
  private static HikariDataSource pool;
  private static int stores;

  @BeforeAll
  static void openPool() {
    database = MariaDbTest.createDatabase("wk_contract");
    pool = MariaDbTest.pool(database, "watukuy-contract", 4);
  }

  @AfterAll
  static void dropDatabase() {
    try {
      pool.close();
    } finally {
      MariaDbTest.dropDatabase(database);
    }
  }

  @Override
  protected StateStore newStore() {
    return MariaDbStore.builder(pool).tablePrefix("t" + ++stores + "_").build();
  }
}
