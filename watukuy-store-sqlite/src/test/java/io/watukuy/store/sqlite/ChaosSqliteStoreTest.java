package io.watukuy.store.sqlite;

import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * G9 on SqliteStore (a file per seed): every CI seed, every kill point, every strategy ({@link
 * Chaos#everySeed}), with a handler per event, and with a batch handler on the seeds of {@link
 * Chaos#batchSeeds} (every seed with {@code -Dwatukuy.chaos.deep=true}). {@code
 * -Dwatukuy.chaos.seed=N} reruns one seed.
 */
class ChaosSqliteStoreTest {
  @TempDir Path dir;

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKills() {
    return Chaos.everySeed(
        Chaos.storeSeeds(),
        seed ->
            ChaosOptions.seed(seed)
                .withStore(() -> SqliteStore.open(dir.resolve("chaos-" + seed + ".db"))));
  }

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKillsWithABatchHandler() {
    return Chaos.everySeed(
        Chaos.batchSeeds(),
        seed ->
            ChaosOptions.seed(seed)
                .withStore(() -> SqliteStore.open(dir.resolve("chaos-batch-" + seed + ".db")))
                .withBatches(true));
  }
}
