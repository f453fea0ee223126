package io.watukuy.sink.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * What differs between the databases a table sink writes to: identifier quoting, the upsert syntax,
 * and how JSON and timestamps are bound.
 */
enum TableDialect {
  POSTGRES('"'),
  MARIADB('`'),
  SQLITE('"');

  private final char quote;

  TableDialect(char quote) {
    this.quote = quote;
  }

  /** The dialect of a connection's database, from the driver's product name. */
  static TableDialect of(Connection c) throws SQLException {
    String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
    if (product.contains("postgres")) return POSTGRES;
    if (product.contains("mariadb") || product.contains("mysql")) return MARIADB;
    if (product.contains("sqlite")) return SQLITE;
    throw new SQLException(
        "database '" + product + "' is not supported (PostgreSQL, MariaDB or SQLite)");
  }

  /** An identifier already validated by {@link TableName}, quoted. */
  String quote(String identifier) {
    return quote + identifier + quote;
  }

  /** {@code schema.table} quoted part by part. */
  String quote(TableName name) {
    return name.schema() == null
        ? quote(name.table())
        : quote(name.schema()) + "." + quote(name.table());
  }

  /**
   * {@code INSERT ...} that, when {@code key} already holds the value, does nothing ({@code
   * updates} empty) or sets {@code updates} to the new values; with {@code guard}, only when the
   * stored {@code guard} is lower than the new one (a mirror's sequence). On MariaDB the guard
   * column must be the last of {@code updates}: its assignments see the values set before them.
   */
  String upsert(
      TableName table,
      List<String> columns,
      String key,
      List<String> updates,
      @Nullable String guard) {
    String cols = columns.stream().map(this::quote).collect(Collectors.joining(", "));
    String marks = columns.stream().map(c -> "?").collect(Collectors.joining(", "));
    String insert = "INSERT INTO " + quote(table) + " (" + cols + ") VALUES (" + marks + ")";
    String t = quote(table);
    if (this == MARIADB) {
      if (updates.isEmpty())
        // Not INSERT IGNORE: that also turns a truncated value or a wrong type into a warning.
        return insert + " ON DUPLICATE KEY UPDATE " + quote(key) + " = " + quote(key);
      String set =
          updates.stream()
              .map(
                  u ->
                      guard == null
                          ? quote(u) + " = VALUES(" + quote(u) + ")"
                          : quote(u)
                              + " = IF("
                              + quote(guard)
                              + " < VALUES("
                              + quote(guard)
                              + "), VALUES("
                              + quote(u)
                              + "), "
                              + quote(u)
                              + ")")
              .collect(Collectors.joining(", "));
      return insert + " ON DUPLICATE KEY UPDATE " + set;
    }
    String conflict = " ON CONFLICT (" + quote(key) + ")";
    if (updates.isEmpty()) return insert + conflict + " DO NOTHING";
    String set =
        updates.stream()
            .map(u -> quote(u) + " = excluded." + quote(u))
            .collect(Collectors.joining(", "));
    String where =
        guard == null ? "" : " WHERE " + t + "." + quote(guard) + " < excluded." + quote(guard);
    return insert + conflict + " DO UPDATE SET " + set + where;
  }

  /** Binds one value of {@link EventField#value}. */
  void bind(PreparedStatement ps, int index, EventField field, @Nullable Object value)
      throws SQLException {
    if (value == null) {
      ps.setNull(index, field.json() && this == POSTGRES ? Types.OTHER : Types.VARCHAR);
    } else if (value instanceof Long l) {
      ps.setLong(index, l);
    } else if (value instanceof Instant at) {
      switch (this) {
        case POSTGRES -> ps.setObject(index, OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
        case MARIADB -> ps.setTimestamp(index, Timestamp.from(at));
        case SQLITE -> ps.setString(index, at.toString());
      }
    } else if (field.json() && this == POSTGRES) {
      // Untyped: the server takes the column's type, json, jsonb or text alike.
      ps.setObject(index, value, Types.OTHER);
    } else {
      ps.setString(index, value.toString());
    }
  }
}
