package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.Sql.bindKey;

import io.watukuy.PollerKey;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Reading and pruning the replay log; {@link Outbox#commitPoll} appends to it. */
final class ReplayLog {
  private final SqlRunner runner;
  private final SqlDialect dialect;
  private final Sql sql;
  private final Rows rows;
  private final Fencing fencing;

  ReplayLog(SqlRunner runner, SqlDialect dialect, Sql sql, Rows rows, Fencing fencing) {
    this.runner = runner;
    this.dialect = dialect;
    this.sql = sql;
    this.rows = rows;
    this.fencing = fencing;
  }

  List<LoggedEvent> read(PollerKey key, LogRange range, int limit) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    Sql.requireLimit(limit);
    if (limit == 0) {
      return List.of();
    }
    return runner.autoCommit(
        "readLog",
        key,
        c -> {
          StringBuilder select =
              new StringBuilder("SELECT seq, event, created_at FROM ")
                  .append(sql.log)
                  .append(sql.whereKey);
          Long after = range.afterSequence();
          Instant from = range.fromTime();
          Instant to = range.toTime();
          if (after != null) {
            select.append(" AND seq > ?");
          }
          if (from != null) {
            select.append(" AND created_at >= ?");
          }
          if (to != null) {
            select.append(" AND created_at < ?");
          }
          select.append(" ORDER BY seq LIMIT ?");
          List<LoggedEvent> events = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(select.toString())) {
            bindKey(ps, 1, key);
            int i = 3;
            if (after != null) {
              ps.setLong(i++, after);
            }
            if (from != null) {
              dialect.setInstant(ps, i++, Sql.ms(from));
            }
            if (to != null) {
              dialect.setInstant(ps, i++, Sql.ms(to));
            }
            ps.setInt(i, limit);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                events.add(rows.logged(rs));
              }
            }
          }
          return List.copyOf(events);
        });
  }

  int prune(PollerKey key, Instant olderThan) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(olderThan, "olderThan");
    return runner.transaction(
        "pruneLog",
        key,
        c -> {
          fencing.lockKey(c, key);
          // Never an event above an effect's watermark on this key (docs/effects.md,
          // "Retention"): the floor is read by the delete itself. Inside the subquery, seq is the
          // log row's (the cursors table has no such column).
          try (PreparedStatement ps =
              c.prepareStatement(
                  "DELETE FROM "
                      + sql.log
                      + sql.whereKey
                      + " AND created_at < ? AND NOT EXISTS (SELECT 1 FROM "
                      + sql.effectCursors
                      + sql.whereKey
                      + " AND watermark < seq)")) {
            bindKey(ps, 1, key);
            dialect.setInstant(ps, 3, Sql.ms(olderThan));
            bindKey(ps, 4, key);
            return ps.executeUpdate();
          }
        });
  }
}
