package io.watukuy.cli;

import io.watukuy.sink.SinkConfig;
import java.time.Duration;

/** Durations as a person reads them in a table or a status line: {@code 850ms}, {@code 3m20s}. */
final class Durations {
  private Durations() {}

  /**
   * {@code ms} as {@link SinkConfig#formatDuration} writes it: {@code 850ms}, {@code 12.5s}, {@code
   * 3m20s}, {@code 2h5m}, {@code 1d3h}, {@code 1595d}; cut, never rounded up.
   *
   * @param ms milliseconds; a negative value gets a leading {@code -}
   */
  static String human(long ms) {
    return SinkConfig.formatDuration(Duration.ofMillis(ms));
  }
}
