package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.Sql.bindKey;
import static io.watukuy.store.jdbc.Sql.ms;

import io.watukuy.PollerKey;
import io.watukuy.spi.Lease;
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
 * Leases (guarantee G5): acquire, renew, release, read. Epochs come from the key's {@code
 * epoch_counter}, which only ever grows, so an epoch is never issued twice for a key, not even
 * after a release or {@code deleteKey}.
 */
final class Leases {
  private final SqlRunner runner;
  private final SqlDialect dialect;
  private final Sql sql;
  private final Rows rows;
  private final @Nullable String oneStatement;

  Leases(SqlRunner runner, SqlDialect dialect, Sql sql, Rows rows) {
    this.runner = runner;
    this.dialect = dialect;
    this.sql = sql;
    this.rows = rows;
    this.oneStatement = dialect.acquireLeaseStatement();
  }

  Optional<Lease> acquire(PollerKey key, String owner, Duration ttl, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(now, "now");
    Instant at = ms(now);
    Instant expires = ms(now.plus(ttl));
    String statement = oneStatement;
    if (statement != null) {
      return runner.autoCommit(
          "acquireLease",
          key,
          c -> {
            try (PreparedStatement ps = c.prepareStatement(statement)) {
              bindKey(ps, 1, key);
              ps.setString(3, owner);
              dialect.setInstant(ps, 4, expires);
              dialect.setInstant(ps, 5, at);
              try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                  return Optional.<Lease>empty();
                }
                return Optional.of(new Lease(owner, rs.getLong(1), expires));
              }
            }
          });
    }
    return runner.transaction("acquireLease", key, c -> readThenWrite(c, key, owner, at, expires));
  }

  /**
   * The portable acquisition: read the key's row under the key lock, then take it over or create
   * it. The lock makes the test and the write atomic against every other writer of the key.
   */
  private Optional<Lease> readThenWrite(
      Connection c, PollerKey key, String owner, Instant at, Instant expires) throws SQLException {
    boolean exists = false;
    long counter = 0;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT lease_owner, lease_expires_at, epoch_counter FROM "
                + sql.pollers
                + sql.whereKey
                + dialect.lockRowClause())) {
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
        }
      }
    }
    long epoch = counter + 1;
    if (exists) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE "
                  + sql.pollers
                  + " SET lease_owner = ?, lease_epoch = ?, lease_expires_at = ?,"
                  + " epoch_counter = ?"
                  + sql.whereKey)) {
        ps.setString(1, owner);
        ps.setLong(2, epoch);
        dialect.setInstant(ps, 3, expires);
        ps.setLong(4, epoch);
        bindKey(ps, 5, key);
        ps.executeUpdate();
      }
    } else {
      // A lease alone is not state: the row's state stays null until the first state write, so
      // loadState and listKeys do not see a key that was only leased.
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO "
                  + sql.pollers
                  + " (poller, "
                  + sql.partition
                  + ", lease_owner, lease_epoch, lease_expires_at, epoch_counter)"
                  + " VALUES (?, ?, ?, ?, ?, ?)")) {
        bindKey(ps, 1, key);
        ps.setString(3, owner);
        ps.setLong(4, epoch);
        dialect.setInstant(ps, 5, expires);
        ps.setLong(6, epoch);
        ps.executeUpdate();
      }
    }
    return Optional.of(new Lease(owner, epoch, expires));
  }

  Optional<Lease> renew(PollerKey key, Lease lease, Duration ttl, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(now, "now");
    Instant expires = ms(now.plus(ttl));
    return runner.autoCommit(
        "renewLease",
        key,
        c -> {
          // One statement: the owner/epoch test and the write are atomic.
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + sql.pollers
                      + " SET lease_expires_at = ?"
                      + sql.whereKey
                      + " AND lease_owner = ? AND lease_epoch = ?")) {
            dialect.setInstant(ps, 1, expires);
            bindKey(ps, 2, key);
            ps.setString(4, lease.owner());
            ps.setLong(5, lease.epoch());
            if (ps.executeUpdate() == 0) {
              return Optional.<Lease>empty();
            }
          }
          return Optional.of(new Lease(lease.owner(), lease.epoch(), expires));
        });
  }

  void release(PollerKey key, Lease lease) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lease, "lease");
    runner.autoCommit(
        "releaseLease",
        key,
        c -> {
          // epoch_counter stays, so the next acquisition still gets a higher epoch.
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + sql.pollers
                      + " SET lease_owner = NULL, lease_epoch = NULL, lease_expires_at = NULL"
                      + sql.whereKey
                      + " AND lease_owner = ? AND lease_epoch = ?")) {
            bindKey(ps, 1, key);
            ps.setString(3, lease.owner());
            ps.setLong(4, lease.epoch());
            ps.executeUpdate();
          }
          return null;
        });
  }

  Optional<Lease> get(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return runner.autoCommit(
        "getLease",
        key,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT lease_owner, lease_epoch, lease_expires_at FROM "
                      + sql.pollers
                      + sql.whereKey
                      + " AND lease_owner IS NOT NULL")) {
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return Optional.<Lease>empty();
              }
              return Optional.of(new Lease(rs.getString(1), rs.getLong(2), rows.instant(rs, 3)));
            }
          }
        });
  }
}
