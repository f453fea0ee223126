package io.watukuy.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.testing.Chaos;
import io.watukuy.testing.ChaosOptions;
import io.watukuy.testing.ChaosReport;
import io.watukuy.testing.KillPoint;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * G3, G5 under the chaos harness's paused process ({@link KillPoint#PAUSED}) alone, on every CI
 * seed: the process freezes past its lease TTL between loading events and handing them over, the
 * twin takes the key and delivers newer events, the process resumes. No event may come after a
 * later one of its ordering key was acknowledged, and nothing is lost. Pauses are mixed with the
 * other kill points in every store's chaos test too; this one makes sure they happen often.
 */
class ChaosPausedProcessTest {
  @Test
  void aProcessFrozenPastItsTtlDeliversNothingStaleOnAnySeed() {
    int pauses = 0;
    for (long seed : Chaos.CI_SEEDS) {
      ChaosReport report =
          Chaos.run(ChaosOptions.seed(seed).withKillPoints(Set.of(KillPoint.PAUSED)));
      report.assertGuarantees();
      assertThat(report.deliveries()).as("deliveries of seed %d", seed).isPositive();
      pauses += report.kills().getOrDefault(KillPoint.PAUSED, 0);
    }
    // About one step in two arms a pause; most of them find events to load or commit.
    assertThat(pauses).as("pauses over %d seeds", Chaos.CI_SEEDS.length).isGreaterThan(100);
  }

  @Test
  void pausesMixWithTheOtherKillPoints() {
    ChaosReport report =
        Chaos.run(ChaosOptions.seed(1).withKillPoints(EnumSet.allOf(KillPoint.class)));
    report.assertGuarantees();
    assertThat(report.kills()).containsKey(KillPoint.PAUSED);
  }
}
