package io.watukuy.store.sqlite;

import io.watukuy.ConfigException;
import io.watukuy.LeaseLostException;
import io.watukuy.StoreException;
import io.watukuy.spi.Lease;
import io.watukuy.spi.StateStore;
import io.watukuy.spi.StoreCapabilities;
import io.watukuy.store.jdbc.JdbcStore;
import io.watukuy.store.jdbc.JdbcStoreEngine;
import io.watukuy.store.jdbc.SqlDialect;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import org.sqlite.SQLiteConfig;

/**
 * A {@link StateStore} in one SQLite file (docs/stores.md, "SqliteStore"), built on {@code
 * org.xerial:sqlite-jdbc}. Fits one host: a service, a sidecar, a command-line run from cron.
 * Several processes on that host may share the file; processes on different hosts may not (use
 * {@code PostgresStore}).
 *
 * <pre>{@code
 * StateStore store = SqliteStore.open(Path.of("watukuy.db"));
 * StateStore custom = SqliteStore.builder(Path.of("watukuy.db"))
 *     .tablePrefix("orders_")
 *     .busyTimeoutMs(10_000)
 *     .build();
 * }</pre>
 *
 * <p><b>Options.</b> {@code path}: the database file, created when missing (its folder must exist),
 * or {@value #MEMORY} for a private in-process database that disappears on {@link #close()}. {@code
 * tablePrefix} (default {@value #DEFAULT_TABLE_PREFIX}): prepended to every table and index name,
 * so several stores can share one file. {@code busyTimeoutMs} (default {@value
 * #DEFAULT_BUSY_TIMEOUT_MS}): how long a statement waits for a lock held by another connection
 * before it fails with a {@link StoreException}.
 *
 * <p><b>Lifecycle.</b> Neither {@link #open} nor the builder performs I/O. The file is opened on
 * the first call, which also creates the tables when missing; {@link #migrate()} does the same
 * eagerly. Both are idempotent: the DDL ({@code CREATE ... IF NOT EXISTS}) runs inside a {@code
 * BEGIN IMMEDIATE} transaction, and only when the meta table ({@code <prefix>meta}) does not yet
 * record this release's schema version, so processes that migrate at once are safe. A database
 * written by a newer release (a higher schema version) is refused with a {@link StoreException}.
 * {@link #ddl(String)} returns the same DDL for teams that manage schemas with their own tool.
 *
 * <p><b>Threads and processes.</b> Instances are safe for use from several threads. Each holds one
 * connection; calls are serialized on it (SQLite admits one writer at a time anyway). The
 * connection uses WAL journaling ({@code journal_mode=WAL}, {@code synchronous=NORMAL}), so readers
 * in other processes never block a writer. Every write is one {@code BEGIN IMMEDIATE} transaction;
 * every fenced write (a method taking a {@link Lease}) first compares the stored lease owner and
 * epoch and throws {@link LeaseLostException} on mismatch, having written nothing. Calls block
 * while another connection holds the write lock, for at most {@code busyTimeoutMs}.
 *
 * <p><b>Storage.</b> Instants are stored as epoch milliseconds: values read back are truncated to
 * the millisecond (the poller state JSON keeps full precision). Acknowledged outbox rows are
 * deleted. The outbox is keyed by {@code (poller, partition, seq)}; {@code event_id} is indexed but
 * not unique.
 *
 * <p><b>Failures.</b> Every driver failure, a lock wait longer than {@code busyTimeoutMs} included,
 * is thrown as a {@link StoreException} that names the file, the operation and the key, with the
 * driver's exception as the cause; a failed write has been rolled back. Calls after {@link
 * #close()} throw {@link IllegalStateException}.
 *
 * <p>How this store keeps the SPI's contract where it has a choice:
 *
 * <ul>
 *   <li>{@code deleteKey}:
 *       <p>The key's epoch counter survives in an otherwise empty poller row, so the next
 *       acquisition still gets a higher epoch than any lease issued before the delete and a holder
 *       from before can never write again, even under the same owner name.
 *   <li>{@code streamIdentities}:
 *       <p>Pages by identity ({@code identity > last ORDER BY identity LIMIT batchSize}), one query
 *       per batch when the stream asks for it; no cursor stays open between batches, so other calls
 *       and other processes proceed while the stream is consumed. Identities come in byte order of
 *       their UTF-8 form. A {@code batchSize} below 1 throws {@code IllegalArgumentException}.
 *   <li>{@code commitPoll}:
 *       <p>One {@code BEGIN IMMEDIATE} transaction, in this order: lease check, state patch, item
 *       upserts, item deletes, outbox rows, log rows, parked rows. Rows are written with JDBC
 *       batches, deletes with {@code IN} lists. An outbox sequence that is already pending (or
 *       appears twice in the batch) fails the whole commit with a {@link StoreException}, as
 *       overwriting it would lose an event; a log row or parked row with the same sequence or id is
 *       replaced. Logged events carry {@code now} as their creation time.
 *   <li>{@code ackEvents}: Acknowledged rows are deleted.
 *   <li>{@code recordAttempt}: An unknown sequence is ignored.
 *   <li>{@code parkEvent}:
 *       <p>The outbox row's commit time is kept with the parked row, so {@link #retryParked}
 *       restores it. A parked row with the same id is replaced.
 *   <li>{@code retryParked}:
 *       <p>A poison event returns with zero attempts, no error and no next-attempt time, and with
 *       the commit time it had in the outbox (its parking time when that is unknown). Unknown ids
 *       are ignored. One transaction. Throws {@link StoreException} when a parked poison row lacks
 *       its sequence, event id or envelope, so it cannot be re-queued; nothing is changed
 *   <li>{@code discardParked}: Unknown ids are ignored.
 * </ul>
 *
 * @since 0.1
 */
