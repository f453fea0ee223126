package io.watukuy;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The durability port: leases, cursors and schedule, the item snapshot, the outbox, parked rows,
 * HTTP validators and the optional replay log of every {@link PollerKey} (Stores document, "The
 * StateStore contract"). Implementations are storage primitives only: no retry policy, diffing,
 * backoff or clock reads; every time a store needs is passed in as {@code now}.
 *
 * <p>Rules every implementation follows, certified by {@code StoreContractTest} in
 * {@code watukuy-testing}:
 *
 * <ol>
 *   <li><b>Fencing.</b> Every method that takes a {@link Lease} compares owner and epoch with the
 *       stored lease and throws {@link LeaseLostException} on mismatch. {@link #acquireLease}
 *       succeeds only when the key is unowned or its lease has expired ({@code expiresAt <=
 *       now}), and increments the epoch on every acquisition.
 *   <li><b>Atomicity.</b> {@link #commitPoll} writes the state patch, upserts, deletes, events,
 *       the log append and parked rows in one transaction, or nothing.
 *   <li><b>Ordering.</b> {@link #loadPending} returns rows in sequence order and does not filter
 *       by {@code nextAttemptAt}: the dispatcher decides eligibility so per-key order holds.
 *   <li><b>Unfenced administrative writes</b> ({@link #saveStateUnfenced}, {@link #retryParked},
 *       {@link #discardParked}, {@link #deleteKey}, {@link #clearItems}) never touch the lease.
 *   <li><b>Copies, not references.</b> Returned objects are immutable or copies.
 * </ol>
 *
 * <p>Implementations are safe for use from several threads. No constructor performs I/O; tables
 * are created by {@link #migrate()} or lazily on first use. Driver failures are wrapped in
 * {@link StoreException}.
 *
 * @since 0.1
 */
public interface StateStore extends AutoCloseable {

  /** What this store offers. */
  StoreCapabilities capabilities();

  /** Creates tables and indexes when missing. Idempotent; safe from several processes. */
  void migrate();

  /** Releases the store's resources. Idempotent. Does not release leases. */
  @Override
  void close();

  // ---- leases (guarantee G5)

  /**
   * Acquires the lease of {@code key} for {@code owner} until {@code now + ttl}, when the key is
   * unowned or its lease has expired ({@code expiresAt <= now}). The epoch is the previous
   * epoch + 1 (1 for a new key), also when the same owner re-acquires.
   *
   * @return the new lease, or empty when another live lease holds the key
   */
  Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now);

  /**
   * Extends a held lease to {@code now + ttl}, keeping its epoch.
   *
   * @return the renewed lease, or empty when {@code lease} is no longer current (never throws
   *     {@link LeaseLostException})
   */
  Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now);

  /**
   * Releases a held lease so another instance can acquire at once. A lease that is no longer
   * current is left alone (no exception): the new holder's lease must survive.
   */
  void releaseLease(PollerKey key, Lease lease);

  /** The stored lease of {@code key}, expired or not, or empty when never acquired or released. */
  Optional<Lease> getLease(PollerKey key);

  // ---- state

  /** The state of {@code key}, or empty before its first write. */
  Optional<PollerState> loadState(PollerKey key);

  /**
   * Applies {@code patch} to the state of {@code key} (creating it when missing).
   *
   * @throws LeaseLostException when {@code lease} is not current
   */
  void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now);

  /** Applies {@code patch} without a lease, for pause, resume, trigger and resetCursor. */
  void saveStateUnfenced(PollerKey key, StatePatch patch, Instant now);

  /** Keys with stored state, of one poller or of all when {@code poller} is null, sorted. */
  List<PollerKey> listKeys(@Nullable String poller);

  /** Removes everything stored for {@code key}, its lease included. */
  void deleteKey(PollerKey key);

  /** Removes every item row of {@code key}. */
  void clearItems(PollerKey key);

  // ---- items

  /** Stored rows of the given identities; identities without a row are absent from the map. */
  Map<String, ItemRow> loadVersions(PollerKey key, Collection<String> identities);

  /**
   * Every stored identity of {@code key}, in batches of at most {@code batchSize}, without
   * loading the whole snapshot. The stream must be closed. Identities inserted or removed while
   * the stream is consumed may or may not appear.
   */
  Stream<List<String>> streamIdentities(PollerKey key, int batchSize);

  /** Number of stored item rows. */
  long countItems(PollerKey key);

  // ---- atomic commit and outbox (guarantee G4)

  /**
   * Writes {@code batch} in one transaction: state patch, upserts, deletes, outbox rows, the log
   * append when {@code batch.log()}, parked rows. Either all of it or nothing is stored.
   *
   * @throws LeaseLostException when {@code lease} is not current; nothing is written
   * @throws StoreException on a driver failure; nothing is written
   */
  void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now);

  /**
   * Pending outbox rows with sequence strictly greater than {@code afterSequence}, in sequence
   * order, at most {@code limit}, whatever their {@code nextAttemptAt}.
   */
  List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit);

  /** Number of pending outbox rows. */
  long countPending(PollerKey key);

  /**
   * Removes (or marks delivered) the pending rows with these sequences. Unknown sequences are
   * ignored, so an ack is idempotent.
   *
   * @throws LeaseLostException when {@code lease} is not current
   */
  void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences);

  /**
   * Records a failed delivery attempt of the row {@code sequence}: attempts + 1, the error
   * history JSON, and the earliest next attempt.
   *
   * @throws LeaseLostException when {@code lease} is not current
   */
  void recordAttempt(
      PollerKey key, Lease lease, long sequence, String errorJson, @Nullable Instant nextAttemptAt);

  /**
   * Moves a poison event from the outbox to the parked rows in one transaction: removes the
   * outbox row {@code row.sequence()} and inserts {@code row}.
   *
   * @throws LeaseLostException when {@code lease} is not current
   */
  void parkEvent(PollerKey key, Lease lease, ParkedRow row);

  /** Parked rows, oldest first, of one kind or of all when {@code kind} is null. */
  List<ParkedRow> listParked(PollerKey key, @Nullable ParkedKind kind, int limit);

  /** Number of parked rows. */
  long countParked(PollerKey key);

  /**
   * Puts parked poison events back into the outbox at their original sequence with zero
   * attempts, and removes them (and parked invalid items) from the parked rows.
   *
   * @return the number of rows removed from the parked rows
   */
  int retryParked(PollerKey key, Collection<String> ids);

  /**
   * Drops parked rows for good.
   *
   * @return the number of rows removed
   */
  int discardParked(PollerKey key, Collection<String> ids);

  /** Ordering keys held back by parked rows whose {@code holdKey} is set. */
  Set<String> heldKeys(PollerKey key);

  // ---- HTTP validators

  /** The validator stored for the URL hash, or empty. */
  Optional<HttpValidator> getValidator(PollerKey key, String urlHash);

  /**
   * Stores (replaces) the validator of the URL hash.
   *
   * @throws LeaseLostException when {@code lease} is not current
   */
  void setValidator(PollerKey key, Lease lease, String urlHash, HttpValidator validator);

  // ---- replay log

  /** Logged events in {@code range}, in sequence order, at most {@code limit}. */
  List<LoggedEvent> readLog(PollerKey key, LogRange range, int limit);

  /**
   * Removes logged events created strictly before {@code olderThan}.
   *
   * @return the number removed
   */
  int pruneLog(PollerKey key, Instant olderThan);
}
