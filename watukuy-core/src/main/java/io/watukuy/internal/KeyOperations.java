package io.watukuy.internal;

import io.watukuy.ConfigException;
import io.watukuy.ParkedEvent;
import io.watukuy.ParkedEvents;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.TimeSource;
import io.watukuy.TimestampCursor;
import io.watukuy.Watukuy;
import io.watukuy.internal.cursor.LaneCursor;
import io.watukuy.spi.Lease;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations of {@link Watukuy} on stored keys: pause, resume, trigger, reset-cursor, backfill,
 * replay and the parked rows. Each is written once, over the {@link Keys} it acts on; the poller
 * name of the public API is a shorthand for every key of that poller, expanded by {@link #every}
 * alone, and one key is checked by {@link #one}. Apart from the engine because an operation is an
 * unfenced or leased write from outside any cycle: it shares no state with a run or the daemon but
 * the wake hints it clears and the in-flight check of {@link #withLease}.
 */
final class KeyOperations {
  private static final Logger log = LoggerFactory.getLogger(KeyOperations.class);
  private static final String LIVE = "live";
  private static final String BACKFILL = "backfill";

  /**
   * What an operation acts on: keys of one poller, checked.
   *
   * @param poller the keys' poller
   * @param list every key of the poller ({@link #every}) or one ({@link #one})
   */
  record Keys(Poller<Object> poller, List<PollerKey> list) {}

  private final StateStore store;
  private final TimeSource time;
  private final String instanceId;
  private final Duration leaseTtl;
  private final Map<String, Poller<Object>> pollers;
  private final Function<String, LaneCursor<Object>> laneCursors;
  private final Predicate<PollerKey> inCycleHere;
  private final Runnable keysChanged;

  /**
   * @param pollers the engine's pollers by name
   * @param laneCursors the live lane cursor of a poller, by name
   * @param inCycleHere whether a cycle of the key runs on this engine now (so waiting for its lease
   *     from this thread could never end)
   * @param keysChanged called after every write: the daemon looks at every key again
   */
  /** Diffs a parked invalid item again under the key's lease: {@link KeyRunner#replayInvalid}. */
  interface InvalidReplay {
    String replay(PollerKey key, Lease lease, ParkedRow row) throws InterruptedException;
  }

  private final InvalidReplay replay;

  KeyOperations(
      StateStore store,
      TimeSource time,
      String instanceId,
      Duration leaseTtl,
      Map<String, Poller<Object>> pollers,
      Function<String, LaneCursor<Object>> laneCursors,
      Predicate<PollerKey> inCycleHere,
      Runnable keysChanged,
      InvalidReplay replay) {
    this.replay = replay;
    this.store = store;
    this.time = time;
    this.instanceId = instanceId;
    this.leaseTtl = leaseTtl;
    this.pollers = pollers;
    this.laneCursors = laneCursors;
    this.inCycleHere = inCycleHere;
    this.keysChanged = keysChanged;
  }

  // ---- which keys

  /**
   * The registered poller of that name.
   *
   * @throws ConfigException for an unknown poller
   */
  Poller<Object> known(String poller) {
    Poller<Object> p = pollers.get(poller);
    if (p == null)
      throw new ConfigException("unknown poller '" + poller + "'; known: " + pollers.keySet());
    return p;
  }

  /** The poller's keys: its current partitions and any key with stored state. */
  List<PollerKey> keysOf(Poller<Object> p) {
    TreeSet<PollerKey> keys = new TreeSet<>(store.listKeys(p.name()));
    for (String partition : p.partitions()) keys.add(new PollerKey(p.name(), partition));
    return List.copyOf(keys);
  }

  /**
   * Every key of a poller: what the poller-name forms of the public operations mean.
   *
   * @throws ConfigException for an unknown poller
   */
  Keys every(String poller) {
    Poller<Object> p = known(poller);
    return new Keys(p, keysOf(p));
  }

  /**
   * The key {@code key} names, checked: its poller is registered and its partition is one the
   * poller declares now or has stored state for (a removed partition keeps its key).
   *
   * @throws ConfigException naming the poller, the partition and the known partitions otherwise
   */
  Keys one(PollerKey key) {
    Poller<Object> p = known(key.poller());
    List<PollerKey> keys = keysOf(p);
    if (!keys.contains(key)) {
      List<String> partitions =
          keys.stream().map(PollerKey::partition).filter(k -> !k.isEmpty()).toList();
      throw new ConfigException(
          "poller "
              + p.name()
              + ": no partition '"
              + key.partition()
              + "' ("
              + (partitions.isEmpty()
                  ? "the poller has no partitions"
                  : "known: " + String.join(", ", partitions))
              + ")");
    }
    return new Keys(p, List.of(key));
  }

  // ---- unfenced schedule writes

  void pause(Keys keys) {
    updateSchedule(keys, s -> Operations.pause(s, ScheduleState.PauseReason.MANUAL));
  }

  void resume(Keys keys) {
    updateSchedule(keys, s -> Operations.resume(s, time.now()));
  }

  void trigger(Keys keys) {
    updateSchedule(keys, s -> Operations.trigger(s, time.now()));
  }

  void confirmDeletes(Keys keys) {
    updateSchedule(keys, Operations::confirmDeletes);
  }

  private void updateSchedule(Keys keys, UnaryOperator<ScheduleState> change) {
    for (PollerKey key : keys.list()) {
      ScheduleState s =
          store
              .loadState(key)
              .map(PollerState::schedule)
              .orElseGet(() -> ScheduleMachine.initial(keys.poller()));
      store.saveStateUnfenced(key, StatePatch.schedule(change.apply(s)), time.now());
    }
    keysChanged.run();
  }

  // ---- leased writes

  /** Moves the live cursor of each key and makes it due now; {@code to} is checked first. */
  void resetCursor(Keys keys, @Nullable String to, boolean clearSnapshot) {
    Poller<Object> p = keys.poller();
    LaneCursor<Object> lane = laneCursors.apply(p.name());
    String encoded = lane.encode(lane.fromRaw(to)); // validates before anything is written
    for (PollerKey key : keys.list()) {
      withLease(
          key,
          lease -> {
            Map<String, String> cursors =
                new HashMap<>(store.loadState(key).map(PollerState::cursors).orElse(Map.of()));
            if (encoded == null) cursors.remove(LIVE);
            else cursors.put(LIVE, encoded);
            ScheduleState s =
                store
                    .loadState(key)
                    .map(PollerState::schedule)
                    .orElseGet(() -> ScheduleMachine.initial(p));
            store.saveState(
                key,
                lease,
                new StatePatch(cursors, Operations.trigger(s, time.now()), null, null),
                time.now());
            if (clearSnapshot) store.clearItems(key);
            log.info(
                "{}: live cursor reset to {}{}",
                key,
                to == null ? "its initial value" : "'" + to + "'",
                clearSnapshot ? ", snapshot cleared" : "");
            return null;
          });
    }
  }

  /** Starts a backfill on each key; strategy and bounds are checked first. */
  void backfill(Keys keys, @Nullable String from, @Nullable String to, boolean force) {
    Poller<Object> p = keys.poller();
    String poller = p.name();
    LaneCursor<Object> lane = laneCursors.apply(poller);
    if (p.cursor() instanceof TimestampCursor t && !t.sorted())
      throw new ConfigException(
          "poller "
              + poller
              + ": backfill needs a watermark to stop at, and a timestamp cursor with"
              + " cursor.sorted false moves its watermark only when a whole listing completes;"
              + " use resetCursor to list again from an earlier value");
    if (!lane.ordered())
      throw new ConfigException(
          "poller "
              + poller
              + ": backfill needs a timestamp or page cursor, or a custom cursor"
              + " with an ordering; cursor "
              + p.cursor().name()
              + " has no order to stop at");
    Object start = lane.fromRaw(from);
    if (to != null && lane.reached(start, lane.fromRaw(to)))
      throw new ConfigException(
          "poller " + poller + ": backfill from '" + from + "' is not before to '" + to + "'");
    for (PollerKey key : keys.list()) {
      withLease(
          key,
          lease -> {
            PollerState state = store.loadState(key).orElse(null);
            String target = to;
            if (target == null)
              target = lane.toRaw(lane.decode(state == null ? null : state.cursors().get(LIVE)));
            Map<String, String> cursors = new HashMap<>(state == null ? Map.of() : state.cursors());
            cursors.remove(BACKFILL);
            ScheduleState s = state == null ? ScheduleMachine.initial(p) : state.schedule();
            ScheduleState withBackfill =
                s.withBackfill(new ScheduleState.Backfill(from, target, force, null, time.now()));
            store.saveState(
                key, lease, new StatePatch(cursors, withBackfill, null, null), time.now());
            log.info("{}: backfill from {} to {}{}", key, from, target, force ? " (force)" : "");
            return null;
          });
    }
  }

  /** Copies logged events of each key back into its outbox; returns how many, all keys. */
  int replay(Keys keys, Instant from, @Nullable Instant to) {
    Poller<Object> p = keys.poller();
    String poller = p.name();
    if (from == null)
      throw new ConfigException("poller " + poller + ": replay needs a from instant");
    if (to != null && !to.isAfter(from))
      throw new ConfigException(
          "poller " + poller + ": replay to " + to + " is not after from " + from);
    if (!p.log().enabled())
      throw new ConfigException(
          "poller " + poller + ": replay needs the event log (log(EventLog.keep(...)))");
    int total = 0;
    for (PollerKey key : keys.list())
      total += withLease(key, lease -> Replay.copy(store, key, lease, from, to, time.now()));
    return total;
  }

  /**
   * Runs {@code write} under the key's lease, waiting up to one lease TTL for a running cycle.
   *
   * @throws IllegalStateException when the key is in a cycle of this engine on this thread, or
   *     stays leased by another instance
   */
  <R> R withLease(PollerKey key, Function<Lease, R> write) {
    Optional<Lease> lease = store.acquireLease(key, instanceId, leaseTtl, time.now());
    if (lease.isEmpty()) {
      Optional<Lease> held = store.getLease(key);
      if (held.isPresent() && held.get().owner().equals(instanceId) && inCycleHere.test(key))
        throw new IllegalStateException(
            key
                + " is in a cycle of this engine (called from its handler or fetch?);"
                + " call this operation outside the cycle");
      if (held.isPresent()) {
        try {
          // Until an instant, read once: a clock moved meanwhile cannot push the wake-up later.
          long untilExpiry =
              Duration.between(time.now(), held.get().expiresAt()).plusMillis(1).toNanos();
          time.sleepUntil(time.nanoTime() + Math.max(0, untilExpiry));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(key + ": interrupted while waiting for its lease", e);
        }
      }
      lease = store.acquireLease(key, instanceId, leaseTtl, time.now());
    }
    if (lease.isEmpty()) {
      Lease h = store.getLease(key).orElse(null);
      throw new IllegalStateException(
          key
              + " is leased by "
              + (h == null ? "another instance" : h.owner() + " until " + h.expiresAt())
              + "; try again");
    }
    try {
      return write.apply(lease.get());
    } finally {
      keysChanged.run(); // the write may make the key due: the daemon looks at it again
      try {
        store.releaseLease(key, lease.get());
      } catch (RuntimeException e) {
        log.warn("{}: lease release failed, it expires by itself: {}", Who.key(key), e.toString());
      }
    }
  }

  // ---- parked rows

  /** The parked rows of this engine's pollers, straight from the store. */
  ParkedEvents parked() {
    return new Parked();
  }

  private final class Parked implements ParkedEvents {
    private static final int LIMIT = 10_000;

    @Override
    public List<ParkedEvent> list() {
      List<ParkedEvent> all = new ArrayList<>();
      for (String name : pollers.keySet()) all.addAll(list(name));
      return all;
    }

    @Override
    public List<ParkedEvent> list(String poller) {
      if (!pollers.containsKey(poller))
        throw new ConfigException("parked: unknown poller '" + poller + "'");
      List<ParkedEvent> out = new ArrayList<>();
      for (PollerKey key : store.listKeys(poller))
        for (ParkedRow row : store.listParked(key, null, LIMIT)) out.add(new ParkedEvent(key, row));
      return out;
    }

    /**
     * Parked events go back to the outbox; each parked invalid item is checked and diffed again
     * first ({@link KeyRunner#replayInvalid}), and a line says what became of it: diffed, or
     * dropped and why.
     */
    @Override
    public int retry(PollerKey key, Collection<String> ids) {
      Set<String> wanted = Set.copyOf(ids);
      for (ParkedRow row : store.listParked(key, ParkedKind.INVALID, LIMIT)) {
        if (!wanted.contains(row.id())) continue;
        String outcome =
            withLease(
                key,
                lease -> {
                  try {
                    return replay.replay(key, lease, row);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(key + ": interrupted", e);
                  }
                });
        if (outcome.startsWith("dropped"))
          log.warn("{}: parked {}: {}", Who.key(key), row.id(), outcome);
        else log.info("{}: parked {}: {}", Who.key(key), row.id(), outcome);
      }
      return store.retryParked(key, ids);
    }

    @Override
    public int discard(PollerKey key, Collection<String> ids) {
      return store.discardParked(key, ids);
    }
  }
}
