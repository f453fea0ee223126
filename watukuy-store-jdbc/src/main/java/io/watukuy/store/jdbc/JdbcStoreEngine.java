package io.watukuy.store.jdbc;

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
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The {@link StateStore} over JDBC that every SQL store front wraps: the whole StateStore contract,
 * written once, with what differs between databases asked of a {@link SqlDialect}.
 *
 * <pre>{@code
 * JdbcStoreEngine engine = JdbcStoreEngine.builder(new PostgresDialect(options))
 *     .dataSource(pool, closeClient)
 *     .name(this::toString)
 *     .build();
 * }</pre>
 *
 * <p><b>Connections.</b> Either a {@link DataSource} ({@link Builder#dataSource}): every call
 * borrows a connection and returns it before it returns, so no connection is held between calls and
 * calls run concurrently up to the pool's size. Or one connection ({@link Builder#connection}),
 * opened on the first call, that calls take turns on: for an embedded database that admits one
 * writer at a time anyway.
 *
 * <p><b>Transactions and fencing (G4, G5).</b> Reads and single-statement lease operations run in
 * auto-commit. Every other write is one transaction ({@link SqlDialect#begin}) that first takes the
 * key lock ({@link SqlDialect#lockRowClause()}); a fenced write (a method taking a {@link Lease})
 * then compares the stored owner and epoch with the caller's, and on a mismatch rolls back and
 * throws {@link LeaseLostException}, having written nothing. {@link #commitPoll} writes the state,
 * items, events, log rows and parked rows of a page in that one transaction. A failure the dialect
 * calls retryable (the server rolled the transaction back) runs the call again, at most {@value
 * #MAX_ATTEMPTS} times in all.
 *
 * <p><b>Schema.</b> The first call reads the recorded schema version and, when it is missing or
 * older, runs the dialect's migration in one transaction under its lock; {@link #migrate()} does
 * the same eagerly. A database written by a newer release is refused with a {@link StoreException}.
 *
 * <p><b>Failures.</b> Every driver failure is thrown as a {@link StoreException} whose message
 * starts with the dialect's {@link SqlDialect#messagePrefix}, names the operation and the key, ends
 * with the dialect's {@link SqlDialect#describe}, fits one line and never shows a credential; the
 * driver's exception is the cause. A failed write has been rolled back. Calls after {@link
 * #close()} throw {@link IllegalStateException}.
 *
 * <p><b>Credentials.</b> The engine is also the store's {@link CredentialStore}, in the table
 * {@link StoreTable#CREDENTIALS}: every call one statement in auto-commit, a compare-and-set an
 * {@code UPDATE ... WHERE version = ?} (or, for version 0, an {@code INSERT} whose primary-key
 * conflict means false).
 *
 * <p><b>Effects.</b> {@link #effects()} is the store's {@link EffectStore}, in the tables {@link
 * StoreTable#EFFECTS}, {@link StoreTable#EFFECT_CURSORS}, {@link StoreTable#INVOCATIONS}, {@link
 * StoreTable#JOURNAL} and {@link StoreTable#SUBJECTS}. Its fenced writes lock the effect's row (not
 * a key's) and compare its lease; a journal append is one insert-if-absent in auto-commit ({@link
 * SqlDialect#insertIfAbsent}). {@link #pruneLog} never deletes a log row above an effect cursor's
 * watermark on its key: the delete reads the cursors itself (docs/stores.md, "EffectStore").
 *
 * <p>Instants are kept to the millisecond. Acknowledged outbox rows are deleted. Instances are safe
 * for use from several threads. Building one performs no I/O.
 *
 * @since 0.1
 */
public final class JdbcStoreEngine implements StateStore, CredentialStore {

  /** Attempts of a call that meets a failure the dialect calls retryable. */
  public static final int MAX_ATTEMPTS = 3;

  /** Opens the single connection of {@link Builder#connection}. */
  @FunctionalInterface
  public interface ConnectionOpener {
    /**
     * Opens and configures a connection, in auto-commit.
     *
     * @return the connection, which the engine closes on {@link JdbcStoreEngine#close()}
     * @throws SQLException when it cannot be opened; the calling operation fails with it
     */
    Connection open() throws SQLException;
  }

  private final SqlRunner runner;
  private final Leases leases;
  private final States states;
  private final Items items;
  private final Outbox outbox;
  private final Parked parked;
  private final Validators validators;
  private final ReplayLog log;
  private final Cycles cycles;
  private final Credentials credentials;
  private final JdbcEffectStore effects;

  private JdbcStoreEngine(SqlDialect dialect, ConnectionSource source, Supplier<String> name) {
    Sql sql = new Sql(dialect);
    Rows rows = new Rows(dialect);
    this.runner = new SqlRunner(dialect, sql, source, name);
    Fencing fencing = new Fencing(runner, sql, dialect);
    StateTexts texts = new StateTexts();
    this.leases = new Leases(runner, dialect, sql, rows);
    this.states = new States(runner, dialect, sql, fencing, texts);
    this.items = new Items(runner, dialect, sql, rows, fencing);
    this.parked = new Parked(runner, dialect, sql, rows, fencing);
    this.outbox = new Outbox(runner, dialect, sql, rows, fencing, states, items, parked);
    this.validators = new Validators(runner, dialect, sql, rows, fencing);
    this.log = new ReplayLog(runner, dialect, sql, rows, fencing);
    this.cycles = new Cycles(runner, dialect, sql, fencing, leases, texts);
    this.credentials = new Credentials(runner, dialect, sql);
    this.effects = JdbcEffectStore.over(new EffectTables(runner, dialect, sql));
  }

  /**
   * A builder of an engine over {@code dialect}; name its connections with {@link
   * Builder#dataSource} or {@link Builder#connection} before {@link Builder#build()}.
   *
   * @param dialect the database's dialect, configured for this store (tables, messages)
   * @return a new builder
   * @throws NullPointerException if {@code dialect} is null
   */
  public static Builder builder(SqlDialect dialect) {
    return new Builder(Objects.requireNonNull(dialect, "dialect"));
  }

  /** Options of a {@link JdbcStoreEngine}. Not thread-safe. */
  public static final class Builder {
    private final SqlDialect dialect;
    private @Nullable ConnectionSource source;
    private @Nullable Supplier<String> name;

    private Builder(SqlDialect dialect) {
      this.dialect = dialect;
    }

    /**
     * Connections borrowed from {@code dataSource}, one per call. Messages name the database by the
     * data source's JDBC URL (host, port and database only), or else by the first connection's.
     *
     * @param dataSource yields connections; a pool is recommended
     * @param closeDataSource whether {@link JdbcStoreEngine#close()} also closes {@code
     *     dataSource}, when it is {@link AutoCloseable}
     * @return this builder
     * @throws NullPointerException if {@code dataSource} is null
     */
    public Builder dataSource(DataSource dataSource, boolean closeDataSource) {
      this.source =
          new PooledConnections(Objects.requireNonNull(dataSource, "dataSource"), closeDataSource);
      return this;
    }

    /**
     * One connection, opened by {@code opener} on the first call, that calls take turns on; {@link
     * JdbcStoreEngine#close()} waits for a call in progress, then closes it.
     *
     * @param where the database's location for messages, e.g. the file path
     * @param opener opens the connection
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder connection(String where, ConnectionOpener opener) {
      Objects.requireNonNull(where, "where");
      Objects.requireNonNull(opener, "opener");
      this.source = new SingleConnection(where, opener, this::currentName);
      return this;
    }

    /**
     * What the engine calls the store in the message of the {@link IllegalStateException} a call
     * after {@link JdbcStoreEngine#close()} throws: {@code "<name> is closed"}. Defaults to the
     * engine's {@code toString()}, {@code JdbcStoreEngine[<where>]}.
     *
     * @param name typically the front's {@code toString}
     * @return this builder
     */
    public Builder name(Supplier<String> name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    private String currentName() {
      Supplier<String> n = name;
      ConnectionSource s = source;
      return n != null ? n.get() : "JdbcStoreEngine[" + (s == null ? "" : s.where()) + "]";
    }

    /**
     * The engine. Performs no I/O.
     *
     * @return a new engine
     * @throws IllegalStateException if neither {@link #dataSource} nor {@link #connection} was
     *     called
     */
    public JdbcStoreEngine build() {
      ConnectionSource s = source;
      if (s == null) {
        throw new IllegalStateException("dataSource(...) or connection(...) must be called");
      }
      return new JdbcStoreEngine(dialect, s, this::currentName);
    }
  }

  /**
   * Where the database is, for messages and {@code toString}: the location given to {@link
   * Builder#connection}, or {@code host:port/database} of the data source (learned from the first
   * connection when the data source does not tell), never with credentials.
   *
   * @return the location
   */
  public String where() {
    return runner.where();
  }

  // ---- lifecycle

  /** {@inheritDoc} All three: transactions, the replay log, and batched identity streaming. */
  @Override
  public StoreCapabilities capabilities() {
    return StoreCapabilities.ALL;
  }

  /**
   * {@inheritDoc} Reads the recorded version again even after a lazy migration; runs no DDL when it
   * is current.
   */
  @Override
  public void migrate() {
    runner.migrate();
  }

  /**
   * {@inheritDoc} Closes the single connection (after a call in progress finishes), or the data
   * source when the engine owns it. Idempotent.
   *
   * @throws StoreException when closing fails
   */
  @Override
  public void close() {
    runner.close();
  }

  // ---- leases

  @Override
  public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
    return leases.acquire(key, owner, ttl, now);
  }

  @Override
  public Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now) {
    return leases.renew(key, lease, ttl, now);
  }

  @Override
  public void releaseLease(PollerKey key, Lease lease) {
    leases.release(key, lease);
  }

  @Override
  public Optional<Lease> getLease(PollerKey key) {
    return leases.get(key);
  }

  // ---- a cycle's start and end

  /**
   * {@inheritDoc} One statement when the dialect has {@link
   * SqlDialect#acquireLeaseAndLoadStatement()}, else one transaction.
   */
  @Override
  public Optional<LeasedState> acquireLeaseAndLoad(
      PollerKey key, String owner, Duration ttl, Instant now) {
    return cycles.acquireAndLoad(key, owner, ttl, now);
  }

  /**
   * {@inheritDoc} One fenced transaction: the key's row locked, lease and schedule compared, then
   * one UPDATE writes the state and clears the lease.
   */
  @Override
  public boolean saveStateAndRelease(
      PollerKey key, Lease lease, @Nullable ScheduleState expected, StatePatch patch, Instant now) {
    return cycles.saveAndRelease(key, lease, expected, patch, now);
  }

  // ---- state

  @Override
  public Optional<PollerState> loadState(PollerKey key) {
    return states.load(key);
  }

  @Override
  public void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now) {
    states.save(key, lease, patch, now);
  }

  @Override
  public void saveStateUnfenced(PollerKey key, StatePatch patch, Instant now) {
    states.saveUnfenced(key, patch, now);
  }

  @Override
  public List<PollerKey> listKeys(@Nullable String poller) {
    return states.listKeys(poller);
  }

  /**
   * {@inheritDoc} The key's epoch counter survives in an otherwise empty poller row. One
   * transaction.
   */
  @Override
  public void deleteKey(PollerKey key) {
    states.deleteKey(key);
  }

  @Override
  public void clearItems(PollerKey key) {
    items.clear(key);
  }

  // ---- items

  @Override
  public Map<String, ItemRow> loadVersions(PollerKey key, Collection<String> identities) {
    return items.loadVersions(key, identities);
  }

  /**
   * {@inheritDoc} Pages by identity, one query per batch when the stream asks for it; nothing is
   * held between batches.
   */
  @Override
  public Stream<List<String>> streamIdentities(PollerKey key, int batchSize) {
    return items.streamIdentities(key, batchSize);
  }

  @Override
  public long countItems(PollerKey key) {
    return items.count(key);
  }

  // ---- commit and outbox

  /**
   * {@inheritDoc} An outbox sequence that is already pending (or appears twice in the batch) fails
   * the whole commit; a log row or parked row with the same sequence or id is replaced.
   */
  @Override
  public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
    outbox.commitPoll(key, lease, batch, now);
  }

  @Override
  public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
    return outbox.loadPending(key, afterSequence, limit);
  }

  @Override
  public long countPending(PollerKey key) {
    return outbox.countPending(key);
  }

  /** {@inheritDoc} Acknowledged rows are deleted. */
  @Override
  public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
    outbox.ack(key, lease, sequences);
  }

  /**
   * Runs a caller's writes and acks {@code sequences} in one transaction, fenced by {@code lease}
   * (docs/stores.md, "Acks inside a caller's transaction"): see {@link JdbcStore#ackWithin}.
   *
   * @param key the key whose outbox rows are acked
   * @param lease the lease the caller holds
   * @param sequences the outbox sequences to ack; unknown ones are ignored
   * @param work the caller's writes, on the store's connection and transaction
   * @param <T> what the work returns
   * @return the work's result, once everything committed
   * @throws LeaseLostException when {@code lease} is not current: nothing is written
   * @throws StoreException on a driver failure, the work's included: nothing is written
   */
  public <T> T ackWithin(
      PollerKey key, Lease lease, Collection<Long> sequences, CallerWork<T> work) {
    return outbox.ackWithin(key, lease, sequences, work);
  }

  /**
   * Runs a caller's reads on a store connection in auto-commit: see {@link
   * JdbcStore#withConnection}.
   *
   * @param op what the work does, for a failure's message
   * @param work the reads
   * @param <T> what the work returns
   * @return the work's result
   * @throws StoreException on a driver failure
   */
  public <T> T withConnection(String op, CallerWork<T> work) {
    Objects.requireNonNull(work, "work");
    return runner.autoCommit(op, null, work::run);
  }

  @Override
  public void recordAttempt(
      PollerKey key,
      Lease lease,
      long sequence,
      String errorJson,
      @Nullable Instant nextAttemptAt) {
    outbox.recordAttempt(key, lease, sequence, errorJson, nextAttemptAt);
  }

  /** {@inheritDoc} The outbox row's commit time is kept, so that a retry restores it. */
  @Override
  public void parkEvent(PollerKey key, Lease lease, ParkedRow row) {
    outbox.park(key, lease, row);
  }

  @Override
  public List<ParkedRow> listParked(PollerKey key, @Nullable ParkedKind kind, int limit) {
    return parked.list(key, kind, limit);
  }

  @Override
  public long countParked(PollerKey key) {
    return parked.count(key);
  }

  /**
   * {@inheritDoc} A poison event returns with zero attempts, no error and no next-attempt time, and
   * with the commit time it had in the outbox (its parking time when that is unknown).
   */
  @Override
  public int retryParked(PollerKey key, Collection<String> ids) {
    return parked.retry(key, ids);
  }

  @Override
  public int discardParked(PollerKey key, Collection<String> ids) {
    return parked.discard(key, ids);
  }

  @Override
  public Set<String> heldKeys(PollerKey key) {
    return parked.heldKeys(key);
  }

  // ---- HTTP validators

  @Override
  public Optional<HttpValidator> getValidator(PollerKey key, String urlHash) {
    return validators.get(key, urlHash);
  }

  @Override
  public void setValidator(PollerKey key, Lease lease, String urlHash, HttpValidator validator) {
    validators.set(key, lease, urlHash, validator);
  }

  // ---- replay log

  @Override
  public List<LoggedEvent> readLog(PollerKey key, LogRange range, int limit) {
    return log.read(key, range, limit);
  }

  @Override
  public int pruneLog(PollerKey key, Instant olderThan) {
    return log.prune(key, olderThan);
  }

  // CPD-OFF: what follows forwards the CredentialStore methods, one line each, to the class that
  // keeps the credentials table; every store has the interface's shape, which is no copy.
  // ---- credentials

  /** {@inheritDoc} One {@code SELECT} of the row. */
  @Override
  public Optional<StoredCredential> loadCredential(String name) {
    return credentials.load(name);
  }

  /**
   * {@inheritDoc} One statement: an {@code INSERT} for version 0, else an {@code UPDATE ... WHERE
   * name = ? AND version = ?}. Instants are written to the millisecond.
   */
  @Override
  public boolean compareAndSetCredential(long expectedVersion, StoredCredential next) {
    return credentials.compareAndSet(expectedVersion, next);
  }

  @Override
  public boolean deleteCredential(String name) {
    return credentials.delete(name);
  }

  /** {@inheritDoc} Sorted in Java ({@link String#compareTo}), whatever the column's collation. */
  @Override
  public List<String> listCredentials() {
    return credentials.list();
  }

  // CPD-ON

  // ---- effects

  /** {@inheritDoc} The tables of {@link JdbcEffectStore}, in this engine's database. */
  @Override
  public Optional<EffectStore> effects() {
    return Optional.of(effects);
  }

  /** The effect tables with every source key handed to {@code check} first (for a store front). */
  JdbcEffectStore effectsCheckingKeys(JdbcEffectStore.KeyCheck check) {
    return effects.checkingKeys(check);
  }

  @Override
  public String toString() {
    return "JdbcStoreEngine[" + where() + "]";
  }
}
