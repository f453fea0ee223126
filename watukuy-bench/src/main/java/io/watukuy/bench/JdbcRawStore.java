package io.watukuy.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The JDBC baseline for SQLite, PostgreSQL and MariaDB: a table with the columns and primary key of
 * the store's items table, a batched upsert and a batched {@code DELETE} per transaction, {@code
 * SELECT ... WHERE identity IN (...)} per read. SQLite and PostgreSQL accept the same SQL ({@link
 * Flavor#STANDARD}); MariaDB quotes with back quotes, needs {@code VARCHAR} key columns and upserts
 * with {@code ON DUPLICATE KEY UPDATE} ({@link Flavor#MARIADB}, in the store's byte collation).
 */
final class JdbcRawStore implements RawStore {
  /** The SQL a database accepts for the same table and statements. */
  enum Flavor {
    /** SQLite and PostgreSQL: double quotes, TEXT keys, {@code ON CONFLICT DO UPDATE}. */
    STANDARD,
    /** MariaDB: back quotes, VARCHAR keys in {@code utf8mb4_nopad_bin}, ON DUPLICATE KEY UPDATE. */
    MARIADB
  }

  private final Connection connection;
  private final String table;
  private final Map<Integer, PreparedStatement> selects = new HashMap<>();
  private final PreparedStatement upsert;
  private final PreparedStatement delete;
  private final String partition;
  private final Flavor flavor;

  /**
   * Creates (or empties) the table and prepares the statements.
   *
   * @param connection a dedicated connection, already set to the store's durability settings;
   *     closed by {@link #close()}
   * @param table the qualified table name
   */
  JdbcRawStore(Connection connection, String table) throws SQLException {
    this(connection, table, Flavor.STANDARD);
  }

  /**
   * As {@link #JdbcRawStore(Connection, String)}, in the SQL of {@code flavor}.
   *
   * @param flavor the database's SQL
   */
  JdbcRawStore(Connection connection, String table, Flavor flavor) throws SQLException {
    this.connection = connection;
    this.table = table;
    this.flavor = flavor;
    boolean maria = flavor == Flavor.MARIADB;
    this.partition = maria ? "`partition`" : "\"partition\"";
    String key = maria ? "VARCHAR(100)" : "TEXT";
    try (Statement s = connection.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + table);
      s.execute(
          "CREATE TABLE "
              + table
              + " (poller "
              + key
              + " NOT NULL, "
              + partition
              + " "
              + key
              + " NOT NULL, identity "
              + (maria ? "VARCHAR(540)" : "TEXT")
              + " NOT NULL, version TEXT, hash TEXT NOT NULL, schema_version INTEGER NOT NULL,"
              + " payload TEXT, ordering_key TEXT NOT NULL, seen_at BIGINT NOT NULL,"
              + " PRIMARY KEY (poller, "
              + partition
              + ", identity))"
              + (maria ? " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin" : ""));
    }
    connection.setAutoCommit(false);
    String insert =
        "INSERT INTO "
            + table
            + " (poller, "
            + partition
            + ", identity, version, hash, schema_version, payload, ordering_key, seen_at)"
            + " VALUES ('items', '', ?, ?, ?, 1, NULL, ?, ?)";
    upsert =
        connection.prepareStatement(
            maria
                ? insert
                    + " ON DUPLICATE KEY UPDATE version = VALUES(version), hash = VALUES(hash),"
                    + " schema_version = VALUES(schema_version), payload = VALUES(payload),"
                    + " ordering_key = VALUES(ordering_key), seen_at = VALUES(seen_at)"
                : insert
                    + " ON CONFLICT (poller, \"partition\", identity) DO UPDATE SET version = excluded.version,"
                    + " hash = excluded.hash, schema_version = excluded.schema_version, payload = excluded.payload,"
                    + " ordering_key = excluded.ordering_key, seen_at = excluded.seen_at");
    delete =
        connection.prepareStatement(
            "DELETE FROM "
                + table
                + " WHERE poller = 'items' AND "
                + partition
                + " = '' AND identity = ?");
    connection.commit();
  }

  @Override
  public void upsert(List<Row> rows) throws SQLException {
    for (Row r : rows) {
      upsert.setString(1, r.identity());
      upsert.setString(2, r.version());
      upsert.setString(3, r.hash());
      upsert.setString(4, r.identity());
      upsert.setLong(5, r.seenAt());
      upsert.addBatch();
    }
    upsert.executeBatch();
    connection.commit();
  }

  @Override
  public void analyze() throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute((flavor == Flavor.MARIADB ? "ANALYZE TABLE " : "ANALYZE ") + table);
    }
    connection.commit();
  }

  @Override
  public int select(List<String> identities) throws SQLException {
    PreparedStatement ps = selects.computeIfAbsent(identities.size(), this::prepareSelect);
    for (int i = 0; i < identities.size(); i++) ps.setString(i + 1, identities.get(i));
    int found = 0;
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rs.getString(2);
        rs.getString(3);
        found++;
      }
    }
    connection.commit();
    return found;
  }

  @Override
  public void delete(List<String> identities) throws SQLException {
    for (String id : identities) {
      delete.setString(1, id);
      delete.addBatch();
    }
    delete.executeBatch();
    connection.commit();
  }

  private PreparedStatement prepareSelect(int size) {
    StringBuilder sql =
        new StringBuilder(
            "SELECT identity, version, hash FROM "
                + table
                + " WHERE poller = 'items' AND "
                + partition
                + " = '' AND identity IN (");
    for (int i = 0; i < size; i++) sql.append(i == 0 ? "?" : ",?");
    sql.append(')');
    try {
      return connection.prepareStatement(sql.toString());
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + table);
      connection.commit();
    } finally {
      connection.close();
    }
  }
}
