package io.watukuy;

import io.watukuy.spi.ParkedRow;
import java.util.Collection;
import java.util.List;

/**
 * Operations on parked events and invalid items (guarantee G7). Unfenced administrative writes
 * (StateStore contract rule 4): safe while the engine runs, from any thread. Each call goes
 * straight to the store and blocks on it.
 *
 * @since 0.1
 */
public interface ParkedEvents {
  /**
   * Every parked row of every key of the engine's pollers, oldest first per key.
   *
   * @return the rows, by poller in registration order, then by key; at most 10,000 per key
   */
  List<ParkedEvent> list();

  /**
   * Every parked row of one poller's keys, oldest first per key.
   *
   * @param poller a poller name registered with the engine
   * @return the rows, by key; at most 10,000 per key
   * @throws ConfigException if the engine has no poller of that name
   */
  List<ParkedEvent> list(String poller);

  /**
   * Puts parked poison events back into the outbox at their original sequence (so per-key order
   * holds, G3) and releases their held key. A retried event is delivered by the key's next run,
   * with its attempts counted from zero again. A parked invalid item is checked again (identity,
   * validator) and, when it now passes and its identity has not been seen since it was parked,
   * diffed (its event is delivered by the next run); otherwise it is dropped, and a warning on the
   * logger of the engine says why (docs/operations.md, "Invalid items"). Either way its row is
   * removed. Ids that are not parked are ignored.
   *
   * @param key the key the rows belong to
   * @param ids {@link ParkedRow#id()} values
   * @return how many rows were removed from the parked rows
   * @throws StoreException if the store fails; nothing is changed
   */
  int retry(PollerKey key, Collection<String> ids);

  /**
   * Drops parked rows for good, releasing the ordering keys they held. Ids that are not parked are
   * ignored.
   *
   * @param key the key the rows belong to
   * @param ids {@link ParkedRow#id()} values
   * @return how many rows were discarded
   * @throws StoreException if the store fails; nothing is changed
   */
  int discard(PollerKey key, Collection<String> ids);
}
