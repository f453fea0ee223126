package io.watukuy.store.mariadb;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import io.watukuy.testing.ChaosReport;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * G9 on MariaDbStore (a table prefix per seed in a database of this run): the CI seeds, every kill
 * point, every strategy, within {@link Chaos#budget(Duration)} (4 minutes in CI). {@code
 * -Dwatukuy.chaos.seed=N} reruns one seed.
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
    // Every CI seed: a network store needs more than the embedded stores' minute.
    long deadline = System.nanoTime() + Chaos.budget(Duration.ofMinutes(4)).toNanos();
    return Chaos.seeds()
        .boxed()
        .takeWhile(seed -> System.nanoTime() < deadline)
        .map(
            seed ->
                DynamicTest.dynamicTest(
                    "seed " + seed,
                    () -> {
                      ChaosReport report =
                          Chaos.run(
                              ChaosOptions.seed(seed)
                                  .withStore(
                                      () ->
                                          MariaDbStore.builder(pool)
                                              .tablePrefix("seed" + seed + "_")
                                              .build()));
                      System.out.println("chaos " + report);
                      report.assertGuarantees();
                      assertThat(report.totalKills()).isPositive();
                    }));
  }
}
