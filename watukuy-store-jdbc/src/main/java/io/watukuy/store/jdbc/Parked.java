package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.Sql.bindKey;

import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Parked rows: poison events and invalid items, listed oldest first, put back into the outbox at
 * their original sequence (so per-key order holds, guarantee G3), discarded, and the ordering keys
 * they hold.
 */
final class Parked {
  private final SqlRunner runner;
  private final SqlDialect dialect;
  private final Sql sql;
  private final Rows rows;
  private final Fencing fencing;

  Parked(SqlRunner runner, SqlDialect dialect, Sql sql, Rows rows, Fencing fencing) {
    this.runner = runner;
    this.dialect = dialect;
    this.sql = sql;
    this.rows = rows;
    this.fencing = fencing;
  }

  /** Inserts {@code row}, replacing a parked row with the same id. */
  void upsert(Connection c, PollerKey key, ParkedRow row, @Nullable Instant createdAt)
      throws SQLException {
    RowBatch one =
        new RowBatch(
            sql.parked,
            key,
            rows.parkedColumns,
            List.<@Nullable Object[]>of(Rows.parked(row, createdAt)),
            List.of("id"));
    try (PreparedStatement ps = c.prepareStatement(one.statement(dialect))) {
      one.bindRow(dialect, ps, 0);
      ps.executeUpdate();
    }
  }

  List<ParkedRow> list(PollerKey key, @Nullable ParkedKind kind, int limit) {
    Objects.requireNonNull(key, "key");
    Sql.requireLimit(limit);
    if (limit == 0) {
      return List.of();
    }
    return runner.autoCommit(
        "listParked",
        key,
        c -> {
          List<ParkedRow> found = new ArrayList<>();
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT "
                      + Rows.PARKED_COLUMNS
                      + " FROM "
                      + sql.parked
                      + sql.whereKey
                      + (kind == null ? "" : " AND kind = ?")
                      + " ORDER BY parked_at, id LIMIT ?")) {
            bindKey(ps, 1, key);
            int i = 3;
            if (kind != null) {
              ps.setString(i++, kind.wire());
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                found.add(rows.parked(rs));
              }
            }
          }
          return List.copyOf(found);
        });
  }

  long count(PollerKey key) {
    return runner.count("countParked", sql.parked, key, "");
  }

  /**
   * One transaction under the key lock: reads the parked rows, refuses the whole retry when a
   * poison row lacks what re-queuing needs, puts the poison events back into the outbox (with zero
   * attempts, no error, and the commit time they had) and removes the rows.
   */
  int retry(PollerKey key, Collection<String> ids) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ids, "ids");
    List<String> wanted = List.copyOf(new LinkedHashSet<>(ids));
    if (wanted.isEmpty()) {
      return 0;
    }
    return runner.transaction(
        "retryParked",
        key,
        c -> {
          fencing.lockKey(c, key);
          List<String> found = new ArrayList<>();
          List<@Nullable Object[]> restore = new ArrayList<>();
          for (List<String> chunk : Sql.chunks(wanted, dialect.maxListSize())) {
            read(c, key, chunk, found, restore);
          }
          if (!restore.isEmpty()) {
            dialect.writeRows(
                c, new RowBatch(sql.outbox, key, rows.outboxColumns, restore, List.of("seq")));
          }
          if (!found.isEmpty()) {
            sql.deleteIn(c, dialect, sql.parked, key, "id", ColumnType.TEXT, found);
          }
          return found.size();
        });
  }

  /**
   * Adds the ids of {@code chunk} that are parked to {@code found}, their outbox rows to {@code
   * restore}.
   */
  private void read(
      Connection c,
      PollerKey key,
      List<String> chunk,
      List<String> found,
      List<@Nullable Object[]> restore)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT id, kind, seq, event_id, ordering_key, event,"
                + " COALESCE(created_at, parked_at) FROM "
                + sql.parked
                + sql.whereKey
                + " AND "
                + dialect.inList("id", chunk.size())
                + " ORDER BY id")) {
      bindKey(ps, 1, key);
      dialect.bindList(c, ps, 3, ColumnType.TEXT, chunk);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String id = rs.getString(1);
          ParkedKind kind = ParkedKind.fromWire(rs.getString(2));
          Long sequence = Rows.longOrNull(rs, 3);
          String eventId = rs.getString(4);
          String event = rs.getString(6);
          found.add(id);
          if (kind != ParkedKind.POISON) {
            continue;
          }
          if (sequence == null || eventId == null || event == null) {
            // Dropping it would lose the event for good; refuse the whole retry instead.
            throw new StoreException(
                runner.prefix()
                    + "retryParked "
                    + key
                    + ": parked poison row "
                    + id
                    + " has no sequence, event id or event to put back; nothing was changed",
                null);
          }
          OutboxRow back =
              OutboxRow.pending(sequence, eventId, rs.getString(5), event, rows.instant(rs, 7));
          restore.add(Rows.outbox(back));
        }
      }
    }
  }

  int discard(PollerKey key, Collection<String> ids) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(ids, "ids");
    List<String> wanted = List.copyOf(new LinkedHashSet<>(ids));
    if (wanted.isEmpty()) {
      return 0;
    }
    return runner.transaction(
        "discardParked",
        key,
        c -> {
          fencing.lockKey(c, key);
          return sql.deleteIn(c, dialect, sql.parked, key, "id", ColumnType.TEXT, wanted);
        });
  }

  Set<String> heldKeys(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return runner.autoCommit(
        "heldKeys",
        key,
        c -> {
          Set<String> held = new LinkedHashSet<>();
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT DISTINCT hold_key FROM "
                      + sql.parked
                      + sql.whereKey
                      + " AND hold_key IS NOT NULL")) {
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                held.add(rs.getString(1));
              }
            }
          }
          return Set.copyOf(held);
        });
  }
}
