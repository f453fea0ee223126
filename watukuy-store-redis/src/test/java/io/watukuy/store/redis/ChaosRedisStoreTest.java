package io.watukuy.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import io.watukuy.testing.ChaosReport;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * G9 on RedisStore (a key prefix per seed on the machine's Redis): the CI seeds, every kill point,
 * every strategy, within {@link Chaos#budget(Duration)} (4 minutes in CI). {@code
 * -Dwatukuy.chaos.seed=N} reruns one seed.
 */
class ChaosRedisStoreTest {
  @RegisterExtension static final TestRedis redis = TestRedis.local();

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
                      String prefix = redis.newPrefix("chaos-" + seed);
                      ChaosReport report =
                          Chaos.run(ChaosOptions.seed(seed).withStore(() -> redis.store(prefix)));
                      System.out.println("chaos " + report);
                      report.assertGuarantees();
                      assertThat(report.totalKills()).isPositive();
                    }));
  }
}
