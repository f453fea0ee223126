package io.watukuy.store.mariadb;

import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * G9 on MariaDbStore (a table prefix per seed in a database of this run): every CI seed, every kill
 * point, every strategy ({@link Chaos#everySeed}), with a handler per event, and with a batch
 * handler on the seeds of {@link Chaos#batchSeeds} (every seed with {@code
 * -Dwatukuy.chaos.deep=true}). {@code -Dwatukuy.chaos.seed=N} reruns one seed.
 */
class ChaosMariaDbStoreTest {
  @RegisterExtension
  static final MariaDbDatabase db = new MariaDbDatabase("wk_chaos", "watukuy-chaos", 4);

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKills() {
    return Chaos.everySeed(
        Chaos.storeSeeds(),
        seed ->
            ChaosOptions.seed(seed)
                .withStore(
                    () ->
                        MariaDbStore.builder(db.pool()).tablePrefix("seed" + seed + "_").build()));
  }

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKillsWithABatchHandler() {
    return Chaos.everySeed(
        Chaos.batchSeeds(),
        seed ->
            ChaosOptions.seed(seed)
                .withStore(
                    () -> MariaDbStore.builder(db.pool()).tablePrefix("batch" + seed + "_").build())
                .withBatches(true));
  }
}
