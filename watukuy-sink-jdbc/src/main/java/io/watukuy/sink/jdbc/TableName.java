package io.watukuy.sink.jdbc;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A table name a sink may write to, {@code table} or {@code schema.table}, each part a plain SQL
 * identifier (letters, digits, underscores, not starting with a digit, at most 63 characters): a
 * name rendered from {@code {{source}}} and {@code {{partition}}} is checked here before any SQL is
 * built with it, and quoted by the dialect.
 *
 * @param schema the schema (PostgreSQL) or database (MariaDB), or null for the connection's own
 * @param table the table
 */
record TableName(@Nullable String schema, String table) {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

  /**
   * Parses a rendered name.
   *
   * @throws IllegalArgumentException when a part is not a plain identifier, saying what is allowed
   */
  static TableName parse(String rendered) {
    int dot = rendered.indexOf('.');
    if (dot < 0) return new TableName(null, identifier(rendered, "table name"));
    return new TableName(
        identifier(rendered.substring(0, dot), "schema name"),
        identifier(rendered.substring(dot + 1), "table name"));
  }

  /**
   * Checks a column or table name.
   *
   * @throws IllegalArgumentException when it is not a plain identifier
   */
  static String identifier(String name, String what) {
    if (!IDENTIFIER.matcher(name).matches())
      throw new IllegalArgumentException(
          "'"
              + name
              + "' is not a valid "
              + what
              + " (letters, digits and underscores, not starting with a digit, at most 63)");
    return name;
  }

  @Override
  public String toString() {
    return schema == null ? table : schema + "." + table;
  }
}
