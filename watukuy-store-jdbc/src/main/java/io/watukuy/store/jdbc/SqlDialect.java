package io.watukuy.store.jdbc;

import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What differs between the databases under {@link JdbcStoreEngine}: the SPI a SQL store's module
 * implements, once per database, next to its store front. The engine writes every statement from
 * these pieces; everything a dialect does not override is plain SQL that PostgreSQL, SQLite and the
 * MySQL family all run.
 *
 * <p>An instance serves one store: it knows that store's table names (schema, prefix) and whatever
 * its messages name. The engine calls it from several threads at once, so it must be thread-safe;
 * it is called only by the engine (and by {@link RowBatch}, for the engine), never by users.
 *
 * <p>What the engine expects of the database, whatever the dialect:
 *
 * <ul>
 *   <li>the tables of {@link StoreTable} with the columns named there, created by {@link
 *       #createMetaTable()} and {@link #migrationStatements}; key columns compared and sorted by
 *       code point or bytes (PostgreSQL {@code COLLATE "C"}, a binary collation in MySQL), never by
 *       a locale;
 *   <li>{@code LIMIT ?} at the end of a query, {@code COUNT(*)}, {@code COALESCE};
 *   <li>JDBC auto-commit for reads and single-statement writes, and transactions as {@link #begin},
 *       {@link #commit} and {@link #rollback} make them.
 * </ul>
 *
 * <p>Where a database offers a faster form of a whole operation (one statement instead of a
 * transaction of three), the dialect returns it from a method such as {@link
 * #acquireLeaseStatement()} or {@link #ackStatement()}; {@code null}, the default, keeps the
 * portable form. Those methods document the parameters the engine binds and the columns it reads.
 *
 * @since 0.1
 */
public interface SqlDialect {

  // ---- names

  /**
   * The name of a table as it appears in SQL: with the store's prefix, qualified by its schema
   * where the database has one, quoted where needed. Called once per table when the engine is
   * built; the result is spliced into every statement, so it must be a validated identifier.
   *
   * @param table the table
   * @return e.g. {@code watukuy_outbox} (SQLite) or {@code "public"."watukuy_outbox"} (PostgreSQL)
   */
  String tableName(StoreTable table);

  /**
   * Quotes an identifier that is a reserved word in some database. The engine quotes only {@code
   * partition} (reserved in SQLite and MySQL); every other column name is plain. Called when the
   * engine is built and by {@link RowBatch}.
   *
   * @param identifier an unquoted identifier
   * @return the quoted identifier; the default is SQL's double quotes ({@code "partition"}); the
   *     MySQL family returns back quotes
   */
  default String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  // ---- values

  /**
   * The placeholder for one bound value of {@code type} in an INSERT or UPDATE. Called while the
   * engine builds statements; never for a WHERE clause.
   *
   * @param type the value's type
   * @return {@code ?} by default; PostgreSQL returns {@code CAST(? AS json)} for {@link
   *     ColumnType#JSON}, since pgjdbc binds strings as {@code varchar}
   */
  default String placeholder(ColumnType type) {
    return "?";
  }

  /**
   * Binds an instant, or SQL NULL. The time codec: how the database stores instants. Called for
   * every instant the engine writes or compares ({@code lease_expires_at <= ?}, {@code created_at <
   * ?}), so columns and parameters must compare correctly in SQL.
   *
   * @param ps the statement
   * @param index the parameter, from 1
   * @param at the instant, already truncated to the millisecond, or {@code null}
   * @throws SQLException from the driver
   */
  void setInstant(PreparedStatement ps, int index, @Nullable Instant at) throws SQLException;

  /**
   * Reads an instant written by {@link #setInstant}. The other half of the time codec.
   *
   * @param rs the result set, on a row
   * @param index the column, from 1
   * @return the instant (to the millisecond), or {@code null} for SQL NULL
   * @throws SQLException from the driver
   */
  @Nullable Instant getInstant(ResultSet rs, int index) throws SQLException;

  /**
   * Binds one value of {@code type} to a placeholder made by {@link #placeholder}. Called for every
   * value of a {@link RowBatch} and for single values the engine writes. The default uses {@code
   * setString}, {@code setInt}, {@code setLong} (or {@code setNull} with the matching {@link Types}
   * code) and {@link #setInstant}.
   *
   * @param ps the statement
   * @param index the parameter, from 1
   * @param type the value's type
   * @param value the value, of the Java type {@link ColumnType} names for {@code type}, or {@code
   *     null}
   * @throws SQLException from the driver
   */
  default void bind(PreparedStatement ps, int index, ColumnType type, @Nullable Object value)
      throws SQLException {
    switch (type) {
      case TEXT, JSON, STATE -> ps.setString(index, (String) value);
      case INT -> {
        if (value == null) {
          ps.setNull(index, Types.INTEGER);
        } else {
          ps.setInt(index, (Integer) value);
        }
      }
      case LONG -> {
        if (value == null) {
          ps.setNull(index, Types.BIGINT);
        } else {
          ps.setLong(index, (Long) value);
        }
      }
      case INSTANT -> setInstant(ps, index, (Instant) value);
    }
  }

  // ---- lists of values

  /**
   * The most values one {@link #inList} may hold; the engine splits longer lists into several
   * statements (all in the same transaction for writes). Called before each statement that takes a
   * list.
   *
   * @return 500 by default (far below SQLite's and MySQL's parameter limits); PostgreSQL, which
   *     binds a list as one array, returns {@link Integer#MAX_VALUE}
   */
  default int maxListSize() {
    return 500;
  }

  /**
   * A condition true when {@code column} equals one of {@code count} values, bound by {@link
   * #bindList}. Used for identities to look up or delete, sequences to acknowledge, parked ids to
   * retry or discard.
   *
   * @param column the column, SQL-ready
   * @param count how many values, from 1 to {@link #maxListSize()}
   * @return {@code column IN (?, ?, ...)} by default; PostgreSQL returns {@code column = ANY (?)}
   */
  default String inList(String column, int count) {
    return column + " IN (" + String.join(", ", Collections.nCopies(count, "?")) + ")";
  }

  /**
   * Binds the values of an {@link #inList} condition starting at parameter {@code index}.
   *
   * @param c the connection of the statement (array dialects create the array with it)
   * @param ps the statement
   * @param index the first parameter of the list, from 1
   * @param type {@link ColumnType#TEXT} or {@link ColumnType#LONG}
   * @param values the values, as many as the {@code count} given to {@link #inList}
   * @return the next free parameter index
   * @throws SQLException from the driver
   */
  default int bindList(
      Connection c, PreparedStatement ps, int index, ColumnType type, List<?> values)
      throws SQLException {
    int i = index;
    for (Object value : values) {
      bind(ps, i++, type, value);
    }
    return i;
  }

  // ---- statements

  /**
   * Makes a single- or multi-row INSERT replace the row when its primary key exists. Called by
   * {@link RowBatch#statement} and for the version row of {@link StoreTable#META}.
   *
   * @param insert {@code INSERT INTO t (columns...) VALUES (...)}, complete
   * @param key the primary key columns, SQL-ready
   * @param update the columns to take from the inserted row; when empty, an existing row is left as
   *     it is (insert-if-absent)
   * @return by default PostgreSQL's and SQLite's {@code ... ON CONFLICT (key) DO UPDATE SET c =
   *     excluded.c, ...} or {@code ... ON CONFLICT (key) DO NOTHING}; the MySQL family returns
   *     {@code ... ON DUPLICATE KEY UPDATE c = VALUES(c), ...}
   */
  default String upsert(String insert, List<String> key, List<String> update) {
    String target = insert + " ON CONFLICT (" + String.join(", ", key) + ")";
    if (update.isEmpty()) {
      return target + " DO NOTHING";
    }
    StringBuilder set = new StringBuilder(target).append(" DO UPDATE SET ");
    for (int i = 0; i < update.size(); i++) {
      set.append(i == 0 ? "" : ", ")
          .append(update.get(i))
          .append(" = excluded.")
          .append(update.get(i));
    }
    return set.toString();
  }

  /**
   * Makes a single-row INSERT do nothing when a row with its primary key exists, so that its update
   * count says whether it wrote: 1 when it inserted, 0 when the row existed. Called for the effect
   * journal's appends and subject keys ({@link io.watukuy.spi.EffectStore}), in auto-commit.
   *
   * @param insert {@code INSERT INTO t (columns...) VALUES (...)}, complete
   * @param key the primary key columns, SQL-ready
   * @return by default {@link #upsert} with no column to update ({@code ... ON CONFLICT (key) DO
   *     NOTHING}, which unlike SQLite's {@code INSERT OR IGNORE} ignores nothing but the key's
   *     conflict); {@code null} when the database has no such form, and the engine then runs the
   *     plain insert and counts a failure that {@link #isDuplicateKey} recognises as "the row
   *     existed" (the MySQL family: {@code INSERT IGNORE} would also turn errors into warnings, and
   *     {@code ON DUPLICATE KEY UPDATE} reports a found row as written)
   * @since 0.3
   */
  default @Nullable String insertIfAbsent(String insert, List<String> key) {
    return upsert(insert, key, List.of());
  }

  /**
   * Writes a batch of rows of one key: the items, outbox rows and log rows of a page (inside {@code
   * commitPoll}'s transaction), parked events put back into the outbox. The default sends {@link
   * RowBatch#statement} once per row as one JDBC batch. A dialect that can send the rows as one
   * statement (PostgreSQL with arrays and {@code unnest}, the MySQL family with a multi-row {@code
   * VALUES} list) overrides this, writing {@link RowBatch#lastPerKey()}.
   *
   * @param c the connection, inside the caller's transaction
   * @param batch the rows; never empty
   * @throws SQLException from the driver; a duplicate key of a plain insert must fail
   */
  default void writeRows(Connection c, RowBatch batch) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(batch.statement(this))) {
      for (int i = 0; i < batch.rows().size(); i++) {
        batch.bindRow(this, ps, i);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /**
   * Writes a page's new state and its rows (item upserts, outbox rows, log rows, in that order) in
   * one statement, inside {@code commitPoll}'s transaction after the key's row was locked and the
   * lease checked: one round trip where the portable form takes one per statement. The state
   * replaces the {@code state} column of the key's row in {@code pollers}, which exists; the
   * batches must be written as {@link #writeRows} would write each, a duplicate outbox sequence
   * failing the statement. PostgreSQL does it with data-modifying {@code WITH} queries.
   *
   * @param c the connection, inside the caller's transaction
   * @param pollers the pollers table, SQL-ready as {@link #tableName} returns it
   * @param key the key whose row gets the state
   * @param state the new state JSON
   * @param batches the rows, each batch not empty; may be empty
   * @return {@code false} (the default) when the dialect has no such statement and wrote nothing:
   *     the engine then runs the state {@code UPDATE} and {@link #writeRows} for each batch; {@code
   *     true} when everything was written
   * @throws SQLException from the driver; the transaction is then rolled back
   */
  default boolean writeStateAndRows(
      Connection c, String pollers, PollerKey key, String state, List<RowBatch> batches)
      throws SQLException {
    return false;
  }

  /**
   * The query of {@code loadVersions}: the stored items of one key among {@code count} identities.
   * Parameters: the identities, bound by {@link #bindList} from parameter 1, then {@code poller}
   * and {@code partition}. Result columns: {@code columns}, in order. Called once per chunk of at
   * most {@link #maxListSize()} identities.
   *
   * @param columns the columns to return, plain names
   * @param count the number of identities
   * @return by default {@code SELECT columns FROM items WHERE <inList(identity)> AND poller = ? AND
   *     "partition" = ?}; PostgreSQL probes the primary key once per identity with a {@code
   *     LATERAL} join, whatever the planner's statistics
   */
  default String selectItems(List<String> columns, int count) {
    return "SELECT "
        + String.join(", ", columns)
        + " FROM "
        + tableName(StoreTable.ITEMS)
        + " WHERE "
        + inList("identity", count)
        + " AND poller = ? AND "
        + quote("partition")
        + " = ?";
  }

  /**
   * One statement that acquires a lease, or {@code null} (the default) for the portable form: a
   * transaction that reads the key's row with {@link #lockRowClause()}, then updates or inserts it.
   * Parameters: 1 {@code poller}, 2 {@code partition}, 3 the owner, 4 the new expiry, 5 now (both
   * instants by {@link #setInstant}). It must insert the row when missing (epoch 1, {@code
   * epoch_counter} 1), take it over when unowned or expired ({@code lease_expires_at <= now}) with
   * epoch {@code epoch_counter + 1}, and return one row whose first column is the new epoch; no row
   * when a live lease holds the key. Called by {@code acquireLease}, in auto-commit.
   *
   * @return the statement, or {@code null}; PostgreSQL's is {@code INSERT ... ON CONFLICT DO UPDATE
   *     ... WHERE ... RETURNING lease_epoch}
   */
  default @Nullable String acquireLeaseStatement() {
    return null;
  }

  /**
   * One statement that acquires the lease like {@link #acquireLeaseStatement()} and also returns
   * what a poll cycle starts from (docs/architecture.md, "What an idle poll costs"), or {@code
   * null} (the default) for the portable form: one transaction that reads the key's row with its
   * state under {@link #lockRowClause()}, updates or inserts it, and looks for a pending outbox
   * row. Parameters: 1 {@code poller}, 2 {@code partition}, 3 the owner, 4 the new expiry, 5 now
   * (both instants by {@link #setInstant}), 6-7 {@code poller} and {@code partition} again. It must
   * take the lease exactly as {@link #acquireLeaseStatement()} does and return one row, the new
   * epoch, the key's {@code state} (null for a new key) and a boolean that is true when the key has
   * an outbox row; no row when a live lease holds the key. Called by {@code acquireLeaseAndLoad},
   * in auto-commit.
   *
   * @return the statement, or {@code null}; PostgreSQL's wraps its acquisition in a {@code WITH}
   */
  default @Nullable String acquireLeaseAndLoadStatement() {
    return null;
  }

  /**
   * One statement that acknowledges outbox rows under the lease, or {@code null} (the default) for
   * the portable form: a fenced transaction that deletes the rows. Parameters: 1-2 {@code poller},
   * {@code partition}; 3-4 the same again; from 5 the sequences, bound by {@link #bindList} as
   * {@link ColumnType#LONG}; then the lease owner and the lease epoch. It must lock the key's row,
   * delete the rows only when its owner and epoch match, and return that row's {@code lease_owner}
   * and {@code lease_epoch} as columns 1 and 2 (no row when the key has none), from which the
   * engine decides whether the lease was lost. Called by {@code ackEvents}, in auto-commit, when
   * all sequences fit one list ({@link #maxListSize()}).
   *
   * @return the statement, or {@code null}; PostgreSQL's is one {@code WITH ... DELETE ...
   *     RETURNING} that also commits without waiting for the WAL flush
   */
  default @Nullable String ackStatement() {
    return null;
  }

  /**
   * One fenced {@code DELETE} of {@code count} outbox rows, or {@code null} (the default) for the
   * portable form, a fenced transaction: the second one-statement form of {@code ackEvents}, for a
   * database whose statement can lock the key's row but not return it ({@link #ackStatement()} is
   * asked first). Parameters: 1-2 {@code poller}, {@code partition}; from 3 the sequences, bound by
   * {@link #bindList} as {@link ColumnType#LONG}; then the lease owner and the lease epoch. It must
   * delete the rows only when the key's {@link StoreTable#POLLERS} row holds that owner and epoch,
   * reading that row under the lock every fenced write takes (so a lease acquired meanwhile waits
   * for the delete, or the delete sees the new holder and deletes nothing), and report the rows
   * deleted as its update count. Called by {@code ackEvents} in auto-commit, after {@link
   * #beforeSingleStatementWrite}, when all sequences fit one list ({@link #maxListSize()}); when it
   * deletes fewer rows than there are distinct sequences, the engine reads the lease, unlocked, to
   * tell acked-before from a lost lease (epochs only grow, so a lease current after the delete was
   * current during it).
   *
   * @param count the number of sequences, from 1 to {@link #maxListSize()}
   * @return the statement, or {@code null}; SQLite's is {@code DELETE ... WHERE ... AND EXISTS
   *     (SELECT 1 FROM pollers WHERE ...)}, run under the database's write lock, MariaDB's a
   *     multi-table {@code DELETE o FROM outbox o JOIN pollers p ...}, which locks the key's row
   */
  default @Nullable String fencedAckDelete(int count) {
    return null;
  }

  /**
   * Prepares the connection, in auto-commit, for a write made of one statement (the {@link
   * #fencedAckDelete} of {@code ackEvents}), as {@link #begin} prepares a transaction. Does nothing
   * by default; MariaDB sets READ COMMITTED for that statement's transaction alone.
   *
   * @param c the connection, in auto-commit
   * @throws SQLException from the driver
   */
  default void beforeSingleStatementWrite(Connection c) throws SQLException {}

  /**
   * Whether {@code DELETE ... RETURNING column} works, so that {@code parkEvent} reads the outbox
   * row's commit time and deletes the row in one statement rather than a SELECT and a DELETE.
   *
   * @return {@code false} by default (MySQL has no {@code RETURNING}); PostgreSQL returns {@code
   *     true}
   */
  default boolean deleteReturning() {
    return false;
  }

  // ---- transactions and locks

  /**
   * Starts a write transaction on {@code c}, which is in auto-commit. Called first by every
   * transaction of the engine, including the migration's.
   *
   * @param c the connection
   * @throws SQLException from the driver
   */
  default void begin(Connection c) throws SQLException {
    c.setAutoCommit(false);
  }

  /**
   * Commits the transaction {@link #begin} started and returns {@code c} to auto-commit.
   *
   * @param c the connection
   * @throws SQLException from the driver; the engine then rolls back and reports the failure
   */
  default void commit(Connection c) throws SQLException {
    c.commit();
    c.setAutoCommit(true);
  }

  /**
   * Rolls back the transaction {@link #begin} started. Called when the work or the commit threw; a
   * failure here is added to the original exception as suppressed.
   *
   * @param c the connection, possibly broken
   * @throws SQLException from the driver
   */
  default void rollback(Connection c) throws SQLException {
    c.rollback();
  }

  /**
   * The key lock: the clause the engine appends to the SELECT of a key's {@link StoreTable#POLLERS}
   * row at the start of a write transaction, so that writes of one key never interleave and a
   * fenced write compares the newest lease. Every write transaction of a key takes this lock before
   * touching the key's other rows, so writes of one key never deadlock.
   *
   * @return {@code " FOR UPDATE"} by default (PostgreSQL, MySQL); {@code ""} when {@link #begin}
   *     already holds a lock that excludes every other writer (SQLite's {@code BEGIN IMMEDIATE}),
   *     and the engine then also skips the lock-only SELECT of unfenced writes
   */
  default String lockRowClause() {
    return " FOR UPDATE";
  }

  // ---- failures

  /**
   * Whether a failure may not recur when the call runs again (serialization failure, deadlock, lock
   * wait timeout), so the engine rolls the transaction back (if the server has not already) and
   * runs the whole call again on a fresh connection, at most {@link JdbcStoreEngine#MAX_ATTEMPTS}
   * times in all. Called for every driver failure of a call. A rolled-back attempt wrote nothing,
   * so the work of a call is safe to repeat.
   *
   * @param e the failure
   * @return {@code false} by default; PostgreSQL: SQLState {@code 40001} or {@code 40P01}; the
   *     MySQL family: error codes 1213 (deadlock) and 1205 (lock wait timeout)
   */
  default boolean isRetryable(SQLException e) {
    return false;
  }

  /**
   * Whether a failure says that a table (or its schema) does not exist. Called only when the engine
   * reads the schema version in auto-commit before the first call, where it means "nothing migrated
   * yet".
   *
   * @param e the failure of {@code SELECT value FROM meta ...}
   * @return {@code true} for "no such table" and "no such schema"
   */
  boolean isUndefinedTable(SQLException e);

  /**
   * Whether a failure of a plain {@code INSERT} says that a row with the same primary key exists.
   * Called by {@code compareAndSetCredential} with expected version 0, which then reports that the
   * row exists (returns false) instead of failing, and by the plain insert that stands in for
   * {@link #insertIfAbsent} when that returns {@code null}.
   *
   * @param e the failure of the insert
   * @return by default true for the SQLState class {@code 23} (integrity constraint violation:
   *     PostgreSQL's {@code 23505}, the MySQL family's {@code 23000}); a driver that sets no
   *     SQLState (sqlite-jdbc) overrides it
   * @since 0.2
   */
  default boolean isDuplicateKey(SQLException e) {
    String state = e.getSQLState();
    return state != null && state.startsWith("23");
  }

  /**
   * How messages name the store: the start of every {@link StoreException} message the engine
   * writes, followed by the operation. Called when a message is written.
   *
   * @param where the database's location for messages: the file of an embedded database, or {@code
   *     host:port/database} of a server, never with credentials ({@link JdbcStoreEngine#where()})
   * @return e.g. {@code "sqlite store /var/lib/app.db: "}, ending in {@code ": "}
   */
  String messagePrefix(String where);

  /**
   * The driver's side of a failure message, after {@code "<operation> <key> failed: "}. The engine
   * then joins the message into one line and masks credential-like values ({@code password=...}).
   *
   * @param e the failure
   * @return by default the message with its SQLState, the server's error rather than the statement
   *     text for a batch, and the root cause (connection refused, ...) when there is one
   */
  default String describe(SQLException e) {
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

  /**
   * The words after {@code "failed"} in the message of a call whose lazy schema check (the first
   * call of an engine) failed.
   *
   * @return {@code "while checking or creating the schema"} by default; {@code null} to report the
   *     failure as one of the call itself
   */
  default @Nullable String schemaCheckPhase() {
    return "while checking or creating the schema";
  }

  // ---- schema

  /**
   * The schema version this release creates, recorded in {@link StoreTable#META} under {@code
   * schema_version}. A database that records a higher one is refused; a lower one is migrated.
   *
   * @return a positive number, raised with every change of the DDL
   */
  int schemaVersion();

  /**
   * Called first inside the migration transaction (after {@link #begin}), before the meta table is
   * created: takes the lock that serializes migrations of several processes when {@link #begin}
   * does not (PostgreSQL: a transaction-scoped advisory lock; the MySQL family: {@code GET_LOCK}),
   * and creates what the meta table needs (a schema).
   *
   * @param c the connection, in the migration's transaction
   * @throws SQLException from the driver
   */
  default void beginMigration(Connection c) throws SQLException {}

  /**
   * Called on the migration's connection after its transaction ended, committed or rolled back,
   * before the connection is given back: releases a session-level lock that {@link #beginMigration}
   * took ({@code RELEASE_LOCK} in the MySQL family, whose DDL commits implicitly). A failure here
   * fails the migration.
   *
   * @param c the connection
   * @throws SQLException from the driver
   */
  default void endMigration(Connection c) throws SQLException {}

  /**
   * The {@code CREATE TABLE IF NOT EXISTS} of {@link StoreTable#META} with columns {@code name}
   * (primary key) and {@code value}, both text. Run in the migration's transaction, after {@link
   * #beginMigration}, when the recorded version is missing or not current.
   *
   * @return one idempotent statement
   */
  String createMetaTable();

  /**
   * The statements that bring a schema from version {@code from} to {@link #schemaVersion()}, in
   * order, each idempotent ({@code CREATE ... IF NOT EXISTS}), so that a migration cut short can
   * run again. Run in the migration's transaction, after {@link #createMetaTable()}, when the
   * recorded version is missing or lower; the engine then records the version.
   *
   * @param from the recorded version, or {@code null} when none is
   * @return the statements, without trailing semicolons
   */
  List<String> migrationStatements(@Nullable Integer from);

  /**
   * Binds an instant as epoch milliseconds (a 64-bit integer), or SQL NULL: a time codec for {@link
   * #setInstant} in dialects that keep instants in integer columns (SQLite, MariaDB). No time zone
   * takes part, not the session's, the server's, the driver's nor the JVM's, so nothing shifts an
   * instant, and comparing the integers in SQL compares the instants.
   *
   * @param ps the statement
   * @param index the parameter, from 1
   * @param at the instant, already truncated to the millisecond, or {@code null}
   * @throws SQLException from the driver
   */
  static void setEpochMillis(PreparedStatement ps, int index, @Nullable Instant at)
      throws SQLException {
    if (at == null) {
      ps.setNull(index, Types.BIGINT);
    } else {
      ps.setLong(index, at.toEpochMilli());
    }
  }

  /**
   * Reads an instant written by {@link #setEpochMillis}: the other half of that codec, for {@link
   * #getInstant}.
   *
   * @param rs the result set, on a row
   * @param index the column, from 1
   * @return the instant, or {@code null} for SQL NULL
   * @throws SQLException from the driver
   */
  static @Nullable Instant getEpochMillis(ResultSet rs, int index) throws SQLException {
    long ms = rs.getLong(index);
    return rs.wasNull() ? null : Instant.ofEpochMilli(ms);
  }

  /**
   * Runs one statement without parameters. A helper for dialects' {@link #begin}, {@link
   * #beginMigration} and the like.
   *
   * @param c the connection
   * @param sql the statement
   * @throws SQLException from the driver
   */
  static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
