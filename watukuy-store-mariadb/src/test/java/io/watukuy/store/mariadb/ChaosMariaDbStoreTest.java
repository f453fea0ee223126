package io.watukuy.store.mariadb;

import io.watukuy.spi.StateStore;
import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * G9 on MariaDbStore (one set of tables in a database of this run, emptied before each seed): every
 * CI seed, every kill point, every strategy ({@link Chaos#everySeed}), with a handler per event,
 * and with a batch handler on the seeds of {@link Chaos#batchSeeds} (every seed with {@code
 * -Dwatukuy.chaos.deep=true}). {@code -Dwatukuy.chaos.seed=N} reruns one seed.
 */
class ChaosMariaDbStoreTest {
  @RegisterExtension
  static final MariaDbDatabase db = new MariaDbDatabase("wk_chaos", "watukuy-chaos", 4);

  private static final String PREFIX = "chaos_";

  /**
   * The store of one seed: the class's tables, emptied ({@link MariaDbDatabase#emptyTables}). The
   * first seed's {@code migrate()} creates them, every later one finds them current; an emptied
   * table holds no row of an earlier seed, as a fresh prefix would not, and the seeds run one after
   * another.
   */
  private static StateStore emptied() {
    db.emptyTables(PREFIX);
    return MariaDbStore.builder(db.pool()).tablePrefix(PREFIX).build();
  }

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKills() {
    return Chaos.everySeed(
        Chaos.storeSeeds(),
        seed -> ChaosOptions.seed(seed).withStore(ChaosMariaDbStoreTest::emptied));
  }

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKillsWithABatchHandler() {
    return Chaos.everySeed(
        Chaos.batchSeeds(),
        seed ->
            ChaosOptions.seed(seed).withStore(ChaosMariaDbStoreTest::emptied).withBatches(true));
  }
}
