package io.watukuy.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import io.watukuy.testing.ChaosReport;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * G9 on SqliteStore (a file per seed): the CI seeds, every kill point, every strategy, within
 * {@link Chaos#budget()}. {@code -Dwatukuy.chaos.seed=N} reruns one seed.
 */
class ChaosSqliteStoreTest {
  @TempDir Path dir;

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
                      Path file = dir.resolve("chaos-" + seed + ".db");
                      ChaosReport report =
                          Chaos.run(
                              ChaosOptions.seed(seed).withStore(() -> SqliteStore.open(file)));
                      System.out.println("chaos " + report);
                      report.assertGuarantees();
                      assertThat(report.totalKills()).isPositive();
                    }));
  }
}
