package io.watukuy.store.mariadb;

import io.watukuy.ConfigException;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.StateStore;
import io.watukuy.spi.StoreCapabilities;
import io.watukuy.store.jdbc.JdbcStore;
import io.watukuy.store.jdbc.JdbcStoreEngine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * A {@link StateStore} in MariaDB (docs/stores.md, "MariaDbStore"), over any {@link DataSource}
 * that yields MariaDB Connector/J connections: a connection pool such as HikariCP in production.
 * Fits several instances on several hosts sharing one database: the lease protocol, enforced by row
 * locks, lets exactly one instance poll a key at a time (guarantee G5). Written for MariaDB 10.11
 * and later; the contract suite, the chaos seeds and the multi-instance suite run against MariaDB
 * 10.11.
 *
 * <pre>{@code
 * HikariConfig config = new HikariConfig();
 * config.setJdbcUrl("jdbc:mariadb://db.internal:3306/app");
 * config.setUsername("watukuy");
 * config.setPassword(System.getenv("MARIADB_PASSWORD"));
 * config.setMaximumPoolSize(8);
 * HikariDataSource pool = new HikariDataSource(config);
 *
 * StateStore store = MariaDbStore.create(pool);
 * StateStore custom = MariaDbStore.builder(pool)
 *     .tablePrefix("orders_")
 *     .closeClient(true)          // close() also closes the pool
 *     .build();
 * }</pre>
 *
 * <p><b>Options.</b> {@code tablePrefix} (default {@value #DEFAULT_TABLE_PREFIX}): prepended to
 * every table name, so several stores can share one database; a lower-case identifier ({@code
 * [a-z_][a-z0-9_]*}) of at most 53 characters, so that no table name passes MariaDB's 64, and
 * back-quoted in every statement, so no SQL can be injected through it. The tables live in the
 * connection's database (the one the JDBC URL names). {@code closeClient} (default {@code false}):
 * whether {@link #close()} also closes the data source, when it is {@link AutoCloseable}.
 *
 * <p><b>Lifecycle.</b> Neither {@link #create} nor the builder performs I/O. The first call checks
 * the schema version recorded in {@code <prefix>meta} and, when it is missing or older, creates the
 * tables; {@link #migrate()} does the same eagerly. Both are idempotent and safe from several
 * instances at once: the DDL ({@code CREATE TABLE IF NOT EXISTS}, indexes inside it) runs under a
 * named lock ({@code GET_LOCK}, waiting at most 120 s) derived from the database and the prefix.
 * MariaDB commits each DDL statement by itself, so a migration cut short leaves some tables, which
 * the next one completes. A store whose schema is current runs no DDL, so an application user
 * without {@code CREATE} privileges works once the tables exist. A schema written by a newer
 * release is refused with a {@link StoreException}. For teams that manage schemas with their own
 * tool, {@link #DDL} (also the classpath resource {@value #DDL_RESOURCE}) is the script for the
 * default prefix, and {@link #ddlScript(String)} renders it for others; the script records the
 * schema version, so the store then runs no DDL.
 *
 * <p><b>Transactions, isolation and fencing.</b> Every call borrows a connection and returns it
 * before it returns. Reads and single-statement lease operations run in auto-commit. Every other
 * write is one transaction at READ COMMITTED that first locks the key's row in {@code
 * <prefix>pollers} ({@code SELECT ... FOR UPDATE}); a fenced write (a method taking a {@link
 * Lease}) then compares the stored owner and epoch, and on a mismatch rolls back and throws {@link
 * LeaseLostException}, having written nothing. A locking read sees the newest committed row at any
 * isolation level, so a lease taken over while a fenced write waits for the lock makes that write
 * fail. The store sets READ COMMITTED for each of its transactions ({@code SET TRANSACTION}, which
 * leaves the session's level alone) instead of InnoDB's default REPEATABLE READ: at REPEATABLE READ
 * InnoDB also locks the gaps between index records, so deleting an identity that is not stored, or
 * pruning the log, blocks another key's inserts next to it and can deadlock with them; all the
 * serializing the store needs is the key's row lock. Without gap locks, two instances taking the
 * first lease of a new key may both insert its row; the second insert fails with a duplicate key
 * (1062), the call runs again and finds the first instance's live lease. MariaDB refuses READ
 * COMMITTED writes when the server logs {@code binlog_format=STATEMENT}; the default, {@code
 * MIXED}, and {@code ROW} work.
 *
 * <p><b>Retries.</b> A deadlock (error 1213: InnoDB rolled the transaction back), a lock wait
 * timeout (1205, after {@code innodb_lock_wait_timeout}, 50 s by default: InnoDB rolled back the
 * statement, the store rolls back the rest) and that duplicate key (1062) are rolled back and the
 * whole call is run again on a fresh connection, at most {@value #MAX_ATTEMPTS} times in all; then
 * the call fails with a {@link StoreException}. An outbox sequence already pending also fails with
 * 1062, on every attempt, as it must. A call therefore waits for locks at most {@value
 * #MAX_ATTEMPTS} times {@code innodb_lock_wait_timeout}; set that variable lower on the connections
 * to bound it.
 *
 * <p><b>Storage.</b> Instants are epoch milliseconds in {@code BIGINT} columns: values read back
 * are truncated to the millisecond. DATETIME has no zone and TIMESTAMP converts through the
 * session's time zone (skipping or repeating an hour at daylight-saving changes) and ends in 2038;
 * an integer is shifted by nothing. Every table is InnoDB, {@code utf8mb4}, collation {@code
 * utf8mb4_nopad_bin}: text compares and sorts by its bytes, so identities that differ only in case
 * ({@code ABC}, {@code abc}), in accents ({@code é}, {@code e}) or in trailing spaces ({@code a},
 * {@code a }) are distinct keys. MariaDB's default collations ignore case and accents, and {@code
 * utf8mb4_bin} ignores trailing spaces (PAD SPACE); either would merge two items into one row.
 * Envelopes, payloads, errors and the poller state are {@code LONGTEXT}, stored as written, so they
 * round-trip byte for byte. A single statement, and so a single event or payload, is bounded by the
 * server's {@code max_allowed_packet} (16 MiB by default).
 *
 * <p><b>Key lengths.</b> InnoDB limits an index key to 3072 bytes, and a utf8mb4 character may take
 * 4, so the items key {@code (poller, partition, identity)} holds 768 characters: a poller name of
 * at most {@value #MAX_POLLER} characters (the most a {@code Poller} accepts), a partition of at
 * most {@value #MAX_PARTITION} and an identity of at most {@value #MAX_IDENTITY} (counted in code
 * points). The store checks these lengths before it writes: a longer poller name or partition fails
 * every call on its key, and a commit that upserts a longer identity fails whole, each with a
 * {@link StoreException} that names the field, the value and both lengths. Nothing is ever
 * truncated: the checks do not depend on the server's {@code sql_mode}, and Connector/J turns
 * STRICT_TRANS_TABLES on for its sessions besides. Looking up or deleting a longer identity finds
 * nothing, as nothing can be stored under it.
 *
 * <p><b>Failures.</b> Every driver failure is thrown as a {@link StoreException} whose message
 * names the host and database, the prefix, the operation, the key and the server's error number,
 * with the driver's exception as the cause; user names, passwords and the URL's query string are
 * never part of a message. A failed write has been rolled back. The store keeps no broken
 * connection: the pool replaces it. Calls after {@link #close()} throw {@link
 * IllegalStateException}.
 *
 * <p><b>Driver.</b> Tested with MariaDB Connector/J 3.5 (LGPL-2.1), this module's dependency; the
 * store names no driver class, so another version can be used. Connector/J 4.0 passes the same
 * suites, but encrypts by default and refuses a server without TLS unless the URL says {@code
 * sslMode=disable}. The driver's default of reporting found rows, not changed rows, is assumed:
 * {@code useAffectedRows=true} would make a renewal that changes nothing look like a lost lease.
 *
 * <p><b>MySQL.</b> Untested until a MySQL server runs the contract suite. MySQL 8 would need the
 * collation {@code utf8mb4_0900_bin} (its NO PAD binary collation; it has no {@code
 * utf8mb4_nopad_bin}) and a dialect without {@code DELETE ... RETURNING}, which MySQL lacks; {@code
 * VALUES()} in {@code ON DUPLICATE KEY UPDATE} is deprecated there in favor of a row alias, which
 * MariaDB lacks.
 *
 * <p>Instances are safe for use from several threads; calls run concurrently up to the pool's size.
 *
 * <p>How this store keeps the SPI's contract where it has a choice:
 *
 * <ul>
 *   <li>{@code acquireLease}:
 *       <p>One transaction: lock the key's row, then take the lease over or create the row. Of
 *       several instances racing for a new key, the losers' inserts fail on the winner's row and
 *       run again; it throws {@code StoreException} when the poller name or partition is longer
 *       than the store keeps
 *   <li>{@code deleteKey}:
 *       <p>The key's epoch counter survives in an otherwise empty poller row, so a holder from
 *       before the delete can never write again. One transaction.
 *   <li>{@code loadVersions}: An identity longer than {@link #MAX_IDENTITY} is never found.
 *   <li>{@code streamIdentities}:
 *       <p>Pages by identity ({@code identity > last ORDER BY identity LIMIT batchSize}), one query
 *       per batch when the stream asks for it; no cursor or transaction stays open between batches.
 *       Identities come in code point order; it throws {@code IllegalArgumentException} when {@code
 *       batchSize < 1}
 *   <li>{@code commitPoll}:
 *       <p>One transaction, in this order: lock the key's row and check the lease, state patch,
 *       item upserts, item deletes, outbox rows, log rows, parked rows. An outbox sequence that is
 *       already pending fails the whole commit with a {@link StoreException}; a log row or parked
 *       row with the same sequence or id is replaced. Logged events carry {@code now} as their
 *       creation time; it throws {@code StoreException} when the key or an upserted identity is
 *       longer than the store keeps ({@link #MAX_IDENTITY}); nothing is written
 *   <li>{@code ackEvents}: Acknowledged rows are deleted, in one fenced transaction.
 *   <li>{@code recordAttempt}: An unknown sequence is ignored.
 *   <li>{@code parkEvent}:
 *       <p>The outbox row is deleted and its commit time read in one statement ({@code DELETE ...
 *       RETURNING}) and kept with the parked row, so {@link #retryParked} restores it.
 *   <li>{@code retryParked}:
 *       <p>A poison event returns with zero attempts, no error and no next-attempt time, and with
 *       the commit time it had in the outbox. Unknown ids are ignored. One transaction, under the
 *       key's row lock; it throws {@code StoreException} when a parked poison row lacks its
 *       sequence, event id or envelope, so it cannot be re-queued; nothing is changed
 *   <li>{@code discardParked}: Unknown ids are ignored. One transaction, under the key's row lock.
 * </ul>
 *
 * @since 0.1
 */
public final class MariaDbStore extends JdbcStore {

  /** Default of {@link Builder#tablePrefix(String)}. */
  public static final String DEFAULT_TABLE_PREFIX = "watukuy_";

  /** Default of {@link Builder#closeClient(boolean)}. */
  public static final boolean DEFAULT_CLOSE_CLIENT = false;

  /** The longest poller name the store keeps, in characters (code points). */
  public static final int MAX_POLLER = MariaDbSchema.MAX_POLLER;

  /** The longest partition the store keeps, in characters (code points). */
  public static final int MAX_PARTITION = MariaDbSchema.MAX_PARTITION;

  /**
   * The longest identity the store keeps, in characters (code points): 768 less {@link #MAX_POLLER}
   * and {@link #MAX_PARTITION}.
   */
  public static final int MAX_IDENTITY = MariaDbSchema.MAX_IDENTITY;

  /** Classpath resource holding {@link #DDL}. */
  public static final String DDL_RESOURCE = "io/watukuy/store/mariadb/schema.sql";

  /**
   * The DDL script of this release for the prefix {@value #DEFAULT_TABLE_PREFIX}: the tables with
   * their indexes and the statement that records the schema version, each ending in a semicolon.
   * Every statement is idempotent. Equal to the resource {@value #DDL_RESOURCE} and to {@code
   * ddlScript(DEFAULT_TABLE_PREFIX)}. Run it in the application's database; the store never needs
   * it.
   */
  public static final String DDL = new MariaDbSchema(DEFAULT_TABLE_PREFIX).script();

  /** Attempts of a call that meets a deadlock, a lock wait timeout or a lost insert race. */
  static final int MAX_ATTEMPTS = JdbcStoreEngine.MAX_ATTEMPTS;

  /** How much of a too-long value a message shows. */
  private static final int SHOWN = 60;

  private final MariaDbOptions options;
  private final MariaDbDialect dialect;
  private final JdbcStoreEngine engine;

  private MariaDbStore(DataSource dataSource, MariaDbOptions options) {
    this.options = options;
    this.dialect = new MariaDbDialect(options);
    this.engine =
        JdbcStoreEngine.builder(dialect)
            .dataSource(dataSource, options.closeClient())
            .name(this::toString)
            .build();
  }

  /**
   * A store on {@code dataSource} with the default options. Performs no I/O.
   *
   * @param dataSource yields connections to the database; a pool, such as a {@code
   *     HikariDataSource}, is recommended since every call borrows one
   * @return the store, not yet connected
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static MariaDbStore create(DataSource dataSource) {
    return builder(dataSource).build();
  }

  /**
   * A builder for a store on {@code dataSource}, with the default options.
   *
   * @param dataSource yields connections to the database
   * @return a new builder
   * @throws NullPointerException if {@code dataSource} is null
   */
  public static Builder builder(DataSource dataSource) {
    Objects.requireNonNull(dataSource, "dataSource");
    return new Builder(dataSource);
  }

  /**
   * The DDL this release applies for {@code tablePrefix}, in order: the meta table, the tables with
   * their indexes, and the statement that records the schema version (it never lowers a recorded
   * version). Every statement is idempotent.
   *
   * @param tablePrefix the prefix the store will be built with, e.g. {@value #DEFAULT_TABLE_PREFIX}
   * @return the SQL statements, without trailing semicolons
   * @throws ConfigException when {@code tablePrefix} is not valid; the message names the option and
   *     the value
   */
  public static List<String> ddl(String tablePrefix) {
    MariaDbOptions o = new MariaDbOptions(tablePrefix, DEFAULT_CLOSE_CLIENT);
    return new MariaDbSchema(o.tablePrefix()).ddl();
  }

  /**
   * {@link #ddl(String)} as one script: a comment header, then each statement ending in a
   * semicolon. Ready to save as a Flyway migration ({@code V1__watukuy.sql}) or a Liquibase {@code
   * sqlFile}.
   *
   * @param tablePrefix the prefix the store will be built with
   * @return the script, UTF-8 text with {@code \n} line ends
   * @throws ConfigException when {@code tablePrefix} is not valid
   */
  public static String ddlScript(String tablePrefix) {
    MariaDbOptions o = new MariaDbOptions(tablePrefix, DEFAULT_CLOSE_CLIENT);
    return new MariaDbSchema(o.tablePrefix()).script();
  }

  /**
   * The text of the resource {@value #DDL_RESOURCE}, read from this module's jar.
   *
   * @return the script, equal to {@link #DDL}
   * @throws UncheckedIOException if the resource cannot be read
   */
  public static String ddlResource() {
    // through the class, not its loader: on the module path the resource's package is not open
    try (InputStream in = MariaDbStore.class.getResourceAsStream("/" + DDL_RESOURCE)) {
      if (in == null) {
        throw new UncheckedIOException(new IOException(DDL_RESOURCE + " is not on the classpath"));
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Options of a {@link MariaDbStore}. Not thread-safe; {@link #build()} may be called more than
   * once, each call returning a new store.
   */
  public static final class Builder {
    private final DataSource dataSource;
    private String tablePrefix = DEFAULT_TABLE_PREFIX;
    private boolean closeClient = DEFAULT_CLOSE_CLIENT;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * Prefix of every table name. Defaults to {@value MariaDbStore#DEFAULT_TABLE_PREFIX}.
     *
     * @param tablePrefix 1 to 53 lower-case letters, digits and {@code _}, not starting with a
     *     digit
     * @return this builder
     * @throws ConfigException when {@code tablePrefix} is not such an identifier; the message names
     *     the option and the value
     */
    public Builder tablePrefix(String tablePrefix) {
      MariaDbOptions.checkTablePrefix(tablePrefix);
      this.tablePrefix = tablePrefix;
      return this;
    }

    /**
     * Whether {@link MariaDbStore#close()} also closes the data source, when it is {@link
     * AutoCloseable}. Defaults to {@value MariaDbStore#DEFAULT_CLOSE_CLIENT}: the caller owns the
     * data source.
     *
     * @param closeClient {@code true} to hand the data source's life to the store
     * @return this builder
     */
    public Builder closeClient(boolean closeClient) {
      this.closeClient = closeClient;
      return this;
    }

    /**
     * The store. Performs no I/O.
     *
     * @return a new store with this builder's options
     */
    public MariaDbStore build() {
      return new MariaDbStore(dataSource, new MariaDbOptions(tablePrefix, closeClient));
    }
  }

  /**
   * The prefix of every table name.
   *
   * @return the table prefix in use
   */
  public String tablePrefix() {
    return options.tablePrefix();
  }

  /**
   * Whether {@link #close()} closes the data source.
   *
   * @return the {@code closeClient} option
   */
  public boolean closeClient() {
    return options.closeClient();
  }

  @Override
  public String toString() {
    return "MariaDbStore[" + engine.where() + ", tablePrefix=" + options.tablePrefix() + "]";
  }

  // ---- lengths

  /**
   * Refuses a key whose poller name or partition is longer than its column.
   *
   * @throws StoreException naming the operation, the field, the value and both lengths
   */
  private PollerKey fits(String op, PollerKey key) {
    Objects.requireNonNull(key, "key");
    fits(op, key, "poller name", key.poller(), MAX_POLLER);
    fits(op, key, "partition", key.partition(), MAX_PARTITION);
    return key;
  }

  private void fits(String op, PollerKey key, String field, String value, int max) {
    int length = value.codePointCount(0, value.length());
    if (length <= max) {
      return;
    }
    String shown =
        length <= SHOWN ? value : value.substring(0, value.offsetByCodePoints(0, SHOWN)) + "...";
    throw new StoreException(
        dialect.messagePrefix(engine.where())
            + op
            + " "
            + key
            + " refused: "
            + field
            + " '"
            + shown
            + "' has "
            + length
            + " characters, more than the "
            + max
            + " its key column holds (InnoDB keys take at most 3072 bytes, 4 per utf8mb4"
            + " character); nothing was written",
        null);
  }

  // ---- lifecycle

  /** {@inheritDoc} All three: transactions, the replay log, and batched identity streaming. */
  @Override
  public StoreCapabilities capabilities() {
    return engine().capabilities();
  }

  /**
   * Creates the tables when the recorded schema version is missing or older than this release's.
   * Idempotent; safe when several instances migrate at once (a named lock serializes them). Runs no
   * DDL when the schema is current.
   *
   * @throws StoreException when the database cannot be reached, the DDL fails (for example for lack
   *     of privileges), another migration held the lock for more than 120 s, or the schema is newer
   *     than this release
   */
  @Override
  public void migrate() {
    engine().migrate();
  }

  /**
   * Marks the store closed and, with {@code closeClient}, closes the data source when it is {@link
   * AutoCloseable}. Idempotent. Leases are not released: they expire.
   *
   * @throws StoreException when closing the data source fails
   */
  @Override
  public void close() {
    engine().close();
  }

  // ---- the checks JdbcStore runs before each operation

  @Override
  protected JdbcStoreEngine engine() {
    return engine;
  }

  @Override
  protected PollerKey key(String operation, PollerKey key) {
    return fits(operation, key);
  }

  @Override
  protected CommitBatch checked(PollerKey key, CommitBatch batch) {
    for (ItemRow row : batch.upserts()) {
      fits("commitPoll", key, "identity", row.identity(), MAX_IDENTITY);
    }
    return batch;
  }
}
