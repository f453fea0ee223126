package io.watukuy.store.jdbc;

import io.watukuy.PollerKey;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;

/**
 * What the effect tables' classes ({@link Effects}, {@link EffectCursors}, {@link Invocations},
 * {@link Journal}, {@link SubjectKeys}) share: the effect's row in {@link StoreTable#EFFECTS} as
 * its lock, the fenced transaction of the writes that move an effect, and the binding of {@code
 * (effect, poller, "partition")}.
 *
 * <p>Fencing (docs/stores.md, "EffectStore"): a fenced write is one transaction that first reads
 * the effect's row with the dialect's row lock and compares the stored owner and epoch; on a
 * mismatch it throws {@link EffectStore#effectLeaseLost} and rolls back, having written nothing.
 * The lock also orders a fenced write after any lease change of the same effect.
 */
final class EffectTables {
  private final SqlRunner runner;
  private final SqlDialect dialect;
  private final Sql sql;
  private final String selectLease;
  private final String ensureRow;

  EffectTables(SqlRunner runner, SqlDialect dialect, Sql sql) {
    this.runner = runner;
    this.dialect = dialect;
    this.sql = sql;
    this.selectLease =
        "SELECT lease_owner, lease_epoch FROM "
            + sql.effects
            + " WHERE name = ?"
            + dialect.lockRowClause();
    this.ensureRow =
        dialect.upsert(
            "INSERT INTO " + sql.effects + " (name, epoch_counter) VALUES (?, 0)",
            List.of("name"),
            List.of());
  }

  SqlRunner runner() {
    return runner;
  }

  SqlDialect dialect() {
    return dialect;
  }

  Sql sql() {
    return sql;
  }

  /**
   * Creates the effect's row unless it exists, in auto-commit: what the lease acquisition locks and
   * the counters add to. An empty row (no lease, no record) is invisible to every read.
   */
  void ensureEffectRow(Connection c, String effect) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(ensureRow)) {
      ps.setString(1, effect);
      ps.executeUpdate();
    }
  }

  /** Work of a fenced write. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  /**
   * One transaction that locks the effect's row, checks {@code lease} against it, then runs {@code
   * work}.
   *
   * @throws io.watukuy.LeaseLostException if the effect has no row, no holder, or another owner or
   *     epoch; nothing is written
   */
  <T> T fenced(String op, String effect, PollerKey source, Lease lease, Work<T> work) {
    Objects.requireNonNull(effect, "effect");
    Objects.requireNonNull(lease, "lease");
    return runner.transaction(
        op + " of effect " + effect,
        source,
        c -> {
          try (PreparedStatement ps = c.prepareStatement(selectLease)) {
            ps.setString(1, effect);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                throw EffectStore.effectLeaseLost(effect, lease.epoch(), null);
              }
              String owner = rs.getString(1);
              long epoch = rs.getLong(2);
              if (owner == null || rs.wasNull()) {
                throw EffectStore.effectLeaseLost(effect, lease.epoch(), null);
              }
              if (!owner.equals(lease.owner()) || epoch != lease.epoch()) {
                throw EffectStore.effectLeaseLost(effect, lease.epoch(), epoch);
              }
            }
          }
          return work.run(c);
        });
  }

  /**
   * Binds {@code effect, poller, partition} from {@code index}, as {@link Sql#whereEffectSource}
   * takes them.
   *
   * @return the next free parameter index
   */
  static int bindEffectSource(PreparedStatement ps, int index, String effect, PollerKey source)
      throws SQLException {
    ps.setString(index, Objects.requireNonNull(effect, "effect"));
    Sql.bindKey(ps, index + 1, Objects.requireNonNull(source, "source"));
    return index + 3;
  }

  /**
   * Runs a single-row insert that writes only when no row with its key exists: the dialect's {@link
   * SqlDialect#insertIfAbsent} form, or the plain insert with a duplicate key counted as "existed".
   *
   * @param binder binds the insert's parameters
   * @return true when the row was written
   */
  boolean insertIfAbsent(Connection c, String insert, List<String> key, Binder binder)
      throws SQLException {
    String statement = dialect.insertIfAbsent(insert, key);
    try (PreparedStatement ps = c.prepareStatement(statement == null ? insert : statement)) {
      binder.bind(ps);
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      if (statement == null && dialect.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /** Binds a statement's parameters. */
  @FunctionalInterface
  interface Binder {
    void bind(PreparedStatement ps) throws SQLException;
  }
}
