package io.watukuy.testing;

import io.watukuy.PollerKey;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.StateStore;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a poller key's whole replay log, for a process-kill test (docs/guarantees.md, G1): what the
 * store committed, and so what must have arrived.
 *
 * @since 0.3
 */
public final class WholeEventLog {
  private static final int PAGE = 1000;
  private static final int MAX_PAGES = 1000;

  private WholeEventLog() {}

  /**
   * Every logged event of {@code key}, in sequence order, read a thousand at a time.
   *
   * @param store the store the events were committed to
   * @param key the poller key
   * @return the events
   * @throws IllegalStateException if the log holds more than a million events (a runaway test)
   */
  public static List<LoggedEvent> read(StateStore store, PollerKey key) {
    List<LoggedEvent> all = new ArrayList<>();
    long after = 0;
    for (int round = 0; round < MAX_PAGES; round++) {
      List<LoggedEvent> batch = store.readLog(key, LogRange.after(after), PAGE);
      if (batch.isEmpty()) return all;
      all.addAll(batch);
      after = batch.get(batch.size() - 1).sequence();
    }
    throw new IllegalStateException("replay log longer than a million events");
  }
}
