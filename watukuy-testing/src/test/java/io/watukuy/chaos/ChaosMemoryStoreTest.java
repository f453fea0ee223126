package io.watukuy.chaos;

import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * G9 on MemoryStore: every CI seed, every kill point, every strategy ({@link Chaos#everySeed}),
 * with a handler per event and with a batch handler. {@code -Dwatukuy.chaos.seed=N} reruns one
 * seed.
 */
class ChaosMemoryStoreTest {
  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKills() {
    return Chaos.everySeed(seed -> ChaosOptions.seed(seed).withStore(MemoryStore::new));
  }

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKillsWithABatchHandler() {
    return Chaos.everySeed(
        seed -> ChaosOptions.seed(seed).withStore(MemoryStore::new).withBatches(true));
  }
}
