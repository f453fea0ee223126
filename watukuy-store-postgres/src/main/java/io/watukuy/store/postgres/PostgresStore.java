package io.watukuy.store.postgres;

import io.watukuy.ConfigException;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateCodec;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import io.watukuy.spi.StoreCapabilities;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A {@link StateStore} in PostgreSQL (Stores document, "PostgresStore"), over any {@link
 * DataSource} that yields pgjdbc connections: a connection pool such as HikariCP in production.
 * Fits several instances on several hosts sharing one database: the lease protocol, enforced by row
 * locks, lets exactly one instance poll a key at a time (guarantee G5).
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
 * @since 0.1
 */
public final class PostgresStore implements StateStore {

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
  static final int MAX_ATTEMPTS = 3;

  private static final String PENDING = "pending";

  private final DataSource dataSource;
  private final PostgresOptions options;
  private final PostgresSchema schema;
  private final ReentrantLock migration = new ReentrantLock();

  // Host and database for messages; learned from the first connection when the data source did
  // not tell. Never holds credentials.
  private volatile @Nullable String endpoint;
  private volatile boolean migrated;
  private final AtomicBoolean closed = new AtomicBoolean();

  private PostgresStore(DataSource dataSource, PostgresOptions options) {
    this.dataSource = dataSource;
    this.options = options;
    this.schema = new PostgresSchema(options.schema(), options.tablePrefix());
    this.endpoint = Endpoint.of(dataSource);
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
        + where()
        + ", schema="
        + options.schema()
        + ", tablePrefix="
        + options.tablePrefix()
        + "]";
  }

  // ---- lifecycle

  /** {@inheritDoc} All three: transactions, the replay log, and batched identity streaming. */
  @Override
  public StoreCapabilities capabilities() {
    return StoreCapabilities.ALL;
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
    ensureOpen();
    migration.lock();
    try {
      // An explicit call always reads the stored version again, even after a lazy migration.
      runMigration();
      migrated = true;
    } catch (SQLException e) {
      throw failure("migrate", null, null, e);
    } finally {
      migration.unlock();
    }
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
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (options.closeClient() && dataSource instanceof AutoCloseable) {
      try {
        ((AutoCloseable) dataSource).close();
      } catch (Exception e) {
        throw new StoreException(
            prefix() + "close failed: " + Endpoint.redact(String.valueOf(e.getMessage())), e);
      }
    }
  }

  // ---- leases