public final class SqliteStore extends JdbcStore {

  /** The {@code path} that selects a private in-process database. */
  public static final String MEMORY = ":memory:";

  /** Default of {@link Builder#tablePrefix(String)}. */
  public static final String DEFAULT_TABLE_PREFIX = "watukuy_";

  /** Default of {@link Builder#busyTimeoutMs(long)}, in milliseconds. */
  public static final int DEFAULT_BUSY_TIMEOUT_MS = 5000;

  private final SqliteOptions options;
  private final JdbcStoreEngine engine;

  private SqliteStore(SqliteOptions options) {
    this.options = options;
    this.engine =
        JdbcStoreEngine.builder(new SqliteDialect(options))
            .connection(options.location(), this::connect)
            .name(this::toString)
            .build();
  }

  /**
   * A store on {@code path} with default options. Performs no I/O.
   *
   * @param path the database file, created on first use when missing (its folder must exist);
   *     {@code Path.of(":memory:")} selects a private in-process database
   * @return the store, not yet open
   * @throws NullPointerException if {@code path} is null
   */
  public static SqliteStore open(Path path) {
    return builder(path).build();
  }

  /**
   * A builder for a store on the database file {@code path}, with the default options.
   *
   * @param path the database file, created on first use when missing (its folder must exist)
   * @return a new builder
   * @throws NullPointerException if {@code path} is null
   */
  public static Builder builder(Path path) {
    Objects.requireNonNull(path, "path");
    return new Builder(path.toString());
  }

  /**
   * A builder for a store on the database file {@code path}, or on a private in-process database
   * when {@code path} is {@value #MEMORY}.
   *
   * @param path the database file as a string, or {@value #MEMORY}
   * @return a new builder
   * @throws NullPointerException if {@code path} is null
   * @throws ConfigException when {@code path} is blank
   */
  public static Builder builder(String path) {
    Objects.requireNonNull(path, "path");
    SqliteOptions.checkLocation(path);
    return new Builder(path);
  }

  /**
   * The DDL this release applies for {@code tablePrefix}, in order, including the statement that
   * records the schema version. Every statement is idempotent. For teams that manage schemas with
   * their own migration tool; the store never needs it.
   *
   * @param tablePrefix the prefix the store will be built with, e.g. {@value #DEFAULT_TABLE_PREFIX}
   * @return the SQL statements, without trailing semicolons
   * @throws ConfigException when {@code tablePrefix} is not a valid prefix
   */
  public static List<String> ddl(String tablePrefix) {
    SqliteOptions.checkTablePrefix(tablePrefix);
    return new SqliteSchema(tablePrefix).ddlWithVersion();
  }

