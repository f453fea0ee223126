package io.watukuy.store.postgres;

import io.watukuy.PollerKey;
import io.watukuy.store.jdbc.Column;
import io.watukuy.store.jdbc.ColumnType;
import io.watukuy.store.jdbc.RowBatch;
import io.watukuy.store.jdbc.SqlDialect;
import io.watukuy.store.jdbc.StoreTable;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL (pgjdbc) under the JDBC engine: instants as {@code timestamptz}, JSON as {@code json}
 * (the state as {@code jsonb}), lists as one array parameter, the rows of a page as one statement
 * over {@code unnest}, the key lock {@code SELECT ... FOR UPDATE}, serialization failures and
 * deadlocks retried, and the DDL of {@link PostgresSchema} under an advisory lock.
 */
final class PostgresDialect implements SqlDialect {
  private final PostgresOptions options;
  private final PostgresSchema schema;

  PostgresDialect(PostgresOptions options) {
    this.options = options;
    this.schema = new PostgresSchema(options.schema(), options.tablePrefix());
  }

  @Override
  public String tableName(StoreTable table) {
    return schema.table(table.suffix());
  }

  /** pgjdbc binds strings as {@code varchar}; json and jsonb columns need the cast. */
  @Override
  public String placeholder(ColumnType type) {
    return switch (type) {
      case JSON -> "CAST(? AS json)";
      case STATE -> "CAST(? AS jsonb)";
      default -> "?";
    };
  }

  @Override
  public void setInstant(PreparedStatement ps, int index, @Nullable Instant at)
      throws SQLException {
    if (at == null) {
      ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      ps.setObject(
          index, OffsetDateTime.ofInstant(at.truncatedTo(ChronoUnit.MILLIS), ZoneOffset.UTC));
    }
  }

  @Override
  public @Nullable Instant getInstant(ResultSet rs, int index) throws SQLException {
    OffsetDateTime t = rs.getObject(index, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  /** One array parameter holds any number of values. */
  @Override
  public int maxListSize() {
    return Integer.MAX_VALUE;
  }

  @Override
  public String inList(String column, int count) {
    return column + " = ANY (?)";
  }

  @Override
  public int bindList(
      Connection c, PreparedStatement ps, int index, ColumnType type, List<?> values)
      throws SQLException {
    Object[] array = values.toArray(newArray(type, values.size()));
    ps.setArray(index, c.createArrayOf(type == ColumnType.LONG ? "bigint" : "text", array));
    return index + 1;
  }

  /**
   * One statement for the whole batch: the rows travel as column arrays and {@code unnest} turns
   * them back into rows. A JDBC batch would execute the statement once per row on the server, which
   * made commitPoll several times slower than the rows' own write. One statement may not change a
   * row twice, so an upsert sends the last row of each key, as one upsert after another would leave
   * it.
   */
  @Override
  public void writeRows(Connection c, RowBatch batch) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(unnestInsert(batch))) {
      bindUnnest(c, ps, 1, batch);
      ps.executeUpdate();
    }
  }

