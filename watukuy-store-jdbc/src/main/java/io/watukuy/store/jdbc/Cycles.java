package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.Sql.bindKey;

import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LeasedState;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateCodec;
import io.watukuy.spi.StatePatch;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A poll cycle's start and end, one call each (docs/architecture.md, "What an idle poll costs"):
 * the lease with the state and whether the outbox holds a pending row, then the state written with
 * the lease released. The start is {@link Leases}' acquisition reading the state with it: one
 * statement where the dialect offers one ({@link SqlDialect#acquireLeaseAndLoadStatement()}), else
 * one transaction. The end is one statement when the stored text is still the one this engine
 * knows, else a transaction fenced by {@link Fencing}.
 */
final class Cycles {
  private final SqlRunner runner;
  private final SqlDialect dialect;
  private final Fencing fencing;
  private final StateTexts texts;
  private final Leases.Acquisition<LeasedState> acquisition;
  private final String anyPending;
  private final String writeAndRelease;
  private final String writeAndReleaseIfSame;

  Cycles(
      SqlRunner runner,
      SqlDialect dialect,
      Sql sql,
      Fencing fencing,
      Leases leases,
      StateTexts texts) {
    this.runner = runner;
    this.dialect = dialect;
    this.fencing = fencing;
    this.texts = texts;
    this.anyPending = "SELECT 1 FROM " + sql.outbox + sql.whereKey + " LIMIT 1";
    this.writeAndRelease =
        "UPDATE "
            + sql.pollers
            + " SET state = "
            + dialect.placeholder(ColumnType.STATE)
            + ", lease_owner = NULL, lease_epoch = NULL, lease_expires_at = NULL"
            + sql.whereKey;
    this.writeAndReleaseIfSame =
        writeAndRelease
            + " AND lease_owner = ? AND lease_epoch = ? AND state = "
            + dialect.placeholder(ColumnType.STATE);
    this.acquisition =
        leases.acquisition(
            "acquireLeaseAndLoad",
            dialect.acquireLeaseAndLoadStatement(),
            "state",
            new Leases.RowReader<>() {
              @Override
              public LeasedState fromStatement(ResultSet rs, PollerKey key, Lease lease)
                  throws SQLException {
                String state = rs.getString(2);
                boolean pending = rs.getBoolean(3);
                return new LeasedState(lease, parsed(key, state), pending);
              }

              @Override
              public LeasedState afterTake(
                  Connection c, PollerKey key, Lease lease, @Nullable String state)
                  throws SQLException {
                // Outbox rows exist only beside a state: a key without one has nothing pending.
                boolean pending = false;
                if (state != null) {
                  try (PreparedStatement ps = c.prepareStatement(anyPending)) {
                    bindKey(ps, 1, key);
                    try (ResultSet rs = ps.executeQuery()) {
                      pending = rs.next();
                    }
                  }
                }
                return new LeasedState(lease, parsed(key, state), pending);
              }
            });
  }

  Optional<LeasedState> acquireAndLoad(PollerKey key, String owner, Duration ttl, Instant now) {
    return acquisition.acquire(key, owner, ttl, now);
  }

  /** Parses a state read at a cycle's start, and remembers it for the cycle's end. */
  private @Nullable PollerState parsed(PollerKey key, @Nullable String text) {
    return text == null ? null : texts.parseAndPut(key, text);
  }

  /**
   * Writes the cycle's state and releases the lease. When this engine knows the stored text (it
   * read it at the cycle's start or wrote it since, {@link StateTexts}) and its schedule is {@code
   * expected}, that is one {@code UPDATE} in auto-commit that changes the row only while the lease
   * and the text are still those: the lease check of {@link Fencing} and the schedule comparison in
   * one statement, with no lock held between statements. Otherwise, or when that statement changes
   * no row, one fenced transaction: the key's row locked and its lease checked, the stored schedule
   * compared with {@code expected}, then the new state and the lease's release in one UPDATE.
   */
  boolean saveAndRelease(
      PollerKey key, Lease lease, @Nullable ScheduleState expected, StatePatch patch, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    StateTexts.Known known = texts.take(key);
    if (known != null && Objects.equals(known.state().schedule(), expected)) {
      String next = StateCodec.toJson(known.state().apply(patch, now));
      boolean written =
          runner.autoCommit(
              "saveStateAndRelease",
              key,
              c -> {
                try (PreparedStatement ps = c.prepareStatement(writeAndReleaseIfSame)) {
                  dialect.bind(ps, 1, ColumnType.STATE, next);
                  bindKey(ps, 2, key);
                  ps.setString(4, lease.owner());
                  ps.setLong(5, lease.epoch());
                  dialect.bind(ps, 6, ColumnType.STATE, known.text());
                  return ps.executeUpdate() == 1;
                }
              });
      if (written) {
        return true;
      }
      // The lease or the text changed since: the fenced form below tells which, and acts on it.
    }
    return fencing.fenced(
        "saveStateAndRelease",
        key,
        lease,
        true,
        (c, current) -> {
          PollerState stored =
              current == null
                  ? null
                  : known != null && known.text().equals(current)
                      ? known.state()
                      : StateCodec.fromJson(current);
          if (!Objects.equals(stored == null ? null : stored.schedule(), expected)) {
            return false;
          }
          PollerState next =
              stored == null ? PollerState.create(patch, now) : stored.apply(patch, now);
          try (PreparedStatement ps = c.prepareStatement(writeAndRelease)) {
            dialect.bind(ps, 1, ColumnType.STATE, StateCodec.toJson(next));
            bindKey(ps, 2, key);
            ps.executeUpdate();
          }
          return true;
        });
  }
}
