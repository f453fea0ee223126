package io.watukuy.store.memory;

import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.StoreException;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.CredentialStore;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LeasedState;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import io.watukuy.spi.StoreCapabilities;
import io.watukuy.spi.StoredCredential;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.jspecify.annotations.Nullable;

/**
 * The reference implementation of {@link StateStore}: every key's lease, state, items, outbox,
 * parked rows, validators and log live in this process's memory. Use it for tests, demos and {@code
 * tick()} prototypes; everything it holds is lost when the process exits.
 *
 * <p>It follows the whole contract, epoch fencing included, so code that works against it works
 * against a durable store. Every stored value is an immutable record and every returned collection
 * is an unmodifiable copy, so a caller cannot change what the store holds.
 *
 * <p>Thread-safe: one lock serializes every operation, which also makes each {@link #commitPoll}
 * atomic. It keeps the effect tables too ({@link #effects()}), under the same lock; their instants
 * are truncated to the millisecond as a SQL store keeps them. No operation blocks on anything but
 * that lock. {@link #migrate()} and {@link #close()} do nothing; the store stays usable after
 * {@code close()}. Declares {@link StoreCapabilities#ALL}.
 *
 * @since 0.1
 */
public final class MemoryStore implements StateStore, CredentialStore {

  private final Object lock = new Object();

  // Guarded by lock
  private final Map<PollerKey, KeyData> keys = new HashMap<>();

  // Guarded by lock: the credentials table, by name
  private final Map<String, StoredCredential> credentials = new HashMap<>();

  // The effect tables, under the same lock
  private final MemoryEffects effects = new MemoryEffects(lock);

  /** An empty store. Performs no I/O. */
  public MemoryStore() {}

  /** Everything stored for one key. Every field is guarded by the enclosing store's lock. */
  private static final class KeyData {
    @Nullable PollerState state;
    @Nullable Lease lease;
    // The highest epoch ever issued: a release clears the lease but not this, so the next
    // acquisition still fences out every earlier holder.
    long lastEpoch;
    final NavigableMap<String, ItemRow> items = new TreeMap<>();
    final NavigableMap<Long, OutboxRow> outbox = new TreeMap<>();
    final Map<String, ParkedRow> parked = new HashMap<>();
    final Map<String, HttpValidator> validators = new HashMap<>();
    final NavigableMap<Long, LoggedEvent> log = new TreeMap<>();
  }

  private static final Comparator<ParkedRow> OLDEST_FIRST =
      Comparator.comparing(ParkedRow::parkedAt).thenComparing(ParkedRow::id);

  @Override
  public StoreCapabilities capabilities() {
    return StoreCapabilities.ALL;
  }

  /** Does nothing: there is nothing to create. */
  @Override
  public void migrate() {}

  /** Does nothing; the data stays reachable until this object is garbage. */
  @Override
  public void close() {}

  // ---- leases

