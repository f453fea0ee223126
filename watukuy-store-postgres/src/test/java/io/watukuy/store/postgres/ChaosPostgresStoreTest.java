package io.watukuy.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import io.watukuy.testing.ChaosReport;
import io.watukuy.testing.TestPostgres;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * G9 on PostgresStore (a table prefix per seed in a schema of this run): the CI seeds, every kill
 * point, every strategy, within {@link Chaos#budget(Duration)} (4 minutes in CI). {@code
 * -Dwatukuy.chaos.seed=N} reruns one seed.
 */
class ChaosPostgresStoreTest {
  @RegisterExtension static final TestPostgres postgres = TestPostgres.local();

  private static HikariDataSource pool;
  private static String schema;

  @BeforeAll
  static void openPool() {
    pool = PgTest.pool(postgres, PgTest.unique("watukuy-chaos"), 4);
    schema = postgres.newSchema("wk_chaos");
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
