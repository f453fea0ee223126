package io.watukuy.store.jdbc;

import io.watukuy.PollerKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The names and recurring fragments of one store's statements, computed once from its dialect. The
 * table names are validated identifiers (the fronts check prefixes and schemas), so splicing them
 * into SQL text is safe; every value is a bound parameter.
 */
final class Sql {
  final String meta;
  final String pollers;
  final String items;
  final String outbox;
  final String parked;
  final String validators;
  final String log;
  final String credentials;
  final String effects;
  final String effectCursors;
  final String invocations;
  final String journal;
  final String subjects;

  /** {@code "partition"}, quoted: a keyword in SQLite and MySQL. */
  final String partition;

  /** {@code poller = ? AND "partition" = ?}: parameters 1 and 2 of most statements. */
  final String key;

  /** {@code " WHERE " + key}. */
  final String whereKey;

  /** {@code WHERE effect = ? AND poller = ? AND "partition" = ?}: the effect tables' prefix. */
  final String whereEffectSource;

  Sql(SqlDialect dialect) {
    meta = dialect.tableName(StoreTable.META);
    pollers = dialect.tableName(StoreTable.POLLERS);
    items = dialect.tableName(StoreTable.ITEMS);
    outbox = dialect.tableName(StoreTable.OUTBOX);
    parked = dialect.tableName(StoreTable.PARKED);
    validators = dialect.tableName(StoreTable.VALIDATORS);
    log = dialect.tableName(StoreTable.LOG);
    credentials = dialect.tableName(StoreTable.CREDENTIALS);
    effects = dialect.tableName(StoreTable.EFFECTS);
    effectCursors = dialect.tableName(StoreTable.EFFECT_CURSORS);
    invocations = dialect.tableName(StoreTable.INVOCATIONS);
    journal = dialect.tableName(StoreTable.JOURNAL);
    subjects = dialect.tableName(StoreTable.SUBJECTS);
    partition = dialect.quote("partition");
    key = "poller = ? AND " + partition + " = ?";
    whereKey = " WHERE " + key;
    whereEffectSource = " WHERE effect = ? AND " + key;
  }

  /** Tables whose rows of a key deleteKey removes; the pollers row is only emptied. */
  List<String> keyTables() {
    return List.of(items, outbox, parked, validators, log);
  }

  /**
   * {@code DELETE FROM table WHERE key AND <column in values>}, in slices of the dialect's list
   * size.
   *
   * @return the number of rows deleted
   */
  int deleteIn(
      Connection c,
      SqlDialect dialect,
      String table,
      PollerKey key,
      String column,
      ColumnType type,
      List<?> values)
      throws SQLException {
    int deleted = 0;
    for (List<?> chunk : chunks(values, dialect.maxListSize())) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "DELETE FROM " + table + whereKey + " AND " + dialect.inList(column, chunk.size()))) {
        bindKey(ps, 1, key);
        dialect.bindList(c, ps, 3, type, chunk);
        deleted += ps.executeUpdate();
      }
    }
    return deleted;
  }

  static void bindKey(PreparedStatement ps, int index, PollerKey key) throws SQLException {
    ps.setString(index, key.poller());
    ps.setString(index + 1, key.partition());
  }

  /** Instants are kept to the millisecond, as every built-in store keeps them. */
  static Instant ms(Instant at) {
    return at.truncatedTo(ChronoUnit.MILLIS);
  }

  static void requireLimit(int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative, but was " + limit);
    }
  }

  /** {@code values} in slices of at most {@code size}, for statements that take a list. */
  static <T> List<List<T>> chunks(List<T> values, int size) {
    if (values.size() <= size) {
      return List.of(values);
    }
    List<List<T>> out = new ArrayList<>();
    for (int from = 0; from < values.size(); from += size) {
      out.add(values.subList(from, Math.min(values.size(), from + size)));
    }
    return out;
  }
}
