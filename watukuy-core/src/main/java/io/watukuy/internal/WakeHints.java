package io.watukuy.internal;

import io.watukuy.PollerKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * When the daemon needs to look at a key it found not due (see {@link RunLimits#wakeAt}), by key
 * and in time order, so that a pass finds the keys falling due without walking every key.
 * Thread-safe; every method is O(log n) but {@link #clear()}.
 */
final class WakeHints {
  private record Wake(Instant at, PollerKey key) implements Comparable<Wake> {
    @Override
    public int compareTo(Wake o) {
      int c = at.compareTo(o.at);
      return c != 0 ? c : key.compareTo(o.key);
    }
  }

  private final Map<PollerKey, Instant> byKey = new HashMap<>();
  private final TreeSet<Wake> byTime = new TreeSet<>();

  /** The key's hint, or null if it has none. */
  synchronized @Nullable Instant get(PollerKey key) {
    return byKey.get(key);
  }

  /** Sets the key's hint, replacing the one it had. */
  synchronized void put(PollerKey key, Instant at) {
    Instant old = byKey.put(key, at);
    if (old != null) byTime.remove(new Wake(old, key));
    byTime.add(new Wake(at, key));
  }

  /** Drops the key's hint, if any. */
  synchronized void remove(PollerKey key) {
    Instant old = byKey.remove(key);
    if (old != null) byTime.remove(new Wake(old, key));
  }

  /** Drops every hint: each key is looked at on the next pass. */
  synchronized void clear() {
    byKey.clear();
    byTime.clear();
  }

  /** The earliest hint, or null if there is none. */
  synchronized @Nullable Instant earliest() {
    return byTime.isEmpty() ? null : byTime.first().at();
  }

  /** Removes and returns the keys whose hint is at or before {@code now}, earliest first. */
  synchronized List<PollerKey> takeDue(Instant now) {
    List<PollerKey> due = new ArrayList<>();
    while (!byTime.isEmpty() && !byTime.first().at().isAfter(now)) {
      Wake w = byTime.pollFirst();
      byKey.remove(w.key());
      due.add(w.key());
    }
    return due;
  }
}
