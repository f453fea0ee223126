package io.watukuy.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import io.watukuy.testing.TestPostgres;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * G9 on PostgresStore (a table prefix per seed in a schema of this run): every CI seed, every kill
 * point, every strategy ({@link Chaos#everySeed}), with a handler per event, and with a batch
 * handler on the seeds of {@link Chaos#batchSeeds} (every seed with {@code
 * -Dwatukuy.chaos.deep=true}). {@code -Dwatukuy.chaos.seed=N} reruns one seed.
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
    return Chaos.everySeed(
        Chaos.storeSeeds(),
        seed ->
            ChaosOptions.seed(seed)
                .withStore(
                    () ->
                        PostgresStore.builder(pool)
                            .schema(schema)
                            .tablePrefix("seed" + seed + "_")
                            .build()));
  }

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKillsWithABatchHandler() {
    return Chaos.everySeed(
        Chaos.batchSeeds(),
        seed ->
            ChaosOptions.seed(seed)
                .withStore(
                    () ->
                        PostgresStore.builder(pool)
                            .schema(schema)
                            .tablePrefix("batch" + seed + "_")
                            .build())
                .withBatches(true));
  }
}
