package io.watukuy;

import java.util.List;
import java.util.Optional;

/**
 * What one {@code tick()} did: a report per key, in the order the keys ran.
 *
 * @since 0.1
 */
public record TickReport(List<KeyReport> keys) {
  public TickReport {
    keys = List.copyOf(keys);
  }

  /** The report of one key. */
  public Optional<KeyReport> key(PollerKey key) {
    return keys.stream().filter(k -> k.key().equals(key)).findFirst();
  }

  /** The report of an unpartitioned poller. */
  public Optional<KeyReport> poller(String poller) {
    return key(PollerKey.of(poller));
  }

  /** Total events delivered. */
  public int delivered() {
    return keys.stream().mapToInt(KeyReport::delivered).sum();
  }

  /** Total events committed. */
  public int eventsCommitted() {
    return keys.stream().mapToInt(KeyReport::eventsCommitted).sum();
  }

  /** Whether any key failed. */
  public boolean failed() {
    return keys.stream().anyMatch(KeyReport::failed);
  }
}
