package io.watukuy.store.jdbc;

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
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A state store over a {@link JdbcStoreEngine}: every operation of the {@link StateStore} SPI
 * handed to the engine, which runs it with the store's {@link SqlDialect}. A store front (such as
 * {@code PostgresStore} or {@code SqliteStore}) extends it, builds its engine, and adds its
 * builder, options and DDL; the contract each operation keeps is the SPI's (docs/stores.md),
 * certified by {@code StoreContractTest}. It is also the store's {@link CredentialStore} (the
 * credentials table in the same database), certified by {@code CredentialStoreContractTest}, and
 * keeps the effect tables ({@link #effects()}), certified by {@code EffectStoreContractTest}; an
 * effect call that names a source key checks it with {@link #key} first.
 */
public abstract class JdbcStore implements StateStore, CredentialStore {
  // The engine's effect tables checking keys with key(); two threads may both build it, alike.
  private volatile @Nullable JdbcEffectStore effects;

  /** For subclasses. */
  protected JdbcStore() {}

  /**
   * The engine this store hands its operations to; the same instance on every call.
   *
   * @return the store's engine
   */
  protected abstract JdbcStoreEngine engine();

  /**
   * Checks a key before an operation hands it to the engine: where a database limits what a key
   * column holds, a store refuses a key it cannot store with a clear message before anything is
   * written. Called once per operation that names a key. Defaults to no check.
   *
   * @param operation the SPI method's name, for the message
   * @param key the key the operation names; not null
   * @return {@code key}
   * @throws StoreException if the store cannot hold this key
   */
  protected PollerKey key(String operation, PollerKey key) {
    return key;
  }

  /**
   * Checks the rows of a commit before it runs, like {@link #key}: the default checks nothing.
   *
   * @param key the key, already checked
   * @param batch the commit
   * @return {@code batch}
   * @throws StoreException if the store cannot hold a row of it; nothing is written
   */
  protected CommitBatch checked(PollerKey key, CommitBatch batch) {
    return batch;
  }

  @Override
  public StoreCapabilities capabilities() {
    return engine().capabilities();
  }

  @Override
  public void migrate() {
    engine().migrate();
  }

  @Override
  public void close() {
    engine().close();
  }

  // ---- leases

  @Override
  public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
    return engine().acquireLease(key("acquireLease", key), owner, ttl, now);
  }

  @Override
  public Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now) {
    return engine().renewLease(key("renewLease", key), lease, ttl, now);
  }

  @Override
  public void releaseLease(PollerKey key, Lease lease) {
    engine().releaseLease(key("releaseLease", key), lease);
  }

  @Override
  public Optional<Lease> getLease(PollerKey key) {
    return engine().getLease(key("getLease", key));
  }

  // ---- a cycle's start and end

  @Override
  public Optional<LeasedState> acquireLeaseAndLoad(
      PollerKey key, String owner, Duration ttl, Instant now) {
    return engine().acquireLeaseAndLoad(key("acquireLeaseAndLoad", key), owner, ttl, now);
  }

  @Override
  public boolean saveStateAndRelease(
      PollerKey key, Lease lease, @Nullable ScheduleState expected, StatePatch patch, Instant now) {
    return engine()
        .saveStateAndRelease(key("saveStateAndRelease", key), lease, expected, patch, now);
  }

  // ---- state

  @Override
  public Optional<PollerState> loadState(PollerKey key) {
    return engine().loadState(key("loadState", key));
  }

  @Override
  public void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now) {
    engine().saveState(key("saveState", key), lease, patch, now);
  }

  @Override
  public void saveStateUnfenced(PollerKey key, StatePatch patch, Instant now) {
    engine().saveStateUnfenced(key("saveStateUnfenced", key), patch, now);
  }

  @Override
  public List<PollerKey> listKeys(@Nullable String poller) {
    return engine().listKeys(poller);
  }

  @Override
  public void deleteKey(PollerKey key) {
    engine().deleteKey(key("deleteKey", key));
  }

  @Override
  public void clearItems(PollerKey key) {
    engine().clearItems(key("clearItems", key));
  }

  // ---- items

  @Override
  public Map<String, ItemRow> loadVersions(PollerKey key, Collection<String> identities) {
    return engine().loadVersions(key("loadVersions", key), identities);
  }

  @Override
  public Stream<List<String>> streamIdentities(PollerKey key, int batchSize) {
    return engine().streamIdentities(key("streamIdentities", key), batchSize);
  }

  @Override
  public long countItems(PollerKey key) {
    return engine().countItems(key("countItems", key));
  }

  // ---- commit and outbox

  @Override
  public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
    engine().commitPoll(key("commitPoll", key), lease, checked(key, batch), now);
  }

  @Override
  public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
    return engine().loadPending(key("loadPending", key), afterSequence, limit);
  }

  @Override
  public long countPending(PollerKey key) {
    return engine().countPending(key("countPending", key));
  }

  @Override
  public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
    engine().ackEvents(key("ackEvents", key), lease, sequences);
  }

  /**
   * Acks inside a caller's transaction, fenced (docs/stores.md, "Acks inside a caller's
   * transaction"): runs {@code work} on the store's connection and deletes the outbox rows {@code
   * sequences} of {@code key} in ONE transaction that first locks the key's row and compares its
   * lease with {@code lease}. The work's writes and the acks commit together or not at all; a stale
   * epoch or a lost lease refuses both. This is what makes a table in the store's own database
   * exactly-once (the table sink's {@code sameDatabase: true}): a crash before the commit leaves
   * the rows pending and the table untouched, a crash after it leaves nothing to repeat. The
   * engine's own {@link #ackEvents} of the same sequences afterwards is a no-op (unknown sequences
   * are ignored).
   *
   * <p>A failure the dialect calls retryable (a serialization failure, a deadlock, a busy database)
   * rolls the transaction back and runs it again, {@code work} included, at most {@link
   * JdbcStoreEngine#MAX_ATTEMPTS} times in all; the work must not have effects outside the
   * transaction.
   *
   * @param key the key whose outbox rows are acked
   * @param lease the lease the caller holds (the batch's, {@code Sink.handOff()})
   * @param sequences the outbox sequences to ack; unknown ones are ignored
   * @param work the caller's writes; must not commit, roll back or change auto-commit
   * @param <T> what the work returns
   * @return the work's result, once everything committed
   * @throws io.watukuy.LeaseLostException when {@code lease} is not current: nothing is written
   * @throws StoreException on a driver failure, the work's {@link java.sql.SQLException} included
   *     (as the cause): nothing is written
   * @since 0.2
   */
  public <T> T ackWithin(
      PollerKey key, Lease lease, Collection<Long> sequences, CallerWork<T> work) {
    return engine().ackWithin(key("ackWithin", key), lease, sequences, work);
  }

  /**
   * Runs a caller's reads (checking that a table and its columns exist) on a connection to the
   * store's database, in auto-commit.
   *
   * @param op what the work does, for a failure's message, e.g. {@code check table orders}
   * @param work the reads; must not leave a transaction open
   * @param <T> what the work returns
   * @return the work's result
   * @throws StoreException on a driver failure, with the {@link java.sql.SQLException} as cause
   * @since 0.2
   */
  public <T> T withConnection(String op, CallerWork<T> work) {
    return engine().withConnection(op, work);
  }

  @Override
  public void recordAttempt(
      PollerKey key,
      Lease lease,
      long sequence,
      String errorJson,
      @Nullable Instant nextAttemptAt) {
    engine().recordAttempt(key("recordAttempt", key), lease, sequence, errorJson, nextAttemptAt);
  }

  @Override
  public void parkEvent(PollerKey key, Lease lease, ParkedRow row) {
    engine().parkEvent(key("parkEvent", key), lease, row);
  }

  @Override
  public List<ParkedRow> listParked(PollerKey key, @Nullable ParkedKind kind, int limit) {
    return engine().listParked(key("listParked", key), kind, limit);
  }

  @Override
  public long countParked(PollerKey key) {
    return engine().countParked(key("countParked", key));
  }

  @Override
  public int retryParked(PollerKey key, Collection<String> ids) {
    return engine().retryParked(key("retryParked", key), ids);
  }

  @Override
  public int discardParked(PollerKey key, Collection<String> ids) {
    return engine().discardParked(key("discardParked", key), ids);
  }

  @Override
  public Set<String> heldKeys(PollerKey key) {
    return engine().heldKeys(key("heldKeys", key));
  }

  // ---- HTTP validators

  @Override
  public Optional<HttpValidator> getValidator(PollerKey key, String urlHash) {
    return engine().getValidator(key("getValidator", key), urlHash);
  }

  @Override
  public void setValidator(PollerKey key, Lease lease, String urlHash, HttpValidator validator) {
    engine().setValidator(key("setValidator", key), lease, urlHash, validator);
  }

  // ---- replay log

  @Override
  public List<LoggedEvent> readLog(PollerKey key, LogRange range, int limit) {
    return engine().readLog(key("readLog", key), range, limit);
  }

  @Override
  public int pruneLog(PollerKey key, Instant olderThan) {
    return engine().pruneLog(key("pruneLog", key), olderThan);
  }

  // CPD-OFF: what follows forwards the CredentialStore methods, one line each, to the class that
  // keeps the credentials table; every store has the interface's shape, which is no copy.
  // ---- credentials

  @Override
  public Optional<StoredCredential> loadCredential(String name) {
    return engine().loadCredential(name);
  }

  @Override
  public boolean compareAndSetCredential(long expectedVersion, StoredCredential next) {
    return engine().compareAndSetCredential(expectedVersion, next);
  }

  @Override
  public boolean deleteCredential(String name) {
    return engine().deleteCredential(name);
  }

  @Override
  public List<String> listCredentials() {
    return engine().listCredentials();
  }

  // CPD-ON

  // ---- effects

  /**
   * {@inheritDoc} The engine's effect tables, with every source key checked by {@link #key} first.
   */
  @Override
  public Optional<EffectStore> effects() {
    JdbcEffectStore checked = effects;
    if (checked == null) {
      // Built on first use: engine() is a subclass's, not ready while this constructor runs.
      checked = engine().effectsCheckingKeys(this::key);
      effects = checked;
    }
    return Optional.of(checked);
  }
}
