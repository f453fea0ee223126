package io.watukuy;

import java.util.List;
import java.util.Optional;

/**
 * What one {@code tick()} did: a report per key, in the order the keys ran (pollers in registration
 * order, partitions in the order listed).
 *
 * @param keys one report per key that the tick visited, skipped keys included
 * @since 0.1
 */
public record TickReport(List<KeyReport> keys) {
  /**
   * Creates a report; the list is copied.
   *
   * @param keys the reports per key
   * @throws NullPointerException if {@code keys} or an element is null
   */
  public TickReport {
    keys = List.copyOf(keys);
  }

  /**
   * The report of one key.
   *
   * @param key the key
   * @return its report, or empty when the tick did not visit it
   */
  public Optional<KeyReport> key(PollerKey key) {
    return keys.stream().filter(k -> k.key().equals(key)).findFirst();
  }

  /**
   * The report of an unpartitioned poller.
   *
   * @param poller the poller name
   * @return the report of {@code PollerKey.of(poller)}, or empty when the tick did not visit it
   */
  public Optional<KeyReport> poller(String poller) {
    return key(PollerKey.of(poller));
  }

  /**
   * Events delivered across every key.
   *
   * @return the sum of {@link KeyReport#delivered()}
   */
  public int delivered() {
    return keys.stream().mapToInt(KeyReport::delivered).sum();
  }

  /**
   * Events committed across every key.
   *
   * @return the sum of {@link KeyReport#eventsCommitted()}
   */
  public int eventsCommitted() {
    return keys.stream().mapToInt(KeyReport::eventsCommitted).sum();
  }

  /**
   * Whether any key's run ended with an error.
   *
   * @return {@code true} if some {@link KeyReport#failed()} is true
   */
  public boolean failed() {
    return keys.stream().anyMatch(KeyReport::failed);
  }
}
