package io.watukuy.store.postgres;

import io.watukuy.ConfigException;
import io.watukuy.LeaseLostException;
import io.watukuy.StoreException;
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
 * A {@link StateStore} in PostgreSQL (docs/stores.md, "PostgresStore"), over any {@link DataSource}
 * that yields pgjdbc connections: a connection pool such as HikariCP in production. Fits several
 * instances on several hosts sharing one database: the lease protocol, enforced by row locks, lets
 * exactly one instance poll a key at a time (guarantee G5).
 *
 * <pre>{@code
 * HikariConfig config = new HikariConfig();
 * config.setJdbcUrl("jdbc:postgresql://db.internal:5432/app");
 * config.setUsername("watukuy");
 * config.setPassword(System.getenv("PGPASSWORD"));
 * config.setMaximumPoolSize(8);
 * HikariDataSource pool = new HikariDataSource(config);
 *
 * StateStore store = PostgresStore.create(pool);
 * StateStore custom = PostgresStore.builder(pool)
 *     .schema("watukuy")          // created by migrate() when missing
 *     .tablePrefix("orders_")
 *     .closeClient(true)          // close() also closes the pool
 *     .build();
 * }</pre>
 *
 * <p><b>Options.</b> {@code schema} (default {@value #DEFAULT_SCHEMA}): the PostgreSQL schema that
 * holds the tables, created by {@link #migrate()} when missing. {@code tablePrefix} (default
 * {@value #DEFAULT_TABLE_PREFIX}): prepended to every table and index name, so several stores can
 * share one schema. Both must be lower-case identifiers ({@code [a-z_][a-z0-9_]*}; at most 63
 * characters for the schema, 46 for the prefix, so that no name PostgreSQL derives is truncated; a
 * schema may not start with {@code pg_}); they are double-quoted in every statement, so no SQL can
 * be injected through them. {@code closeClient} (default {@code false}): whether {@link #close()}
 * also closes the data source, when it is {@link AutoCloseable} (a {@code HikariDataSource} is). By
 * default the caller owns the data source.
 *
 * <p><b>Lifecycle.</b> Neither {@link #create} nor the builder performs I/O. The first call checks
 * the schema version recorded in {@code <prefix>meta} and, when it is missing or older, creates the
 * schema, tables and indexes; {@link #migrate()} does the same eagerly. Both are idempotent and
 * safe from several instances at once: the DDL ({@code CREATE ... IF NOT EXISTS}) runs in one
 * transaction under a transaction-scoped advisory lock ({@code pg_advisory_xact_lock}) whose key is
 * derived from the schema name. A store whose schema is already at this release's version runs no
 * DDL at all, so an application role without {@code CREATE} privileges works once the schema
 * exists. A schema written by a newer release is refused with a {@link StoreException}. For teams
 * that manage schemas with their own tool (Flyway, Liquibase), {@link #DDL} (also the classpath
 * resource {@value #DDL_RESOURCE}) is the script for the default schema and prefix, and {@link
 * #ddlScript(String, String)} renders it for others; the script records the schema version, so the
 * store then runs no DDL.
 *
 * <p><b>Transactions and fencing.</b> Every call borrows a connection from the data source and
 * returns it before it returns; no connection is held between calls. Reads and single-statement
 * lease operations run in auto-commit. Every other write is one transaction that first locks the
 * key's row in {@code <prefix>pollers} ({@code SELECT ... FOR UPDATE}); a fenced write (a method
 * taking a {@link Lease}) then compares the stored owner and epoch, and on a mismatch rolls back
 * and throws {@link LeaseLostException}, having written nothing. {@link #acquireLease} is one
 * {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE} statement that takes the same row lock and
 * tests expiry on the latest committed row, so two instances can never both hold a key's lease, and
 * a lease taken over while a fenced write waits for the lock makes that write fail. The statements
 * are written for PostgreSQL's default isolation, READ COMMITTED; at REPEATABLE READ or
 * SERIALIZABLE (a pool's setting), a serialization failure or deadlock ({@code 40001}, {@code
 * 40P01}) rolls back and the call is retried, at most {@value #MAX_ATTEMPTS} times in all.
 *
 * <p><b>Storage.</b> Instants are {@code timestamptz}, stored to the millisecond: values read back
 * are truncated to it (the poller state JSON keeps full precision). The poller state is {@code
 * jsonb}; event envelopes, item payloads and errors are {@code json}, which PostgreSQL stores
 * exactly as written, so they round-trip byte for byte (jsonb would reorder their keys and refuse
 * {@code \u0000} inside strings). Identities sort by code point (the key columns use the {@code
 * "C"} collation). Acknowledged outbox rows are deleted. The outbox is keyed by {@code (poller,
 * partition, seq)}; {@code event_id} is indexed but not unique. PostgreSQL text cannot hold the
 * character U+0000, so a poller name, partition or identity containing it, or a cursor whose JSON
 * holds {@code \u0000} (the state is jsonb), fails with a {@link StoreException}.
 *
 * <p><b>Failures.</b> Every driver failure (the server unreachable, a backend terminated, a lock or
 * statement timeout) is thrown as a {@link StoreException} whose message names the host and
 * database, the schema and prefix, the operation and the key, with the driver's exception as the
 * cause. Host and database come from the data source's JDBC URL or, when it tells none, from the
 * first connection's metadata; user names, passwords and the URL's query string are never part of a
 * message. A failed write has been rolled back; only a failure while committing leaves it open
 * whether the commit happened, as with any database. The store keeps no broken connection: the pool
 * replaces it, so the next call after the server returns succeeds. A call waits while another
 * session holds a row it needs (another instance's write of the same key takes milliseconds); to
 * bound every wait, set {@code lock_timeout} or {@code statement_timeout} on the connections (for
 * example {@code options=-c%20lock_timeout%3D10s} in the JDBC URL), and a wait cut short fails with
 * a {@link StoreException}. Calls after {@link #close()} throw {@link IllegalStateException}.
 *
 * <p>Instances are safe for use from several threads; calls run concurrently up to the pool's size.
 *
 * <p>How this store keeps the SPI's contract where it has a choice:
 *
 * <ul>
 *   <li>{@code acquireLease}:
 *       <p>One statement, {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE <unowned or expired>},
 *       which locks the key's row and tests the latest committed lease: of several instances racing
 *       for a key, one wins and the others get empty.
 *   <li>{@code deleteKey}:
 *       <p>The key's epoch counter survives in an otherwise empty poller row, so the next
 *       acquisition still gets a higher epoch than any lease issued before the delete and a holder
 *       from before can never write again, even under the same owner name. One transaction.
 *   <li>{@code streamIdentities}:
 *       <p>Pages by identity ({@code identity > last ORDER BY identity LIMIT batchSize}), one query
 *       per batch when the stream asks for it, each on a connection borrowed for that query only;
 *       no cursor or transaction stays open between batches. Identities come in code point order; a
 *       {@code batchSize} below 1 throws {@code IllegalArgumentException}.
 *   <li>{@code commitPoll}:
 *       <p>One transaction of three round trips: lock the key's row and check the lease (reading
 *       the state), then one statement that writes the state patch, the item upserts, the outbox
 *       rows and the log rows (data-modifying {@code WITH} queries, the rows of each table as
 *       column arrays over {@code unnest}), then the commit; item deletes and parked rows, when a
 *       page has them, are statements of their own after it. An outbox sequence that is already
 *       pending (or appears twice in the batch) fails the whole commit with a {@link
 *       StoreException}, as overwriting it would lose an event; a log row or parked row with the
 *       same sequence or id is replaced. Logged events carry {@code now} as their creation time.
 *   <li>{@code ackEvents}: Acknowledged rows are deleted.
 *       <p>One statement, one round trip: it locks the key's row ({@code FOR UPDATE}, like every
 *       fenced write, so the lease check sees the newest owner and the lock order is the same) and
 *       deletes only when owner and epoch match; the row it returns tells which.
 *       <p>The ack commits with {@code synchronous_commit = off} for its own transaction: the
 *       server does not wait for the WAL flush. Acks are the one write made per few handled events,
 *       and a flush per ack was most of a bulk sync's time. What it risks: if the PostgreSQL server
 *       itself crashes (not the watukuy process), acks of the last moments (up to three times
 *       {@code wal_writer_delay}, 600 ms by default) can be lost, and those events are delivered
 *       again (at-least-once, G1; the handler dedupes by event id, G2). Every other write of the
 *       store, {@code commitPoll} above all, keeps the server's setting.
 *   <li>{@code recordAttempt}: An unknown sequence is ignored.
 *   <li>{@code parkEvent}:
 *       <p>The outbox row's commit time is kept with the parked row, so {@link #retryParked}
 *       restores it. A parked row with the same id is replaced.
 *   <li>{@code retryParked}:
 *       <p>A poison event returns with zero attempts, no error and no next-attempt time, and with
 *       the commit time it had in the outbox (its parking time when that is unknown). Unknown ids
 *       are ignored. One transaction, under the key's row lock. Throws {@link StoreException} when
 *       a parked poison row lacks its sequence, event id or envelope, so it cannot be re-queued;
 *       nothing is changed
 *   <li>{@code discardParked}: Unknown ids are ignored. One transaction, under the key's row lock.
 * </ul>
 *
 * @since 0.1
 */
public final class PostgresStore extends JdbcStore {

  /** Default of {@link Builder#schema(String)}. */
  public static final String DEFAULT_SCHEMA = "public";

  /** Default of {@link Builder#tablePrefix(String)}. */
  public static final String DEFAULT_TABLE_PREFIX = "watukuy_";

  /** Default of {@link Builder#closeClient(boolean)}. */
  public static final boolean DEFAULT_CLOSE_CLIENT = false;

  /** Classpath resource holding {@link #DDL}. */
  public static final String DDL_RESOURCE = "io/watukuy/store/postgres/schema.sql";

  /**
   * The DDL script of this release for schema {@value #DEFAULT_SCHEMA} and prefix {@value
   * #DEFAULT_TABLE_PREFIX}: {@code CREATE SCHEMA IF NOT EXISTS}, the tables and indexes, and the
   * statement that records the schema version, each ending in a semicolon. Every statement is
   * idempotent. Equal to the resource {@value #DDL_RESOURCE} and to {@code
   * ddlScript(DEFAULT_SCHEMA, DEFAULT_TABLE_PREFIX)}. For a Flyway or Liquibase migration; the
   * store never needs it.
   */
  public static final String DDL =
      new PostgresSchema(DEFAULT_SCHEMA, DEFAULT_TABLE_PREFIX).script();

  /** Attempts of a call that meets a serialization failure or deadlock. */
  static final int MAX_ATTEMPTS = JdbcStoreEngine.MAX_ATTEMPTS;

  private final PostgresOptions options;
  private final JdbcStoreEngine engine;

  private PostgresStore(DataSource dataSource, PostgresOptions options) {
    this.options = options;
    this.engine =
        JdbcStoreEngine.builder(new PostgresDialect(options))
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
  public static PostgresStore create(DataSource dataSource) {
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
   * The DDL this release applies for {@code schema} and {@code tablePrefix}, in order: {@code
   * CREATE SCHEMA IF NOT EXISTS}, the tables and indexes, and the statement that records the schema
   * version (it never lowers a recorded version). Every statement is idempotent.
   *
   * @param schema the schema the store will be built with, e.g. {@value #DEFAULT_SCHEMA}
   * @param tablePrefix the prefix the store will be built with, e.g. {@value #DEFAULT_TABLE_PREFIX}
   * @return the SQL statements, without trailing semicolons
   * @throws ConfigException when {@code schema} or {@code tablePrefix} is not valid; the message
   *     names the option and the value
   */
  public static List<String> ddl(String schema, String tablePrefix) {
    PostgresOptions o = new PostgresOptions(schema, tablePrefix, DEFAULT_CLOSE_CLIENT);
    return new PostgresSchema(o.schema(), o.tablePrefix()).ddl();
  }

  /**
   * {@link #ddl(String, String)} as one script: a comment header, then each statement ending in a
   * semicolon. Ready to save as a Flyway migration ({@code V1__watukuy.sql}) or a Liquibase {@code
   * sqlFile}.
   *
   * @param schema the schema the store will be built with
   * @param tablePrefix the prefix the store will be built with
   * @return the script, UTF-8 text with {@code \n} line ends
   * @throws ConfigException when {@code schema} or {@code tablePrefix} is not valid
   */
  public static String ddlScript(String schema, String tablePrefix) {
    PostgresOptions o = new PostgresOptions(schema, tablePrefix, DEFAULT_CLOSE_CLIENT);
    return new PostgresSchema(o.schema(), o.tablePrefix()).script();
  }

  /**
   * The text of the resource {@value #DDL_RESOURCE}, read from this module's jar.
   *
   * @return the script, equal to {@link #DDL}
   * @throws UncheckedIOException if the resource cannot be read
   */
  public static String ddlResource() {
    // through the class, not its loader: on the module path the resource's package is not open
    try (InputStream in = PostgresStore.class.getResourceAsStream("/" + DDL_RESOURCE)) {
      if (in == null) {
        throw new UncheckedIOException(
            new IOException("resource " + DDL_RESOURCE + " is missing from the classpath"));
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Options of a {@link PostgresStore}. Not thread-safe; {@link #build()} may be called more than
   * once, each call returning a new store.
   */
  public static final class Builder {
    private final DataSource dataSource;
    private String schema = DEFAULT_SCHEMA;
    private String tablePrefix = DEFAULT_TABLE_PREFIX;
    private boolean closeClient = DEFAULT_CLOSE_CLIENT;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * The PostgreSQL schema that holds the tables; {@link PostgresStore#migrate()} creates it when
     * missing. Defaults to {@value PostgresStore#DEFAULT_SCHEMA}.
     *
     * @param schema 1 to 63 lower-case letters, digits and {@code _}, not starting with a digit or
     *     {@code pg_}
     * @return this builder
     * @throws ConfigException when {@code schema} is not such an identifier; the message names the
     *     option and the value
     */
    public Builder schema(String schema) {
      PostgresOptions.checkSchema(schema);
      this.schema = schema;
      return this;
    }

    /**
     * Prefix of every table and index name. Defaults to {@value
     * PostgresStore#DEFAULT_TABLE_PREFIX}.
     *
     * @param tablePrefix 1 to 46 lower-case letters, digits and {@code _}, not starting with a
     *     digit
     * @return this builder
     * @throws ConfigException when {@code tablePrefix} is not such an identifier; the message names
     *     the option and the value
     */
    public Builder tablePrefix(String tablePrefix) {
      PostgresOptions.checkTablePrefix(tablePrefix);
      this.tablePrefix = tablePrefix;
      return this;
    }

    /**
     * Whether {@link PostgresStore#close()} also closes the data source, when it is {@link
     * AutoCloseable}. Defaults to {@value PostgresStore#DEFAULT_CLOSE_CLIENT}: the caller owns the
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
    public PostgresStore build() {
      return new PostgresStore(dataSource, new PostgresOptions(schema, tablePrefix, closeClient));
    }
  }

  /**
   * The schema that holds the tables.
   *
   * @return the schema name, unquoted
   */
  public String schema() {
    return options.schema();
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
   * Whether {@link #close()} closes the data source.
   *
   * @return the {@code closeClient} option
   */
  public boolean closeClient() {
    return options.closeClient();
  }

  @Override
  public String toString() {
    return "PostgresStore["
        + engine.where()
        + ", schema="
        + options.schema()
        + ", tablePrefix="
        + options.tablePrefix()
        + "]";
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
   * Creates the schema, tables and indexes when the recorded schema version is missing or older
   * than this release's. Idempotent; safe when several instances migrate at once (an advisory lock
   * serializes them). Runs no DDL when the schema is current.
   *
   * @throws StoreException when the database cannot be reached, the DDL fails (for example for lack
   *     of privileges), or the schema is newer than this release
   */
  @Override
  public void migrate() {
    engine().migrate();
  }

  /**
   * Marks the store closed and, with {@code closeClient}, closes the data source when it is {@link
   * AutoCloseable}. Idempotent. Leases are not released: they expire. Calls in progress on other
   * threads finish on the connections they hold.
   *
   * @throws StoreException when closing the data source fails
   */
  @Override
  public void close() {
    engine().close();
  }
}
