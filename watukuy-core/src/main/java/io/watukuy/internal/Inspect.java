package io.watukuy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.KeyInspection;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.internal.cursor.LaneCursor;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.Lease;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/** Builds the inspection of one key from the store. */
final class Inspect {
  private static final int PARKED_LIMIT = 100_000;

  private Inspect() {}

  /**
   * The state inspect shows: the stored one, or {@code polling} ({@code halfOpen} for a circuit
   * probe) while a live lease holds a key whose live lane is due. A cycle does not store that it is
   * polling, which would cost every idle poll a write (docs/architecture.md, "What an idle poll
   * costs"); the lease says it.
   */
  static ScheduleState.Status shown(ScheduleState s, @Nullable Lease lease, Instant now) {
    if (lease == null || !lease.expiresAt().isAfter(now)) return s.state();
    if (!ScheduleMachine.due(s, now, false).due()) return s.state();
    return s.circuit() != null ? ScheduleState.Status.HALF_OPEN : ScheduleState.Status.POLLING;
  }

  static KeyInspection key(
      StateStore store,
      Poller<?> poller,
      PollerKey key,
      PollerState state,
      LaneCursor<Object> lane,
      Instant now) {
    ScheduleState s = state.schedule();
    Map<String, JsonNode> cursors = new LinkedHashMap<>();
    state.cursors().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> cursors.put(e.getKey(), Json.tree(e.getValue())));
    Long lag = null;
    try {
      lag = lane.lagMs(lane.decode(state.cursors().get("live")), now);
    } catch (RuntimeException e) {
      // an unreadable cursor shows as no lag; the cycle reports the problem
    }
    Lease lease = store.getLease(key).orElse(null);
    long parked = store.countParked(key);
    return new KeyInspection(
        key.poller(),
        key.partition(),
        shown(s, lease, now),
        s.paused(),
        s.nextDueAt(),
        s.dueReason(),
        s.intervalMs(),
        s.consecutiveFailures(),
        s.throttledUntil(),
        s.circuit(),
        lease,
        cursors,
        lag,
        store.countPending(key),
        parked,
        parkedByKind(store, key, parked),
        store.countItems(key),
        s.lastPoll(),
        s.lastError(),
        s.lastReconcileAt(),
        s.backfill(),
        s.listing(),
        s.lastSuccessAt(),
        poller.staleAfter().toMillis(),
        stale(s.lastSuccessAt(), poller.staleAfter(), now),
        poller.maxParked(),
        logHeldAbove(store, poller, key));
  }

  /**
   * The lowest effect watermark on the key's log, read only for a poller that keeps a log (no
   * effect can read one that does not) from a store that keeps effect tables.
   */
  private static @Nullable Long logHeldAbove(StateStore store, Poller<?> poller, PollerKey key) {
    EffectStore effects = store.effects().orElse(null);
    if (!poller.log().enabled() || effects == null) return null;
    OptionalLong floor = effects.lowestWatermark(key);
    return floor.isPresent() ? floor.getAsLong() : null;
  }

  /**
   * {@code parked} split by kind, poison then invalid: nothing is read when nothing is parked;
   * otherwise the invalid items are read, at most {@code parked} (and {@value #PARKED_LIMIT}) of
   * them, and the rest are poison events. Invalid items are few (one per item the mapping refused),
   * while parked events can run to the poller's {@code maxParked}.
   */
  static Map<String, Long> parkedByKind(StateStore store, PollerKey key, long parked) {
    long invalid =
        parked == 0
            ? 0
            : store
                .listParked(key, ParkedKind.INVALID, (int) Math.min(parked, PARKED_LIMIT))
                .size();
    Map<String, Long> byKind = new LinkedHashMap<>();
    byKind.put(ParkedKind.POISON.wire(), parked - invalid);
    byKind.put(ParkedKind.INVALID.wire(), invalid);
    return byKind;
  }

  /**
   * Whether the last success lies longer than {@code staleAfter} before {@code now}; never before
   * the first success, whose absence the failures (or a new key's due time) explain.
   */
  static boolean stale(@Nullable Instant lastSuccessAt, Duration staleAfter, Instant now) {
    return lastSuccessAt != null && Duration.between(lastSuccessAt, now).compareTo(staleAfter) > 0;
  }
}
