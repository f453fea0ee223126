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
  private final String takeOver;
  private final String insert;
  private final Acquisition<Lease> leaseOnly;

  Leases(SqlRunner runner, SqlDialect dialect, Sql sql, Rows rows) {
    this.runner = runner;
    this.dialect = dialect;
    this.sql = sql;
    this.rows = rows;
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
    this.leaseOnly =
        acquisition(
            "acquireLease",
            dialect.acquireLeaseStatement(),
            null,
            new RowReader<>() {
              @Override
              public Lease fromStatement(ResultSet rs, PollerKey key, Lease lease) {
                return lease;
              }

              @Override
              public Lease afterTake(
                  Connection c, PollerKey key, Lease lease, @Nullable String column) {
                return lease;
              }
            });
  }

  /**
   * What an acquisition returns besides the lease, read by the statement that takes it ({@link
   * SqlDialect#acquireLeaseStatement()} and {@link SqlDialect#acquireLeaseAndLoadStatement()}
   * return more columns) or in the transaction that takes it.
   */
  interface RowReader<T> {
    /**
     * From the row the one-statement acquisition returned: column 1 is the epoch, what follows is
     * the statement's.
     */
    T fromStatement(ResultSet rs, PollerKey key, Lease lease) throws SQLException;

    /**
     * The portable acquisition's result, in its transaction once the lease is written.
     *
     * @param column the value of the reader's column in the key's row read under the lock, or
     *     {@code null} (also for a new key)
     */
    T afterTake(Connection c, PollerKey key, Lease lease, @Nullable String column)
        throws SQLException;
  }

  /** One way to acquire: the statements, built once, and the reader of what they return. */
  final class Acquisition<T> {
    private final String op;
    private final @Nullable String oneStatement;
    private final @Nullable String column;
    private final String selectForAcquire;
    private final RowReader<T> reader;

    private Acquisition(
        String op, @Nullable String oneStatement, @Nullable String column, RowReader<T> reader) {
      this.op = op;
      this.oneStatement = oneStatement;
      this.column = column;
      this.reader = reader;
      this.selectForAcquire =
          "SELECT lease_owner, lease_expires_at, epoch_counter"
              + (column == null ? "" : ", " + column)
              + " FROM "
              + sql.pollers
              + sql.whereKey
              + dialect.lockRowClause();
    }

    /**
     * Takes the key's lease when no live lease holds it: one statement where the dialect has one,
     * else one transaction that reads the row under the key lock, then takes it over or creates it.
     *
     * @return the reader's result, or empty when a live lease holds the key
     */
    Optional<T> acquire(PollerKey key, String owner, Duration ttl, Instant now) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(owner, "owner");
      Objects.requireNonNull(ttl, "ttl");
      Objects.requireNonNull(now, "now");
      Instant at = ms(now);
      Instant expires = ms(now.plus(ttl));
      String statement = oneStatement;
      if (statement != null) {
        return runner.autoCommit(
            op,
            key,
            c -> {
              try (PreparedStatement ps = c.prepareStatement(statement)) {
                bindKey(ps, 1, key);
                ps.setString(3, owner);
                dialect.setInstant(ps, 4, expires);
                dialect.setInstant(ps, 5, at);
                if (column != null) {
                  bindKey(ps, 6, key);
                }
                try (ResultSet rs = ps.executeQuery()) {
                  if (!rs.next()) {
                    return Optional.<T>empty();
                  }
                  Lease lease = new Lease(owner, rs.getLong(1), expires);
                  return Optional.of(reader.fromStatement(rs, key, lease));
                }
              }
            });
      }
      return runner.transaction(op, key, c -> readThenWrite(c, key, owner, at, expires));
    }

    /**
     * The portable acquisition: read the key's row under the key lock, then take it over or create
     * it. The lock makes the test and the write atomic against every other writer of the key.
     */
    private Optional<T> readThenWrite(
        Connection c, PollerKey key, String owner, Instant at, Instant expires)
        throws SQLException {
      boolean exists = false;
      long counter = 0;
      String value = null;
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
            if (column != null) {
              value = rs.getString(4);
            }
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
        // A lease alone is not state: the row's state stays null until the first state write, so
        // loadState and listKeys do not see a key that was only leased.
        try (PreparedStatement ps = c.prepareStatement(insert)) {
          bindKey(ps, 1, key);
          ps.setString(3, owner);
          ps.setLong(4, epoch);
          dialect.setInstant(ps, 5, expires);
          ps.setLong(6, epoch);
          ps.executeUpdate();
        }
      }
      return Optional.of(reader.afterTake(c, key, new Lease(owner, epoch, expires), value));
    }
  }

  /**
   * An acquisition that also returns what {@code reader} reads.
   *
   * @param op the operation's name in error messages
   * @param oneStatement the dialect's one-statement form, or {@code null} for the portable one;
   *     with a {@code column}, it binds the key again at parameters 6 and 7
   * @param column a column of the key's row the portable form reads under the lock, or {@code null}
   */
  <T> Acquisition<T> acquisition(
      String op, @Nullable String oneStatement, @Nullable String column, RowReader<T> reader) {
    return new Acquisition<>(op, oneStatement, column, reader);
  }

  Optional<Lease> acquire(PollerKey key, String owner, Duration ttl, Instant now) {
    return leaseOnly.acquire(key, owner, ttl, now);
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
