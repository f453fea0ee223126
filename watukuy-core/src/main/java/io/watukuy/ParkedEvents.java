package io.watukuy;

import java.util.Collection;
import java.util.List;

/**
 * Operations on parked events and invalid items (guarantee G7). Unfenced administrative writes:
 * safe while the engine runs.
 *
 * @since 0.1
 */
public interface ParkedEvents {
  /** Every parked row of every key of the engine's pollers, oldest first per key. */
  List<ParkedEvent> list();

  /** Every parked row of one poller's keys. */
  List<ParkedEvent> list(String poller);

  /**
   * Puts parked poison events back into the outbox at their original sequence (so per-key order
   * holds, G3) and releases their held key; removes parked invalid items.
   *
   * @return how many rows were retried
   */
  int retry(PollerKey key, Collection<String> ids);

  /**
   * Drops parked rows for good.
   *
   * @return how many rows were discarded
   */
  int discard(PollerKey key, Collection<String> ids);
}
