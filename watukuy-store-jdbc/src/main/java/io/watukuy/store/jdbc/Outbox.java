package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.Sql.bindKey;

import io.watukuy.PollerKey;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
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
import org.jspecify.annotations.Nullable;

/**
 * The page commit (guarantee G4) and the outbox: pending rows in sequence order, acks, failed
 * attempts, and moving a poison event to the parked rows.
 */
final class Outbox {
  private final SqlRunner runner;
  private final SqlDialect dialect;
  private final Sql sql;
  private final Rows rows;
  private final Fencing fencing;
  private final States states;
  private final Items items;
  private final Parked parked;
  private final @Nullable String ackStatement;
  private final String pendingCondition;

  Outbox(
      SqlRunner runner,
      SqlDialect dialect,
      Sql sql,
      Rows rows,
      Fencing fencing,
      States states,
      Items items,
      Parked parked) {
    this.runner = runner;
    this.dialect = dialect;
    this.sql = sql;
    this.rows = rows;
    this.fencing = fencing;
    this.states = states;
    this.items = items;
    this.parked = parked;
    this.ackStatement = dialect.ackStatement();
    this.pendingCondition = " AND status = '" + Rows.PENDING + "'";
  }

  /**
   * One fenced transaction, in this order: lock the key's row and check the lease (reading the
   * state with it), state patch, item upserts, item deletes, outbox rows, log rows, parked rows.
   */
  void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
    Objects.requireNonNull(batch, "batch");
    Objects.requireNonNull(now, "now");
    fencing.fenced(
        "commitPoll",
        key,
        lease,
        true,
        (c, state) -> {
          String next = states.next(key, state, batch.statePatch(), now);
          List<RowBatch> rows = new ArrayList<>(3);
          RowBatch upserts = items.upsertBatch(key, batch.upserts());
          if (upserts != null) {
            rows.add(upserts);
          }
          RowBatch events = outboxBatch(key, batch.events());
          if (events != null) {
            rows.add(events);
          }
          RowBatch logged = batch.log() ? logBatch(key, batch.events(), now) : null;
          if (logged != null) {
            rows.add(logged);
          }
          if (dialect.writeStateAndRows(c, sql.pollers, key, next, rows)) {
            // Upserts and deletes name different identities, so the deletes may come last.
            items.delete(c, key, batch.deletes());
          } else {
            states.update(c, key, next);
            if (upserts != null) {
              dialect.writeRows(c, upserts);
            }
            items.delete(c, key, batch.deletes());
            if (events != null) {
              dialect.writeRows(c, events);
            }
            if (logged != null) {
              dialect.writeRows(c, logged);
            }
          }
          for (ParkedRow row : batch.parked()) {
            parked.upsert(c, key, row, null);
          }
          return null;
        });
  }

  /**
   * The page's events as pending rows, or null when there are none; a sequence already stored fails
   * the statement.
   */
  private @Nullable RowBatch outboxBatch(PollerKey key, List<OutboxRow> events) {
    if (events.isEmpty()) {
      return null;
    }
    List<@Nullable Object[]> values = new ArrayList<>(events.size());
    for (OutboxRow row : events) {
      values.add(Rows.outbox(row));
    }
    return new RowBatch(sql.outbox, key, rows.outboxColumns, values, List.of());
  }

  /**
   * The page's events in the replay log, created at {@code now}, or null when there are none; a
   * logged sequence is replaced.
   */
  private @Nullable RowBatch logBatch(PollerKey key, List<OutboxRow> events, Instant now) {
    if (events.isEmpty()) {
      return null;
    }
    List<@Nullable Object[]> values = new ArrayList<>(events.size());
    for (OutboxRow row : events) {
      values.add(Rows.logged(row, now));
    }
    return new RowBatch(sql.log, key, rows.logColumns, values, List.of("seq"));
  }

  List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
    Objects.requireNonNull(key, "key");
    Sql.requireLimit(limit);
    if (limit == 0) {
      return List.of();
    }
    return runner.autoCommit(
        "loadPending",
        key,
        c -> {
          List<OutboxRow> pending = new ArrayList<>();
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT "
                      + Rows.OUTBOX_COLUMNS
                      + " FROM "
                      + sql.outbox
                      + sql.whereKey
                      + pendingCondition
                      + " AND seq > ? ORDER BY seq LIMIT ?")) {
            bindKey(ps, 1, key);
            ps.setLong(3, afterSequence);
            ps.setInt(4, limit);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                pending.add(rows.outbox(rs));
              }
            }
          }
          return List.copyOf(pending);
        });
  }

  long countPending(PollerKey key) {
    return runner.count("countPending", sql.outbox, key, pendingCondition);
  }

  /**
   * Deletes the acknowledged rows in one statement when the dialect has one ({@link
   * SqlDialect#ackStatement}, else {@link SqlDialect#fencedAckDelete}) and the sequences fit one
   * list, else in a fenced transaction of as many deletes as the dialect's lists need.
   */
  void ack(PollerKey key, Lease lease, Collection<Long> sequences) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(sequences, "sequences");
    List<Long> seqs = List.copyOf(sequences);
    String statement = ackStatement;
    if (statement != null && seqs.size() <= dialect.maxListSize()) {
      runner.autoCommit(
          "ackEvents",
          key,
          c -> {
            try (PreparedStatement ps = c.prepareStatement(statement)) {
              bindKey(ps, 1, key);
              bindKey(ps, 3, key);
              int next = dialect.bindList(c, ps, 5, ColumnType.LONG, seqs);
              ps.setString(next, lease.owner());
              ps.setLong(next + 1, lease.epoch());
              try (ResultSet rs = ps.executeQuery()) {
                Fencing.checkLeaseRow(rs, key, lease);
              }
            }
            return null;
          });
      return;
    }
    List<Long> distinct = List.copyOf(new LinkedHashSet<>(seqs));
    String delete =
        distinct.isEmpty() || distinct.size() > dialect.maxListSize()
            ? null
            : dialect.fencedAckDelete(distinct.size());
    if (delete != null) {
      runner.autoCommit(
          "ackEvents",
          key,
          c -> {
            dialect.beforeSingleStatementWrite(c);
            int deleted;
            try (PreparedStatement ps = c.prepareStatement(delete)) {
              bindKey(ps, 1, key);
              int next = dialect.bindList(c, ps, 3, ColumnType.LONG, distinct);
              ps.setString(next, lease.owner());
              ps.setLong(next + 1, lease.epoch());
              deleted = ps.executeUpdate();
            }
            if (deleted < distinct.size()) {
              // Some rows were acked before, or the lease was lost and nothing was deleted.
              fencing.checkLease(c, key, lease);
            }
            return null;
          });
      return;
    }
    fencing.fenced(
        "ackEvents",
        key,
        lease,
        false,
        (c, state) -> {
          if (!seqs.isEmpty()) {
            sql.deleteIn(c, dialect, sql.outbox, key, "seq", ColumnType.LONG, seqs);
          }
          return null;
        });
  }

  /**
   * The caller's work and the ack of {@code sequences} in one fenced transaction: the key's row
   * locked and its lease compared first, then the work, then the deletes; all or nothing.
   */
  <T> T ackWithin(PollerKey key, Lease lease, Collection<Long> sequences, CallerWork<T> work) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(work, "work");
    List<Long> seqs = List.copyOf(new LinkedHashSet<>(sequences));
    return fencing.fenced(
        "ackWithin",
        key,
        lease,
        false,
        (c, state) -> {
          T result = work.run(c);
          if (!seqs.isEmpty()) {
            sql.deleteIn(c, dialect, sql.outbox, key, "seq", ColumnType.LONG, seqs);
          }
          return result;
        });
  }

  void recordAttempt(
      PollerKey key,
      Lease lease,
      long sequence,
      String errorJson,
      @Nullable Instant nextAttemptAt) {
    Objects.requireNonNull(errorJson, "errorJson");
    fencing.fenced(
        "recordAttempt",
        key,
        lease,
        false,
        (c, state) -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + sql.outbox
                      + " SET attempts = attempts + 1, last_error = "
                      + dialect.placeholder(ColumnType.JSON)
                      + ", next_attempt_at = ?"
                      + sql.whereKey
                      + " AND seq = ?")) {
            dialect.bind(ps, 1, ColumnType.JSON, errorJson);
            dialect.setInstant(ps, 2, nextAttemptAt == null ? null : Sql.ms(nextAttemptAt));
            bindKey(ps, 3, key);
            ps.setLong(5, sequence);
            ps.executeUpdate();
          }
          return null;
        });
  }

  /**
   * Removes the outbox row and parks it, keeping its commit time with the parked row so that a
   * retry restores it.
   */
  void park(PollerKey key, Lease lease, ParkedRow row) {
    Objects.requireNonNull(row, "row");
    fencing.fenced(
        "parkEvent",
        key,
        lease,
        false,
        (c, state) -> {
          Instant createdAt = null;
          Long seq = row.sequence();
          if (seq != null) {
            createdAt = takeCreatedAt(c, key, seq);
          }
          parked.upsert(c, key, row, createdAt);
          return null;
        });
  }

  /** Deletes the outbox row {@code seq} and returns its commit time, or null when there is none. */
  private @Nullable Instant takeCreatedAt(Connection c, PollerKey key, long seq)
      throws SQLException {
    String delete = "DELETE FROM " + sql.outbox + sql.whereKey + " AND seq = ?";
    if (dialect.deleteReturning()) {
      try (PreparedStatement ps = c.prepareStatement(delete + " RETURNING created_at")) {
        bindKey(ps, 1, key);
        ps.setLong(3, seq);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? dialect.getInstant(rs, 1) : null;
        }
      }
    }
    Instant createdAt = null;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT created_at FROM " + sql.outbox + sql.whereKey + " AND seq = ?")) {
      bindKey(ps, 1, key);
      ps.setLong(3, seq);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          createdAt = dialect.getInstant(rs, 1);
        }
      }
    }
    try (PreparedStatement ps = c.prepareStatement(delete)) {
      bindKey(ps, 1, key);
      ps.setLong(3, seq);
      ps.executeUpdate();
    }
    return createdAt;
  }
}
