package io.watukuy.store.jdbc;

import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.spi.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The fenced-transaction template (StateStore contract rule 1, guarantee G5): every write that
 * takes a {@link Lease} is one transaction that first locks the key's row with the dialect's key
 * lock and compares the stored owner and epoch; on a mismatch it rolls back and throws {@link
 * LeaseLostException}, having written nothing. Since the comparison reads the row under the lock, a
 * lease taken over while the write waited makes the write fail.
 */
final class Fencing {

  /** Work of a fenced write, given the locked row's state JSON when it was asked for. */
  @FunctionalInterface
  interface FencedWork<T> {
    T run(Connection c, @Nullable String state) throws SQLException;
  }

  private final SqlRunner runner;
  private final String lockClause;
  private final String selectLease;
  private final String selectLeaseAndState;
  private final String lockOnly;
  private final String selectLeaseUnlocked;

  Fencing(SqlRunner runner, Sql sql, SqlDialect dialect) {
    this.runner = runner;
    this.lockClause = dialect.lockRowClause();
    this.selectLease =
        "SELECT lease_owner, lease_epoch FROM " + sql.pollers + sql.whereKey + lockClause;
    this.selectLeaseAndState =
        "SELECT lease_owner, lease_epoch, state FROM " + sql.pollers + sql.whereKey + lockClause;
    this.lockOnly = "SELECT 1 FROM " + sql.pollers + sql.whereKey + lockClause;
    this.selectLeaseUnlocked = "SELECT lease_owner, lease_epoch FROM " + sql.pollers + sql.whereKey;
  }

  /**
   * A transaction that locks the key's row, checks {@code lease}, then runs {@code work}.
   *
   * @param readState whether {@code work} needs the state JSON (read with the lease, at no extra
   *     statement)
   */
  <T> T fenced(String op, PollerKey key, Lease lease, boolean readState, FencedWork<T> work) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    return runner.transaction(
        op,
        key,
        c -> {
          String state = null;
          try (PreparedStatement ps =
              c.prepareStatement(readState ? selectLeaseAndState : selectLease)) {
            Sql.bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
              checkLeaseRow(rs, key, lease);
              if (readState) {
                state = rs.getString(3);
              }
            }
          }
          return work.run(c, state);
        });
  }

  /**
   * Reads the key's lease, without a lock, and checks it: after a one-statement fenced write that
   * changed fewer rows than asked, to tell a lost lease from rows already gone.
   *
   * @throws LeaseLostException if there is no row, no holder, or another owner or epoch
   */
  void checkLease(Connection c, PollerKey key, Lease lease) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(selectLeaseUnlocked)) {
      Sql.bindKey(ps, 1, key);
      try (ResultSet rs = ps.executeQuery()) {
        checkLeaseRow(rs, key, lease);
      }
    }
  }

  /**
   * Checks the key row a fenced statement read (columns 1 and 2: {@code lease_owner}, {@code
   * lease_epoch}); leaves the result set on that row.
   *
   * @throws LeaseLostException if there is no row, no holder, or another owner or epoch
   */
  static void checkLeaseRow(ResultSet rs, PollerKey key, Lease lease) throws SQLException {
    if (!rs.next()) {
      throw new LeaseLostException(key, lease.epoch(), null);
    }
    String owner = rs.getString(1);
    long epoch = rs.getLong(2);
    if (owner == null || rs.wasNull()) {
      throw new LeaseLostException(key, lease.epoch(), null);
    }
    if (!owner.equals(lease.owner()) || epoch != lease.epoch()) {
      throw new LeaseLostException(key, lease.epoch(), epoch);
    }
  }

  /**
   * Locks the key's row for the rest of the transaction, when it exists: the first statement of
   * every unfenced write transaction of a key, so that writes of one key never deadlock. Nothing
   * when the dialect's {@link SqlDialect#begin} already excludes other writers.
   */
  void lockKey(Connection c, PollerKey key) throws SQLException {
    if (lockClause.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(lockOnly)) {
      Sql.bindKey(ps, 1, key);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
      }
    }
  }
}
