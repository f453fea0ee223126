package io.watukuy.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import io.watukuy.testing.ChaosReport;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * G9 on PostgresStore (a table prefix per seed in a schema of this run): the CI seeds, every kill
 * point, every strategy, within {@link Chaos#budget(java.time.Duration)} (4 minutes in CI). {@code
 * -Dwatukuy.chaos.seed=N} reruns one seed.
 */
class ChaosPostgresStoreTest {
  private static HikariDataSource pool;
  private static String schema;

  @BeforeAll
  static void openPool() {
    pool = PgTest.pool(PgTest.unique("watukuy-chaos"), 4);
    schema = PgTest.unique("wk_chaos");
  }

  @AfterAll
  static void dropSchema() {
    try {
      PgTest.dropSchema(pool, schema);
    } finally {
      pool.close();
    }
  }

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKills() {
    // Every CI seed: a network store needs more than the embedded stores' minute.
    long deadline = System.nanoTime() + Chaos.budget(java.time.Duration.ofMinutes(4)).toNanos();
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
                                          PostgresStore.builder(pool)
                                              .schema(schema)
                                              .tablePrefix("seed" + seed + "_")
                                              .build()));
                      System.out.println("chaos " + report);
                      report.assertGuarantees();
                      assertThat(report.totalKills()).isPositive();
                    }));
  }
}
