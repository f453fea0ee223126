package io.watukuy.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/**
 * {@link Chaos#everySeed} runs every seed and fails, instead of skipping, when one did not run
 * (docs/guarantees.md, G9). The seeds' own runs are one step long here: only the last test, {@code
 * every seed ran}, is checked.
 */
class EveryChaosSeedRunsTest {
  static List<DynamicTest> tests(LongFunction<ChaosOptions> options) {
    return Chaos.everySeed(options).toList();
  }

  /** Runs the tests in order, as JUnit does; returns what each one threw, or null. */
  static List<Throwable> execute(List<DynamicTest> tests) {
    List<Throwable> thrown = new ArrayList<>();
    for (DynamicTest t : tests) {
      try {
        t.getExecutable().execute();
        thrown.add(null);
      } catch (Throwable e) {
        thrown.add(e);
      }
    }
    return thrown;
  }

  @Test
  void oneTestPerSeedThenATestThatEverySeedRan() {
    List<String> names = new ArrayList<>();
    Chaos.seeds().forEach(seed -> names.add("seed " + seed));
    names.add("every seed ran");

    assertThat(tests(seed -> ChaosOptions.seed(seed).withSteps(1)))
        .extracting(DynamicTest::getDisplayName)
        .containsExactlyElementsOf(names);
  }

  @Test
  void theLastTestPassesWhenEverySeedRan() {
    List<Throwable> thrown = execute(tests(seed -> ChaosOptions.seed(seed).withSteps(1)));

    assertThat(thrown.get(thrown.size() - 1)).isNull();
  }

  @Test
  void aSeedWhoseRunWasAbortedFailsTheLastTestNamingIt() {
    long skipped = Chaos.seeds().findFirst().orElseThrow();
    List<Throwable> thrown =
        execute(
            tests(
                seed -> {
                  if (seed == skipped) throw new TestAbortedException("seed skipped");
                  return ChaosOptions.seed(seed).withSteps(1);
                }));

    assertThat(thrown.get(0)).isInstanceOf(TestAbortedException.class);
    assertThatThrownBy(
            () -> {
              throw thrown.get(thrown.size() - 1);
            })
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("seeds whose run did not finish")
        .hasMessageContaining("[" + skipped + "L]");
  }
}
