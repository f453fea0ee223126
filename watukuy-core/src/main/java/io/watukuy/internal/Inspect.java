package io.watukuy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.KeyInspection;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.internal.cursor.LaneCursor;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateStore;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** Builds the inspection of one key from the store. */
final class Inspect {
  private static final int PARKED_LIMIT = 100_000;

  private Inspect() {}

  static KeyInspection key(
      StateStore store, PollerKey key, PollerState state, LaneCursor<Object> lane, Instant now) {
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
    Map<String, Long> byKind = new LinkedHashMap<>();
    for (ParkedKind k : ParkedKind.values())
      byKind.put(k.wire(), (long) store.listParked(key, k, PARKED_LIMIT).size());
    return new KeyInspection(
        key.poller(),
        key.partition(),
        s.state(),
        s.paused(),
        s.nextDueAt(),
        s.dueReason(),
        s.intervalMs(),
        s.consecutiveFailures(),
        s.throttledUntil(),
        s.circuit(),
        store.getLease(key).orElse(null),
        cursors,
        lag,
        store.countPending(key),
        store.countParked(key),
        byKind,
        store.countItems(key),
        s.lastPoll(),
        s.lastError(),
        s.lastReconcileAt(),
        s.backfill(),
        s.listing(),
        s.lastSuccessAt());
  }
}
