package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.Sql.ms;

import io.watukuy.spi.EffectRecord;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.Lease;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The effects table ({@link StoreTable#EFFECTS}): each effect's lease, quarantine and counters, and
 * the list of effects. An acquisition first makes sure the effect's row exists (auto-commit), then
 * reads it under the row lock and takes it in one transaction, so two acquisitions of one effect
 * never both win; epochs come from {@code epoch_counter}, which only grows. Quarantine and counters
 * are single statements, so concurrent additions never lose a count.
 */
final class Effects {
  private static final String RECORD_COLUMNS =
      "quarantined_at, quarantine_reason, terminal_skips, last_terminal_error, latest_collapsed,"
          + " updated_at";

  private final EffectTables tables;
  private final SqlRunner runner;
  private final SqlDialect dialect;
  private final Sql sql;

  Effects(EffectTables tables) {
    this.tables = tables;
    this.runner = tables.runner();
    this.dialect = tables.dialect();
    this.sql = tables.sql();
  }

  // ---- lease

  Optional<Lease> acquire(String effect, String owner, Duration ttl, Instant now) {
    Objects.requireNonNull(effect, "effect");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive, was " + ttl);
    }
    Instant at = ms(Objects.requireNonNull(now, "now"));
    Instant expires = ms(now.plus(ttl));
    String op = "acquireEffectLease of effect " + effect;
    runner.autoCommit(
        op,
        null,
        c -> {
          tables.ensureEffectRow(c, effect);
          return null;
        });
    return runner.transaction(
        op,
        null,
        c -> {
          String holder;
          long heldEpoch;
          Instant heldUntil;
          long counter;
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT lease_owner, lease_epoch, lease_expires_at, epoch_counter FROM "
                      + sql.effects
                      + " WHERE name = ?"
                      + dialect.lockRowClause())) {
            ps.setString(1, effect);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              holder = rs.getString(1);
              heldEpoch = rs.getLong(2);
              heldUntil = dialect.getInstant(rs, 3);
              counter = rs.getLong(4);
            }
          }
          boolean mine = owner.equals(holder);
          if (holder != null && !mine && heldUntil != null && heldUntil.isAfter(at)) {
            return Optional.<Lease>empty();
          }
          long epoch = mine ? heldEpoch : counter + 1;
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + sql.effects
                      + " SET lease_owner = ?, lease_epoch = ?, lease_expires_at = ?,"
                      + " epoch_counter = ? WHERE name = ?")) {
            ps.setString(1, owner);
            ps.setLong(2, epoch);
            dialect.setInstant(ps, 3, expires);
            ps.setLong(4, Math.max(counter, epoch));
            ps.setString(5, effect);
            ps.executeUpdate();
          }
          return Optional.of(new Lease(owner, epoch, expires));
        });
  }

  Optional<Lease> renew(String effect, Lease lease, Duration ttl, Instant now) {
    Objects.requireNonNull(effect, "effect");
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(ttl, "ttl");
    Instant expires = ms(Objects.requireNonNull(now, "now").plus(ttl));
    return runner.autoCommit(
        "renewEffectLease of effect " + effect,
        null,
        c -> {
          // One statement: the owner/epoch test and the write are atomic.
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + sql.effects
                      + " SET lease_expires_at = ? WHERE name = ? AND lease_owner = ?"
                      + " AND lease_epoch = ?")) {
            dialect.setInstant(ps, 1, expires);
            ps.setString(2, effect);
            ps.setString(3, lease.owner());
            ps.setLong(4, lease.epoch());
            if (ps.executeUpdate() == 0) {
              return Optional.<Lease>empty();
            }
          }
          return Optional.of(new Lease(lease.owner(), lease.epoch(), expires));
        });
  }

  void release(String effect, Lease lease) {
    Objects.requireNonNull(effect, "effect");
    Objects.requireNonNull(lease, "lease");
    runner.autoCommit(
        "releaseEffectLease of effect " + effect,
        null,
        c -> {
          // epoch_counter stays, so the next acquisition still gets a higher epoch.
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + sql.effects
                      + " SET lease_owner = NULL, lease_epoch = NULL, lease_expires_at = NULL"
                      + " WHERE name = ? AND lease_owner = ? AND lease_epoch = ?")) {
            ps.setString(1, effect);
            ps.setString(2, lease.owner());
            ps.setLong(3, lease.epoch());
            ps.executeUpdate();
          }
          return null;
        });
  }

  Optional<Lease> get(String effect) {
    Objects.requireNonNull(effect, "effect");
    return selectRow(
        "effectLease of effect " + effect,
        effect,
        "lease_owner, lease_epoch, lease_expires_at",
        "lease_owner IS NOT NULL",
        rs ->
            new Lease(
                rs.getString(1),
                rs.getLong(2),
                Objects.requireNonNull(dialect.getInstant(rs, 3), "expires")));
  }

  // ---- effect-wide state

  /** Effects with a lease or a record, and effects with a cursor, sorted in Java. */
  List<String> list() {
    return runner.autoCommit(
        "listEffects",
        null,
        c -> {
          List<String> names = new ArrayList<>();
          try (PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT name FROM "
                          + sql.effects
                          + " WHERE lease_owner IS NOT NULL OR updated_at IS NOT NULL"
                          + " UNION SELECT effect FROM "
                          + sql.effectCursors);
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              names.add(rs.getString(1));
            }
          }
          // String order (UTF-16), as EffectStore promises, whatever the column's collation.
          names.sort(null);
          return List.copyOf(names);
        });
  }

  Optional<EffectRecord> load(String effect) {
    Objects.requireNonNull(effect, "effect");
    return selectRow(
        "loadEffect " + effect,
        effect,
        RECORD_COLUMNS,
        "updated_at IS NOT NULL",
        rs ->
            new EffectRecord(
                effect,
                dialect.getInstant(rs, 1),
                rs.getString(2),
                rs.getLong(3),
                rs.getString(4),
                rs.getLong(5),
                Objects.requireNonNull(dialect.getInstant(rs, 6), "updated_at")));
  }

  /** Reads one row a query on the effects table found. */
  private interface RowReader<T> {
    T read(ResultSet rs) throws SQLException;
  }

  /**
   * The {@code columns} of {@code effect}'s row when it also meets {@code condition}, as {@code
   * reader} reads them, in one auto-commit query; empty when there is no such row. The one place
   * the effect-wide reads (lease, record) query a single row.
   *
   * @param op the operation's name in error messages
   */
  private <T> Optional<T> selectRow(
      String op, String effect, String columns, String condition, RowReader<T> reader) {
    return runner.autoCommit(
        op,
        null,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT "
                      + columns
                      + " FROM "
                      + sql.effects
                      + " WHERE name = ? AND "
                      + condition)) {
            ps.setString(1, effect);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? Optional.of(reader.read(rs)) : Optional.<T>empty();
            }
          }
        });
  }

  /**
   * A quarantine is one {@code UPDATE ... WHERE quarantined_at IS NULL}, so one already in place
   * keeps its time and reason; a release clears a quarantine that exists and creates nothing.
   */
  void setQuarantine(String effect, @Nullable String reason, Instant now) {
    Objects.requireNonNull(effect, "effect");
    Instant at = ms(Objects.requireNonNull(now, "now"));
    runner.autoCommit(
        (reason == null ? "release" : "quarantine") + " of effect " + effect,
        null,
        c -> {
          if (reason == null) {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "UPDATE "
                        + sql.effects
                        + " SET quarantined_at = NULL, quarantine_reason = NULL, updated_at = ?"
                        + " WHERE name = ? AND quarantined_at IS NOT NULL")) {
              dialect.setInstant(ps, 1, at);
              ps.setString(2, effect);
              ps.executeUpdate();
            }
            return null;
          }
          tables.ensureEffectRow(c, effect);
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + sql.effects
                      + " SET quarantined_at = ?, quarantine_reason = ?, updated_at = ?"
                      + " WHERE name = ? AND quarantined_at IS NULL")) {
            dialect.setInstant(ps, 1, at);
            ps.setString(2, reason);
            dialect.setInstant(ps, 3, at);
            ps.setString(4, effect);
            ps.executeUpdate();
          }
          return null;
        });
  }

  /**
   * Clears the effect's row (lease and record; the epoch counter stays, and the row with it), then
   * deletes its journal, invocation and cursor rows, in one transaction; the {@code UPDATE} takes
   * the row's lock first, as a fenced write does.
   */
  boolean forget(String effect) {
    Objects.requireNonNull(effect, "effect");
    return runner.transaction(
        "forgetEffect of effect " + effect,
        null,
        c -> {
          int changed;
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + sql.effects
                      + " SET lease_owner = NULL, lease_epoch = NULL, lease_expires_at = NULL,"
                      + " quarantined_at = NULL, quarantine_reason = NULL, terminal_skips = 0,"
                      + " last_terminal_error = NULL, latest_collapsed = 0, updated_at = NULL"
                      + " WHERE name = ? AND (lease_owner IS NOT NULL OR updated_at IS NOT NULL)")) {
            ps.setString(1, effect);
            changed = ps.executeUpdate();
          }
          for (String table : List.of(sql.journal, sql.invocations, sql.effectCursors)) {
            try (PreparedStatement ps =
                c.prepareStatement("DELETE FROM " + table + " WHERE effect = ?")) {
              ps.setString(1, effect);
              changed += ps.executeUpdate();
            }
          }
          return changed > 0;
        });
  }

  /** One {@code UPDATE} that adds to the stored counters, after making sure the row exists. */
  void addCounts(
      String effect,
      long terminalSkips,
      @Nullable String lastTerminalError,
      long latestCollapsed,
      Instant now) {
    Objects.requireNonNull(effect, "effect");
    EffectStore.checkCounts(effect, terminalSkips, latestCollapsed);
    Instant at = ms(Objects.requireNonNull(now, "now"));
    runner.autoCommit(
        "addCounts of effect " + effect,
        null,
        c -> {
          tables.ensureEffectRow(c, effect);
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + sql.effects
                      + " SET terminal_skips = terminal_skips + ?,"
                      + " latest_collapsed = latest_collapsed + ?,"
                      + " last_terminal_error = COALESCE(?, last_terminal_error), updated_at = ?"
                      + " WHERE name = ?")) {
            ps.setLong(1, terminalSkips);
            ps.setLong(2, latestCollapsed);
            ps.setString(3, lastTerminalError);
            dialect.setInstant(ps, 4, at);
            ps.setString(5, effect);
            ps.executeUpdate();
          }
          return null;
        });
  }
}