  /**
   * Options of a {@link SqliteStore}. Not thread-safe; {@link #build()} may be called more than
   * once, each call returning a new store.
   */
  public static final class Builder {
    private final String location;
    private String tablePrefix = DEFAULT_TABLE_PREFIX;
    private int busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS;

    private Builder(String location) {
      this.location = location;
    }

    /**
     * Prefix of every table and index name. Defaults to {@value SqliteStore#DEFAULT_TABLE_PREFIX}.
     *
     * @param tablePrefix 1 to 41 letters, digits and {@code _}, not starting with a digit
     * @return this builder
     * @throws ConfigException when {@code tablePrefix} is not such an identifier; the message names
     *     the option and the value
     */
    public Builder tablePrefix(String tablePrefix) {
      SqliteOptions.checkTablePrefix(tablePrefix);
      this.tablePrefix = tablePrefix;
      return this;
    }

    /**
     * How long a statement waits for a lock held by another connection (another process on the same
     * file) before failing with a {@link StoreException}. {@code 0} fails at once. Defaults to
     * {@value SqliteStore#DEFAULT_BUSY_TIMEOUT_MS}.
     *
     * @param busyTimeoutMs milliseconds, from 0 to {@link Integer#MAX_VALUE}
     * @return this builder
     * @throws ConfigException when out of range; the message names the option and the value
     */
    public Builder busyTimeoutMs(long busyTimeoutMs) {
      this.busyTimeoutMs = SqliteOptions.checkBusyTimeout(busyTimeoutMs);
      return this;
    }

    /**
     * The store. Performs no I/O: the file is opened on first use.
     *
     * @return a new store with this builder's options
     */
    public SqliteStore build() {
      return new SqliteStore(new SqliteOptions(location, tablePrefix, busyTimeoutMs));
    }
  }

  /**
   * Where the database is.
   *
   * @return the database file as given, or {@value #MEMORY}
   */
  public String path() {
    return options.location();
  }

  /**
   * The prefix of every table and index name.
   *
   * @return the table prefix in use
   */
  public String tablePrefix() {
    return options.tablePrefix();
  }

  /**
   * How long a statement waits for another connection's lock.
   *
   * @return the lock wait in milliseconds
   */
  public int busyTimeoutMs() {
    return options.busyTimeoutMs();
  }

  @Override
  public String toString() {
    return "SqliteStore[" + options.location() + ", tablePrefix=" + options.tablePrefix() + "]";
  }

  @Override
  protected JdbcStoreEngine engine() {
    return engine;
  }

  // ---- lifecycle

  /** {@inheritDoc} All three: transactions, the replay log, and batched identity streaming. */
  @Override
  public StoreCapabilities capabilities() {
    return engine().capabilities();
  }

  /**
   * Opens the file when not yet open and creates the tables and indexes when missing. Idempotent;
   * safe when several processes migrate at once.
   *
   * @throws StoreException when the file cannot be opened or the schema is newer than this release
   */
  @Override
  public void migrate() {
    engine().migrate();
  }

  /**
   * Closes the connection; a {@value #MEMORY} database is gone afterwards. Idempotent. Leases are
   * not released: they expire. Waits for a call in progress on another thread to finish.
   */
  @Override
  public void close() {
    engine().close();
  }

  /**
   * The connection every call takes turns on: WAL journaling, the busy timeout, no foreign keys.
   */
  private Connection connect() throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(options.busyTimeoutMs());
    // No statement reads generated keys; the driver would otherwise look them up after each write.
    config.setGetGeneratedKeys(false);
    Connection c = config.createConnection("jdbc:sqlite:" + options.location());
    try {
      // The journal mode persists in the file; setting it again is a no-op. A memory database
      // answers "memory" and ignores the request, which is fine for a private database.
      SqlDialect.execute(c, "PRAGMA journal_mode = WAL");
      SqlDialect.execute(c, "PRAGMA synchronous = NORMAL");
      SqlDialect.execute(c, "PRAGMA foreign_keys = OFF");
    } catch (SQLException e) {
      try {
        c.close();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return c;
  }
}
