package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.Sql.bindKey;
import static io.watukuy.store.jdbc.Sql.ms;

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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A poll cycle's start and end, one call each (docs/architecture.md, "What an idle poll costs"):
 * the lease with the state and whether the outbox holds a pending row, then the state written with
 * the lease released. Each is one statement where the dialect offers one ({@link
 * SqlDialect#acquireLeaseAndLoadStatement()}), else one transaction; fencing is that of {@link
 * Leases} and {@link Fencing}.
 */
final class Cycles {
  private final SqlRunner runner;
  private final SqlDialect dialect;
  private final Fencing fencing;
  private final @Nullable String oneStatement;
  private final String selectForAcquire;
  private final String takeOver;
  private final String insert;
  private final String anyPending;
  private final String writeAndRelease;

  /**
   * The state text each cycle in flight read at its start, and what it parsed to: the cycle's end
   * reads the text again under the lock and, when it is the same, skips parsing it a second time
   * (parsing was most of an idle poll's CPU). At most {@value #MAX_READS} entries, the oldest
   * dropped; a missing entry only costs the parse.
   */
  private final Map<PollerKey, Read> reads =
      Collections.synchronizedMap(
          new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<PollerKey, Read> eldest) {
              return size() > MAX_READS;
            }
          });

  private static final int MAX_READS = 1024;

  private record Read(String text, PollerState state) {}

  Cycles(SqlRunner runner, SqlDialect dialect, Sql sql, Fencing fencing) {
    this.runner = runner;
    this.dialect = dialect;
    this.fencing = fencing;
    this.oneStatement = dialect.acquireLeaseAndLoadStatement();
    this.selectForAcquire =
        "SELECT lease_owner, lease_expires_at, epoch_counter, state FROM "
            + sql.pollers
            + sql.whereKey
            + dialect.lockRowClause();
    this.takeOver =
        "UPDATE "
            + sql.pollers
            + " SET lease_owner = ?, lease_epoch = ?, lease_expires_at = ?, epoch_counter = ?"
            + sql.whereKey;
    this.insert =
        "INSERT INTO "
            + sql.pollers
            + " (poller, "
            + sql.partition
            + ", lease_owner, lease_epoch, lease_expires_at, epoch_counter)"
            + " VALUES (?, ?, ?, ?, ?, ?)";
    this.anyPending = "SELECT 1 FROM " + sql.outbox + sql.whereKey + " LIMIT 1";
    this.writeAndRelease =
        "UPDATE "
            + sql.pollers
            + " SET state = "
            + dialect.placeholder(ColumnType.STATE)
            + ", lease_owner = NULL, lease_epoch = NULL, lease_expires_at = NULL"
            + sql.whereKey;
  }

  Optional<LeasedState> acquireAndLoad(PollerKey key, String owner, Duration ttl, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(now, "now");
    Instant at = ms(now);
    Instant expires = ms(now.plus(ttl));
    String statement = oneStatement;
    if (statement != null) {
      return runner.autoCommit(
          "acquireLeaseAndLoad",
          key,
          c -> {
            try (PreparedStatement ps = c.prepareStatement(statement)) {
              bindKey(ps, 1, key);
              ps.setString(3, owner);
              dialect.setInstant(ps, 4, expires);
              dialect.setInstant(ps, 5, at);
              bindKey(ps, 6, key);
              try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                  return Optional.<LeasedState>empty();
                }
                Lease lease = new Lease(owner, rs.getLong(1), expires);
                String state = rs.getString(2);
                return Optional.of(
                    new LeasedState(
                        lease,
                        state == null ? null : StateCodec.fromJson(state),
                        rs.getBoolean(3)));
              }
            }
          });
    }
    return runner.transaction(
        "acquireLeaseAndLoad", key, c -> readThenWrite(c, key, owner, at, expires));
  }

  /**
   * The portable acquisition of {@link Leases}, reading the state with the lease columns under the
   * key lock, and the outbox once the lease is taken.
   */
  private Optional<LeasedState> readThenWrite(
      Connection c, PollerKey key, String owner, Instant at, Instant expires) throws SQLException {
    boolean exists = false;
    long counter = 0;
    String state = null;
    try (PreparedStatement ps = c.prepareStatement(selectForAcquire)) {
      bindKey(ps, 1, key);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          exists = true;
          String holder = rs.getString(1);
          Instant held = dialect.getInstant(rs, 2);
          counter = rs.getLong(3);
          if (holder != null && held != null && held.isAfter(at)) {
            return Optional.empty();
          }
          state = rs.getString(4);
        }
      }
    }
    long epoch = counter + 1;
    if (exists) {
      try (PreparedStatement ps = c.prepareStatement(takeOver)) {
        ps.setString(1, owner);
        ps.setLong(2, epoch);
        dialect.setInstant(ps, 3, expires);
        ps.setLong(4, epoch);
        bindKey(ps, 5, key);
        ps.executeUpdate();
      }
    } else {
      // A lease alone is not state: the row's state stays null until the first state write.
      try (PreparedStatement ps = c.prepareStatement(insert)) {
        bindKey(ps, 1, key);
        ps.setString(3, owner);
        ps.setLong(4, epoch);
        dialect.setInstant(ps, 5, expires);
        ps.setLong(6, epoch);
        ps.executeUpdate();
      }
    }
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
    return Optional.of(
        new LeasedState(new Lease(owner, epoch, expires), parsed(key, state), pending));
  }

  /** Parses a state read at a cycle's start, and remembers it for the cycle's end. */
  private @Nullable PollerState parsed(PollerKey key, @Nullable String text) {
    if (text == null) {
      return null;
    }
    PollerState state = StateCodec.fromJson(text);
    reads.put(key, new Read(text, state));
    return state;
  }

  /**
   * One fenced transaction: the key's row locked and its lease checked ({@link Fencing}), the
   * stored schedule compared with {@code expected}, then the new state and the lease's release in
   * one UPDATE.
   */
  boolean saveAndRelease(
      PollerKey key, Lease lease, @Nullable ScheduleState expected, StatePatch patch, Instant now) {
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    Read read = reads.remove(key);
    return fencing.fenced(
        "saveStateAndRelease",
        key,
        lease,
        true,
        (c, current) -> {
          PollerState stored =
              current == null
                  ? null
                  : read != null && read.text().equals(current)
                      ? read.state()
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
