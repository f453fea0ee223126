package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {
  private static String human(Duration d) {
    return Durations.human(d.toMillis());
  }

  @Test
  void eachRangeHasItsUnits() {
    assertThat(Durations.human(0)).isEqualTo("0ms");
    assertThat(Durations.human(850)).isEqualTo("850ms");
    assertThat(Durations.human(12_500)).isEqualTo("12.5s");
    assertThat(Durations.human(12_000)).isEqualTo("12s");
    assertThat(Durations.human(59_999)).isEqualTo("59.9s");
    assertThat(human(Duration.ofMinutes(3).plusSeconds(20))).isEqualTo("3m20s");
    assertThat(human(Duration.ofMinutes(3))).isEqualTo("3m");
    assertThat(human(Duration.ofHours(2).plusMinutes(5).plusSeconds(59))).isEqualTo("2h5m");
    assertThat(human(Duration.ofDays(1).plusHours(3))).isEqualTo("1d3h");
    assertThat(human(Duration.ofDays(1595).plusHours(7))).isEqualTo("1595d");
    assertThat(Durations.human(-1500)).isEqualTo("-1.5s");
  }
}
