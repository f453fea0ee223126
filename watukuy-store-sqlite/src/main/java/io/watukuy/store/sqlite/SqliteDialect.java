package io.watukuy.store.sqlite;

import io.watukuy.store.jdbc.SqlDialect;
import io.watukuy.store.jdbc.StoreTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * SQLite under the JDBC engine: instants as epoch milliseconds in INTEGER columns, JSON as TEXT,
 * every write transaction a {@code BEGIN IMMEDIATE} (the database's write lock, taken up front, is
 * the key lock), nothing retried (a lock wait is bounded by {@code busyTimeoutMs} instead), and the
 * DDL of {@link SqliteSchema}.
 */
final class SqliteDialect implements SqlDialect {
  private final SqliteOptions options;
  private final SqliteSchema schema;

  SqliteDialect(SqliteOptions options) {
    this.options = options;
    this.schema = new SqliteSchema(options.tablePrefix());
  }

  /** Unquoted, as the DDL names them: the prefix is a validated identifier. */
  @Override
  public String tableName(StoreTable table) {
    return options.tablePrefix() + table.suffix();
  }

  @Override
  public void setInstant(PreparedStatement ps, int index, @Nullable Instant at)
      throws SQLException {
    SqlDialect.setEpochMillis(ps, index, at);
  }

  @Override
  public @Nullable Instant getInstant(ResultSet rs, int index) throws SQLException {
    return SqlDialect.getEpochMillis(rs, index);
  }

  /**
   * The most parameters one statement may bind: SQLite's {@code SQLITE_MAX_VARIABLE_NUMBER}, 32766
   * since SQLite 3.32 (sqlite-jdbc builds with the default).
   */
  static final int MAX_PARAMETERS = 32_766;

  /**
   * A list may take every parameter but the four a statement binds beside it (the key, and the
   * lease of a fenced ack), so that an ack of a whole batch is one statement.
   */
  @Override
  public int maxListSize() {
    return MAX_PARAMETERS - 4;
  }

  /**
   * A single {@code DELETE} with the lease check as an {@code EXISTS}: a write statement in
   * auto-commit takes the database's write lock before it reads anything, as {@code BEGIN
   * IMMEDIATE} does, so the check and the delete see one state of the file, and no other writer
   * runs in between.
   */
  @Override
  public String fencedAckDelete(int count) {
    String pollers = tableName(StoreTable.POLLERS);
    return "DELETE FROM "
        + tableName(StoreTable.OUTBOX)
        + " WHERE poller = ? AND \"partition\" = ? AND "
        + inList("seq", count)
        + " AND EXISTS (SELECT 1 FROM "
        + pollers
        + " p WHERE p.poller = "
        + tableName(StoreTable.OUTBOX)
        + ".poller AND p.\"partition\" = "
        + tableName(StoreTable.OUTBOX)
        + ".\"partition\" AND p.lease_owner = ? AND p.lease_epoch = ?)";
  }

  /**
   * One upsert with {@code RETURNING} (SQLite 3.35 and later; the driver bundles a newer one): a
   * write statement in auto-commit takes the database's write lock before it reads anything, as
   * {@code BEGIN IMMEDIATE} does, so the test of the lease and its acquisition see one state of the
   * file. The update's {@code WHERE} leaves a live lease alone, and then no row is returned.
   */
  @Override
  public String acquireLeaseStatement() {
    return "INSERT INTO "
        + tableName(StoreTable.POLLERS)
        + " (poller, \"partition\", lease_owner, lease_epoch, lease_expires_at, epoch_counter)"
        + " VALUES (?, ?, ?, 1, ?, 1)"
        + " ON CONFLICT (poller, \"partition\") DO UPDATE SET"
        + " lease_owner = excluded.lease_owner,"
        + " lease_epoch = epoch_counter + 1,"
        + " lease_expires_at = excluded.lease_expires_at,"
        + " epoch_counter = epoch_counter + 1"
        + " WHERE lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= ?"
        + " RETURNING lease_epoch";
  }

  /**
   * {@link #acquireLeaseStatement()} returning the state of the row it took and whether the key has
   * an outbox row: an idle poll's start in one statement instead of a transaction of five.
   */
  @Override
  public String acquireLeaseAndLoadStatement() {
    return acquireLeaseStatement()
        + ", state, EXISTS (SELECT 1 FROM "
        + tableName(StoreTable.OUTBOX)
        + " WHERE poller = ? AND \"partition\" = ?)";
  }

  /**
   * {@code BEGIN IMMEDIATE}: the write lock is taken up front, so a read-then-write never fails
   * half-way on a lock upgrade, and the busy timeout applies to the BEGIN itself. The connection
   * stays in JDBC auto-commit; the transaction is SQLite's own.
   */
  @Override
  public void begin(Connection c) throws SQLException {
    SqlDialect.execute(c, "BEGIN IMMEDIATE");
  }

  @Override
  public void commit(Connection c) throws SQLException {
    SqlDialect.execute(c, "COMMIT");
  }

  /** SQLite may already have rolled back (e.g. after SQLITE_FULL); the engine keeps the cause. */
  @Override
  public void rollback(Connection c) throws SQLException {
    SqlDialect.execute(c, "ROLLBACK");
  }

  /** None: {@code BEGIN IMMEDIATE} already excludes every other writer of the file. */
  @Override
  public String lockRowClause() {
    return "";
  }

  /** SQLite has no finer code than SQLITE_ERROR for a missing table; its message says it. */
  @Override
  public boolean isUndefinedTable(SQLException e) {
    return String.valueOf(e.getMessage()).contains("no such table");
  }

  @Override
  public String messagePrefix(String where) {
    return "sqlite store " + where + ": ";
  }

  /** The driver's message, and what a lock wait longer than {@code busyTimeoutMs} means. */
  @Override
  public String describe(SQLException e) {
    String message = String.valueOf(e.getMessage());
    if (e instanceof SQLiteException && isBusy(((SQLiteException) e).getResultCode())) {
      return message
          + "; another connection held the lock for more than busyTimeoutMs="
          + options.busyTimeoutMs()
          + " ms";
    }
    return message;
  }

  /** sqlite-jdbc sets no SQLState; its result code names the primary-key conflict. */
  @Override
  public boolean isDuplicateKey(SQLException e) {
    return e instanceof SQLiteException s
        && (s.getResultCode() == SQLiteErrorCode.SQLITE_CONSTRAINT_PRIMARYKEY
            || s.getResultCode() == SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE);
  }

  private static boolean isBusy(SQLiteErrorCode code) {
    return code == SQLiteErrorCode.SQLITE_BUSY
        || code.name().startsWith("SQLITE_BUSY_")
        || code == SQLiteErrorCode.SQLITE_LOCKED;
  }

  /** The file is opened and checked in one go; a failure there is the call's failure. */
  @Override
  public @Nullable String schemaCheckPhase() {
    return null;
  }

  @Override
  public int schemaVersion() {
    return SqliteSchema.VERSION;
  }

  @Override
  public String createMetaTable() {
    return schema.createMeta();
  }

  /**
   * Version 3's DDL, every statement {@code IF NOT EXISTS}, from version 2, 1 or nothing alike:
   * version 2 added the credentials table, version 3 the effect tables.
   */
  @Override
  public List<String> migrationStatements(@Nullable Integer from) {
    return schema.ddl();
  }
}