  /**
   * {@inheritDoc}
   *
   * <p>One statement, {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE <unowned or expired>},
   * which locks the key's row and tests the latest committed lease: of several instances racing for
   * a key, one wins and the others get empty.
   */
  @Override
  public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(now, "now");
    Instant at = ms(now);
    Instant expires = ms(now.plus(ttl));
    return autoCommit(
        "acquireLease",
        key,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO "
                      + schema.pollers
                      + " AS p (poller, \"partition\", lease_owner, lease_epoch,"
                      + " lease_expires_at, epoch_counter) VALUES (?, ?, ?, 1, ?, 1)"
                      + " ON CONFLICT (poller, \"partition\") DO UPDATE SET"
                      + " lease_owner = EXCLUDED.lease_owner,"
                      + " lease_epoch = p.epoch_counter + 1,"
                      + " lease_expires_at = EXCLUDED.lease_expires_at,"
                      + " epoch_counter = p.epoch_counter + 1"
                      + " WHERE p.lease_owner IS NULL OR p.lease_expires_at IS NULL"
                      + " OR p.lease_expires_at <= ?"
                      + " RETURNING lease_epoch")) {
            bindKey(ps, 1, key);
            ps.setString(3, owner);
            setTime(ps, 4, expires);
            setTime(ps, 5, at);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return Optional.<Lease>empty();
              }
              return Optional.of(new Lease(owner, rs.getLong(1), expires));
            }
          }
        });
  }

  @Override
  public Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(now, "now");
    Instant expires = ms(now.plus(ttl));
    return autoCommit(
        "renewLease",
        key,
        c -> {
          // One statement: the owner/epoch test and the write are atomic under the row lock.
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + schema.pollers
                      + " SET lease_expires_at = ?"
                      + " WHERE poller = ? AND \"partition\" = ? AND lease_owner = ?"
                      + " AND lease_epoch = ?")) {
            setTime(ps, 1, expires);
            bindKey(ps, 2, key);
            ps.setString(4, lease.owner());
            ps.setLong(5, lease.epoch());
            if (ps.executeUpdate() == 0) {
              return Optional.<Lease>empty();
            }
          }
          return Optional.of(new Lease(lease.owner(), lease.epoch(), expires));
        });
  }

  @Override
  public void releaseLease(PollerKey key, Lease lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    autoCommit(
        "releaseLease",
        key,
        c -> {
          // epoch_counter stays, so the next acquisition still gets a higher epoch.
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + schema.pollers
                      + " SET lease_owner = NULL, lease_epoch = NULL, lease_expires_at = NULL"
                      + " WHERE poller = ? AND \"partition\" = ? AND lease_owner = ?"
                      + " AND lease_epoch = ?")) {
            bindKey(ps, 1, key);
            ps.setString(3, lease.owner());
            ps.setLong(4, lease.epoch());
            ps.executeUpdate();
          }
          return null;
        });
  }

  @Override
  public Optional<Lease> getLease(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return autoCommit(
        "getLease",
        key,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT lease_owner, lease_epoch, lease_expires_at FROM "
                      + schema.pollers
                      + " WHERE poller = ? AND \"partition\" = ? AND lease_owner IS NOT NULL")) {
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return Optional.<Lease>empty();
              }
              return Optional.of(
                  new Lease(rs.getString(1), rs.getLong(2), Objects.requireNonNull(time(rs, 3))));
            }
          }
        });
  }

  // ---- state

  @Override
  public Optional<PollerState> loadState(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return autoCommit(
        "loadState",
        key,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT state FROM "
                      + schema.pollers
                      + " WHERE poller = ? AND \"partition\" = ?")) {
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return Optional.<PollerState>empty();
              }
              String json = rs.getString(1);
              return json == null
                  ? Optional.<PollerState>empty()
                  : Optional.of(StateCodec.fromJson(json));
            }
          }
        });
  }

  @Override
  public void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now) {
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    fenced(
        "saveState",
        key,
        lease,
        (c, state) -> {
          writeState(c, key, state, patch, now);
          return null;
        });
  }

  @Override
  public void saveStateUnfenced(PollerKey key, StatePatch patch, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    transaction(
        "saveStateUnfenced",
        key,
        c -> {
          // The row may not exist yet; create it empty (no state, no lease), then lock it.
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO "
                      + schema.pollers
                      + " (poller, \"partition\") VALUES (?, ?)"
                      + " ON CONFLICT (poller, \"partition\") DO NOTHING")) {
            bindKey(ps, 1, key);
            ps.executeUpdate();
          }
          String state;
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT state FROM "
                      + schema.pollers
                      + " WHERE poller = ? AND \"partition\" = ? FOR UPDATE")) {
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              state = rs.getString(1);
            }
          }
          writeState(c, key, state, patch, now);
          return null;
        });
  }

  @Override
  public List<PollerKey> listKeys(@Nullable String poller) {
    return autoCommit(
        "listKeys",
        null,
        c -> {
          String sql =
              "SELECT poller, \"partition\" FROM "
                  + schema.pollers
                  + " WHERE state IS NOT NULL"
                  + (poller == null ? "" : " AND poller = ?");
          List<PollerKey> keys = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (poller != null) {
              ps.setString(1, poller);
            }
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                keys.add(new PollerKey(rs.getString(1), rs.getString(2)));
              }
            }
          }
          // The "C" collation orders by code point, PollerKey by UTF-16 unit; they differ above
          // U+FFFF.
          Collections.sort(keys);
          return List.copyOf(keys);
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>The key's epoch counter survives in an otherwise empty poller row, so the next acquisition
   * still gets a higher epoch than any lease issued before the delete and a holder from before can
   * never write again, even under the same owner name. One transaction.
   */
  @Override
  public void deleteKey(PollerKey key) {
    Objects.requireNonNull(key, "key");
    transaction(
        "deleteKey",
        key,
        c -> {
          // The UPDATE takes the row lock first, as every write of a key does.
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + schema.pollers
                      + " SET state = NULL, lease_owner = NULL, lease_epoch = NULL,"
                      + " lease_expires_at = NULL WHERE poller = ? AND \"partition\" = ?")) {
            bindKey(ps, 1, key);
            ps.executeUpdate();
          }
          for (String table : schema.keyTables()) {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "DELETE FROM " + table + " WHERE poller = ? AND \"partition\" = ?")) {
              bindKey(ps, 1, key);
              ps.executeUpdate();
            }
          }
          return null;
        });
  }

  @Override
  public void clearItems(PollerKey key) {
    Objects.requireNonNull(key, "key");
    transaction(
        "clearItems",
        key,
        c -> {
          lockKey(c, key);
          try (PreparedStatement ps =
              c.prepareStatement(
                  "DELETE FROM " + schema.items + " WHERE poller = ? AND \"partition\" = ?")) {
            bindKey(ps, 1, key);
            ps.executeUpdate();
          }
          return null;
        });
  }

  // ---- items

  @Override
  public Map<String, ItemRow> loadVersions(PollerKey key, Collection<String> identities) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(identities, "identities");
    List<String> wanted = List.copyOf(new LinkedHashSet<>(identities));
    if (wanted.isEmpty()) {
      return Map.of();
    }
    return autoCommit(
        "loadVersions",
        key,
        c -> {
          Map<String, ItemRow> rows = new LinkedHashMap<>();
          try (PreparedStatement ps =
              c.prepareStatement(
                  // One index probe per identity, whatever the planner's statistics say: with
                  // "identity = ANY (?)" a table not analyzed since it grew (a first sync, before
                  // autovacuum's next pass) is read whole for every page; LIMIT 1 keeps the
                  // lateral subquery from being turned into that same join.
                  "SELECT i.identity, i.version, i.hash, i.schema_version, i.payload, i.ordering_key,"
                      + " i.seen_at FROM unnest(?::text[]) AS w(identity) CROSS JOIN LATERAL"
                      + " (SELECT * FROM "
                      + schema.items
                      + " WHERE poller = ? AND \"partition\" = ? AND identity = w.identity LIMIT 1) i")) {
            ps.setArray(1, textArray(c, wanted));
            bindKey(ps, 2, key);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                ItemRow row =
                    new ItemRow(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getInt(4),
                        rs.getString(5),
                        rs.getString(6),
                        Objects.requireNonNull(time(rs, 7)));
                rows.put(row.identity(), row);
              }
            }
          }
          return Collections.unmodifiableMap(rows);
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>Pages by identity ({@code identity > last ORDER BY identity LIMIT batchSize}), one query per
   * batch when the stream asks for it, each on a connection borrowed for that query only; no cursor
   * or transaction stays open between batches. Identities come in code point order.
   *
   * @throws IllegalArgumentException when {@code batchSize < 1}
   */
  @Override
  public Stream<List<String>> streamIdentities(PollerKey key, int batchSize) {
    Objects.requireNonNull(key, "key");
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1, but was " + batchSize);
    }
    Iterator<List<String>> batches = new IdentityBatches(key, batchSize);
    return StreamSupport.stream(
        Spliterators.spliteratorUnknownSize(
            batches, Spliterator.ORDERED | Spliterator.NONNULL | Spliterator.IMMUTABLE),
        false);
  }

  /** Keyset pagination over the items of one key. Not thread-safe, like any iterator. */
  private final class IdentityBatches implements Iterator<List<String>> {
    private final PollerKey key;
    private final int batchSize;
    private @Nullable String last;
    private @Nullable List<String> next;
    private boolean exhausted;

    IdentityBatches(PollerKey key, int batchSize) {
      this.key = key;
      this.batchSize = batchSize;
    }

    @Override
    public boolean hasNext() {
      if (next == null && !exhausted) {
        List<String> batch = fetch();
        if (batch.size() < batchSize) {
          exhausted = true;
        }
        if (!batch.isEmpty()) {
          next = batch;
          last = batch.get(batch.size() - 1);
        }
      }
      return next != null;
    }

    @Override
    public List<String> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      List<String> batch = Objects.requireNonNull(next);
      next = null;
      return batch;
    }

    private List<String> fetch() {
      String after = last;
      return autoCommit(
          "streamIdentities",
          key,
          c -> {
            List<String> ids = new ArrayList<>(Math.min(batchSize, 1024));
            try (PreparedStatement ps =
                c.prepareStatement(
                    "SELECT identity FROM "
                        + schema.items
                        + " WHERE poller = ? AND \"partition\" = ?"
                        + (after == null ? "" : " AND identity > ?")
                        + " ORDER BY identity LIMIT ?")) {
              bindKey(ps, 1, key);
              int i = 3;
              if (after != null) {
                ps.setString(i++, after);
              }
              ps.setInt(i, batchSize);
              try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  ids.add(rs.getString(1));
                }
              }
            }
            return List.copyOf(ids);
          });
    }
  }

  @Override
  public long countItems(PollerKey key) {
    return count("countItems", schema.items, key, "");
  }

  // ---- commit and outbox

  /**
   * {@inheritDoc}
   *
   * <p>One transaction, in this order: lock the key's row and check the lease, state patch, item
   * upserts, item deletes, outbox rows, log rows, parked rows. Rows are written with JDBC batches.
   * An outbox sequence that is already pending (or appears twice in the batch) fails the whole
   * commit with a {@link StoreException}, as overwriting it would lose an event; a log row or
   * parked row with the same sequence or id is replaced. Logged events carry {@code now} as their
   * creation time.
   */
  @Override
  public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
    Objects.requireNonNull(batch, "batch");
    Objects.requireNonNull(now, "now");
    fenced(
        "commitPoll",
        key,
        lease,
        (c, state) -> {
          writeState(c, key, state, batch.statePatch(), now);
          upsertItems(c, key, batch.upserts());
          deleteItems(c, key, batch.deletes());
          insertEvents(c, key, batch.events());
          if (batch.log()) {
            insertLog(c, key, batch.events(), now);
          }
          for (ParkedRow row : batch.parked()) {
            upsertParked(c, key, row, null);
          }
          return null;
        });
  }

  @Override
  public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
    Objects.requireNonNull(key, "key");
    requireLimit(limit);
    if (limit == 0) {
      return List.of();
    }
    return autoCommit(
        "loadPending",
        key,
        c -> {
          List<OutboxRow> rows = new ArrayList<>();
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT seq, event_id, ordering_key, event, attempts, next_attempt_at,"
                      + " last_error, created_at FROM "
                      + schema.outbox
                      + " WHERE poller = ? AND \"partition\" = ? AND status = '"
                      + PENDING
                      + "' AND seq > ? ORDER BY seq LIMIT ?")) {
            bindKey(ps, 1, key);
            ps.setLong(3, afterSequence);
            ps.setInt(4, limit);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                rows.add(
                    new OutboxRow(
                        rs.getLong(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getString(4),
                        rs.getInt(5),
                        time(rs, 6),
                        rs.getString(7),
                        Objects.requireNonNull(time(rs, 8))));
              }
            }
          }
          return List.copyOf(rows);
        });
  }

  @Override
  public long countPending(PollerKey key) {
    return count("countPending", schema.outbox, key, " AND status = '" + PENDING + "'");
  }

  /**
   * {@inheritDoc} Acknowledged rows are deleted.
   *
   * <p>One statement, one round trip: it locks the key's row ({@code FOR UPDATE}, like every fenced
   * write, so the lease check sees the newest owner and the lock order is the same) and deletes
   * only when owner and epoch match; the row it returns tells which.
   *
   * <p>The ack commits with {@code synchronous_commit = off} for its own transaction: the server
   * does not wait for the WAL flush. Acks are the one write made per few handled events, and a
   * flush per ack was most of a bulk sync's time. What it risks: if the PostgreSQL server itself
   * crashes (not the watukuy process), acks of the last moments (up to three times {@code
   * wal_writer_delay}, 600 ms by default) can be lost, and those events are delivered again
   * (at-least-once, G1; the handler dedupes by event id, G2). Every other write of the store,
   * {@code commitPoll} above all, keeps the server's setting.
   */
  @Override
  public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(sequences, "sequences");
    Long[] seqs = sequences.toArray(Long[]::new);
    autoCommit(
        "ackEvents",
        key,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "WITH lease AS (SELECT lease_owner, lease_epoch FROM "
                      + schema.pollers
                      + " WHERE poller = ? AND \"partition\" = ? FOR UPDATE),"
                      + " acked AS (DELETE FROM "
                      + schema.outbox
                      + " WHERE poller = ? AND \"partition\" = ? AND seq = ANY (?)"
                      + " AND EXISTS (SELECT 1 FROM lease WHERE lease_owner = ? AND lease_epoch = ?)"
                      + " RETURNING 1)"
                      + " SELECT lease_owner, lease_epoch, (SELECT count(*) FROM acked),"
                      + " set_config('synchronous_commit', 'off', true) FROM lease")) {
            bindKey(ps, 1, key);
            bindKey(ps, 3, key);
            ps.setArray(5, c.createArrayOf("bigint", seqs));
            ps.setString(6, lease.owner());
            ps.setLong(7, lease.epoch());
            try (ResultSet rs = ps.executeQuery()) {
              checkLeaseRow(rs, key, lease);
            }
          }
          return null;
        });
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
    fenced(
        "recordAttempt",
        key,
        lease,
        (c, state) -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + schema.outbox
                      + " SET attempts = attempts + 1, last_error = CAST(? AS json),"
                      + " next_attempt_at = ?"
                      + " WHERE poller = ? AND \"partition\" = ? AND seq = ?")) {
            ps.setString(1, errorJson);
            setTimeOrNull(ps, 2, nextAttemptAt);
            bindKey(ps, 3, key);
            ps.setLong(5, sequence);
            ps.executeUpdate();
          }
          return null;
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>The outbox row's commit time is kept with the parked row, so {@link #retryParked} restores
   * it. A parked row with the same id is replaced.
   */
  @Override
  public void parkEvent(PollerKey key, Lease lease, ParkedRow row) {
    Objects.requireNonNull(row, "row");
    fenced(
        "parkEvent",
        key,
        lease,
        (c, state) -> {
          Instant createdAt = null;
          Long seq = row.sequence();
          if (seq != null) {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "DELETE FROM "
                        + schema.outbox
                        + " WHERE poller = ? AND \"partition\" = ? AND seq = ?"
                        + " RETURNING created_at")) {
              bindKey(ps, 1, key);
              ps.setLong(3, seq);
              try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                  createdAt = time(rs, 1);
                }
              }
            }
          }
          upsertParked(c, key, row, createdAt);
          return null;
        });
  }

  @Override
  public List<ParkedRow> listParked(PollerKey key, @Nullable ParkedKind kind, int limit) {
    Objects.requireNonNull(key, "key");
    requireLimit(limit);
    if (limit == 0) {
      return List.of();
    }
    return autoCommit(
        "listParked",
        key,
        c -> {
          List<ParkedRow> rows = new ArrayList<>();
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT id, kind, seq, event_id, ordering_key, event, item, error, attempts,"
                      + " parked_at, hold_key FROM "
                      + schema.parked
                      + " WHERE poller = ? AND \"partition\" = ?"
                      + (kind == null ? "" : " AND kind = ?")
                      + " ORDER BY parked_at, id LIMIT ?")) {
            bindKey(ps, 1, key);
            int i = 3;
            if (kind != null) {
              ps.setString(i++, kind.wire());
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                long seq = rs.getLong(3);
                Long sequence = rs.wasNull() ? null : seq;
                rows.add(
                    new ParkedRow(
                        rs.getString(1),
                        ParkedKind.fromWire(rs.getString(2)),
                        sequence,
                        rs.getString(4),
                        rs.getString(5),
                        rs.getString(6),
                        rs.getString(7),
                        rs.getString(8),
                        rs.getInt(9),
                        Objects.requireNonNull(time(rs, 10)),
                        rs.getString(11)));
              }
            }
          }
          return List.copyOf(rows);
        });
  }

  @Override
  public long countParked(PollerKey key) {
    return count("countParked", schema.parked, key, "");
  }

  /**
   * {@inheritDoc}
   *
   * <p>A poison event returns with zero attempts, no error and no next-attempt time, and with the
   * commit time it had in the outbox (its parking time when that is unknown). Unknown ids are
   * ignored. One transaction, under the key's row lock.
   *
   * @throws StoreException when a parked poison row lacks its sequence, event id or envelope, so it
   *     cannot be re-queued; nothing is changed
   */
  @Override
  public int retryParked(PollerKey key, Collection<String> ids) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ids, "ids");
    List<String> wanted = List.copyOf(new LinkedHashSet<>(ids));
    if (wanted.isEmpty()) {
      return 0;
    }
    return transaction(
        "retryParked",
        key,
        c -> {
          lockKey(c, key);
          List<ParkedEvent> found = new ArrayList<>();
          try (PreparedStatement select =
              c.prepareStatement(
                  "SELECT id, kind, seq, event_id, ordering_key, event,"
                      + " COALESCE(created_at, parked_at) FROM "
                      + schema.parked
                      + " WHERE poller = ? AND \"partition\" = ? AND id = ANY (?)"
                      + " ORDER BY id")) {
            bindKey(select, 1, key);
            select.setArray(3, textArray(c, wanted));
            try (ResultSet rs = select.executeQuery()) {
              while (rs.next()) {
                String id = rs.getString(1);
                ParkedKind kind = ParkedKind.fromWire(rs.getString(2));
                long seq = rs.getLong(3);
                Long sequence = rs.wasNull() ? null : seq;
                String eventId = rs.getString(4);
                String event = rs.getString(6);
                if (kind == ParkedKind.POISON
                    && (sequence == null || eventId == null || event == null)) {
                  // Dropping it would lose the event for good; refuse the whole retry instead.
                  throw new StoreException(
                      prefix()
                          + "retryParked "
                          + key
                          + ": parked poison row "
                          + id
                          + " has no sequence, event id or event to put back; nothing was changed",
                      null);
                }
                found.add(
                    new ParkedEvent(
                        id,
                        kind,
                        sequence,
                        eventId,
                        rs.getString(5),
                        event,
                        Objects.requireNonNull(time(rs, 7))));
              }
            }
          }
          try (PreparedStatement restore =
              c.prepareStatement(
                  "INSERT INTO "
                      + schema.outbox
                      + " (poller, \"partition\", seq, event_id, ordering_key, event, status,"
                      + " attempts, next_attempt_at, last_error, created_at)"
                      + " VALUES (?, ?, ?, ?, ?, CAST(? AS json), '"
                      + PENDING
                      + "', 0, NULL, NULL, ?)"
                      + " ON CONFLICT (poller, \"partition\", seq) DO UPDATE SET"
                      + " event_id = EXCLUDED.event_id, ordering_key = EXCLUDED.ordering_key,"
                      + " event = EXCLUDED.event, status = EXCLUDED.status, attempts = 0,"
                      + " next_attempt_at = NULL, last_error = NULL,"
                      + " created_at = EXCLUDED.created_at")) {
            boolean any = false;
            for (ParkedEvent p : found) {
              if (p.kind() == ParkedKind.POISON) {
                bindKey(restore, 1, key);
                restore.setLong(3, Objects.requireNonNull(p.sequence()));
                restore.setString(4, p.eventId());
                restore.setString(5, p.orderingKey());
                restore.setString(6, p.event());
                setTime(restore, 7, p.createdAt());
                restore.addBatch();
                any = true;
              }
            }
            if (any) {
              restore.executeBatch();
            }
          }
          if (!found.isEmpty()) {
            try (PreparedStatement delete =
                c.prepareStatement(
                    "DELETE FROM "
                        + schema.parked
                        + " WHERE poller = ? AND \"partition\" = ? AND id = ANY (?)")) {
              bindKey(delete, 1, key);
              delete.setArray(3, textArray(c, found.stream().map(ParkedEvent::id).toList()));
              delete.executeUpdate();
            }
          }
          return found.size();
        });
  }

  /** The part of a parked row that {@link #retryParked} puts back. */
  private record ParkedEvent(
      String id,
      ParkedKind kind,
      @Nullable Long sequence,
      @Nullable String eventId,
      String orderingKey,
      @Nullable String event,
      Instant createdAt) {}

  /** {@inheritDoc} Unknown ids are ignored. One transaction, under the key's row lock. */
  @Override
  public int discardParked(PollerKey key, Collection<String> ids) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ids, "ids");
    List<String> wanted = List.copyOf(new LinkedHashSet<>(ids));
    if (wanted.isEmpty()) {
      return 0;
    }
    return transaction(
        "discardParked",
        key,
        c -> {
          lockKey(c, key);
          try (PreparedStatement ps =
              c.prepareStatement(
                  "DELETE FROM "
                      + schema.parked
                      + " WHERE poller = ? AND \"partition\" = ? AND id = ANY (?)")) {
            bindKey(ps, 1, key);
            ps.setArray(3, textArray(c, wanted));
            return ps.executeUpdate();
          }
        });
  }

  @Override
  public Set<String> heldKeys(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return autoCommit(
        "heldKeys",
        key,
        c -> {
          Set<String> held = new LinkedHashSet<>();
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT DISTINCT hold_key FROM "
                      + schema.parked
                      + " WHERE poller = ? AND \"partition\" = ? AND hold_key IS NOT NULL")) {
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                held.add(rs.getString(1));
              }
            }
          }
          return Set.copyOf(held);
        });
  }

  // ---- HTTP validators

  @Override
  public Optional<HttpValidator> getValidator(PollerKey key, String urlHash) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(urlHash, "urlHash");
    return autoCommit(
        "getValidator",
        key,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT etag, last_modified, stored_at FROM "
                      + schema.validators
                      + " WHERE poller = ? AND \"partition\" = ? AND url_hash = ?")) {
            bindKey(ps, 1, key);
            ps.setString(3, urlHash);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return Optional.<HttpValidator>empty();
              }
              return Optional.of(
                  new HttpValidator(
                      rs.getString(1), rs.getString(2), Objects.requireNonNull(time(rs, 3))));
            }
          }
        });
  }

  @Override
  public void setValidator(PollerKey key, Lease lease, String urlHash, HttpValidator validator) {
    Objects.requireNonNull(urlHash, "urlHash");
    Objects.requireNonNull(validator, "validator");
    fenced(
        "setValidator",
        key,
        lease,
        (c, state) -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO "
                      + schema.validators
                      + " (poller, \"partition\", url_hash, etag, last_modified, stored_at)"
                      + " VALUES (?, ?, ?, ?, ?, ?)"
                      + " ON CONFLICT (poller, \"partition\", url_hash) DO UPDATE SET"
                      + " etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified,"
                      + " stored_at = EXCLUDED.stored_at")) {
            bindKey(ps, 1, key);
            ps.setString(3, urlHash);
            ps.setString(4, validator.etag());
            ps.setString(5, validator.lastModified());
            setTime(ps, 6, validator.storedAt());
            ps.executeUpdate();
          }
          return null;
        });
  }

  // ---- replay log

  @Override
  public List<LoggedEvent> readLog(PollerKey key, LogRange range, int limit) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    requireLimit(limit);
    if (limit == 0) {
      return List.of();
    }
    return autoCommit(
        "readLog",
        key,
        c -> {
          StringBuilder sql =
              new StringBuilder("SELECT seq, event, created_at FROM ")
                  .append(schema.log)
                  .append(" WHERE poller = ? AND \"partition\" = ?");
          Long after = range.afterSequence();
          Instant from = range.fromTime();
          Instant to = range.toTime();
          if (after != null) {
            sql.append(" AND seq > ?");
          }
          if (from != null) {
            sql.append(" AND created_at >= ?");
          }
          if (to != null) {
            sql.append(" AND created_at < ?");
          }
          sql.append(" ORDER BY seq LIMIT ?");
          List<LoggedEvent> events = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            bindKey(ps, 1, key);
            int i = 3;
            if (after != null) {
              ps.setLong(i++, after);
            }
            if (from != null) {
              setTime(ps, i++, from);
            }
            if (to != null) {
              setTime(ps, i++, to);
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                events.add(
                    new LoggedEvent(
                        rs.getLong(1), rs.getString(2), Objects.requireNonNull(time(rs, 3))));
              }
            }
          }
          return List.copyOf(events);
        });
  }

  @Override
  public int pruneLog(PollerKey key, Instant olderThan) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(olderThan, "olderThan");
    return transaction(
        "pruneLog",
        key,
        c -> {
          lockKey(c, key);
          try (PreparedStatement ps =
              c.prepareStatement(
                  "DELETE FROM "
                      + schema.log
                      + " WHERE poller = ? AND \"partition\" = ? AND created_at < ?")) {
            bindKey(ps, 1, key);
            setTime(ps, 3, olderThan);
            return ps.executeUpdate();
          }
        });
  }

  // ---- writes shared by several operations

  /** Applies {@code patch} to {@code current} (or creates the state) on the locked row. */
  private void writeState(
      Connection c, PollerKey key, @Nullable String current, StatePatch patch, Instant now)
      throws SQLException {
    PollerState next =
        current == null
            ? PollerState.create(patch, now)
            : StateCodec.fromJson(current).apply(patch, now);
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE "
                + schema.pollers
                + " SET state = CAST(? AS jsonb) WHERE poller = ? AND \"partition\" = ?")) {
      ps.setString(1, StateCodec.toJson(next));
      bindKey(ps, 2, key);
      ps.executeUpdate();
    }
  }

  /**
   * One statement for the whole page: the rows travel as column arrays and {@code unnest} turns
   * them back into rows. A JDBC batch would execute the statement once per row on the server, which
   * made commitPoll several times slower than the rows' own write. An identity listed twice keeps
   * its last row, as one upsert after another would.
   */
  private void upsertItems(Connection c, PollerKey key, List<ItemRow> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    Map<String, ItemRow> last = new LinkedHashMap<>();
    for (ItemRow row : rows) {
      last.remove(row.identity());
      last.put(row.identity(), row);
    }
    int n = last.size();
    String[] identity = new String[n];
    String[] version = new String[n];
    String[] hash = new String[n];
    Integer[] schemaVersion = new Integer[n];
    String[] payload = new String[n];
    String[] orderingKey = new String[n];
    String[] seenAt = new String[n];
    int i = 0;
    for (ItemRow row : last.values()) {
      identity[i] = row.identity();
      version[i] = row.version();
      hash[i] = row.hash();
      schemaVersion[i] = row.schemaVersion();
      payload[i] = row.payload();
      orderingKey[i] = row.orderingKey();
      seenAt[i] = ms(row.seenAt()).toString();
      i++;
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + schema.items
                + " (poller, \"partition\", identity, version, hash, schema_version, payload,"
                + " ordering_key, seen_at)"
                + " SELECT ?, ?, u.identity, u.version, u.hash, u.schema_version,"
                + " CAST(u.payload AS json), u.ordering_key, CAST(u.seen_at AS timestamptz)"
                + " FROM unnest(?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::text[], ?::text[])"
                + " AS u(identity, version, hash, schema_version, payload, ordering_key, seen_at)"
                + " ON CONFLICT (poller, \"partition\", identity) DO UPDATE SET"
                + " version = EXCLUDED.version, hash = EXCLUDED.hash,"
                + " schema_version = EXCLUDED.schema_version, payload = EXCLUDED.payload,"
                + " ordering_key = EXCLUDED.ordering_key, seen_at = EXCLUDED.seen_at")) {
      bindKey(ps, 1, key);
      ps.setArray(3, c.createArrayOf("text", identity));
      ps.setArray(4, c.createArrayOf("text", version));
      ps.setArray(5, c.createArrayOf("text", hash));
      ps.setArray(6, c.createArrayOf("int4", schemaVersion));
      ps.setArray(7, c.createArrayOf("text", payload));
      ps.setArray(8, c.createArrayOf("text", orderingKey));
      ps.setArray(9, c.createArrayOf("text", seenAt));
      ps.executeUpdate();
    }
  }

  private void deleteItems(Connection c, PollerKey key, List<String> identities)
      throws SQLException {
    if (identities.isEmpty()) {
      return;
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "DELETE FROM "
                + schema.items
                + " WHERE poller = ? AND \"partition\" = ? AND identity = ANY (?)")) {
      bindKey(ps, 1, key);
      ps.setArray(3, textArray(c, identities));
      ps.executeUpdate();
    }
  }

  /** One statement for the whole page, as {@link #upsertItems} does. */
  private void insertEvents(Connection c, PollerKey key, List<OutboxRow> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    int n = rows.size();
    Long[] seq = new Long[n];
    String[] eventId = new String[n];
    String[] orderingKey = new String[n];
    String[] event = new String[n];
    Integer[] attempts = new Integer[n];
    String[] nextAttemptAt = new String[n];
    String[] lastError = new String[n];
    String[] createdAt = new String[n];
    for (int i = 0; i < n; i++) {
      OutboxRow row = rows.get(i);
      seq[i] = row.sequence();
      eventId[i] = row.eventId();
      orderingKey[i] = row.orderingKey();
      event[i] = row.event();
      attempts[i] = row.attempts();
      nextAttemptAt[i] = row.nextAttemptAt() == null ? null : ms(row.nextAttemptAt()).toString();
      lastError[i] = row.lastError();
      createdAt[i] = ms(row.createdAt()).toString();
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + schema.outbox
                + " (poller, \"partition\", seq, event_id, ordering_key, event, status, attempts,"
                + " next_attempt_at, last_error, created_at)"
                + " SELECT ?, ?, u.seq, u.event_id, u.ordering_key, CAST(u.event AS json), '"
                + PENDING
                + "', u.attempts, CAST(u.next_attempt_at AS timestamptz), CAST(u.last_error AS json),"
                + " CAST(u.created_at AS timestamptz)"
                + " FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::text[],"
                + " ?::text[]) AS u(seq, event_id, ordering_key, event, attempts, next_attempt_at,"
                + " last_error, created_at)")) {
      bindKey(ps, 1, key);
      ps.setArray(3, c.createArrayOf("int8", seq));
      ps.setArray(4, c.createArrayOf("text", eventId));
      ps.setArray(5, c.createArrayOf("text", orderingKey));
      ps.setArray(6, c.createArrayOf("text", event));
      ps.setArray(7, c.createArrayOf("int4", attempts));
      ps.setArray(8, c.createArrayOf("text", nextAttemptAt));
      ps.setArray(9, c.createArrayOf("text", lastError));
      ps.setArray(10, c.createArrayOf("text", createdAt));
      ps.executeUpdate();
    }
  }

  private void insertLog(Connection c, PollerKey key, List<OutboxRow> rows, Instant now)
      throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + schema.log
                + " (poller, \"partition\", seq, event, created_at)"
                + " VALUES (?, ?, ?, CAST(? AS json), ?)"
                + " ON CONFLICT (poller, \"partition\", seq) DO UPDATE SET"
                + " event = EXCLUDED.event, created_at = EXCLUDED.created_at")) {
      for (OutboxRow row : rows) {
        bindKey(ps, 1, key);
        ps.setLong(3, row.sequence());
        ps.setString(4, row.event());
        setTime(ps, 5, now);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  private void upsertParked(Connection c, PollerKey key, ParkedRow row, @Nullable Instant createdAt)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + schema.parked
                + " (poller, \"partition\", id, kind, seq, event_id, ordering_key, event, item,"
                + " error, attempts, parked_at, hold_key, created_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, CAST(? AS json), CAST(? AS json),"
                + " CAST(? AS json), ?, ?, ?, ?)"
                + " ON CONFLICT (poller, \"partition\", id) DO UPDATE SET"
                + " kind = EXCLUDED.kind, seq = EXCLUDED.seq, event_id = EXCLUDED.event_id,"
                + " ordering_key = EXCLUDED.ordering_key, event = EXCLUDED.event,"
                + " item = EXCLUDED.item, error = EXCLUDED.error, attempts = EXCLUDED.attempts,"
                + " parked_at = EXCLUDED.parked_at, hold_key = EXCLUDED.hold_key,"
                + " created_at = EXCLUDED.created_at")) {
      bindKey(ps, 1, key);
      ps.setString(3, row.id());
      ps.setString(4, row.kind().wire());
      Long seq = row.sequence();
      if (seq == null) {
        ps.setNull(5, Types.BIGINT);
      } else {
        ps.setLong(5, seq);
      }
      ps.setString(6, row.eventId());
      ps.setString(7, row.orderingKey());
      ps.setString(8, row.event());
      ps.setString(9, row.item());
      ps.setString(10, row.error());
      ps.setInt(11, row.attempts());
      setTime(ps, 12, row.parkedAt());
      ps.setString(13, row.holdKey());
      setTimeOrNull(ps, 14, createdAt);
      ps.executeUpdate();
    }
  }

  private long count(String op, String table, PollerKey key, String condition) {
    Objects.requireNonNull(key, "key");
    return autoCommit(
        op,
        key,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT count(*) FROM "
                      + table
                      + " WHERE poller = ? AND \"partition\" = ?"
                      + condition)) {
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              return rs.getLong(1);
            }
          }
        });
  }

  // ---- fencing, transactions, connections

  /** Work on a connection that may throw the driver's exception. */
  @FunctionalInterface
  private interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  /** Work of a fenced write, given the locked row's state JSON (null before the first write). */
  @FunctionalInterface
  private interface FencedWork<T> {
    T run(Connection c, @Nullable String state) throws SQLException;
  }

  /**
   * A transaction that locks the key's row, checks {@code lease}, then runs {@code work}; a
   * mismatch rolls back and throws {@link LeaseLostException}.
   */
  private <T> T fenced(String op, PollerKey key, Lease lease, FencedWork<T> work) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    return transaction(
        op,
        key,
        c -> {
          String state;
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT lease_owner, lease_epoch, state FROM "
                      + schema.pollers
                      + " WHERE poller = ? AND \"partition\" = ? FOR UPDATE")) {
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
              checkLeaseRow(rs, key, lease);
              state = rs.getString(3);
            }
          }
          return work.run(c, state);
        });
  }

  /**
   * Checks the key row a fenced statement read (columns 1 and 2: {@code lease_owner}, {@code
   * lease_epoch}); leaves the result set on that row.
   *
   * @throws LeaseLostException if there is no row, no holder, or another owner or epoch
   */
  private static void checkLeaseRow(ResultSet rs, PollerKey key, Lease lease) throws SQLException {
    if (!rs.next()) {
      throw new LeaseLostException(key, lease.epoch(), null);
    }
    String owner = rs.getString(1);
    long epoch = rs.getLong(2);
    if (owner == null || rs.wasNull()) {
      throw new LeaseLostException(key, lease.epoch(), null);
    }
    if (!owner.equals(lease.owner()) || epoch != lease.epoch()) {
      throw new LeaseLostException(key, lease.epoch(), epoch);
    }
  }

  /**
   * Locks the key's row for the rest of the transaction, when it exists. Every write transaction of
   * a key takes this lock before touching the key's other rows, so writes of one key never
   * deadlock.
   */
  private void lockKey(Connection c, PollerKey key) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT 1 FROM "
                + schema.pollers
                + " WHERE poller = ? AND \"partition\" = ? FOR UPDATE")) {
      bindKey(ps, 1, key);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
      }
    }
  }

  /** Runs {@code work} in one transaction, committed when it returns, rolled back otherwise. */
  private <T> T transaction(String op, @Nullable PollerKey key, SqlWork<T> work) {
    return call(op, key, true, work);
  }

  /** Runs {@code work} with auto-commit on: reads and single-statement writes. */
  private <T> T autoCommit(String op, @Nullable PollerKey key, SqlWork<T> work) {
    return call(op, key, false, work);
  }

  /**
   * Migrates lazily, then runs {@code work} on a borrowed connection; retries a serialization
   * failure or deadlock (which the server rolled back), wraps any other driver failure.
   */
  private <T> T call(String op, @Nullable PollerKey key, boolean transaction, SqlWork<T> work) {
    ensureOpen();
    if (!migrated) {
      migration.lock();
      try {
        if (!migrated) {
          runMigration();
          migrated = true;
        }
      } catch (SQLException e) {
        throw failure(op, key, "while checking or creating the schema", e);
      } finally {
        migration.unlock();
      }
    }
    for (int attempt = 1; ; attempt++) {
      try {
        return onConnection(transaction, work);
      } catch (SQLException e) {
        if (attempt < MAX_ATTEMPTS && isRollbackRetryable(e)) {
          continue;
        }
        throw failure(op, key, null, e);
      }
    }
  }

  private <T> T onConnection(boolean transaction, SqlWork<T> work) throws SQLException {
    try (Connection c = borrow()) {
      learnEndpoint(c);
      if (!transaction) {
        // A pool may hand out connections with auto-commit off; a lone write would then be
        // rolled back when the connection returns.
        if (!c.getAutoCommit()) {
          c.setAutoCommit(true);
        }
        return work.run(c);
      }
      c.setAutoCommit(false);
      T result;
      try {
        result = work.run(c);
        c.commit();
      } catch (Throwable t) {
        rollback(c, t);
        throw t;
      }
      c.setAutoCommit(true);
      return result;
    }
  }

  /**
   * A connection from the data source. Some pools throw unchecked exceptions when they cannot start
   * (HikariCP's {@code PoolInitializationException}); those become driver failures too.
   */
  private Connection borrow() throws SQLException {
    try {
      return dataSource.getConnection();
    } catch (RuntimeException e) {
      throw new SQLException("the data source gave no connection: " + e.getMessage(), "08001", e);
    }
  }

  private static void rollback(Connection c, Throwable cause) {
    try {
      c.rollback();
    } catch (SQLException | RuntimeException e) {
      // A connection that broke mid-transaction cannot roll back; the server already has.
      cause.addSuppressed(e);
    }
  }

  /** Serialization failures and deadlocks: the server rolled the transaction back in full. */
  private static boolean isRollbackRetryable(SQLException e) {
    String state = sqlState(e);
    return "40001".equals(state) || "40P01".equals(state);
  }

  private static @Nullable String sqlState(SQLException e) {
    SQLException next = e instanceof BatchUpdateException ? e.getNextException() : null;
    if (next != null && next.getSQLState() != null) {
      return next.getSQLState();
    }
    return e.getSQLState();
  }

  private void ensureOpen() {
    if (closed.get()) {
      throw new IllegalStateException(this + " is closed");
    }
  }

  /**
   * Brings the schema to {@link PostgresSchema#VERSION}. Reads the recorded version first, in
   * auto-commit: when it is current, nothing else runs (no DDL, no lock), so a role without {@code
   * CREATE} privileges works on a schema migrated by someone else.
   */
  private void runMigration() throws SQLException {
    Integer stored = onConnection(false, this::readVersion);
    if (stored != null && stored == PostgresSchema.VERSION) {
      return;
    }
    checkNotNewer(stored);
    onConnection(
        true,
        c -> {
          // The version is read again after waiting for the lock; at REPEATABLE READ that read
          // would see the snapshot from before the wait, and the version upsert would fail.
          execute(c, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
          try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
            ps.setLong(1, schema.migrationLockKey());
            ps.executeQuery().close();
          }
          // CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when the schema
          // exists, so it runs only when the schema is missing.
          boolean exists;
          try (PreparedStatement ps =
              c.prepareStatement("SELECT 1 FROM pg_namespace WHERE nspname = ?")) {
            ps.setString(1, options.schema());
            try (ResultSet rs = ps.executeQuery()) {
              exists = rs.next();
            }
          }
          if (!exists) {
            execute(c, schema.createSchema());
          }
          execute(c, schema.createMeta());
          Integer again = readVersion(c);
          checkNotNewer(again);
          if (again == null || again < PostgresSchema.VERSION) {
            for (String ddl : schema.tables()) {
              execute(c, ddl);
            }
            execute(c, schema.upgradeVersion());
          }
          return null;
        });
  }

  /** The recorded schema version, or null when the schema or meta table does not exist yet. */
  private @Nullable Integer readVersion(Connection c) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT value FROM " + schema.meta + " WHERE name = ?")) {
      ps.setString(1, PostgresSchema.VERSION_NAME);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        String value = rs.getString(1);
        try {
          return Integer.valueOf(value.trim());
        } catch (NumberFormatException e) {
          throw new StoreException(
              prefix()
                  + "schema version '"
                  + value
                  + "' in "
                  + schema.meta
                  + " is not a number; the table was changed by hand",
              e);
        }
      }
    } catch (SQLException e) {
      // 42P01 undefined_table, 3F000 invalid_schema_name: nothing migrated yet. Only reached in
      // auto-commit or before anything else in the transaction, so nothing is lost by the error.
      if ("42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState())) {
        if (!c.getAutoCommit()) {
          throw e;
        }
        return null;
      }
      throw e;
    }
  }

  private void checkNotNewer(@Nullable Integer stored) {
    if (stored != null && stored > PostgresSchema.VERSION) {
      throw new StoreException(
          prefix()
              + "schema version "
              + stored
              + " in "
              + schema.meta
              + " is newer than this release supports ("
              + PostgresSchema.VERSION
              + "); upgrade watukuy",
          null);
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** Takes host and database from the first connection when the data source did not tell them. */
  private void learnEndpoint(Connection c) {
    if (endpoint != null) {
      return;
    }
    try {
      String url = c.getMetaData().getURL();
      if (url != null) {
        endpoint = Endpoint.fromJdbcUrl(url);
      }
    } catch (SQLException | RuntimeException e) {
      // Only messages lose detail; the call itself goes on.
    }
  }

  private String where() {
    String e = endpoint;
    return e != null ? e : "(host unknown: " + dataSource.getClass().getSimpleName() + ")";
  }

  /** {@code postgres store host:port/db, schema s, prefix p: } */
  private String prefix() {
    return "postgres store "
        + where()
        + " (schema "
        + options.schema()
        + ", prefix "
        + options.tablePrefix()
        + "): ";
  }

  private StoreException failure(
      String op, @Nullable PollerKey key, @Nullable String phase, SQLException e) {
    StringBuilder message = new StringBuilder(prefix()).append(op);
    if (key != null) {
      message.append(' ').append(key);
    }
    message.append(" failed");
    if (phase != null) {
      message.append(' ').append(phase);
    }
    message.append(": ").append(describe(e));
    // The server's error spans lines (Detail, Hint); a log line or stderr line stays one line.
    String oneLine = message.toString().replaceAll("\\s*\\R\\s*", "; ");
    return new StoreException(Endpoint.redact(oneLine), e);
  }

  /**
   * The driver's message with its SQLState; for a batch, the server's error rather than the
   * statement text; for a pool timeout, also the root cause (connection refused, ...).
   */
  private static String describe(SQLException e) {
    SQLException shown = e;
    if (e instanceof BatchUpdateException && e.getNextException() != null) {
      shown = e.getNextException();
    }
    StringBuilder s = new StringBuilder(String.valueOf(shown.getMessage()));
    if (shown.getSQLState() != null) {
      s.append(" (SQLState ").append(shown.getSQLState()).append(')');
    }
    Throwable root = shown;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root != shown && root.getMessage() != null) {
      s.append("; cause: ").append(root.getMessage());
    }
    return s.toString();
  }

  // ---- binding helpers

  private static void bindKey(PreparedStatement ps, int index, PollerKey key) throws SQLException {
    ps.setString(index, key.poller());
    ps.setString(index + 1, key.partition());
  }

  private static Array textArray(Connection c, List<String> values) throws SQLException {
    return c.createArrayOf("text", values.toArray());
  }

  /** Instants are kept to the millisecond, as every built-in store keeps them. */
  private static Instant ms(Instant at) {
    return at.truncatedTo(ChronoUnit.MILLIS);
  }

  private static void setTime(PreparedStatement ps, int index, Instant at) throws SQLException {
    ps.setObject(index, OffsetDateTime.ofInstant(ms(at), ZoneOffset.UTC));
  }

  private static void setTimeOrNull(PreparedStatement ps, int index, @Nullable Instant at)
      throws SQLException {
    if (at == null) {
      ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      setTime(ps, index, at);
    }
  }

  private static @Nullable Instant time(ResultSet rs, int index) throws SQLException {
    OffsetDateTime t = rs.getObject(index, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  private static void requireLimit(int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative, but was " + limit);
    }
  }
}
