package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.Sql.bindKey;

import io.watukuy.PollerKey;
import io.watukuy.spi.Lease;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateCodec;
import io.watukuy.spi.StatePatch;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** The poller state of each key, the key list, and the removal of a key. */
final class States {
  private final SqlRunner runner;
  private final SqlDialect dialect;
  private final Sql sql;
  private final Fencing fencing;
  private final StateTexts texts;

  States(SqlRunner runner, SqlDialect dialect, Sql sql, Fencing fencing, StateTexts texts) {
    this.runner = runner;
    this.dialect = dialect;
    this.sql = sql;
    this.fencing = fencing;
    this.texts = texts;
  }

  Optional<PollerState> load(PollerKey key) {
    Objects.requireNonNull(key, "key");
    return runner.autoCommit(
        "loadState",
        key,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement("SELECT state FROM " + sql.pollers + sql.whereKey)) {
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return Optional.<PollerState>empty();
              }
              String json = rs.getString(1);
              return json == null
                  ? Optional.<PollerState>empty()
                  : Optional.of(StateCodec.fromJson(json));
            }
          }
        });
  }

  void save(PollerKey key, Lease lease, StatePatch patch, Instant now) {
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    fencing.fenced(
        "saveState",
        key,
        lease,
        true,
        (c, state) -> {
          write(c, key, state, patch, now);
          return null;
        });
  }

  void saveUnfenced(PollerKey key, StatePatch patch, Instant now) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(patch, "patch");
    Objects.requireNonNull(now, "now");
    runner.transaction(
        "saveStateUnfenced",
        key,
        c -> {
          // The row may not exist yet; create it empty (no state, no lease), then lock it.
          String insert =
              "INSERT INTO " + sql.pollers + " (poller, " + sql.partition + ") VALUES (?, ?)";
          try (PreparedStatement ps =
              c.prepareStatement(
                  dialect.upsert(insert, List.of("poller", sql.partition), List.of()))) {
            bindKey(ps, 1, key);
            ps.executeUpdate();
          }
          String state;
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT state FROM " + sql.pollers + sql.whereKey + dialect.lockRowClause())) {
            bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              state = rs.getString(1);
            }
          }
          write(c, key, state, patch, now);
          return null;
        });
  }

  /**
   * Applies {@code patch} to {@code current} (or creates the state) on the key's row, which exists
   * and is locked; never touches the lease columns. The text written is remembered ({@link
   * StateTexts}): the cycle's end then neither parses it nor reads it under a lock.
   */
  void write(Connection c, PollerKey key, @Nullable String current, StatePatch patch, Instant now)
      throws SQLException {
    update(c, key, next(key, current, patch, now));
  }

  /**
   * The JSON of {@code patch} applied to {@code current} (or of a new state), remembered in {@link
   * StateTexts} as the key's text. A hint only: if the transaction that writes it rolls back, the
   * stored text differs, and the cycle's end, which compares the stored text, does not use it.
   */
  String next(PollerKey key, @Nullable String current, StatePatch patch, Instant now) {
    PollerState next =
        current == null
            ? PollerState.create(patch, now)
            : texts.parse(key, current).apply(patch, now);
    String text = StateCodec.toJson(next);
    texts.put(key, text, next);
    return text;
  }

  /** Replaces the state JSON of the key's row, which exists and is locked. */
  void update(Connection c, PollerKey key, String state) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE "
                + sql.pollers
                + " SET state = "
                + dialect.placeholder(ColumnType.STATE)
                + sql.whereKey)) {
      dialect.bind(ps, 1, ColumnType.STATE, state);
      bindKey(ps, 2, key);
      ps.executeUpdate();
    }
  }

  List<PollerKey> listKeys(@Nullable String poller) {
    return runner.autoCommit(
        "listKeys",
        null,
        c -> {
          String select =
              "SELECT poller, "
                  + sql.partition
                  + " FROM "
                  + sql.pollers
                  + " WHERE state IS NOT NULL"
                  + (poller == null ? "" : " AND poller = ?");
          List<PollerKey> keys = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(select)) {
            if (poller != null) {
              ps.setString(1, poller);
            }
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                keys.add(new PollerKey(rs.getString(1), rs.getString(2)));
              }
            }
          }
          // Databases order by bytes or code points, PollerKey by UTF-16 units; they differ above
          // U+FFFF.
          Collections.sort(keys);
          return List.copyOf(keys);
        });
  }

  void deleteKey(PollerKey key) {
    Objects.requireNonNull(key, "key");
    runner.transaction(
        "deleteKey",
        key,
        c -> {
          // The UPDATE takes the row lock first, as every write of a key does. The epoch counter
          // survives in the emptied row, so holders from before the delete stay fenced out.
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + sql.pollers
                      + " SET state = NULL, lease_owner = NULL, lease_epoch = NULL,"
                      + " lease_expires_at = NULL"
                      + sql.whereKey)) {
            bindKey(ps, 1, key);
            ps.executeUpdate();
          }
          for (String table : sql.keyTables()) {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + sql.whereKey)) {
              bindKey(ps, 1, key);
              ps.executeUpdate();
            }
          }
          return null;
        });
  }
}
