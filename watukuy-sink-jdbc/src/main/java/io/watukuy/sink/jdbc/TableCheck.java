package io.watukuy.sink.jdbc;

import io.watukuy.ConfigException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a table sink checks before it writes to a table (docs/sinks.md, "Database tables"): the
 * table exists, has every mapped column, and its key column (the delivery key in insert mode, the
 * identity in mirror mode) is unique by itself — a primary key or a one-column unique index — since
 * a conflict on a column that is not unique is never detected and a redelivered batch would be
 * written twice; on MariaDB, also that no other unique key can fire the sink's upsert.
 */
final class TableCheck {
  private TableCheck() {}

  /**
   * Checks {@code table} on {@code c}.
   *
   * @throws ConfigException naming the sink, the table and the column, when the table can never
   *     take the events as configured
   * @throws SQLException when the database could not be asked (a connection failure)
   */
  static void check(
      Connection c, TableDialect dialect, TableName table, TableSettings settings, String sink)
      throws SQLException {
    List<String> present = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM " + dialect.quote(table) + " WHERE 1 = 0")) {
      ResultSetMetaData meta = rs.getMetaData();
      for (int i = 1; i <= meta.getColumnCount(); i++) present.add(meta.getColumnName(i));
    } catch (SQLException e) {
      if (SqlFailures.transientFailure(e)) throw e;
      throw new ConfigException(
          sink
              + ": table "
              + table
              + " cannot be read (does it exist?): "
              + SqlFailures.describe(e));
    }
    List<String> missing = new ArrayList<>();
    for (String column : settings.columns().keySet())
      if (find(present, column, dialect) == null) missing.add(column);
    if (!missing.isEmpty())
      throw new ConfigException(
          sink
              + ": table "
              + table
              + " has no column "
              + String.join(", ", missing)
              + " (it has "
              + String.join(", ", present)
              + "); create the column or change columns:");
    String key =
        settings.mode() == TableMode.MIRROR
            ? TableSettings.column(settings.columns(), EventField.IDENTITY, "mirror")
            : TableSettings.column(settings.columns(), EventField.DELIVERY_KEY, "insert");
    Map<String, List<String>> keys = uniqueKeys(c, dialect, table);
    if (!uniqueAlone(keys, key, dialect))
      throw new ConfigException(
          sink
              + ": column "
              + key
              + " of table "
              + table
              + " is not unique (make it the primary key or give it a unique index of its own):"
              + " the sink detects a repeated "
              + (settings.mode() == TableMode.MIRROR
                  ? "item by it"
                  : "delivery by it, and a batch delivered again after a crash would be written"
                      + " twice"));
    if (dialect == TableDialect.MARIADB)
      onlyKeyIsUnique(c, dialect, table, keys, key, settings, sink);
  }

  private static @org.jspecify.annotations.Nullable String find(
      List<String> present, String column, TableDialect dialect) {
    for (String p : present)
      // Quoted names are case-sensitive on PostgreSQL only.
      if (dialect == TableDialect.POSTGRES ? p.equals(column) : p.equalsIgnoreCase(column))
        return p;
    return null;
  }

  /** Whether a primary key or a unique index has {@code column} as its only column. */
  private static boolean uniqueAlone(
      Map<String, List<String>> keys, String column, TableDialect d) {
    for (List<String> columns : keys.values())
      if (columns.size() == 1 && find(columns, column, d) != null) return true;
    return false;
  }

  /**
   * On MariaDB, {@code INSERT … ON DUPLICATE KEY UPDATE} fires on a duplicate of ANY unique key of
   * the table, not only of the key column: a row whose other unique column repeats (an identity in
   * an event log) would silently keep or overwrite another row. So every unique key must contain
   * the key column (a duplicate there is the same row) or an auto-increment column the sink does
   * not write (never a duplicate); any other is refused, naming it.
   */
  private static void onlyKeyIsUnique(
      Connection c,
      TableDialect dialect,
      TableName table,
      Map<String, List<String>> keys,
      String key,
      TableSettings settings,
      String sink)
      throws SQLException {
    List<String> generated = new ArrayList<>();
    try (ResultSet rs =
        c.getMetaData().getColumns(catalog(c, dialect, table), null, table.table(), null)) {
      while (rs.next())
        if ("YES".equalsIgnoreCase(rs.getString("IS_AUTOINCREMENT"))
            && find(
                    new ArrayList<>(settings.columns().keySet()),
                    rs.getString("COLUMN_NAME"),
                    dialect)
                == null) generated.add(rs.getString("COLUMN_NAME"));
    }
    for (Map.Entry<String, List<String>> index : new TreeMap<>(keys).entrySet()) {
      List<String> columns = index.getValue();
      if (find(columns, key, dialect) != null) continue;
      boolean neverRepeats = false;
      for (String g : generated) neverRepeats |= find(columns, g, dialect) != null;
      if (neverRepeats) continue;
      throw new ConfigException(
          sink
              + ": table "
              + table
              + " has the unique "
              + (index.getKey().equals(PRIMARY) ? "primary key" : "index " + index.getKey())
              + " ("
              + String.join(", ", columns)
              + ") besides its key column "
              + key
              + "; on MariaDB the sink's INSERT … ON DUPLICATE KEY UPDATE fires on any unique key,"
              + " so a row repeating "
              + String.join(", ", columns)
              + " would silently keep or overwrite another row. Make that index non-unique, or"
              + " make "
              + key
              + " part of it");
    }
  }

  private static final String PRIMARY = "PRIMARY";

  /** The MariaDB database of {@code table}: its schema part, or the connection's. */
  private static @org.jspecify.annotations.Nullable String catalog(
      Connection c, TableDialect dialect, TableName table) throws SQLException {
    if (dialect != TableDialect.MARIADB) return null;
    return table.schema() != null ? table.schema() : c.getCatalog();
  }

  /**
   * The table's primary key (named {@value #PRIMARY}) and unique indexes, each with its columns in
   * order.
   */
  private static Map<String, List<String>> uniqueKeys(
      Connection c, TableDialect dialect, TableName table) throws SQLException {
    DatabaseMetaData meta = c.getMetaData();
    String catalog = catalog(c, dialect, table);
    String schema = null;
    if (dialect == TableDialect.POSTGRES)
      schema = table.schema() != null ? table.schema() : c.getSchema();
    Map<String, List<String>> keys = new HashMap<>();
    List<String> primary = new ArrayList<>();
    try (ResultSet rs = meta.getPrimaryKeys(catalog, schema, table.table())) {
      while (rs.next()) primary.add(rs.getString("COLUMN_NAME"));
    }
    if (!primary.isEmpty()) keys.put(PRIMARY, primary);
    try (ResultSet rs = meta.getIndexInfo(catalog, schema, table.table(), true, true)) {
      while (rs.next()) {
        String index = rs.getString("INDEX_NAME");
        String name = rs.getString("COLUMN_NAME");
        // MariaDB lists its primary key as the unique index PRIMARY too: one entry.
        if (index != null && name != null && !rs.getBoolean("NON_UNIQUE")) {
          List<String> columns = keys.computeIfAbsent(index, k -> new ArrayList<>());
          if (!(index.equals(PRIMARY) && primary.contains(name))) columns.add(name);
        }
      }
    }
    return keys;
  }
}
