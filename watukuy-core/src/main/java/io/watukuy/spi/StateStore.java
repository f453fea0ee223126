package io.watukuy.spi;

import io.watukuy.EventLog;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.StoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The durability port: leases, cursors and schedule, the item snapshot, the outbox, parked rows,
 * HTTP validators and the optional replay log of every {@link PollerKey} (docs/stores.md, "The
 * StateStore contract"). Implementations are storage primitives only: no retry policy, diffing,
 * backoff or clock reads; every time a store needs is passed in as {@code now}.
 *
 * <p>Rules every implementation follows, certified by {@code StoreContractTest} in {@code
 * watukuy-testing}:
 *
 * <ol>
 *   <li><b>Fencing.</b> Every method that takes a {@link Lease} compares owner and epoch with the
 *       stored lease and throws {@link LeaseLostException} on mismatch. {@link #acquireLease}
 *       succeeds only when the key is unowned or its lease has expired ({@code expiresAt <= now}),
 *       and increments the epoch on every acquisition.
 *   <li><b>Atomicity.</b> {@link #commitPoll} writes the state patch, upserts, deletes, events, the
 *       log append and parked rows in one transaction, or nothing.
 *   <li><b>Ordering.</b> {@link #loadPending} returns rows in sequence order and does not filter by
 *       {@code nextAttemptAt}: the dispatcher decides eligibility so per-key order holds.
 *   <li><b>Unfenced administrative writes</b> ({@link #saveStateUnfenced}, {@link #retryParked},
 *       {@link #discardParked}, {@link #deleteKey}, {@link #clearItems}) never touch the lease.
 *   <li><b>Copies, not references.</b> Returned objects are immutable or copies.
 * </ol>
 *
 * <p>Implementations are safe for use from several threads. No constructor performs I/O; tables are
 * created by {@link #migrate()} or lazily on first use. Driver failures are wrapped in {@link
 * StoreException}.
 *
 * @since 0.1
 */
public interface StateStore extends AutoCloseable {

  /**
   * What this store offers. Constant for the life of the store; performs no I/O.
   *
   * @return the capabilities; {@code transactions} must be {@code true}
   */
  StoreCapabilities capabilities();

  /**
   * Creates tables and indexes when missing. Idempotent; safe from several processes at once.
   * Stores also create them lazily on first use, so calling it is optional.
   *
   * @throws StoreException if the schema cannot be created or is newer than the store supports
   */
  void migrate();

  /** Releases the store's resources. Idempotent. Does not release leases. */
  @Override
  void close();

  // ---- leases (guarantee G5)

  /**
   * Acquires the lease of {@code key} for {@code owner} until {@code now + ttl}, when the key is
   * unowned or its lease has expired ({@code expiresAt <= now}). The epoch is the previous epoch +
   * 1 (1 for a new key), also when the same owner re-acquires. Epochs never go back, not even after
   * {@link #releaseLease} or {@link #deleteKey} (StateStore contract rule 1; guarantee G5).
   *
   * @param key the key to lease
   * @param owner the caller's instance id
   * @param ttl how long the lease lasts; positive
   * @param now the caller's current time; the store never reads a clock
   * @return the new lease, or empty when another live lease holds the key
   * @throws StoreException on a driver failure
   */
  Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now);

  /**
   * Extends a held lease to {@code now + ttl}, keeping its epoch. Owner and epoch must match the
   * stored lease; its expiry is not checked, so a lease that expired but was not taken over can
   * still be renewed.
   *
   * @param key the key
   * @param lease the lease the caller holds
   * @param ttl how long the renewed lease lasts, from {@code now}; positive
   * @param now the caller's current time
   * @return the renewed lease, or empty when {@code lease} is no longer current (never throws
   *     {@link LeaseLostException})
   * @throws StoreException on a driver failure
   */
  Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now);

  /**
   * Releases a held lease so another instance can acquire at once. A lease that is no longer
   * current is left alone (no exception): the new holder's lease must survive. The epoch counter is
   * kept.
   *
   * @param key the key
   * @param lease the lease the caller holds
   * @throws StoreException on a driver failure
   */
  void releaseLease(PollerKey key, Lease lease);

  /**
   * The stored lease of {@code key}, expired or not. For inspection; fencing never relies on it.
   *
   * @param key the key
   * @return the lease, or empty when never acquired or released since
   */
  Optional<Lease> getLease(PollerKey key);

  // ---- a cycle's start and end, one call each (docs/architecture.md, "What an idle poll costs")

  /**
   * Acquires the lease of {@code key} exactly as {@link #acquireLease} does and, with it, reads
   * what a poll cycle starts from: the state ({@link #loadState}) and whether the outbox holds a
   * pending row. An idle poll (due, an empty page or a 304) is this call and one {@link
   * #saveStateAndRelease}; the bundled stores answer it in one round trip (one transaction, one
   * statement or one script). Epochs, expiry and the rules of {@link #acquireLease} are unchanged
   * (StateStore contract rule 1; guarantee G5).
   *
   * <p>The default implementation calls {@link #acquireLease}, then {@link #loadState} and {@link
   * #countPending}, so that a store written before this method keeps working; override it to save
   * the round trips.
   *
   * @param key the key to lease
   * @param owner the caller's instance id
   * @param ttl how long the lease lasts; positive
   * @param now the caller's current time; the store never reads a clock
   * @return the lease with the state read under it, or empty when another live lease holds the key
   *     (nothing is read then)
   * @throws StoreException on a driver failure or a stored state that cannot be read
   * @since 0.1
   */
  default Optional<LeasedState> acquireLeaseAndLoad(
      PollerKey key, String owner, Duration ttl, Instant now) {
    Optional<Lease> lease = acquireLease(key, owner, ttl, now);
    if (lease.isEmpty()) return Optional.empty();
    return Optional.of(
        new LeasedState(lease.get(), loadState(key).orElse(null), countPending(key) > 0));
  }

  /**
   * Ends a cycle in one step: applies {@code patch} as {@link #saveState} does and releases the
   * lease as {@link #releaseLease} does, atomically, provided the stored schedule is still {@code
   * expected}, the one the caller read under this lease. Fenced like every write that takes a lease
   * (contract rule 1): the lease is checked first, so a lost lease throws whatever the schedule.
   *
   * <p>The schedule is the one part of a state that an unfenced write (pause, resume, trigger, a
   * partition change: {@link #saveStateUnfenced}) may change while a cycle holds the lease. When it
   * did, this method writes nothing and keeps the lease, and the caller merges the operation into
   * what it computed and writes with {@link #saveState}: an operation made during a cycle is never
   * overwritten by the cycle's end. A store compares the schedule it holds with {@code expected};
   * it may answer {@code false} for an equal schedule whose stored form differs from the one it
   * would write for {@code expected} (the caller then takes the longer path), never {@code true}
   * for a different one.
   *
   * <p>The default implementation calls {@link #getLease}, {@link #loadState}, then {@link
   * #saveState} and {@link #releaseLease}; the bundled stores do it in one round trip.
   *
   * @param key the key
   * @param lease the lease the caller holds
   * @param expected the schedule the caller read under {@code lease} (or last wrote with it), or
   *     {@code null} when the key had no state
   * @param patch the fields to replace; the state is created when missing
   * @param now the caller's current time; becomes {@code updatedAt}
   * @return {@code true} when the patch is written and the lease released; {@code false} when the
   *     stored schedule is not {@code expected}: nothing is written and the lease is still held
   * @throws LeaseLostException when {@code lease} is not current; nothing is written
   * @throws StoreException on a driver failure; nothing is written, the lease is still held or
   *     expires by itself
   * @since 0.1
   */
  default boolean saveStateAndRelease(
      PollerKey key, Lease lease, @Nullable ScheduleState expected, StatePatch patch, Instant now) {
    Objects.requireNonNull(lease, "lease");
    Optional<Lease> held = getLease(key);
    if (held.isEmpty()) throw new LeaseLostException(key, lease.epoch(), null);
    if (!held.get().owner().equals(lease.owner()) || held.get().epoch() != lease.epoch())
      throw new LeaseLostException(key, lease.epoch(), held.get().epoch());
    ScheduleState stored = loadState(key).map(PollerState::schedule).orElse(null);
    if (!Objects.equals(stored, expected)) return false;
    saveState(key, lease, patch, now);
    releaseLease(key, lease);
    return true;
  }

  // ---- state

  /**
   * The state of {@code key}.
   *
   * @param key the key
   * @return the state, or empty before its first write
   * @throws StoreException on a driver failure or a stored state that cannot be read
   */
  Optional<PollerState> loadState(PollerKey key);

  /**
   * Applies {@code patch} to the state of {@code key} with {@link PollerState#apply}, or creates
   * the state with {@link PollerState#create} when missing. Fenced (contract rule 1).
   *
   * @param key the key
   * @param lease the lease the caller holds
   * @param patch the fields to replace
   * @param now the caller's current time; becomes {@code updatedAt}
   * @throws LeaseLostException when {@code lease} is not current; nothing is written
   * @throws StoreException on a driver failure; nothing is written
   */
  void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now);

  /**
   * Applies {@code patch} without a lease, for pause, resume, trigger, resetCursor and partition
   * changes (contract rule 4): the lease is not read or touched, so a cycle in flight keeps it.
   *
   * @param key the key; its state is created when missing
   * @param patch the fields to replace
   * @param now the caller's current time; becomes {@code updatedAt}
   * @throws StoreException on a driver failure; nothing is written
   */
  void saveStateUnfenced(PollerKey key, StatePatch patch, Instant now);

  /**
   * Keys with stored state. A key that only ever had a lease is not listed.
   *
   * @param poller a poller name, or {@code null} for every poller
   * @return the keys in {@link PollerKey} order
   */
  List<PollerKey> listKeys(@Nullable String poller);

  /**
   * Removes everything stored for {@code key}, its lease included (contract rule 4). The epoch
   * counter survives, so a holder from before the delete stays fenced out.
   *
   * @param key the key
   * @throws StoreException on a driver failure
   */
  void deleteKey(PollerKey key);

  /**
   * Removes every item row of {@code key}, so every item is created again on its next observation
   * (contract rule 4). Does not touch the lease, the state or the outbox.
   *
   * @param key the key
   * @throws StoreException on a driver failure
   */
  void clearItems(PollerKey key);

  // ---- items

  /**
   * Stored rows of the given identities.
   *
   * @param key the key
   * @param identities identities to look up; duplicates are allowed
   * @return identity to row; identities without a row are absent from the map
   */
  Map<String, ItemRow> loadVersions(PollerKey key, Collection<String> identities);

  /**
   * Every stored identity of {@code key}, in batches of at most {@code batchSize}, without loading
   * the whole snapshot. The stream must be closed. Identities inserted or removed while the stream
   * is consumed may or may not appear. Each identity appears once.
   *
   * @param key the key
   * @param batchSize the largest batch; at least 1
   * @return a lazy stream of non-empty batches; close it (try-with-resources) to release what it
   *     holds
   * @throws IllegalArgumentException if {@code batchSize} is below 1
   */
  Stream<List<String>> streamIdentities(PollerKey key, int batchSize);

  /**
   * The number of stored item rows.
   *
   * @param key the key
   * @return the count, 0 for an unknown key
   */
  long countItems(PollerKey key);

  // ---- atomic commit and outbox (guarantee G4)

  /**
   * Writes {@code batch} in one transaction: state patch, upserts, deletes, outbox rows, the log
   * append when {@code batch.log()}, parked rows. Either all of it or nothing is stored (contract
   * rule 2; guarantee G4). The state is created when missing; upserts replace rows by identity; a
   * parked row replaces one with the same id; an outbox sequence already pending fails the commit.
   *
   * @param key the key
   * @param lease the lease the caller holds
   * @param batch everything the page commits
   * @param now the caller's current time: {@code updatedAt} of the state and {@code createdAt} of
   *     logged events
   * @throws LeaseLostException when {@code lease} is not current; nothing is written
   * @throws StoreException on a driver failure; nothing is written
   */
  void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now);

  /**
   * Pending outbox rows with sequence strictly greater than {@code afterSequence}, in sequence
   * order, at most {@code limit}, whatever their {@code nextAttemptAt} (contract rule 3): the
   * dispatcher decides which are due, so per-key order holds.
   *
   * @param key the key
   * @param afterSequence exclusive lower bound; 0 starts at the beginning
   * @param limit the most rows to return; 0 or more
   * @return the rows, possibly fewer than {@code limit}
   * @throws IllegalArgumentException if {@code limit} is negative
   */
  List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit);

  /**
   * The number of pending outbox rows.
   *
   * @param key the key
   * @return the count, 0 for an unknown key
   */
  long countPending(PollerKey key);

  /**
   * Removes (or marks delivered) the pending rows with these sequences. Unknown sequences are
   * ignored, so an ack is idempotent. Keyed by sequence, not event id, because an id can repeat.
   *
   * @param key the key
   * @param lease the lease the caller holds
   * @param sequences the outbox sequences of the delivered rows
   * @throws LeaseLostException when {@code lease} is not current; nothing is written
   * @throws StoreException on a driver failure
   */
  void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences);

  /**
   * Records a failed delivery attempt of the row {@code sequence}: attempts + 1, the error history
   * JSON, and the earliest next attempt. An unknown sequence is ignored.
   *
   * @param key the key
   * @param lease the lease the caller holds
   * @param sequence the outbox sequence of the row
   * @param errorJson the whole attempt history, replacing {@link OutboxRow#lastError()}
   * @param nextAttemptAt the earliest next attempt, or {@code null} for now
   * @throws LeaseLostException when {@code lease} is not current; nothing is written
   * @throws StoreException on a driver failure
   */
  void recordAttempt(
      PollerKey key, Lease lease, long sequence, String errorJson, @Nullable Instant nextAttemptAt);

  /**
   * Moves a poison event from the outbox to the parked rows in one transaction: removes the outbox
   * row {@code row.sequence()} and inserts {@code row}, replacing a parked row with the same id. A
   * row whose {@code holdKey} is set holds that ordering key (see {@link #heldKeys}).
   *
   * @param key the key
   * @param lease the lease the caller holds
   * @param row the parked row
   * @throws LeaseLostException when {@code lease} is not current; nothing is written
   * @throws StoreException on a driver failure; nothing is written
   */
  void parkEvent(PollerKey key, Lease lease, ParkedRow row);

  /**
   * Parked rows, oldest first ({@code parkedAt}, then id).
   *
   * @param key the key
   * @param kind poison or invalid, or {@code null} for both
   * @param limit the most rows to return; 0 or more
   * @return the rows
   * @throws IllegalArgumentException if {@code limit} is negative
   */
  List<ParkedRow> listParked(PollerKey key, @Nullable ParkedKind kind, int limit);

  /**
   * The number of parked rows, of both kinds.
   *
   * @param key the key
   * @return the count, 0 for an unknown key
   */
  long countParked(PollerKey key);

  /**
   * Puts parked poison events back into the outbox at their original sequence with zero attempts,
   * and removes them (and parked invalid items) from the parked rows, in one transaction. Unfenced
   * (contract rule 4). Ids that are not parked are ignored.
   *
   * @param key the key
   * @param ids {@link ParkedRow#id()} values
   * @return the number of rows removed from the parked rows
   * @throws StoreException on a driver failure, or when a parked poison row lacks the sequence,
   *     event id or envelope needed to re-queue it; nothing is changed
   */
  int retryParked(PollerKey key, Collection<String> ids);

  /**
   * Drops parked rows for good, releasing the ordering keys they held. Unfenced (contract rule 4).
   * Ids that are not parked are ignored.
   *
   * @param key the key
   * @param ids {@link ParkedRow#id()} values
   * @return the number of rows removed
   * @throws StoreException on a driver failure; nothing is changed
   */
  int discardParked(PollerKey key, Collection<String> ids);

  /**
   * Ordering keys held back by parked rows whose {@code holdKey} is set; the dispatcher delivers
   * none of their events until the rows are retried or discarded (guarantee G3).
   *
   * @param key the key
   * @return the held ordering keys, empty when none
   */
  Set<String> heldKeys(PollerKey key);

  // ---- HTTP validators

  /**
   * The validator stored for a URL.
   *
   * @param key the key
   * @param urlHash the lowercase hex SHA-256 of the request URL
   * @return the validator, or empty
   */
  Optional<HttpValidator> getValidator(PollerKey key, String urlHash);

  /**
   * Stores (replaces) the validator of the URL hash.
   *
   * @param key the key
   * @param lease the lease the caller holds
   * @param urlHash the lowercase hex SHA-256 of the request URL
   * @param validator the ETag and Last-Modified to send next time
   * @throws LeaseLostException when {@code lease} is not current; nothing is written
   * @throws StoreException on a driver failure
   */
  void setValidator(PollerKey key, Lease lease, String urlHash, HttpValidator validator);

  // ---- replay log

  /**
   * Logged events in {@code range}, in sequence order, at most {@code limit}.
   *
   * @param key the key
   * @param range sequence and time bounds
   * @param limit the most events to return; 0 or more
   * @return the events
   * @throws IllegalArgumentException if {@code limit} is negative
   */
  List<LoggedEvent> readLog(PollerKey key, LogRange range, int limit);

  /**
   * Removes logged events created strictly before {@code olderThan}. Unfenced.
   *
   * <p>A store that keeps effect tables ({@link #effects()}) keeps every event above the lowest
   * watermark of the effects reading this key ({@link EffectStore#lowestWatermark}), however old:
   * an effect that has not read an event yet still needs it (docs/effects.md, "Retention"). It
   * reads that floor in the same statement or under the same lock as the delete, so a cursor
   * written meanwhile is honoured.
   *
   * @param key the key
   * @param olderThan the exclusive cut-off, computed by the caller (for example {@code now} minus
   *     {@link EventLog#retention()})
   * @return the number removed
   * @throws StoreException on a driver failure
   */
  int pruneLog(PollerKey key, Instant olderThan);

  // ---- effect tables

  /**
   * The store's effect tables (docs/stores.md, "EffectStore"): the cursors, invocations, journal,
   * quarantine, counters, leases and subject keys of effects, kept in the same database as this
   * store's event log, so that {@link #pruneLog} can honour the effects' watermarks in the same
   * statement or lock as its delete.
   *
   * @return the store's {@link EffectStore}, over the same tables on every call; empty (the
   *     default) for a store that keeps no effect tables, on which no effect can run
   */
  default Optional<EffectStore> effects() {
    return Optional.empty();
  }
}
