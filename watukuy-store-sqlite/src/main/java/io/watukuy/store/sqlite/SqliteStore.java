package io.watukuy.store.sqlite;

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
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
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
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.jspecify.annotations.Nullable;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * A {@link StateStore} in one SQLite file (Stores document, "SqliteStore"), built on {@code
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
 * @since 0.1
 */
public final class SqliteStore implements StateStore {

  /** The {@code path} that selects a private in-process database. */
  public static final String MEMORY = ":memory:";

  /** Default of {@link Builder#tablePrefix(String)}. */
  public static final String DEFAULT_TABLE_PREFIX = "watukuy_";

  /** Default of {@link Builder#busyTimeoutMs(long)}, in milliseconds. */
  public static final int DEFAULT_BUSY_TIMEOUT_MS = 5000;

  /** SQLite's bound-parameter limit is far higher; 500 keeps statements short. */
  private static final int IN_CHUNK = 500;

  private static final String PENDING = "pending";

  private final SqliteOptions options;
  private final SqliteSchema schema;
  private final ReentrantLock lock = new ReentrantLock();

  // Guarded by lock.
  private @Nullable Connection connection;
  // Guarded by lock.
  private boolean migrated;
  // Guarded by lock.
  private boolean closed;

  private SqliteStore(SqliteOptions options) {
    this.options = options;
    this.schema = new SqliteSchema(options.tablePrefix());
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

  // ---- lifecycle

  /** {@inheritDoc} All three: transactions, the replay log, and batched identity streaming. */
  @Override
  public StoreCapabilities capabilities() {
    return StoreCapabilities.ALL;
  }

  /**
   * Opens the file when not yet open and creates the tables and indexes when missing. Idempotent;
   * safe when several processes migrate at once.
   *
   * @throws StoreException when the file cannot be opened or the schema is newer than this release
   */
  @Override
  public void migrate() {
    lock.lock();
    try {
      // An explicit call always reads the stored version again, even after a lazy migration.
      migrated = false;
      call("migrate", null, c -> null);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Closes the connection; a {@value #MEMORY} database is gone afterwards. Idempotent. Leases are
   * not released: they expire. Waits for a call in progress on another thread to finish.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      Connection c = connection;
      connection = null;
      if (c != null) {
        try {
          c.close();
        } catch (SQLException e) {
          throw failure("close", null, e);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  // ---- leases

  @Override
  public Optional<Lease> acquireLease(PollerKey key, String owner, Duration ttl, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(now, "now");
    long nowMs = now.toEpochMilli();
    long expiresMs = now.plus(ttl).toEpochMilli();
    return tx(
        "acquireLease",
        key,
        c -> {
          boolean exists = false;
          long counter = 0;
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT lease_owner, lease_expires_at, epoch_counter FROM "
                      + schema.pollers
                      + " WHERE poller = ? AND \"partition\" = ?")) {
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
              if (rs.next()) {
                exists = true;
                String holder = rs.getString(1);
                long expires = rs.getLong(2);
                boolean noExpiry = rs.wasNull();
                counter = rs.getLong(3);
                if (holder != null && !noExpiry && expires > nowMs) {
                  return Optional.<Lease>empty();
                }
              }
            }
          }
          long epoch = counter + 1;
          if (exists) {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "UPDATE "
                        + schema.pollers
                        + " SET lease_owner = ?, lease_epoch = ?, lease_expires_at = ?,"
                        + " epoch_counter = ?"
                        + " WHERE poller = ? AND \"partition\" = ?")) {
              ps.setString(1, owner);
              ps.setLong(2, epoch);
              ps.setLong(3, expiresMs);
              ps.setLong(4, epoch);
              bindKey(ps, 5, key);
              ps.executeUpdate();
            }
          } else {
            // A lease alone is not state: the row's state stays null until the first state write,
            // so loadState and listKeys do not see a key that was only leased.
            try (PreparedStatement ps =
                c.prepareStatement(
                    "INSERT INTO "
                        + schema.pollers
                        + " (poller, \"partition\", lease_owner, lease_epoch,"
                        + " lease_expires_at, epoch_counter) VALUES (?, ?, ?, ?, ?, ?)")) {
              bindKey(ps, 1, key);
              ps.setString(3, owner);
              ps.setLong(4, epoch);
              ps.setLong(5, expiresMs);
              ps.setLong(6, epoch);
              ps.executeUpdate();
            }
          }
          return Optional.of(new Lease(owner, epoch, Instant.ofEpochMilli(expiresMs)));
        });
  }

  @Override
  public Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(now, "now");
    long expiresMs = now.plus(ttl).toEpochMilli();
    return call(
        "renewLease",
        key,
        c -> {
          // One statement is its own transaction: the owner/epoch test and the write are atomic.
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + schema.pollers
                      + " SET lease_expires_at = ?"
                      + " WHERE poller = ? AND \"partition\" = ? AND lease_owner = ?"
                      + " AND lease_epoch = ?")) {
            ps.setLong(1, expiresMs);
            bindKey(ps, 2, key);
            ps.setString(4, lease.owner());
            ps.setLong(5, lease.epoch());
            if (ps.executeUpdate() == 0) {
              return Optional.<Lease>empty();
            }
          }
          return Optional.of(
              new Lease(lease.owner(), lease.epoch(), Instant.ofEpochMilli(expiresMs)));
        });
  }

  @Override
  public void releaseLease(PollerKey key, Lease lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    call(
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
    return call(
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
                  new Lease(rs.getString(1), rs.getLong(2), Instant.ofEpochMilli(rs.getLong(3))));
            }
          }
        });
  }

  // ---- state

  @Override
  public Optional<PollerState> loadState(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return call("loadState", key, c -> Optional.ofNullable(readState(c, key)));
  }

  @Override
  public void saveState(PollerKey key, Lease lease, StatePatch patch, Instant now) {
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    fenced(
        "saveState",
        key,
        lease,
        c -> {
          writeState(c, key, patch, now);
          return null;
        });
  }

  @Override
  public void saveStateUnfenced(PollerKey key, StatePatch patch, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    tx(
        "saveStateUnfenced",
        key,
        c -> {
          writeState(c, key, patch, now);
          return null;
        });
  }

  @Override
  public List<PollerKey> listKeys(@Nullable String poller) {
    return call(
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
          // SQLite orders by UTF-8 bytes, PollerKey by UTF-16 units; they differ above U+FFFF.
          Collections.sort(keys);
          return List.copyOf(keys);
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>The key's epoch counter survives in an otherwise empty poller row, so the next acquisition
   * still gets a higher epoch than any lease issued before the delete and a holder from before can
   * never write again, even under the same owner name.
   */
  @Override
  public void deleteKey(PollerKey key) {
    Objects.requireNonNull(key, "key");
    tx(
        "deleteKey",
        key,
        c -> {
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
    call(
        "clearItems",
        key,
        c -> {
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
    return call(
        "loadVersions",
        key,
        c -> {
          Map<String, ItemRow> rows = new LinkedHashMap<>();
          for (int from = 0; from < wanted.size(); from += IN_CHUNK) {
            List<String> chunk = wanted.subList(from, Math.min(wanted.size(), from + IN_CHUNK));
            try (PreparedStatement ps =
                c.prepareStatement(
                    "SELECT identity, version, hash, schema_version, payload, ordering_key,"
                        + " seen_at FROM "
                        + schema.items
                        + " WHERE poller = ? AND \"partition\" = ? AND identity IN ("
                        + placeholders(chunk.size())
                        + ")")) {
              bindKey(ps, 1, key);
              for (int i = 0; i < chunk.size(); i++) {
                ps.setString(3 + i, chunk.get(i));
              }
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
                          Instant.ofEpochMilli(rs.getLong(7)));
                  rows.put(row.identity(), row);
                }
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
   * batch when the stream asks for it; no cursor stays open between batches, so other calls and
   * other processes proceed while the stream is consumed. Identities come in byte order of their
   * UTF-8 form.
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
      return call(
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
   * <p>One {@code BEGIN IMMEDIATE} transaction, in this order: lease check, state patch, item
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
        c -> {
          writeState(c, key, batch.statePatch(), now);
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
    return call(
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
                        instantOrNull(rs, 6),
                        rs.getString(7),
                        Instant.ofEpochMilli(rs.getLong(8))));
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

  /** {@inheritDoc} Acknowledged rows are deleted. */
  @Override
  public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
    Objects.requireNonNull(sequences, "sequences");
    List<Long> seqs = List.copyOf(sequences);
    fenced(
        "ackEvents",
        key,
        lease,
        c -> {
          if (seqs.isEmpty()) {
            return null;
          }
          try (PreparedStatement ps =
              c.prepareStatement(
                  "DELETE FROM "
                      + schema.outbox
                      + " WHERE poller = ? AND \"partition\" = ? AND seq = ?")) {
            for (long seq : seqs) {
              bindKey(ps, 1, key);
              ps.setLong(3, seq);
              ps.addBatch();
            }
            ps.executeBatch();
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
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + schema.outbox
                      + " SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?"
                      + " WHERE poller = ? AND \"partition\" = ? AND seq = ?")) {
            ps.setString(1, errorJson);
            setInstant(ps, 2, nextAttemptAt);
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
        c -> {
          Long createdAt = null;
          Long seq = row.sequence();
          if (seq != null) {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "SELECT created_at FROM "
                        + schema.outbox
                        + " WHERE poller = ? AND \"partition\" = ? AND seq = ?")) {
              bindKey(ps, 1, key);
              ps.setLong(3, seq);
              try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                  createdAt = rs.getLong(1);
                }
              }
            }
            try (PreparedStatement ps =
                c.prepareStatement(
                    "DELETE FROM "
                        + schema.outbox
                        + " WHERE poller = ? AND \"partition\" = ? AND seq = ?")) {
              bindKey(ps, 1, key);
              ps.setLong(3, seq);
              ps.executeUpdate();
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
    return call(
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
                        Instant.ofEpochMilli(rs.getLong(10)),
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
   * ignored. One transaction.
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
    return tx(
        "retryParked",
        key,
        c -> {
          List<ParkedEvent> found = new ArrayList<>();
          try (PreparedStatement select =
              c.prepareStatement(
                  "SELECT kind, seq, event_id, ordering_key, event,"
                      + " COALESCE(created_at, parked_at) FROM "
                      + schema.parked
                      + " WHERE poller = ? AND \"partition\" = ? AND id = ?")) {
            for (String id : wanted) {
              bindKey(select, 1, key);
              select.setString(3, id);
              try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                  continue;
                }
                ParkedKind kind = ParkedKind.fromWire(rs.getString(1));
                long seq = rs.getLong(2);
                Long sequence = rs.wasNull() ? null : seq;
                String eventId = rs.getString(3);
                String event = rs.getString(5);
                if (kind == ParkedKind.POISON
                    && (sequence == null || eventId == null || event == null)) {
                  // Dropping it would lose the event for good; refuse the whole retry instead.
                  throw new StoreException(
                      "sqlite store "
                          + options.location()
                          + ": retryParked "
                          + key
                          + ": parked poison row "
                          + id
                          + " has no sequence, event id or event to put back; nothing was changed",
                      null);
                }
                found.add(
                    new ParkedEvent(
                        id, kind, sequence, eventId, rs.getString(4), event, rs.getLong(6)));
              }
            }
          }
          try (PreparedStatement restore =
                  c.prepareStatement(
                      "INSERT INTO "
                          + schema.outbox
                          + " (poller, \"partition\", seq, event_id, ordering_key, event, status,"
                          + " attempts, next_attempt_at, last_error, created_at)"
                          + " VALUES (?, ?, ?, ?, ?, ?, '"
                          + PENDING
                          + "', 0, NULL, NULL, ?)"
                          + " ON CONFLICT (poller, \"partition\", seq) DO UPDATE SET"
                          + " event_id = excluded.event_id, ordering_key = excluded.ordering_key,"
                          + " event = excluded.event, status = excluded.status, attempts = 0,"
                          + " next_attempt_at = NULL, last_error = NULL,"
                          + " created_at = excluded.created_at");
              PreparedStatement delete =
                  c.prepareStatement(
                      "DELETE FROM "
                          + schema.parked
                          + " WHERE poller = ? AND \"partition\" = ? AND id = ?")) {
            for (ParkedEvent p : found) {
              if (p.kind() == ParkedKind.POISON) {
                bindKey(restore, 1, key);
                restore.setLong(3, Objects.requireNonNull(p.sequence()));
                restore.setString(4, p.eventId());
                restore.setString(5, p.orderingKey());
                restore.setString(6, p.event());
                restore.setLong(7, p.createdAtMs());
                restore.executeUpdate();
              }
              bindKey(delete, 1, key);
              delete.setString(3, p.id());
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
      long createdAtMs) {}

  /** {@inheritDoc} Unknown ids are ignored. */
  @Override
  public int discardParked(PollerKey key, Collection<String> ids) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ids, "ids");
    List<String> wanted = List.copyOf(new LinkedHashSet<>(ids));
    if (wanted.isEmpty()) {
      return 0;
    }
    return tx(
        "discardParked",
        key,
        c -> {
          int removed = 0;
          try (PreparedStatement ps =
              c.prepareStatement(
                  "DELETE FROM "
                      + schema.parked
                      + " WHERE poller = ? AND \"partition\" = ? AND id = ?")) {
            for (String id : wanted) {
              bindKey(ps, 1, key);
              ps.setString(3, id);
              removed += ps.executeUpdate();
            }
          }
          return removed;
        });
  }

  @Override
  public Set<String> heldKeys(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return call(
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
    return call(
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
                      rs.getString(1), rs.getString(2), Instant.ofEpochMilli(rs.getLong(3))));
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
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO "
                      + schema.validators
                      + " (poller, \"partition\", url_hash, etag, last_modified, stored_at)"
                      + " VALUES (?, ?, ?, ?, ?, ?)"
                      + " ON CONFLICT (poller, \"partition\", url_hash) DO UPDATE SET"
                      + " etag = excluded.etag, last_modified = excluded.last_modified,"
                      + " stored_at = excluded.stored_at")) {
            bindKey(ps, 1, key);
            ps.setString(3, urlHash);
            ps.setString(4, validator.etag());
            ps.setString(5, validator.lastModified());
            ps.setLong(6, validator.storedAt().toEpochMilli());
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
    return call(
        "readLog",
        key,
        c -> {
          StringBuilder sql =
              new StringBuilder("SELECT seq, event, created_at FROM ")
                  .append(schema.log)
                  .append(" WHERE poller = ? AND \"partition\" = ?");
          if (range.afterSequence() != null) {
            sql.append(" AND seq > ?");
          }
          if (range.fromTime() != null) {
            sql.append(" AND created_at >= ?");
          }
          if (range.toTime() != null) {
            sql.append(" AND created_at < ?");
          }
          sql.append(" ORDER BY seq LIMIT ?");
          List<LoggedEvent> events = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            bindKey(ps, 1, key);
            int i = 3;
            Long after = range.afterSequence();
            if (after != null) {
              ps.setLong(i++, after);
            }
            Instant from = range.fromTime();
            if (from != null) {
              ps.setLong(i++, from.toEpochMilli());
            }
            Instant to = range.toTime();
            if (to != null) {
              ps.setLong(i++, to.toEpochMilli());
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                events.add(
                    new LoggedEvent(
                        rs.getLong(1), rs.getString(2), Instant.ofEpochMilli(rs.getLong(3))));
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
    return call(
        "pruneLog",
        key,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "DELETE FROM "
                      + schema.log
                      + " WHERE poller = ? AND \"partition\" = ? AND created_at < ?")) {
            bindKey(ps, 1, key);
            ps.setLong(3, olderThan.toEpochMilli());
            return ps.executeUpdate();
          }
        });
  }

  // ---- writes shared by several operations

  private @Nullable PollerState readState(Connection c, PollerKey key) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT state FROM " + schema.pollers + " WHERE poller = ? AND \"partition\" = ?")) {
      bindKey(ps, 1, key);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        String json = rs.getString(1);
        return json == null ? null : StateCodec.fromJson(json);
      }
    }
  }

  /** Applies {@code patch} to the stored state, or creates it; never touches the lease columns. */
  private void writeState(Connection c, PollerKey key, StatePatch patch, Instant now)
      throws SQLException {
    PollerState current = readState(c, key);
    PollerState next = current == null ? PollerState.create(patch, now) : current.apply(patch, now);
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + schema.pollers
                + " (poller, \"partition\", state) VALUES (?, ?, ?)"
                + " ON CONFLICT (poller, \"partition\") DO UPDATE SET state = excluded.state")) {
      bindKey(ps, 1, key);
      ps.setString(3, StateCodec.toJson(next));
      ps.executeUpdate();
    }
  }

  private void upsertItems(Connection c, PollerKey key, List<ItemRow> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + schema.items
                + " (poller, \"partition\", identity, version, hash, schema_version, payload,"
                + " ordering_key, seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                + " ON CONFLICT (poller, \"partition\", identity) DO UPDATE SET"
                + " version = excluded.version, hash = excluded.hash,"
                + " schema_version = excluded.schema_version, payload = excluded.payload,"
                + " ordering_key = excluded.ordering_key, seen_at = excluded.seen_at")) {
      for (ItemRow row : rows) {
        bindKey(ps, 1, key);
        ps.setString(3, row.identity());
        ps.setString(4, row.version());
        ps.setString(5, row.hash());
        ps.setInt(6, row.schemaVersion());
        ps.setString(7, row.payload());
        ps.setString(8, row.orderingKey());
        ps.setLong(9, row.seenAt().toEpochMilli());
        ps.addBatch();
      }
      ps.executeBatch();
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
                + " WHERE poller = ? AND \"partition\" = ? AND identity = ?")) {
      for (String identity : identities) {
        bindKey(ps, 1, key);
        ps.setString(3, identity);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  private void insertEvents(Connection c, PollerKey key, List<OutboxRow> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + schema.outbox
                + " (poller, \"partition\", seq, event_id, ordering_key, event, status, attempts,"
                + " next_attempt_at, last_error, created_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, '"
                + PENDING
                + "', ?, ?, ?, ?)")) {
      for (OutboxRow row : rows) {
        bindKey(ps, 1, key);
        ps.setLong(3, row.sequence());
        ps.setString(4, row.eventId());
        ps.setString(5, row.orderingKey());
        ps.setString(6, row.event());
        ps.setInt(7, row.attempts());
        setInstant(ps, 8, row.nextAttemptAt());
        ps.setString(9, row.lastError());
        ps.setLong(10, row.createdAt().toEpochMilli());
        ps.addBatch();
      }
      ps.executeBatch();
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
                + " (poller, \"partition\", seq, event, created_at) VALUES (?, ?, ?, ?, ?)"
                + " ON CONFLICT (poller, \"partition\", seq) DO UPDATE SET"
                + " event = excluded.event, created_at = excluded.created_at")) {
      for (OutboxRow row : rows) {
        bindKey(ps, 1, key);
        ps.setLong(3, row.sequence());
        ps.setString(4, row.event());
        ps.setLong(5, now.toEpochMilli());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  private void upsertParked(Connection c, PollerKey key, ParkedRow row, @Nullable Long createdAt)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + schema.parked
                + " (poller, \"partition\", id, kind, seq, event_id, ordering_key, event, item,"
                + " error, attempts, parked_at, hold_key, created_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                + " ON CONFLICT (poller, \"partition\", id) DO UPDATE SET"
                + " kind = excluded.kind, seq = excluded.seq, event_id = excluded.event_id,"
                + " ordering_key = excluded.ordering_key, event = excluded.event,"
                + " item = excluded.item, error = excluded.error, attempts = excluded.attempts,"
                + " parked_at = excluded.parked_at, hold_key = excluded.hold_key,"
                + " created_at = excluded.created_at")) {
      bindKey(ps, 1, key);
      ps.setString(3, row.id());
      ps.setString(4, row.kind().wire());
      setLong(ps, 5, row.sequence());
      ps.setString(6, row.eventId());
      ps.setString(7, row.orderingKey());
      ps.setString(8, row.event());
      ps.setString(9, row.item());
      ps.setString(10, row.error());
      ps.setInt(11, row.attempts());
      ps.setLong(12, row.parkedAt().toEpochMilli());
      ps.setString(13, row.holdKey());
      setLong(ps, 14, createdAt);
      ps.executeUpdate();
    }
  }

  private long count(String op, String table, PollerKey key, String condition) {
    Objects.requireNonNull(key, "key");
    return call(
        op,
        key,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT COUNT(*) FROM "
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

  // ---- fencing, transactions, connection

  /** Work on the connection that may throw the driver's exception. */
  @FunctionalInterface
  private interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  /** A write transaction that first checks {@code lease}; a mismatch rolls back and throws. */
  private <T> T fenced(String op, PollerKey key, Lease lease, SqlWork<T> work) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    return tx(
        op,
        key,
        c -> {
          checkLease(c, key, lease);
          return work.run(c);
        });
  }

  private void checkLease(Connection c, PollerKey key, Lease lease) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT lease_owner, lease_epoch FROM "
                + schema.pollers
                + " WHERE poller = ? AND \"partition\" = ?")) {
      bindKey(ps, 1, key);
      try (ResultSet rs = ps.executeQuery()) {
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
    }
  }

  /**
   * Runs {@code work} in a {@code BEGIN IMMEDIATE} transaction: the write lock is taken up front,
   * so a read-then-write never fails half-way on a lock upgrade, and the busy timeout applies to
   * the BEGIN itself.
   */
  private <T> T tx(String op, @Nullable PollerKey key, SqlWork<T> work) {
    return call(
        op,
        key,
        c -> {
          execute(c, "BEGIN IMMEDIATE");
          T result;
          try {
            result = work.run(c);
            execute(c, "COMMIT");
          } catch (Throwable t) {
            rollback(c, t);
            throw t;
          }
          return result;
        });
  }

  private static void rollback(Connection c, Throwable cause) {
    try {
      execute(c, "ROLLBACK");
    } catch (SQLException e) {
      // SQLite may already have rolled back (e.g. after SQLITE_FULL); the cause is what matters.
      cause.addSuppressed(e);
    }
  }

  /** Runs {@code work} on the connection under the lock, opening and migrating it first. */
  private <T> T call(String op, @Nullable PollerKey key, SqlWork<T> work) {
    lock.lock();
    try {
      if (closed) {
        throw new IllegalStateException(this + " is closed");
      }
      Connection c = connection;
      if (c == null) {
        c = connect();
        connection = c;
      }
      if (!migrated) {
        runMigration(c);
        migrated = true;
      }
      return work.run(c);
    } catch (SQLException e) {
      throw failure(op, key, e);
    } finally {
      lock.unlock();
    }
  }

  private Connection connect() throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    config.setBusyTimeout(options.busyTimeoutMs());
    Connection c = config.createConnection("jdbc:sqlite:" + options.location());
    try {
      // The journal mode persists in the file; setting it again is a no-op. A memory database
      // answers "memory" and ignores the request, which is fine for a private database.
      execute(c, "PRAGMA journal_mode = WAL");
      execute(c, "PRAGMA synchronous = NORMAL");
      execute(c, "PRAGMA foreign_keys = OFF");
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

  private void runMigration(Connection c) throws SQLException {
    execute(c, "BEGIN IMMEDIATE");
    try {
      execute(c, schema.createMeta());
      Integer stored = null;
      try (PreparedStatement ps =
          c.prepareStatement("SELECT value FROM " + schema.meta + " WHERE name = ?")) {
        ps.setString(1, SqliteSchema.VERSION_NAME);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            stored = Integer.valueOf(rs.getString(1));
          }
        }
      }
      if (stored != null && stored > SqliteSchema.VERSION) {
        throw new StoreException(
            "sqlite store "
                + options.location()
                + ": schema version "
                + stored
                + " in "
                + schema.meta
                + " is newer than this release supports ("
                + SqliteSchema.VERSION
                + "); upgrade watukuy",
            null);
      }
      if (stored == null || stored < SqliteSchema.VERSION) {
        for (String ddl : schema.ddl()) {
          execute(c, ddl);
        }
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + schema.meta
                    + " (name, value) VALUES (?, ?)"
                    + " ON CONFLICT (name) DO UPDATE SET value = excluded.value")) {
          ps.setString(1, SqliteSchema.VERSION_NAME);
          ps.setString(2, Integer.toString(SqliteSchema.VERSION));
          ps.executeUpdate();
        }
      }
      execute(c, "COMMIT");
    } catch (Throwable t) {
      rollback(c, t);
      throw t;
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private StoreException failure(String op, @Nullable PollerKey key, SQLException e) {
    StringBuilder message =
        new StringBuilder("sqlite store ").append(options.location()).append(": ").append(op);
    if (key != null) {
      message.append(' ').append(key);
    }
    message.append(" failed: ").append(e.getMessage());
    if (e instanceof SQLiteException && isBusy(((SQLiteException) e).getResultCode())) {
      message
          .append("; another connection held the lock for more than busyTimeoutMs=")
          .append(options.busyTimeoutMs())
          .append(" ms");
    }
    return new StoreException(message.toString(), e);
  }

  private static boolean isBusy(SQLiteErrorCode code) {
    return code == SQLiteErrorCode.SQLITE_BUSY
        || code.name().startsWith("SQLITE_BUSY_")
        || code == SQLiteErrorCode.SQLITE_LOCKED;
  }

  // ---- binding helpers

  private static void bindKey(PreparedStatement ps, int index, PollerKey key) throws SQLException {
    ps.setString(index, key.poller());
    ps.setString(index + 1, key.partition());
  }

  private static void setInstant(PreparedStatement ps, int index, @Nullable Instant at)
      throws SQLException {
    if (at == null) {
      ps.setNull(index, Types.INTEGER);
    } else {
      ps.setLong(index, at.toEpochMilli());
    }
  }

  private static void setLong(PreparedStatement ps, int index, @Nullable Long value)
      throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.INTEGER);
    } else {
      ps.setLong(index, value);
    }
  }

  private static @Nullable Instant instantOrNull(ResultSet rs, int index) throws SQLException {
    long ms = rs.getLong(index);
    return rs.wasNull() ? null : Instant.ofEpochMilli(ms);
  }

  private static void requireLimit(int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative, but was " + limit);
    }
  }

  private static String placeholders(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }
}
