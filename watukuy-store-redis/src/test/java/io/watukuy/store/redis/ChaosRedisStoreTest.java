package io.watukuy.store.redis;

import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * G9 on RedisStore (a key prefix per seed on the machine's Redis): every CI seed, every kill point,
 * every strategy ({@link Chaos#everySeed}), with a handler per event, and with a batch handler on
 * the seeds of {@link Chaos#batchSeeds} (every seed with {@code -Dwatukuy.chaos.deep=true}). {@code
 * -Dwatukuy.chaos.seed=N} reruns one seed.
 */
class ChaosRedisStoreTest {
  @RegisterExtension static final TestRedis redis = TestRedis.local();

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKills() {
    return Chaos.everySeed(
        Chaos.storeSeeds(),
        seed -> {
          String prefix = redis.newPrefix("chaos-" + seed);
          return ChaosOptions.seed(seed).withStore(() -> redis.store(prefix));
        });
  }

  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKillsWithABatchHandler() {
    return Chaos.everySeed(
        Chaos.batchSeeds(),
        seed -> {
          String prefix = redis.newPrefix("chaos-batch-" + seed);
          return ChaosOptions.seed(seed).withStore(() -> redis.store(prefix)).withBatches(true);
        });
  }
}