  @Override
  public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(now, "now");
    synchronized (lock) {
      KeyData d = data(key);
      if (d.lease != null && d.lease.expiresAt().isAfter(now)) {
        return Optional.empty();
      }
      d.lastEpoch++;
      d.lease = new Lease(owner, d.lastEpoch, now.plus(ttl));
      return Optional.of(d.lease);
    }
  }

  @Override
  public Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now) {
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(now, "now");
    synchronized (lock) {
      KeyData d = keys.get(key);
      if (d == null || !isCurrent(d, lease)) {
        return Optional.empty();
      }
      d.lease = new Lease(lease.owner(), lease.epoch(), now.plus(ttl));
      return Optional.of(d.lease);
    }
  }

  @Override
  public void releaseLease(PollerKey key, Lease lease) {
    Objects.requireNonNull(lease, "lease");
    synchronized (lock) {
      KeyData d = keys.get(key);
      if (d != null && isCurrent(d, lease)) {
        d.lease = null;
      }
    }
  }

  @Override
  public Optional<Lease> getLease(PollerKey key) {
    synchronized (lock) {
      KeyData d = keys.get(key);
      return d == null ? Optional.empty() : Optional.ofNullable(d.lease);
    }
  }

  /** {@inheritDoc} Under the store's one lock, like every call. */
  @Override
  public Optional<LeasedState> acquireLeaseAndLoad(
      PollerKey key, String owner, Duration ttl, Instant now) {
    synchronized (lock) {
      return acquireLease(key, owner, ttl, now)
          .map(l -> new LeasedState(l, data(key).state, !data(key).outbox.isEmpty()));
    }
  }

  /** {@inheritDoc} Under the store's one lock, like every call. */
  @Override
  public boolean saveStateAndRelease(
      PollerKey key, Lease lease, @Nullable ScheduleState expected, StatePatch patch, Instant now) {
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    synchronized (lock) {
      KeyData d = fenced(key, lease);
      if (!Objects.equals(d.state == null ? null : d.state.schedule(), expected)) return false;
      applyPatch(d, patch, now);
      d.lease = null;
      return true;
    }
  }

  // ---- state

  @Override
  public Optional<PollerState> loadState(PollerKey key) {
    synchronized (lock) {
      KeyData d = keys.get(key);
      return d == null ? Optional.empty() : Optional.ofNullable(d.state);
    }
  }

  @Override
  public void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now) {
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    synchronized (lock) {
      applyPatch(fenced(key, lease), patch, now);
    }
  }

  @Override
  public void saveStateUnfenced(PollerKey key, StatePatch patch, Instant now) {
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    synchronized (lock) {
      applyPatch(data(key), patch, now);
    }
  }

  @Override
  public List<PollerKey> listKeys(@Nullable String poller) {
    synchronized (lock) {
      List<PollerKey> out = new ArrayList<>();
      for (Map.Entry<PollerKey, KeyData> e : keys.entrySet()) {
        if (e.getValue().state != null && (poller == null || poller.equals(e.getKey().poller()))) {
          out.add(e.getKey());
        }
      }
      Collections.sort(out);
      return List.copyOf(out);
    }
  }

  @Override
  public void deleteKey(PollerKey key) {
    Objects.requireNonNull(key, "key");
    synchronized (lock) {
      KeyData d = keys.remove(key);
      if (d != null && d.lastEpoch > 0) {
        // Keep the epoch counter: a holder from before the delete must stay fenced out.
        KeyData fresh = new KeyData();
        fresh.lastEpoch = d.lastEpoch;
        keys.put(key, fresh);
      }
    }
  }

  @Override
  public void clearItems(PollerKey key) {
    synchronized (lock) {
      KeyData d = keys.get(key);
      if (d != null) {
        d.items.clear();
      }
    }
  }

  // ---- items

  @Override
  public Map<String, ItemRow> loadVersions(PollerKey key, Collection<String> identities) {
    Objects.requireNonNull(identities, "identities");
    synchronized (lock) {
      KeyData d = keys.get(key);
      if (d == null) {
        return Map.of();
      }
      Map<String, ItemRow> out = new HashMap<>();
      for (String identity : identities) {
        ItemRow row = d.items.get(identity);
        if (row != null) {
          out.put(identity, row);
        }
      }
      // Not Map.copyOf: its open addressing probes long runs for identities with neighbouring
      // hash codes ("1000001", "1000002", ...), which made this lookup the cost of a page diff.
      return Collections.unmodifiableMap(out);
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Batches are in identity order ({@link String#compareTo}); each one is read under the lock
   * when the stream asks for it, after the last identity of the previous batch, so a long walk
   * never blocks writers between batches.
   *
   * @throws IllegalArgumentException when {@code batchSize < 1}
   */
  @Override
  public Stream<List<String>> streamIdentities(PollerKey key, int batchSize) {
    Objects.requireNonNull(key, "key");
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1, was " + batchSize);
    }
    return StreamSupport.stream(new IdentityPages(key, batchSize), false);
  }

  /** Keyset paging over the items of one key. */
  private final class IdentityPages extends Spliterators.AbstractSpliterator<List<String>> {
    private final PollerKey key;
    private final int batchSize;
    private @Nullable String after;
    private boolean done;

    IdentityPages(PollerKey key, int batchSize) {
      super(Long.MAX_VALUE, Spliterator.ORDERED | Spliterator.NONNULL);
      this.key = key;
      this.batchSize = batchSize;
    }

    @Override
    public boolean tryAdvance(Consumer<? super List<String>> action) {
      if (done) {
        return false;
      }
      List<String> batch = new ArrayList<>();
      synchronized (lock) {
        KeyData d = keys.get(key);
        if (d != null) {
          String from = after;
          Set<String> rest =
              from == null ? d.items.keySet() : d.items.tailMap(from, false).keySet();
          for (String identity : rest) {
            if (batch.size() == batchSize) {
              break;
            }
            batch.add(identity);
          }
        }
      }
      if (batch.isEmpty()) {
        done = true;
        return false;
      }
      // A short batch is the last one; stopping here saves a pass that would find nothing.
      done = batch.size() < batchSize;
      after = batch.get(batch.size() - 1);
      action.accept(List.copyOf(batch));
      return true;
    }
  }

  @Override
  public long countItems(PollerKey key) {
    synchronized (lock) {
      KeyData d = keys.get(key);
      return d == null ? 0 : d.items.size();
    }
  }

  // ---- atomic commit and outbox

  /**
   * {@inheritDoc}
   *
   * <p>Upserts are applied before deletes. An event whose sequence is already pending, or appears
   * twice in the batch, is refused with a {@link StoreException} before anything is written, as a
   * primary-key violation is in a SQL store: overwriting it would lose an event. A parked row
   * replaces a parked row with the same id.
   */
  @Override
  public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
    Objects.requireNonNull(batch, "batch");
    Objects.requireNonNull(now, "now");
    synchronized (lock) {
      KeyData d = fenced(key, lease);
      Set<Long> sequences = new HashSet<>();
      for (OutboxRow e : batch.events()) {
        if (!sequences.add(e.sequence()) || d.outbox.containsKey(e.sequence())) {
          throw new StoreException(
              "commit for "
                  + key
                  + ": outbox sequence "
                  + e.sequence()
                  + " is already taken; nothing was written",
              null);
        }
      }
      applyPatch(d, batch.statePatch(), now);
      for (ItemRow row : batch.upserts()) {
        d.items.put(row.identity(), row);
      }
      for (String identity : batch.deletes()) {
        d.items.remove(identity);
      }
      for (OutboxRow e : batch.events()) {
        d.outbox.put(e.sequence(), e);
        if (batch.log()) {
          d.log.put(e.sequence(), new LoggedEvent(e.sequence(), e.event(), now));
        }
      }
      for (ParkedRow p : batch.parked()) {
        d.parked.put(p.id(), p);
      }
    }
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException when {@code limit < 0}
   */
  @Override
  public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
    requireLimit(limit);
    synchronized (lock) {
      KeyData d = keys.get(key);
      if (d == null) {
        return List.of();
      }
      List<OutboxRow> out = new ArrayList<>(Math.min(limit, d.outbox.size()));
      for (OutboxRow row : d.outbox.tailMap(afterSequence, false).values()) {
        if (out.size() == limit) {
          break;
        }
        out.add(row);
      }
      return List.copyOf(out);
    }
  }

  @Override
  public long countPending(PollerKey key) {
    synchronized (lock) {
      KeyData d = keys.get(key);
      return d == null ? 0 : d.outbox.size();
    }
  }

  @Override
  public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
    Objects.requireNonNull(sequences, "sequences");
    synchronized (lock) {
      KeyData d = fenced(key, lease);
      for (Long sequence : sequences) {
        d.outbox.remove(sequence);
      }
    }
  }

  /** {@inheritDoc} An unknown sequence is ignored. */
  @Override
  public void recordAttempt(
      PollerKey key,
      Lease lease,
      long sequence,
      String errorJson,
      @Nullable Instant nextAttemptAt) {
    Objects.requireNonNull(errorJson, "errorJson");
    synchronized (lock) {
      KeyData d = fenced(key, lease);
      OutboxRow row = d.outbox.get(sequence);
      if (row != null) {
        d.outbox.put(
            sequence,
            new OutboxRow(
                row.sequence(),
                row.eventId(),
                row.orderingKey(),
                row.event(),
                row.attempts() + 1,
                nextAttemptAt,
                errorJson,
                row.createdAt()));
      }
    }
  }

  /** {@inheritDoc} A parked row with the same id is replaced. */
  @Override
  public void parkEvent(PollerKey key, Lease lease, ParkedRow row) {
    Objects.requireNonNull(row, "row");
    synchronized (lock) {
      KeyData d = fenced(key, lease);
      Long sequence = row.sequence();
      if (sequence != null) {
        d.outbox.remove(sequence);
      }
      d.parked.put(row.id(), row);
    }
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException when {@code limit < 0}
   */
  @Override
  public List<ParkedRow> listParked(PollerKey key, @Nullable ParkedKind kind, int limit) {
    requireLimit(limit);
    synchronized (lock) {
      KeyData d = keys.get(key);
      if (d == null) {
        return List.of();
      }
      return d.parked.values().stream()
          .filter(p -> kind == null || p.kind() == kind)
          .sorted(OLDEST_FIRST)
          .limit(limit)
          .toList();
    }
  }

  @Override
  public long countParked(PollerKey key) {
    synchronized (lock) {
      KeyData d = keys.get(key);
      return d == null ? 0 : d.parked.size();
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>The re-queued row keeps the parked event id, ordering key and envelope; its {@code
   * createdAt} is the time it was parked. Ids that are not parked are ignored.
   *
   * @throws StoreException when a poison row lacks its sequence, event id or envelope, so it cannot
   *     be re-queued; nothing is changed
   */
  @Override
  public int retryParked(PollerKey key, Collection<String> ids) {
    Objects.requireNonNull(ids, "ids");
    synchronized (lock) {
      KeyData d = keys.get(key);
      if (d == null) {
        return 0;
      }
      List<ParkedRow> found = new ArrayList<>();
      for (String id : new LinkedHashSet<>(ids)) {
        ParkedRow p = d.parked.get(id);
        if (p == null) {
          continue;
        }
        if (p.kind() == ParkedKind.POISON
            && (p.sequence() == null || p.eventId() == null || p.event() == null)) {
          // Dropping it would lose the event for good; refuse the whole retry instead.
          throw new StoreException(
              "retry for "
                  + key
                  + ": parked poison row "
                  + id
                  + " has no sequence, event id or event to put back; nothing was changed",
              null);
        }
        found.add(p);
      }
      for (ParkedRow p : found) {
        d.parked.remove(p.id());
        Long sequence = p.sequence();
        String eventId = p.eventId();
        String event = p.event();
        if (p.kind() == ParkedKind.POISON && sequence != null && eventId != null && event != null) {
          d.outbox.put(
              sequence, OutboxRow.pending(sequence, eventId, p.orderingKey(), event, p.parkedAt()));
        }
      }
      return found.size();
    }
  }

  @Override
  public int discardParked(PollerKey key, Collection<String> ids) {
    Objects.requireNonNull(ids, "ids");
    synchronized (lock) {
      KeyData d = keys.get(key);
      if (d == null) {
        return 0;
      }
      int removed = 0;
      for (String id : new LinkedHashSet<>(ids)) {
        if (d.parked.remove(id) != null) {
          removed++;
        }
      }
      return removed;
    }
  }

  @Override
  public Set<String> heldKeys(PollerKey key) {
    synchronized (lock) {
      KeyData d = keys.get(key);
      if (d == null) {
        return Set.of();
      }
      Set<String> held = new HashSet<>();
      for (ParkedRow p : d.parked.values()) {
        String holdKey = p.holdKey();
        if (holdKey != null) {
          held.add(holdKey);
        }
      }
      return Set.copyOf(held);
    }
  }

  // ---- HTTP validators

  @Override
  public Optional<HttpValidator> getValidator(PollerKey key, String urlHash) {
    Objects.requireNonNull(urlHash, "urlHash");
    synchronized (lock) {
      KeyData d = keys.get(key);
      return d == null ? Optional.empty() : Optional.ofNullable(d.validators.get(urlHash));
    }
  }

  @Override
  public void setValidator(PollerKey key, Lease lease, String urlHash, HttpValidator validator) {
    Objects.requireNonNull(urlHash, "urlHash");
    Objects.requireNonNull(validator, "validator");
    synchronized (lock) {
      fenced(key, lease).validators.put(urlHash, validator);
    }
  }

  // ---- replay log

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException when {@code limit < 0}
   */
  @Override
  public List<LoggedEvent> readLog(PollerKey key, LogRange range, int limit) {
    Objects.requireNonNull(range, "range");
    requireLimit(limit);
    synchronized (lock) {
      KeyData d = keys.get(key);
      if (d == null) {
        return List.of();
      }
      Long afterSequence = range.afterSequence();
      Instant fromTime = range.fromTime();
      Instant toTime = range.toTime();
      Collection<LoggedEvent> candidates =
          afterSequence == null ? d.log.values() : d.log.tailMap(afterSequence, false).values();
      List<LoggedEvent> out = new ArrayList<>();
      for (LoggedEvent e : candidates) {
        if (out.size() == limit) {
          break;
        }
        if ((fromTime == null || !e.createdAt().isBefore(fromTime))
            && (toTime == null || e.createdAt().isBefore(toTime))) {
          out.add(e);
        }
      }
      return List.copyOf(out);
    }
  }

  /** {@inheritDoc} The floor is read under the store's one lock, with the delete. */
  @Override
  public int pruneLog(PollerKey key, Instant olderThan) {
    Objects.requireNonNull(olderThan, "olderThan");
    synchronized (lock) {
      KeyData d = keys.get(key);
      if (d == null) {
        return 0;
      }
      long floor = effects.lowestWatermark(key).orElse(Long.MAX_VALUE);
      int before = d.log.size();
      d.log.headMap(floor, true).values().removeIf(e -> e.createdAt().isBefore(olderThan));
      return before - d.log.size();
    }
  }

  // ---- helpers; callers hold the lock

  private KeyData data(PollerKey key) {
    return keys.computeIfAbsent(Objects.requireNonNull(key, "key"), k -> new KeyData());
  }

  private static boolean isCurrent(KeyData d, Lease lease) {
    Lease current = d.lease;
    return current != null
        && current.epoch() == lease.epoch()
        && current.owner().equals(lease.owner());
  }

  /** The key's data when {@code lease} is its current lease; expiry is not checked. */
  private KeyData fenced(PollerKey key, Lease lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    KeyData d = keys.get(key);
    if (d == null || !isCurrent(d, lease)) {
      Lease current = d == null ? null : d.lease;
      throw new LeaseLostException(key, lease.epoch(), current == null ? null : current.epoch());
    }
    return d;
  }

  private static void applyPatch(KeyData d, StatePatch patch, Instant now) {
    PollerState state = d.state;
    d.state = state == null ? PollerState.create(patch, now) : state.apply(patch, now);
  }

  private static void requireLimit(int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative, was " + limit);
    }
  }

  // CPD-OFF: what follows forwards the CredentialStore methods, one line each, to the class that
  // keeps the credentials table; every store has the interface's shape, which is no copy.
  // ---- credentials (CredentialStore)

  /** {@inheritDoc} Under the store's one lock, like every call. */
  @Override
  public Optional<StoredCredential> loadCredential(String name) {
    synchronized (lock) {
      return Optional.ofNullable(credentials.get(name));
    }
  }

  /** {@inheritDoc} Under the store's one lock, like every call. */
  @Override
  public boolean compareAndSetCredential(long expectedVersion, StoredCredential next) {
    if (next.version() != expectedVersion + 1)
      throw new IllegalArgumentException(
          "next version must be " + (expectedVersion + 1) + ", was " + next.version());
    synchronized (lock) {
      StoredCredential stored = credentials.get(next.name());
      long storedVersion = stored == null ? 0 : stored.version();
      if (storedVersion != expectedVersion) return false;
      credentials.put(next.name(), next);
      return true;
    }
  }

  /** {@inheritDoc} Under the store's one lock, like every call. */
  @Override
  public boolean deleteCredential(String name) {
    synchronized (lock) {
      return credentials.remove(name) != null;
    }
  }

  /** {@inheritDoc} Under the store's one lock, like every call. */
  @Override
  public List<String> listCredentials() {
    synchronized (lock) {
      return credentials.keySet().stream().sorted().toList();
    }
  }

  // CPD-ON

  // ---- effects

  /** {@inheritDoc} Kept under the store's one lock, like every call. */
  @Override
  public Optional<EffectStore> effects() {
    return Optional.of(effects);
  }
}
