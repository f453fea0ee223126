package io.watukuy.store.jdbc;

import io.watukuy.PollerKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Rows of one poller key for one table, written in one go: the items of a page, its outbox rows,
 * its log rows, parked events put back into the outbox. What {@link SqlDialect#writeRows} receives.
 *
 * <p>Every row gets {@code poller} and {@code "partition"} from {@link #key()}; {@link #columns()}
 * are the other columns, and each row holds their values in that order (see {@link ColumnType} for
 * the Java type of each). With an empty {@link #conflict()} the rows are plain inserts, and a row
 * whose primary key exists fails the statement (an outbox sequence must never be overwritten).
 * Otherwise {@code (poller, "partition", conflict...)} is the primary key, and a row replaces every
 * other column of the stored row with that key; when the batch holds one key twice, the later row
 * wins, as one upsert after another would.
 *
 * @param table the table, SQL-ready as {@link SqlDialect#tableName} returns it
 * @param key the key every row belongs to
 * @param columns the columns after {@code poller} and {@code "partition"}, in row order
 * @param rows the values, one array per row, each as long as {@code columns}
 * @param conflict the columns that complete the primary key of an upsert, or empty for plain
 *     inserts; each must be one of {@code columns}
 * @since 0.1
 */
public record RowBatch(
    String table,
    PollerKey key,
    List<Column> columns,
    List<@Nullable Object[]> rows,
    List<String> conflict) {

  /**
   * Checks and copies the components (the row arrays are not copied: the engine builds them for
   * this batch alone).
   *
   * @param table the table, SQL-ready
   * @param key the key every row belongs to
   * @param columns the columns after {@code poller} and {@code "partition"}
   * @param rows the values, one array per row
   * @param conflict the columns that complete the primary key of an upsert, or empty
   * @throws NullPointerException if a component is null
   * @throws IllegalArgumentException if a row's length differs from the number of columns, or a
   *     conflict column is not among the columns
   */
  public RowBatch {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(key, "key");
    columns = List.copyOf(columns);
    rows = Collections.unmodifiableList(new ArrayList<>(rows));
    conflict = List.copyOf(conflict);
    for (Object[] row : rows) {
      if (row.length != columns.size()) {
        throw new IllegalArgumentException(
            "a row of "
                + table
                + " has "
                + row.length
                + " values for "
                + columns.size()
                + " columns");
      }
    }
    List<String> names = columns.stream().map(Column::name).toList();
    for (String c : conflict) {
      if (!names.contains(c)) {
        throw new IllegalArgumentException(
            "conflict column " + c + " is not a column of the batch");
      }
    }
  }

  /**
   * Whether rows replace stored rows with the same key.
   *
   * @return {@code true} when {@link #conflict()} is not empty
   */
  public boolean upsert() {
    return !conflict.isEmpty();
  }

  /**
   * The whole primary key of an upsert: {@code poller}, the dialect's quoted {@code "partition"},
   * then {@link #conflict()}.
   *
   * @param dialect the dialect that quotes {@code partition}
   * @return the key columns, SQL-ready
   */
  public List<String> keyColumns(SqlDialect dialect) {
    List<String> key = new ArrayList<>();
    key.add("poller");
    key.add(dialect.quote("partition"));
    key.addAll(conflict);
    return List.copyOf(key);
  }

  /**
   * The columns an upsert replaces: every column of {@link #columns()} not in {@link #conflict()}.
   *
   * @return the column names, in column order
   */
  public List<String> updatedColumns() {
    return columns.stream().map(Column::name).filter(c -> !conflict.contains(c)).toList();
  }

  /**
   * The single-row statement: {@code INSERT INTO table (poller, "partition", columns...) VALUES (?,
   * ?, placeholders...)}, made an upsert by {@link SqlDialect#upsert} when {@link #upsert()}. Bind
   * a row with {@link #bindRow}.
   *
   * @param dialect the dialect that quotes, writes placeholders and upserts
   * @return the SQL text
   */
  public String statement(SqlDialect dialect) {
    StringBuilder names = new StringBuilder("poller, ").append(dialect.quote("partition"));
    StringBuilder values = new StringBuilder("?, ?");
    for (Column c : columns) {
      names.append(", ").append(c.name());
      values.append(", ").append(dialect.placeholder(c.type()));
    }
    String insert = "INSERT INTO " + table + " (" + names + ") VALUES (" + values + ")";
    return upsert() ? dialect.upsert(insert, keyColumns(dialect), updatedColumns()) : insert;
  }

  /**
   * Binds row {@code index} to a statement made by {@link #statement}: the key at parameters 1 and
   * 2, then each value with {@link SqlDialect#bind}.
   *
   * @param dialect the dialect that binds each value
   * @param ps the statement
   * @param index the row, from 0
   * @throws SQLException from the driver
   */
  public void bindRow(SqlDialect dialect, PreparedStatement ps, int index) throws SQLException {
    ps.setString(1, key.poller());
    ps.setString(2, key.partition());
    Object[] row = rows.get(index);
    for (int i = 0; i < row.length; i++) {
      dialect.bind(ps, 3 + i, columns.get(i).type(), row[i]);
    }
  }

  /**
   * Writes the batch as multi-row statements, {@code INSERT ... VALUES (...), (...), ...} (made an
   * upsert by {@link SqlDialect#upsert} when {@link #upsert()}), each holding as many rows of
   * {@link #lastPerKey()} as fit both limits: one round trip and one statement execution per chunk
   * where a JDBC batch executes the statement once per row. A row that alone exceeds {@code
   * maxChars} is sent in a statement of its own. A dialect calls this from its {@link
   * SqlDialect#writeRows}.
   *
   * @param dialect the dialect that quotes, writes placeholders, binds and upserts
   * @param c the connection, inside the caller's transaction
   * @param maxParameters the most bound parameters the database accepts in one statement (SQLite
   *     32766, MariaDB 65535); at least {@code 2 + columns().size()}
   * @param maxChars the most characters of text and JSON values one statement may carry, so that it
   *     stays below a packet limit (MariaDB's {@code max_allowed_packet}); {@link Long#MAX_VALUE}
   *     for none
   * @return the number of statements executed
   * @throws SQLException from the driver; a duplicate key of a plain insert fails its statement
   * @throws IllegalArgumentException if {@code maxParameters} cannot hold one row
   */
  public int writeMultiRow(SqlDialect dialect, Connection c, int maxParameters, long maxChars)
      throws SQLException {
    int perRow = 2 + columns.size();
    if (maxParameters < perRow) {
      throw new IllegalArgumentException(
          "maxParameters must hold one row of " + perRow + ", but was " + maxParameters);
    }
    int rowsPerStatement = maxParameters / perRow;
    List<@Nullable Object[]> all = lastPerKey();
    int statements = 0;
    int from = 0;
    while (from < all.size()) {
      int to = from;
      long chars = 0;
      while (to < all.size() && to - from < rowsPerStatement) {
        long size = chars(all.get(to));
        if (to > from && chars + size > maxChars) {
          break;
        }
        chars += size;
        to++;
      }
      List<@Nullable Object[]> chunk = all.subList(from, to);
      try (PreparedStatement ps = c.prepareStatement(multiRowStatement(dialect, chunk.size()))) {
        int p = 1;
        for (Object[] row : chunk) {
          ps.setString(p++, key.poller());
          ps.setString(p++, key.partition());
          for (int i = 0; i < row.length; i++) {
            dialect.bind(ps, p++, columns.get(i).type(), row[i]);
          }
        }
        ps.executeUpdate();
      }
      statements++;
      from = to;
    }
    return statements;
  }

  /**
   * {@link #statement} with {@code rows} value lists: {@code INSERT INTO table (poller,
   * "partition", columns...) VALUES (?, ?, ...), (?, ?, ...)}, made an upsert when {@link
   * #upsert()}.
   *
   * @param dialect the dialect that quotes, writes placeholders and upserts
   * @param rows how many value lists, at least 1
   * @return the SQL text
   */
  public String multiRowStatement(SqlDialect dialect, int rows) {
    StringBuilder names = new StringBuilder("poller, ").append(dialect.quote("partition"));
    StringBuilder one = new StringBuilder("(?, ?");
    for (Column col : columns) {
      names.append(", ").append(col.name());
      one.append(", ").append(dialect.placeholder(col.type()));
    }
    one.append(')');
    StringBuilder sql =
        new StringBuilder("INSERT INTO ")
            .append(table)
            .append(" (")
            .append(names)
            .append(") VALUES ");
    for (int r = 0; r < rows; r++) {
      sql.append(r == 0 ? "" : ", ").append(one);
    }
    String insert = sql.toString();
    return upsert() ? dialect.upsert(insert, keyColumns(dialect), updatedColumns()) : insert;
  }

  /** The characters of a row's text values, and a few for each other value. */
  private static long chars(@Nullable Object[] row) {
    long n = 0;
    for (Object value : row) {
      n += value instanceof String s ? s.length() : 8;
    }
    return n;
  }

  /**
   * The rows with one row per primary key, the last of each, in the order of those last rows: what
   * a dialect that writes the batch in one statement sends, since one statement may not change a
   * row twice. Plain inserts are returned as they are, so a duplicate still fails.
   *
   * @return the rows to write
   */
  public List<@Nullable Object[]> lastPerKey() {
    if (!upsert()) {
      return rows;
    }
    int[] at = new int[conflict.size()];
    List<String> names = columns.stream().map(Column::name).toList();
    for (int i = 0; i < at.length; i++) {
      at[i] = names.indexOf(conflict.get(i));
    }
    Map<List<Object>, Object[]> last = new LinkedHashMap<>();
    for (Object[] row : rows) {
      Object[] k = new Object[at.length];
      for (int i = 0; i < at.length; i++) {
        k[i] = row[at[i]];
      }
      List<Object> id = Arrays.asList(k);
      last.remove(id);
      last.put(id, row);
    }
    return List.copyOf(last.values());
  }
}
