package io.watukuy.store.mariadb;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * G9 on MariaDbStore (a table prefix per seed in a database of this run): every CI seed, every kill
 * point, every strategy ({@link Chaos#everySeed}). {@code -Dwatukuy.chaos.seed=N} reruns one seed.
 */
class ChaosMariaDbStoreTest {
  private static String database;
  private static HikariDataSource pool;

  @BeforeAll
  static void openPool() {
    database = MariaDbTest.createDatabase("wk_chaos");
    pool = MariaDbTest.pool(database, "watukuy-chaos", 4);
  }

  @AfterAll
  static void dropDatabase() {
    try {
      pool.close();
    } finally {
      MariaDbTest.dropDatabase(database);
    }
  }

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKills() {
    return Chaos.everySeed(
        seed ->
            ChaosOptions.seed(seed)
                .withStore(
                    () -> MariaDbStore.builder(pool).tablePrefix("seed" + seed + "_").build()));
  }
}