  /**
   * The state and every batch in one statement, one round trip: the state {@code UPDATE} and each
   * batch's {@link #writeRows} statement as data-modifying {@code WITH} queries. They all run
   * against one snapshot and each changes a different table, so the outcome is that of the
   * statements one after another; a failing one (a duplicate outbox sequence) fails the whole
   * statement. With the key's locked read and the commit, a page commit is three round trips.
   */
  @Override
  public boolean writeStateAndRows(
      Connection c, String pollers, PollerKey key, String state, List<RowBatch> batches)
      throws SQLException {
    StringBuilder sql =
        new StringBuilder("WITH s AS (UPDATE ")
            .append(pollers)
            .append(" SET state = CAST(? AS jsonb) WHERE poller = ? AND \"partition\" = ?")
            .append(" RETURNING 1)");
    for (int i = 0; i < batches.size(); i++) {
      sql.append(", w").append(i).append(" AS (").append(unnestInsert(batches.get(i))).append(')');
    }
    sql.append(" SELECT count(*) FROM s");
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      ps.setString(1, state);
      ps.setString(2, key.poller());
      ps.setString(3, key.partition());
      int next = 4;
      for (RowBatch batch : batches) {
        next = bindUnnest(c, ps, next, batch);
      }
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || rs.getLong(1) != 1) {
          // The fenced read found and locked the row; it cannot be gone in the same transaction.
          throw new SQLException("the state of " + key + " was not updated");
        }
      }
    }
    return true;
  }

  /**
   * The batch's insert (or upsert) over {@code unnest}: two parameters for the key, then one array
   * per column, bound by {@link #bindUnnest}.
   */
  private String unnestInsert(RowBatch batch) {
    List<Column> columns = batch.columns();
    StringBuilder names = new StringBuilder("poller, ").append(quote("partition"));
    StringBuilder select = new StringBuilder("?, ?");
    StringBuilder arrays = new StringBuilder();
    StringBuilder alias = new StringBuilder();
    for (int i = 0; i < columns.size(); i++) {
      Column column = columns.get(i);
      String u = "u." + column.name();
      names.append(", ").append(column.name());
      select
          .append(", ")
          .append(
              switch (column.type()) {
                case JSON -> "CAST(" + u + " AS json)";
                case STATE -> "CAST(" + u + " AS jsonb)";
                case INSTANT -> "CAST(" + u + " AS timestamptz)";
                default -> u;
              });
      arrays.append(i == 0 ? "" : ", ").append("?::").append(sqlArrayType(column.type()));
      alias.append(i == 0 ? "" : ", ").append(column.name());
    }
    String insert =
        "INSERT INTO "
            + batch.table()
            + " ("
            + names
            + ") SELECT "
            + select
            + " FROM unnest("
            + arrays
            + ") AS u("
            + alias
            + ")";
    return batch.upsert() ? upsert(insert, batch.keyColumns(this), batch.updatedColumns()) : insert;
  }

  /**
   * Binds {@link #unnestInsert}'s parameters from {@code index}: the key, then the column arrays of
   * {@link RowBatch#lastPerKey()}.
   *
   * @return the next parameter index
   */
  private static int bindUnnest(Connection c, PreparedStatement ps, int index, RowBatch batch)
      throws SQLException {
    List<Column> columns = batch.columns();
    List<@Nullable Object[]> rows = batch.lastPerKey();
    ps.setString(index, batch.key().poller());
    ps.setString(index + 1, batch.key().partition());
    for (int i = 0; i < columns.size(); i++) {
      ColumnType type = columns.get(i).type();
      Object[] values = newArray(type, rows.size());
      for (int r = 0; r < values.length; r++) {
        Object value = rows.get(r)[i];
        values[r] = type == ColumnType.INSTANT && value != null ? value.toString() : value;
      }
      ps.setArray(index + 2 + i, c.createArrayOf(elementType(type), values));
    }
    return index + 2 + columns.size();
  }

  private static String sqlArrayType(ColumnType type) {
    return switch (type) {
      case INT -> "int[]";
      case LONG -> "bigint[]";
      default -> "text[]";
    };
  }

  /**
   * An array of the element class pgjdbc encodes natively ({@code Long[]}, {@code Integer[]},
   * {@code String[]}) rather than a generic {@code Object[]}.
   */
  private static Object[] newArray(ColumnType type, int length) {
    return switch (type) {
      case INT -> new Integer[length];
      case LONG -> new Long[length];
      default -> new String[length];
    };
  }

  private static String elementType(ColumnType type) {
    return switch (type) {
      case INT -> "int4";
      case LONG -> "int8";
      default -> "text";
    };
  }

  /**
   * One index probe per identity, whatever the planner's statistics say: with {@code identity = ANY
   * (?)} a table not analyzed since it grew (a first sync, before autovacuum's next pass) is read
   * whole for every page; {@code LIMIT 1} keeps the lateral subquery from being turned into that
   * same join.
   */
  @Override
  public String selectItems(List<String> columns, int count) {
    StringBuilder cols = new StringBuilder();
    for (String column : columns) {
      cols.append(cols.length() == 0 ? "" : ", ").append("i.").append(column);
    }
    return "SELECT "
        + cols
        + " FROM unnest(?::text[]) AS w(identity) CROSS JOIN LATERAL (SELECT * FROM "
        + schema.items
        + " WHERE poller = ? AND \"partition\" = ? AND identity = w.identity LIMIT 1) i";
  }

  /**
   * {@code INSERT ... ON CONFLICT DO UPDATE ... WHERE <unowned or expired>}, which locks the key's
   * row and tests the latest committed lease: of several instances racing for a key, one wins and
   * the others get no row.
   */
  @Override
  public String acquireLeaseStatement() {
    return "INSERT INTO "
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
        + " RETURNING lease_epoch";
  }

  /**
   * The acquisition of {@link #acquireLeaseStatement()} in a {@code WITH}, returning the state of
   * the row it took and whether the key has an outbox row: one statement, one round trip.
   */
  @Override
  public String acquireLeaseAndLoadStatement() {
    String acquire = acquireLeaseStatement();
    String returning = " RETURNING lease_epoch";
    return "WITH acquired AS ("
        + acquire.substring(0, acquire.length() - returning.length())
        + " RETURNING lease_epoch, state)"
        + " SELECT lease_epoch, state, EXISTS (SELECT 1 FROM "
        + schema.outbox
        + " WHERE poller = ? AND \"partition\" = ?) FROM acquired";
  }

  /**
   * One statement, one round trip: it locks the key's row ({@code FOR UPDATE}, like every fenced
   * write, so the lease check sees the newest owner and the lock order is the same) and deletes
   * only when owner and epoch match; the row it returns tells which.
   *
   * <p>The ack commits with {@code synchronous_commit = off} for its own transaction: the server
   * does not wait for the WAL flush. Acks are the one write made per few handled events, and a
   * flush per ack was most of a bulk sync's time. What it risks: if the PostgreSQL server itself
   * crashes (not the watukuy process), acks of the last moments (up to three times {@code
   * wal_writer_delay}, 600 ms by default) can be lost, and those events are delivered again
   * (at-least-once, G1; the handler dedupes by event id, G2). Every other write keeps the server's
   * setting.
   *
   * <p>The sequences are joined as rows ({@code unnest}), not tested with {@code seq = ANY (?)}: a
   * long-lived daemon runs this statement often enough that the server switches to its generic
   * plan, and with statistics taken while the outbox was small that plan checked every row of the
   * key against the whole array, a quadratic cost (an ack of 70,000 sequences took 8 s instead of
   * 30 ms). Joined, each sequence is one primary-key lookup, or one hash join, whatever the
   * statistics say. The key is bound through {@code k} (inlined by the server, so the lookup keeps
   * the key in its index condition) to keep the parameter order of {@link SqlDialect#ackStatement}.
   */
  @Override
  public String ackStatement() {
    return "WITH lease AS (SELECT lease_owner, lease_epoch FROM "
        + schema.pollers
        + " WHERE poller = ? AND \"partition\" = ? FOR UPDATE),"
        + " k AS (SELECT ?::text AS poller, ?::text AS \"partition\"),"
        + " acked AS (DELETE FROM "
        + schema.outbox
        + " o USING k, unnest(?::bigint[]) AS a(seq)"
        + " WHERE o.poller = k.poller AND o.\"partition\" = k.\"partition\" AND o.seq = a.seq"
        + " AND EXISTS (SELECT 1 FROM lease WHERE lease_owner = ? AND lease_epoch = ?)"
        + " RETURNING 1)"
        + " SELECT lease_owner, lease_epoch, (SELECT count(*) FROM acked),"
        + " set_config('synchronous_commit', 'off', true) FROM lease";
  }

  @Override
  public boolean deleteReturning() {
    return true;
  }

  /**
   * Serialization failures and deadlocks ({@code 40001}, {@code 40P01}): the server rolled the
   * transaction back in full. They occur when a pool runs REPEATABLE READ or SERIALIZABLE; the
   * statements are written for the default, READ COMMITTED.
   */
  @Override
  public boolean isRetryable(SQLException e) {
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

  /** 42P01 undefined_table, 3F000 invalid_schema_name. */
  @Override
  public boolean isUndefinedTable(SQLException e) {
    return "42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState());
  }

  /** {@code postgres store host:port/db (schema s, prefix p): } */
  @Override
  public String messagePrefix(String where) {
    return "postgres store "
        + where
        + " (schema "
        + options.schema()
        + ", prefix "
        + options.tablePrefix()
        + "): ";
  }

  @Override
  public int schemaVersion() {
    return PostgresSchema.VERSION;
  }

  /**
   * Serializes migrations with a transaction-scoped advisory lock derived from the schema name, and
   * creates the schema when it is missing.
   */
  @Override
  public void beginMigration(Connection c) throws SQLException {
    // The version is read again after waiting for the lock; at REPEATABLE READ that read would see
    // the snapshot from before the wait, and the version upsert would fail.
    SqlDialect.execute(c, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
      ps.setLong(1, schema.migrationLockKey());
      ps.executeQuery().close();
    }
    // CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when the schema exists, so it
    // runs only when the schema is missing.
    boolean exists;
    try (PreparedStatement ps =
        c.prepareStatement("SELECT 1 FROM pg_namespace WHERE nspname = ?")) {
      ps.setString(1, options.schema());
      try (ResultSet rs = ps.executeQuery()) {
        exists = rs.next();
      }
    }
    if (!exists) {
      SqlDialect.execute(c, schema.createSchema());
    }
  }

  @Override
  public String createMetaTable() {
    return schema.createMeta();
  }

  /**
   * Every version's tables, indexes and changes, each idempotent: version 4 from 3, 2, 1 or nothing
   * (version 3 added the credentials table, version 4 the effect tables).
   */
  @Override
  public List<String> migrationStatements(@Nullable Integer from) {
    return schema.tables();
  }
}
