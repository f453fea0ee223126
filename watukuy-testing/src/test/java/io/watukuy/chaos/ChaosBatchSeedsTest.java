package io.watukuy.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;

/**
 * The seeds of the batch-handler chaos variant (docs/guarantees.md, G9; docs/stores.md, "3. The
 * chaos harness (required)"): a fixed subset of the CI seeds by default, every CI seed on a deep
 * run, and the seeds asked for when a seed property is set.
 */
class ChaosBatchSeedsTest {
  private static final List<String> PROPERTIES =
      List.of("watukuy.chaos.seed", "watukuy.chaos.seeds", "watukuy.chaos.deep");

  @Test
  void byDefaultEveryThirdCiSeedRunsWithABatchHandler() {
    List<Long> seeds = with(Map.of(), () -> Chaos.batchSeeds().boxed().toList());

    assertThat(seeds).containsExactly(1L, 4L, 7L, 10L);
    assertThat(Arrays.stream(Chaos.CI_SEEDS).boxed().toList()).containsAll(seeds);
  }

  @Test
  void aPersistentStoreRunsTheFirstEightCiSeedsPerEventAndEveryOneInADeepRun() {
    List<Long> seeds = with(Map.of(), () -> Chaos.storeSeeds().boxed().toList());
    long[] deep = with(Map.of("watukuy.chaos.deep", "true"), () -> Chaos.storeSeeds().toArray());
    long[] nightly = with(Map.of("watukuy.chaos.seeds", "50"), () -> Chaos.storeSeeds().toArray());

    assertThat(seeds).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
    assertThat(Arrays.stream(Chaos.CI_SEEDS).boxed().toList()).containsAll(seeds);
    assertThat(deep).containsExactly(Chaos.CI_SEEDS);
    assertThat(nightly).hasSize(50).startsWith(1L).endsWith(50L);
  }

  @Test
  void aDeepRunChecksEveryCiSeedWithABatchHandler() {
    long[] seeds = with(Map.of("watukuy.chaos.deep", "true"), () -> Chaos.batchSeeds().toArray());

    assertThat(seeds).containsExactly(Chaos.CI_SEEDS);
  }

  @Test
  void oneSeedAskedForRunsWithABatchHandlerToo() {
    long[] seeds = with(Map.of("watukuy.chaos.seed", "5"), () -> Chaos.batchSeeds().toArray());

    assertThat(seeds).containsExactly(5L);
  }

  @Test
  void theNightlySeedRangeRunsWithABatchHandlerToo() {
    long[] seeds = with(Map.of("watukuy.chaos.seeds", "20"), () -> Chaos.batchSeeds().toArray());

    assertThat(seeds).hasSize(20).startsWith(1L).endsWith(20L);
  }

  @Test
  void theSuiteOverTheBatchSeedsHasOneTestPerSeedThenTheEverySeedRanTest() {
    List<String> names =
        with(
            Map.of(),
            () ->
                Chaos.everySeed(Chaos.batchSeeds(), seed -> ChaosOptions.seed(seed).withSteps(1))
                    .map(DynamicTest::getDisplayName)
                    .toList());

    assertThat(names).containsExactly("seed 1", "seed 4", "seed 7", "seed 10", "every seed ran");
  }

  /**
   * Runs {@code body} with exactly {@code properties} of the chaos ones set, then restores them.
   */
  private static <T> T with(Map<String, String> properties, Supplier<T> body) {
    Map<String, String> saved = new HashMap<>();
    for (String p : PROPERTIES) {
      String old = System.getProperty(p);
      if (old != null) saved.put(p, old);
      System.clearProperty(p);
    }
    properties.forEach(System::setProperty);
    try {
      return body.get();
    } finally {
      PROPERTIES.forEach(System::clearProperty);
      saved.forEach(System::setProperty);
    }
  }
}
