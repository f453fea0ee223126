package io.watukuy.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.CommitBatch;
import io.watukuy.Lease;
import io.watukuy.OutboxRow;
import io.watukuy.PollerKey;
import io.watukuy.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a chaos run saw: commits that persisted, deliveries that returned, kills, and every lease
 * change, checked as they happen (G5) or at the end.
 */
final class ChaosLedger {
  /** One persisted outbox row. */
  record Commit(PollerKey key, long sequence, String id, String identity, String versionOrHash, String type) {}

  /** One handler call that returned. */
  record Delivery(PollerKey key, long sequence, String id, String identity, String orderingKey,
      String type, String version, JsonNode data, int step) {}

  record Slot(PollerKey key, long sequence) {}

  private record Held(String owner, long epoch, Instant expiresAt, boolean released) {}

  final List<Commit> commits = new ArrayList<>();
  final List<Delivery> deliveries = new ArrayList<>();
  final Map<Slot, Integer> killsWhilePending = new HashMap<>();
  final List<String> violations = new ArrayList<>();
  private final Map<PollerKey, Held> leases = new HashMap<>();
  int step;

  synchronized void committed(PollerKey key, CommitBatch batch) {
    for (OutboxRow r : batch.events()) {
      JsonNode e = JsonSupport.tree(r.event());
      commits.add(new Commit(key, r.sequence(), r.eventId(), e.get("identity").asText(),
          e.get("version").asText(), e.get("type").asText()));
    }
  }

  synchronized void delivered(ChangeEvent<JsonNode> e) {
    deliveries.add(new Delivery(e.key(), e.sequence(), e.id(), e.identity(), e.orderingKey(),
        e.type().wire(), e.version(), e.data(), step));
  }

  synchronized void killed(StateStore store, List<PollerKey> keys) {
    for (PollerKey k : keys)
      for (OutboxRow r : store.loadPending(k, 0, Integer.MAX_VALUE))
        killsWhilePending.merge(new Slot(k, r.sequence()), 1, Integer::sum);
  }

  synchronized void violation(String v) {
    violations.add("step " + step + ": " + v);
  }

  synchronized void acquired(PollerKey key, Lease lease, Instant now) {
    Held prev = leases.get(key);
    if (prev != null && !prev.released() && prev.expiresAt().isAfter(now) && !prev.owner().equals(lease.owner()))
      violation("G5: " + key + " acquired by " + lease.owner() + " at " + now + " while " + prev.owner()
          + " held it until " + prev.expiresAt());
    if (prev != null && lease.epoch() <= prev.epoch())
      violation("G5: " + key + " epoch " + lease.epoch() + " after epoch " + prev.epoch());
    leases.put(key, new Held(lease.owner(), lease.epoch(), lease.expiresAt(), false));
  }

  synchronized void renewed(PollerKey key, Lease lease) {
    Held prev = leases.get(key);
    if (prev != null && prev.epoch() == lease.epoch())
      leases.put(key, new Held(prev.owner(), prev.epoch(), lease.expiresAt(), prev.released()));
  }

  synchronized void released(PollerKey key, Lease lease) {
    Held prev = leases.get(key);
    if (prev != null && prev.epoch() == lease.epoch() && prev.owner().equals(lease.owner()))
      leases.put(key, new Held(prev.owner(), prev.epoch(), prev.expiresAt(), true));
  }

  /** The store as the ledger sees it: records persisted commits and lease changes. */
  StateStore recording(StateStore store) {
    return new ForwardingStore(store) {
      @Override
      public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
        super.commitPoll(key, lease, batch, now);
        committed(key, batch);
      }

      @Override
      public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
        Optional<Lease> l = super.acquireLease(key, owner, ttl, now);
        l.ifPresent(lease -> acquired(key, lease, now));
        return l;
      }

      @Override
      public Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now) {
        Optional<Lease> l = super.renewLease(key, lease, ttl, now);
        l.ifPresent(renewed -> renewed(key, renewed));
        return l;
      }

      @Override
      public void releaseLease(PollerKey key, Lease lease) {
        super.releaseLease(key, lease);
        released(key, lease);
      }
    };
  }
}
