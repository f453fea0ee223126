package io.watukuy.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The CI smoke pass ({@link JmhSuite.Settings#smoke()}, JMH's {@code -f 1 -wi 0 -i 1 -r 100ms}):
 * every JMH benchmark of the module runs once, briefly, in a forked JVM as in a real run, and has
 * its baseline beside it; JMH starts the fork with this JVM's class path, which surefire sets to
 * the test class path, so the fork finds the benchmarks and their generated harness. Benchmarks are
 * not tests: this checks that the bench still runs (its set-ups check that each page-diff mode
 * diffs what it claims), never how fast.
 */
class JmhSmokeTest {

  @Test
  void everyBenchmarkRunsBesideItsBaseline() throws Exception {
    List<JmhSuite.Pair> pairs = JmhSuite.run(JmhSuite.Settings.smoke());

    assertThat(pairs)
        .extracting(p -> p.benchmark() + " " + p.params())
        .containsExactlyInAnyOrder(
            "CanonicalHashBench.hashTree item=issue",
            "CanonicalHashBench.parseAndHash item=issue",
            "EventIdBench.eventId versionOrHash=version",
            "EventIdBench.eventId versionOrHash=hash",
            "PageDiffBench.tick mode=unchanged-by-version",
            "PageDiffBench.tick mode=unchanged-by-hash",
            "PageDiffBench.tick mode=changed-10pct");
    assertThat(pairs)
        .allSatisfy(
            p -> {
              assertThat(p.score()).isPositive();
              assertThat(p.baseline()).isPositive();
              assertThat(p.unit()).isEqualTo("ops/s");
            });
    assertThat(JmhSuite.table(pairs)).contains("ratio");
  }
}
