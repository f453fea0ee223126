package io.watukuy.store.mariadb;

import io.watukuy.store.jdbc.RowBatch;
import io.watukuy.store.jdbc.SqlDialect;
import io.watukuy.store.jdbc.StoreTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * MariaDB (Connector/J) under the JDBC engine: back-quoted names, instants as epoch milliseconds,
 * {@code INSERT ... ON DUPLICATE KEY UPDATE}, {@code DELETE ... RETURNING}, every write transaction
 * at READ COMMITTED with the key lock {@code SELECT ... FOR UPDATE}, deadlocks, lock wait timeouts
 * and a lost race to create a key's row retried, and the DDL of {@link MariaDbSchema} under a named
 * lock ({@code GET_LOCK}).
 */
final class MariaDbDialect implements SqlDialect {

  /** ER_LOCK_DEADLOCK: InnoDB rolled the whole transaction back. */
  static final int DEADLOCK = 1213;

  /** ER_LOCK_WAIT_TIMEOUT: only the statement was rolled back; the engine rolls back the rest. */
  static final int LOCK_WAIT_TIMEOUT = 1205;

  /**
   * ER_DUP_ENTRY. Two instances acquiring a key that has no row yet both find no row to lock (READ
   * COMMITTED locks no gaps) and both insert it; the second insert fails with this once the first
   * commits, and run again it finds the row and the live lease. The other plain insert, an outbox
   * row whose sequence is already pending, fails the same way on every attempt, as it must.
   */
  static final int DUPLICATE_KEY = 1062;

  private static final Set<Integer> RETRYABLE = Set.of(DEADLOCK, LOCK_WAIT_TIMEOUT, DUPLICATE_KEY);

  /** ER_NO_SUCH_TABLE and ER_BAD_DB_ERROR. */
  private static final Set<Integer> NO_TABLE = Set.of(1146, 1049);

  /** How long a migration waits for another process's migration, in seconds. */
  static final int MIGRATION_LOCK_SECONDS = 120;

  /**
   * The migration lock's name, from the connection's database and the prefix (parameter 1): named
   * locks are server-wide, and a name may have at most 64 characters.
   */
  private static final String LOCK_NAME =
      "CONCAT('watukuy.migrate:', LEFT(SHA2(CONCAT(COALESCE(DATABASE(), ''), '|', ?), 256), 40))";

  private final MariaDbOptions options;
  private final MariaDbSchema schema;

  MariaDbDialect(MariaDbOptions options) {
    this.options = options;
    this.schema = new MariaDbSchema(options.tablePrefix());
  }

  @Override
  public String tableName(StoreTable table) {
    return schema.table(table.suffix());
  }

  @Override
  public String quote(String identifier) {
    return MariaDbSchema.quote(identifier);
  }

  /** Epoch milliseconds in {@code BIGINT} columns: DATETIME and TIMESTAMP both carry zone traps. */
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
   * {@code ... ON DUPLICATE KEY UPDATE c = VALUES(c), ...}; insert-if-absent assigns the first key
   * column to itself, never {@code INSERT IGNORE}, which would also turn errors into warnings.
   */
  @Override
  public String upsert(String insert, List<String> key, List<String> update) {
    StringBuilder sql = new StringBuilder(insert).append(" ON DUPLICATE KEY UPDATE ");
    if (update.isEmpty()) {
      return sql.append(key.get(0)).append(" = ").append(key.get(0)).toString();
    }
    String separator = "";
    for (String column : update) {
      sql.append(separator).append(column).append(" = VALUES(").append(column).append(')');
      separator = ", ";
    }
    return sql.toString();
  }

  /** The most parameters one prepared statement may bind: the protocol counts them in 16 bits. */
  static final int MAX_PARAMETERS = 65_535;

  /**
   * The most characters of text one multi-row statement carries: at most 8 MiB in UTF-8 (4 bytes a
   * character at worst), half of {@code max_allowed_packet}'s default of 16 MiB.
   */
  static final long MAX_STATEMENT_CHARS = 2L * 1024 * 1024;

  /** A list of up to 10 000 values in one statement: an ack of a whole batch in one round trip. */
  @Override
  public int maxListSize() {
    return 10_000;
  }

  /**
   * Multi-row {@code INSERT ... VALUES (...), (...)} (with {@code ON DUPLICATE KEY UPDATE} for an
   * upsert), as many rows per statement as the parameter limit and {@link #MAX_STATEMENT_CHARS}
   * allow: one statement execution for a page's rows, whatever the driver's batch options ({@code
   * useBulkStmts}, {@code useBulkStmtsForInserts}) say.
   */
  @Override
  public void writeRows(Connection c, RowBatch batch) throws SQLException {
    batch.writeMultiRow(this, c, MAX_PARAMETERS, MAX_STATEMENT_CHARS);
  }

