package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.Sql.bindKey;

import io.watukuy.PollerKey;
import io.watukuy.spi.ItemRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.jspecify.annotations.Nullable;

/** The item snapshot of each key: look-ups, the identity stream, counts, and page writes. */
final class Items {
  private final SqlRunner runner;
  private final SqlDialect dialect;
  private final Sql sql;
  private final Rows rows;
  private final Fencing fencing;

  Items(SqlRunner runner, SqlDialect dialect, Sql sql, Rows rows, Fencing fencing) {
    this.runner = runner;
    this.dialect = dialect;
    this.sql = sql;
    this.rows = rows;
    this.fencing = fencing;
  }

  Map<String, ItemRow> loadVersions(PollerKey key, Collection<String> identities) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(identities, "identities");
    List<String> wanted = List.copyOf(new LinkedHashSet<>(identities));
    if (wanted.isEmpty()) {
      return Map.of();
    }
    return runner.autoCommit(
        "loadVersions",
        key,
        c -> {
          Map<String, ItemRow> found = new LinkedHashMap<>();
          for (List<String> chunk : Sql.chunks(wanted, dialect.maxListSize())) {
            try (PreparedStatement ps =
                c.prepareStatement(dialect.selectItems(Rows.ITEM_COLUMNS, chunk.size()))) {
              int next = dialect.bindList(c, ps, 1, ColumnType.TEXT, chunk);
              bindKey(ps, next, key);
              try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  ItemRow row = rows.item(rs);
                  found.put(row.identity(), row);
                }
              }
            }
          }
          return Collections.unmodifiableMap(found);
        });
  }

  Stream<List<String>> streamIdentities(PollerKey key, int batchSize) {
    Objects.requireNonNull(key, "key");
    if (batchSize < 1) {
      throw new IllegalArgumentException("batchSize must be at least 1, but was " + batchSize);
    }
    Iterator<List<String>> batches = new IdentityBatches(key, batchSize);
    return StreamSupport.stream(
        Spliterators.spliteratorUnknownSize(
            batches, Spliterator.ORDERED | Spliterator.NONNULL | Spliterator.IMMUTABLE),
        false);
  }

  /**
   * Keyset pagination over the items of one key ({@code identity > last ORDER BY identity LIMIT
   * n}), one query per batch when the stream asks for it; no cursor, transaction or connection is
   * held between batches. Not thread-safe, like any iterator.
   */
  private final class IdentityBatches implements Iterator<List<String>> {
    private final PollerKey key;
    private final int batchSize;
    private @Nullable String last;
    private @Nullable List<String> next;
    private boolean exhausted;

    IdentityBatches(PollerKey key, int batchSize) {
      this.key = key;
      this.batchSize = batchSize;
    }

    @Override
    public boolean hasNext() {
      if (next == null && !exhausted) {
        List<String> batch = fetch();
        if (batch.size() < batchSize) {
          exhausted = true;
        }
        if (!batch.isEmpty()) {
          next = batch;
          last = batch.get(batch.size() - 1);
        }
      }
      return next != null;
    }

    @Override
    public List<String> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      List<String> batch = Objects.requireNonNull(next);
      next = null;
      return batch;
    }

    private List<String> fetch() {
      String after = last;
      return runner.autoCommit(
          "streamIdentities",
          key,
          c -> {
            List<String> ids = new ArrayList<>(Math.min(batchSize, 1024));
            try (PreparedStatement ps =
                c.prepareStatement(
                    "SELECT identity FROM "
                        + sql.items
                        + sql.whereKey
                        + (after == null ? "" : " AND identity > ?")
                        + " ORDER BY identity LIMIT ?")) {
              bindKey(ps, 1, key);
              int i = 3;
              if (after != null) {
                ps.setString(i++, after);
              }
              ps.setInt(i, batchSize);
              try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  ids.add(rs.getString(1));
                }
              }
            }
            return List.copyOf(ids);
          });
    }
  }

  long count(PollerKey key) {
    return runner.count("countItems", sql.items, key, "");
  }

  void clear(PollerKey key) {
    Objects.requireNonNull(key, "key");
    runner.transaction(
        "clearItems",
        key,
        c -> {
          fencing.lockKey(c, key);
          try (PreparedStatement ps =
              c.prepareStatement("DELETE FROM " + sql.items + sql.whereKey)) {
            bindKey(ps, 1, key);
            ps.executeUpdate();
          }
          return null;
        });
  }

  /**
   * The page's upserts as one batch for {@link SqlDialect#writeRows}, or null when there are none;
   * a repeated identity: last wins.
   */
  @Nullable RowBatch upsertBatch(PollerKey key, List<ItemRow> items) {
    if (items.isEmpty()) {
      return null;
    }
    List<@Nullable Object[]> values = new ArrayList<>(items.size());
    for (ItemRow row : items) {
      values.add(Rows.item(row));
    }
    return new RowBatch(sql.items, key, rows.itemColumns, values, List.of("identity"));
  }

  /** The page's deletes, in as few statements as the dialect's lists allow. */
  void delete(Connection c, PollerKey key, List<String> identities) throws SQLException {
    if (identities.isEmpty()) {
      return;
    }
    sql.deleteIn(c, dialect, sql.items, key, "identity", ColumnType.TEXT, identities);
  }
}
