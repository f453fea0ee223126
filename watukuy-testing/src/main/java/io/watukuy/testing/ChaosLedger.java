package io.watukuy.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.PollerKey;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * What a chaos run saw: commits that persisted, deliveries that returned, kills, and every lease
 * change, checked as they happen (G5) or at the end.
 */
final class ChaosLedger {
  /** One persisted outbox row. */
  record Commit(
      PollerKey key,
      long sequence,
      String id,
      String identity,
      String versionOrHash,
      String type) {}

  /** One handler call that returned. */
  record Delivery(
      PollerKey key,
      long sequence,
      String id,
      String identity,
      String orderingKey,
      String type,
      String version,
      JsonNode data,
      int step) {}

  record Slot(PollerKey key, long sequence) {}

  private record Held(String owner, long epoch, Instant expiresAt, boolean released) {}

  final List<Commit> commits = new ArrayList<>();
  final List<Delivery> deliveries = new ArrayList<>();
  final Map<Slot, Integer> killsWhilePending = new HashMap<>();

  /** Kills while the slot was pending and had already been handed to a handler. */
  final Map<Slot, Integer> killsWhileInFlight = new HashMap<>();

  /** Slots handed to a handler by anyone, and by the current process. */
  private final Set<Slot> handedOut = new HashSet<>();

  private final Set<Slot> handedOutByProcess = new HashSet<>();
  private int processConcurrency;
  final List<String> violations = new ArrayList<>();
  private final Map<PollerKey, Held> leases = new HashMap<>();
  int step;

  /** The ordering key of each committed slot, and the highest acked sequence per ordering key. */
  private final Map<Slot, String> orderingKeyOf = new HashMap<>();

  private final Map<String, Long> maxAcked = new HashMap<>();

  synchronized void acked(PollerKey key, Collection<Long> sequences) {
    for (long seq : sequences) {
      String ok = orderingKeyOf.get(new Slot(key, seq));
      if (ok != null) maxAcked.merge(key + "|" + ok, seq, Math::max);
    }
  }

  synchronized void committed(PollerKey key, CommitBatch batch) {
    for (OutboxRow r : batch.events()) {
      orderingKeyOf.put(new Slot(key, r.sequence()), r.orderingKey());
      JsonNode e = JsonSupport.tree(r.event());
      commits.add(
          new Commit(
              key,
              r.sequence(),
              r.eventId(),
              e.get("identity").asText(),
              e.get("version").asText(),
              e.get("type").asText()));
    }
  }

  /** A new process starts: nothing handed out by it yet. */
  synchronized void newProcess(int concurrency) {
    handedOutByProcess.clear();
    processConcurrency = concurrency;
  }

  synchronized void delivered(ChangeEvent<JsonNode> e) {
    // G3: once a later event of an ordering key was acked, an earlier one must never come (again).
    Long acked = maxAcked.get(e.key() + "|" + e.orderingKey());
    if (acked != null && acked > e.sequence())
      violation(
          "G3: "
              + e.key()
              + " "
              + e.orderingKey()
              + " #"
              + e.sequence()
              + " delivered after #"
              + acked
              + " was acked");
    handedOut.add(new Slot(e.key(), e.sequence()));
    handedOutByProcess.add(new Slot(e.key(), e.sequence()));
    deliveries.add(
        new Delivery(
            e.key(),
            e.sequence(),
            e.id(),
            e.identity(),
            e.orderingKey(),
            e.type().wire(),
            e.version(),
            e.data(),
            step));
  }

  synchronized void killed(StateStore store, List<PollerKey> keys) {
    int inFlight = 0;
    for (PollerKey k : keys) {
      for (OutboxRow r : store.loadPending(k, 0, Integer.MAX_VALUE)) {
        Slot slot = new Slot(k, r.sequence());
        killsWhilePending.merge(slot, 1, Integer::sum);
        if (handedOut.contains(slot)) killsWhileInFlight.merge(slot, 1, Integer::sum);
        if (handedOutByProcess.contains(slot)) inFlight++;
      }
    }
    // G9: a crash costs at most one redelivery per event in flight, and in flight means at most
    // `concurrency` handled-but-unacked events (acks are per event, right after the handler).
    if (inFlight > processConcurrency)
      violation(
          "G9: "
              + inFlight
              + " events were handled but not acked at the kill; concurrency is "
              + processConcurrency);
  }

  synchronized void violation(String v) {
    violations.add("step " + step + ": " + v);
  }

  synchronized void acquired(PollerKey key, Lease lease, Instant now) {
    Held prev = leases.get(key);
    if (prev != null
        && !prev.released()
        && prev.expiresAt().isAfter(now)
        && !prev.owner().equals(lease.owner()))
      violation(
          "G5: "
              + key
              + " acquired by "
              + lease.owner()
              + " at "
              + now
              + " while "
              + prev.owner()
              + " held it until "
              + prev.expiresAt());
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

  /**
   * The store as one instance sees it: every fenced write must carry a lease that this instance
   * acquired (G5: a stale or borrowed lease never writes).
   */
  StateStore fencedBy(String instance, StateStore store) {
    Set<String> mine = ConcurrentHashMap.newKeySet();
    return new ForwardingStore(store) {
      private void own(PollerKey key, Lease lease, String call) {
        if (!mine.contains(key + "|" + lease.owner() + "|" + lease.epoch()))
          violation(
              "G5: "
                  + instance
                  + " "
                  + call
                  + " on "
                  + key
                  + " with lease "
                  + lease.owner()
                  + "#"
                  + lease.epoch()
                  + " it never acquired");
      }

      @Override
      public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
        Optional<Lease> l = super.acquireLease(key, owner, ttl, now);
        l.ifPresent(x -> mine.add(key + "|" + x.owner() + "|" + x.epoch()));
        return l;
      }

      @Override
      public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
        own(key, lease, "commitPoll");
        super.commitPoll(key, lease, batch, now);
      }

      @Override
      public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
        own(key, lease, "ackEvents");
        super.ackEvents(key, lease, sequences);
      }

      @Override
      public void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now) {
        own(key, lease, "saveState");
        super.saveState(key, lease, patch, now);
      }

      @Override
      public void recordAttempt(
          PollerKey key, Lease lease, long sequence, String errorJson, @Nullable Instant next) {
        own(key, lease, "recordAttempt");
        super.recordAttempt(key, lease, sequence, errorJson, next);
      }

      @Override
      public void parkEvent(PollerKey key, Lease lease, ParkedRow row) {
        own(key, lease, "parkEvent");
        super.parkEvent(key, lease, row);
      }
    };
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
      public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
        super.ackEvents(key, lease, sequences);
        acked(key, sequences);
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
