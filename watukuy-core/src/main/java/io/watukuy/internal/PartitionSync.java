package io.watukuy.internal;

import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.TimeSource;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keys a pass or a tick runs (docs/architecture.md, "Partitions, tick, listeners"): one per
 * partition the poller declares now, with the stored keys of a partition that disappeared paused
 * ({@code partitionRemoved}) and those of one that returned resumed. Apart from the engine because
 * it is the one place that keeps state across passes about the partition lists, shared by {@code
 * tick()} and the daemon.
 */
final class PartitionSync {
  private static final Logger log = LoggerFactory.getLogger(PartitionSync.class);

  private final StateStore store;
  private final TimeSource time;

  /** Per poller, the list its last pass read and the keys made of it. */
  private final Map<String, Listed> listed = new ConcurrentHashMap<>();

  /** Per partitioned poller, the partition list last synced with the store. */
  private final Map<String, Set<PollerKey>> synced = new ConcurrentHashMap<>();

  PartitionSync(StateStore store, TimeSource time) {
    this.store = store;
    this.time = time;
  }

  /** The poller's keys now; partitions that disappeared are paused, returning ones resumed. */
  List<PollerKey> keys(Poller<Object> p) {
    List<String> partitions = p.partitions();
    // The same list as the last pass (a static list is one immutable list for good): the same
    // keys, synced already. Rebuilding and comparing ten thousand keys every second was the
    // largest cost of an engine with that many idle partitions.
    Listed last = listed.get(p.name());
    if (last != null && last.partitions() == partitions) return last.keys();
    List<PollerKey> keys = new ArrayList<>();
    for (String partition : partitions) keys.add(new PollerKey(p.name(), partition));
    if (p.partitioned()) sync(p, keys);
    List<PollerKey> out = List.copyOf(keys);
    listed.put(p.name(), new Listed(partitions, out));
    return out;
  }

  /** A poller's partition list as a pass read it, and its keys. */
  private record Listed(List<String> partitions, List<PollerKey> keys) {}

  /**
   * Pauses the stored keys whose partition is gone and resumes the returning ones. Runs when the
   * partition list differs from the one last synced (and on the first pass): reading every stored
   * key's state on every pass made idle partitions cost a core.
   */
  private void sync(Poller<Object> p, List<PollerKey> keys) {
    Set<PollerKey> current = new HashSet<>(keys);
    if (current.equals(synced.get(p.name()))) return;
    for (PollerKey stored : store.listKeys(p.name())) {
      Optional<PollerState> st = store.loadState(stored);
      if (st.isEmpty()) continue;
      ScheduleState s = st.get().schedule();
      boolean present = current.contains(stored);
      if (!present && s.paused() == null) {
        store.saveStateUnfenced(
            stored,
            StatePatch.schedule(s.withPaused(ScheduleState.PauseReason.PARTITION_REMOVED)),
            time.now());
        log.info("{}: partition removed, paused", stored);
      } else if (present && s.paused() == ScheduleState.PauseReason.PARTITION_REMOVED) {
        store.saveStateUnfenced(
            stored, StatePatch.schedule(Operations.resume(s, time.now())), time.now());
        log.info("{}: partition returned, resumed", stored);
      }
    }
    synced.put(p.name(), current);
  }
}
