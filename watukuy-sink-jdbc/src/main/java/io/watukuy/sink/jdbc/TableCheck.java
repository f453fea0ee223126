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

/**
 * What a table sink checks before it writes to a table (docs/sinks.md, "Database tables"): the
 * table exists, has every mapped column, and its key column (the delivery key in insert mode, the
 * identity in mirror mode) is unique by itself — a primary key or a one-column unique index — since
 * a conflict on a column that is not unique is never detected and a redelivered batch would be
 * written twice.
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
    if (!uniqueAlone(c, dialect, table, key))
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
      Connection c, TableDialect dialect, TableName table, String column) throws SQLException {
    DatabaseMetaData meta = c.getMetaData();
    String catalog = null;
    String schema = null;
    if (dialect == TableDialect.MARIADB)
      catalog = table.schema() != null ? table.schema() : c.getCatalog();
    else if (dialect == TableDialect.POSTGRES)
      schema = table.schema() != null ? table.schema() : c.getSchema();
    Map<String, List<String>> keys = new HashMap<>();
    try (ResultSet rs = meta.getPrimaryKeys(catalog, schema, table.table())) {
      while (rs.next())
        keys.computeIfAbsent("primary key", k -> new ArrayList<>())
            .add(rs.getString("COLUMN_NAME"));
    }
    try (ResultSet rs = meta.getIndexInfo(catalog, schema, table.table(), true, true)) {
      while (rs.next()) {
        String index = rs.getString("INDEX_NAME");
        String name = rs.getString("COLUMN_NAME");
        if (index != null && name != null && !rs.getBoolean("NON_UNIQUE"))
          keys.computeIfAbsent(index, k -> new ArrayList<>()).add(name);
      }
    }
    for (List<String> columns : keys.values())
      if (columns.size() == 1 && find(columns, column, dialect) != null) return true;
    return false;
  }
}
