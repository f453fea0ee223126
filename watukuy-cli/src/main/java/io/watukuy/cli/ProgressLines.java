package io.watukuy.cli;

import io.watukuy.PollerKey;
import io.watukuy.sink.SinkConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One progress line on stderr while a cycle runs long, so that a first sync of a large listing does
 * not look hung (docs/operations.md, "Progress"): {@code watukuy: poller orders: 40 pages, 20000
 * items, 20000 events in 20s (1000 items/s)}, at most one per key per {@code every} of the cycle's
 * own time. A cycle shorter than {@code every} prints nothing. {@code run --quiet} turns it off.
 * The interval is a parameter so that a test drives it with the times it passes, without sleeping.
 */
final class ProgressLines {
  private final PrintStream err;
  private final Duration every;

  /** Per key, the cycle time of the last line printed. */
  private final Map<PollerKey, Duration> printed = new ConcurrentHashMap<>();

  ProgressLines(PrintStream err, Duration every) {
    this.err = err;
    this.every = every;
  }

  /** After a committed page; see {@link io.watukuy.WatukuyListener#onPage}. */
  void page(PollerKey key, int pages, int items, int events, Duration elapsed) {
    Duration last = printed.getOrDefault(key, Duration.ZERO);
    if (elapsed.compareTo(last) < 0) last = Duration.ZERO; // a new cycle of the key
    if (elapsed.minus(last).compareTo(every) < 0) return;
    printed.put(key, elapsed);
    long ms = Math.max(1, elapsed.toMillis());
    err.println(
        "watukuy: "
            + (key.partition().isEmpty()
                ? "poller " + key.poller()
                : "poller " + key.poller() + " partition " + key.partition())
            + ": "
            + pages
            + " pages, "
            + items
            + " items, "
            + events
            + " events in "
            + SinkConfig.formatDuration(elapsed)
            + " ("
            + (items * 1000L / ms)
            + " items/s)");
  }

  /** The key's cycle ended: its next cycle starts counting again. */
  void cycleEnded(PollerKey key) {
    printed.remove(key);
  }
}
