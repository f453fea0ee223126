package io.watukuy.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link SinkConfig#formatDuration} and {@link SinkConfig#parseDuration}, the one pair for all. */
class SinkConfigDurationsTest {
  private static String human(long ms) {
    return SinkConfig.formatDuration(Duration.ofMillis(ms));
  }

  private static String human(Duration d) {
    return SinkConfig.formatDuration(d);
  }

  @Test
  void eachRangeHasItsUnits() {
    assertThat(human(0)).isEqualTo("0ms");
    assertThat(human(850)).isEqualTo("850ms");
    assertThat(human(12_500)).isEqualTo("12.5s");
    assertThat(human(12_000)).isEqualTo("12s");
    assertThat(human(59_999)).isEqualTo("59.9s");
    assertThat(human(Duration.ofMinutes(3).plusSeconds(20))).isEqualTo("3m20s");
    assertThat(human(Duration.ofMinutes(3))).isEqualTo("3m");
    assertThat(human(Duration.ofHours(2).plusMinutes(5).plusSeconds(59))).isEqualTo("2h5m");
    assertThat(human(Duration.ofDays(1).plusHours(3))).isEqualTo("1d3h");
    assertThat(human(Duration.ofDays(1595).plusHours(7))).isEqualTo("1595d");
    assertThat(human(-1500)).isEqualTo("-1.5s");
  }

  @Test
  void aWholeValueReadsBackAsItWasWritten() {
    for (String text : new String[] {"500ms", "30s", "5m", "1h", "1d"}) {
      assertThat(human(SinkConfig.parseDuration(text))).isEqualTo(text);
    }
    assertThat(SinkConfig.parseDuration(" 90s ")).isEqualTo(Duration.ofSeconds(90));
    assertThatThrownBy(() -> SinkConfig.parseDuration("PT3S"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("'PT3S' is not a duration (ms, s, m, h, d)");
  }
}