  /**
   * A multi-table {@code DELETE} that joins the key's pollers row on owner and epoch: InnoDB locks
   * the pollers row it reads for the statement's transaction (a lease acquisition waits for the
   * delete; a delete waiting for an acquisition reads the new holder and deletes nothing), as the
   * {@code SELECT ... FOR UPDATE} of a fenced transaction does, in one statement.
   */
  @Override
  public String fencedAckDelete(int count) {
    String partition = quote("partition");
    return "DELETE o FROM "
        + tableName(StoreTable.OUTBOX)
        + " o JOIN "
        + tableName(StoreTable.POLLERS)
        + " p ON p.poller = o.poller AND p."
        + partition
        + " = o."
        + partition
        + " WHERE o.poller = ? AND o."
        + partition
        + " = ? AND "
        + inList("o.seq", count)
        + " AND p.lease_owner = ? AND p.lease_epoch = ?";
  }

  /** READ COMMITTED for the next statement's transaction, as {@link #begin} sets it. */
  @Override
  public void beforeSingleStatementWrite(Connection c) throws SQLException {
    SqlDialect.execute(c, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
  }

  /** MariaDB has had {@code DELETE ... RETURNING} since 10.0 (MySQL has not). */
  @Override
  public boolean deleteReturning() {
    return true;
  }

  /**
   * READ COMMITTED for this transaction only ({@code SET TRANSACTION} without {@code SESSION}), so
   * the session's own level, whatever the pool set, is left alone. The key lock is a locking read,
   * which sees the newest committed row at any level; READ COMMITTED adds that InnoDB takes no gap
   * locks, so writes of different keys never wait for each other through an index gap.
   */
  @Override
  public void begin(Connection c) throws SQLException {
    SqlDialect.execute(c, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
    c.setAutoCommit(false);
  }

  /**
   * Turning auto-commit back on commits (JDBC and MariaDB both say so): one round trip, not two.
   */
  @Override
  public void commit(Connection c) throws SQLException {
    c.setAutoCommit(true);
  }

  /**
   * Deadlock (1213), lock wait timeout (1205) and duplicate key (1062, a lost race to create a
   * key's row; see {@link #DUPLICATE_KEY}), wherever the driver put the server's error.
   */
  @Override
  public boolean isRetryable(SQLException e) {
    return RETRYABLE.contains(errorCode(e));
  }

  /** The server's error number: of the exception, or of the first chained one that has one. */
  static int errorCode(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        if (s.getErrorCode() != 0) {
          return s.getErrorCode();
        }
        SQLException next = s.getNextException();
        if (next != null && next.getErrorCode() != 0) {
          return next.getErrorCode();
        }
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return 0;
  }

  @Override
  public boolean isUndefinedTable(SQLException e) {
    return NO_TABLE.contains(errorCode(e));
  }

  /** {@code mariadb store host:port/db (prefix p): } */
  @Override
  public String messagePrefix(String where) {
    return "mariadb store " + where + " (prefix " + options.tablePrefix() + "): ";
  }

  /** The driver's message with the server's error number, which the MariaDB manual lists. */
  @Override
  public String describe(SQLException e) {
    int code = errorCode(e);
    String described = SqlDialect.super.describe(e);
    return code == 0 ? described : described + " (error " + code + ")";
  }

  /**
   * {@code null}: the engine runs the plain insert and counts error 1062 as "the row existed".
   * {@code INSERT IGNORE} would also turn every other error of the insert into a warning, and
   * {@code ON DUPLICATE KEY UPDATE} reports a found row as one written (the driver reports found
   * rows), so neither can say whether the row was new.
   */
  @Override
  public @Nullable String insertIfAbsent(String insert, List<String> key) {
    return null;
  }

  /** Error 1062, ER_DUP_ENTRY: the primary key exists. */
  @Override
  public boolean isDuplicateKey(SQLException e) {
    return errorCode(e) == 1062;
  }

  @Override
  public int schemaVersion() {
    return MariaDbSchema.VERSION;
  }

  /**
   * Waits for the named lock that serializes migrations of this database and prefix across
   * processes. A named lock belongs to the session, so the DDL's implicit commits do not release
   * it; {@link #endMigration} does.
   */
  @Override
  public void beginMigration(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT GET_LOCK(" + LOCK_NAME + ", ?)")) {
      ps.setString(1, options.tablePrefix());
      ps.setInt(2, MIGRATION_LOCK_SECONDS);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getInt(1) != 1) {
          throw new SQLException(
              "another process held the migration lock for more than "
                  + MIGRATION_LOCK_SECONDS
                  + " s; its migration may still be running");
        }
      }
    }
  }

  @Override
  public void endMigration(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT RELEASE_LOCK(" + LOCK_NAME + ")")) {
      ps.setString(1, options.tablePrefix());
      ps.executeQuery().close();
    }
  }

  @Override
  public String createMetaTable() {
    return schema.createMeta();
  }

  /**
   * Version 3's tables, every statement {@code IF NOT EXISTS}, from version 2, 1 or nothing alike:
   * version 2 added the credentials table, version 3 the effect tables.
   */
  @Override
  public List<String> migrationStatements(@Nullable Integer from) {
    return schema.tables();
  }
}
