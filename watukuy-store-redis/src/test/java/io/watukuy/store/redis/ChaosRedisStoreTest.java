package io.watukuy.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import io.watukuy.testing.ChaosReport;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * G9 on RedisStore (a key prefix per seed on the machine's Redis): the CI seeds, every kill point,
 * every strategy, within {@link Chaos#budget(java.time.Duration)} (4 minutes in CI). {@code
 * -Dwatukuy.chaos.seed=N} reruns one seed.
 */
class ChaosRedisStoreTest {
  private static LocalRedis redis;

  @BeforeAll
  static void connect() {
    redis = LocalRedis.open();
  }

  @AfterAll
  static void disconnect() {
    redis.close();
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
                      String prefix = LocalRedis.newPrefix("chaos-" + seed);
                      try {
                        ChaosReport report =
                            Chaos.run(ChaosOptions.seed(seed).withStore(() -> redis.store(prefix)));
                        System.out.println("chaos " + report);
                        report.assertGuarantees();
                        assertThat(report.totalKills()).isPositive();
                      } finally {
                        redis.deleteKeys(prefix);
                      }
                    }));
  }
}
