package io.watukuy.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import io.watukuy.testing.TestPostgres;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * G9 on PostgresStore (one set of tables in a schema of this run, emptied before each seed): every
 * CI seed, every kill point, every strategy ({@link Chaos#everySeed}), with a handler per event,
 * and with a batch handler on the seeds of {@link Chaos#batchSeeds} (every seed with {@code
 * -Dwatukuy.chaos.deep=true}). {@code -Dwatukuy.chaos.seed=N} reruns one seed.
 */
class ChaosPostgresStoreTest {
  @RegisterExtension static final TestPostgres postgres = TestPostgres.local();

  private static final String PREFIX = "chaos_";

  private static HikariDataSource pool;
  private static String schema;

  @BeforeAll
  static void openPool() {
    pool = PgTest.pool(postgres, PgTest.unique("watukuy-chaos"), 4);
    schema = postgres.newSchema("wk_chaos");
  }

  /**
   * The store of one seed: the class's tables, emptied ({@link PgTest#emptyTables}). The first
   * seed's {@code migrate()} creates them, every later one finds them current; an emptied table
   * holds no row of an earlier seed, as a fresh prefix would not, and the seeds run one after
   * another.
   */
  private static StateStore emptied() {
    PgTest.emptyTables(pool, schema, PREFIX);
    return PostgresStore.builder(pool).schema(schema).tablePrefix(PREFIX).build();
  }

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKills() {
    return Chaos.everySeed(
        Chaos.storeSeeds(),
        seed -> ChaosOptions.seed(seed).withStore(ChaosPostgresStoreTest::emptied));
  }

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKillsWithABatchHandler() {
    return Chaos.everySeed(
        Chaos.batchSeeds(),
        seed ->
            ChaosOptions.seed(seed).withStore(ChaosPostgresStoreTest::emptied).withBatches(true));
  }
}
