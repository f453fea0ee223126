package io.watukuy.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import io.watukuy.testing.ChaosReport;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * G9 on MemoryStore: the CI seeds, every kill point, every strategy, within {@link Chaos#budget()}.
 * {@code -Dwatukuy.chaos.seed=N} reruns one seed.
 */
class ChaosMemoryStoreTest {
  @TestFactory
  Stream<DynamicTest> everyGuaranteeHoldsUnderSeededKills() {
    long deadline = System.nanoTime() + Chaos.budget().toNanos();
    return Chaos.seeds()
        .boxed()
        .takeWhile(seed -> System.nanoTime() < deadline)
        .map(
            seed ->
                DynamicTest.dynamicTest(
                    "seed " + seed,
                    () -> {
                      ChaosReport report =
                          Chaos.run(ChaosOptions.seed(seed).withStore(MemoryStore::new));
                      System.out.println("chaos " + report);
                      report.assertGuarantees();
                      assertThat(report.totalKills()).isPositive();
                      assertThat(report.deliveries()).isGreaterThanOrEqualTo(report.commits());
                    }));
  }
}
