package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.PollerKey;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A long cycle prints one progress line per interval of its own time (docs/operations.md,
 * "Progress"); driven with the times a cycle reports, so nothing sleeps.
 */
class ProgressLinesTest {
  final ByteArrayOutputStream err = new ByteArrayOutputStream();
  final ProgressLines progress =
      new ProgressLines(new PrintStream(err, true, StandardCharsets.UTF_8), Duration.ofSeconds(10));
  final PollerKey orders = PollerKey.of("orders");

  @Test
  void oneLinePerTenSecondsOfACycleAndNoneForAShortOne() {
    for (int page = 1; page <= 6; page++)
      progress.page(orders, page, page * 500, page * 500, Duration.ofSeconds(4L * page));

    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "watukuy: poller orders: 3 pages, 1500 items, 1500 events in 12s (125 items/s)\n"
                + "watukuy: poller orders: 6 pages, 3000 items, 3000 events in 24s (125 items/s)\n");
  }

  @Test
  void aNewCycleCountsFromItsOwnStartAndPartitionsAreNamed() {
    PollerKey eu = PollerKey.of("orders", "eu");
    progress.page(eu, 3, 300, 0, Duration.ofSeconds(12));
    progress.cycleEnded(eu);
    progress.page(eu, 1, 100, 0, Duration.ofSeconds(4));
    progress.page(eu, 3, 300, 0, Duration.ofSeconds(11));

    assertThat(err.toString(StandardCharsets.UTF_8).lines())
        .containsExactly(
            "watukuy: poller orders partition eu: 3 pages, 300 items, 0 events in 12s (25 items/s)",
            "watukuy: poller orders partition eu: 3 pages, 300 items, 0 events in 11s (27 items/s)");
  }
}
