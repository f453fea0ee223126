package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.EffectTables.bindEffectSource;
import static io.watukuy.store.jdbc.Sql.ms;

import io.watukuy.PollerKey;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The invocations table ({@link StoreTable#INVOCATIONS}) and the maintenance that deletes from it
 * and the journal together: rewind (fenced) and the retention sweep.
 *
 * <p>A save is an {@code UPDATE} whose {@code skip_requested} keeps a stored 1, then an {@code
 * INSERT} when no row matched, inside the effect's fenced transaction. An operator's {@code
 * requestSkip} is one unfenced {@code UPDATE ... WHERE status = 'FAILED'}; both statements take the
 * row's lock and the save reads the newest committed row, so a request is never lost to a save.
 */
final class Invocations {
  private static final String COLUMNS =
      "position, lane, event_type, status, attempt, error, retry_at, skip_requested, version,"
          + " started_at, updated_at";

  /** The statuses {@link InvocationStatus#completed()} holds for, as stored. */
  private static final String COMPLETED =
      "('"
          + InvocationStatus.DONE
          + "', '"
          + InvocationStatus.TERMINAL
          + "', '"
          + InvocationStatus.SKIPPED
          + "')";

  private final EffectTables tables;
  private final EffectCursors cursors;
  private final SqlDialect dialect;
  private final Sql sql;

  Invocations(EffectTables tables, EffectCursors cursors) {
    this.tables = tables;
    this.cursors = cursors;
    this.dialect = tables.dialect();
    this.sql = tables.sql();
  }

  void save(InvocationRow row, Lease lease) {
    Objects.requireNonNull(row, "row");
    tables.fenced(
        "saveInvocation",
        row.effect(),
        row.source(),
        lease,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + sql.invocations
                      + " SET lane = ?, event_type = ?, status = ?, attempt = ?, error = ?,"
                      + " retry_at = ?, skip_requested = CASE WHEN skip_requested = 1 THEN 1"
                      + " ELSE ? END, version = ?, started_at = ?, updated_at = ?"
                      + sql.whereEffectSource
                      + " AND position = ?")) {
            int i = bindContent(ps, 1, row);
            i = bindEffectSource(ps, i, row.effect(), row.source());
            ps.setLong(i, row.position());
            if (ps.executeUpdate() > 0) {
              return null;
            }
          }
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO "
                      + sql.invocations
                      + " (lane, event_type, status, attempt, error, retry_at, skip_requested,"
                      + " version, started_at, updated_at, effect, poller, "
                      + sql.partition
                      + ", position) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            int i = bindContent(ps, 1, row);
            i = bindEffectSource(ps, i, row.effect(), row.source());
            ps.setLong(i, row.position());
            ps.executeUpdate();
          }
          return null;
        });
  }

  /** Binds lane to updated_at (10 parameters) from {@code index}; returns the next index. */
  private int bindContent(PreparedStatement ps, int index, InvocationRow row) throws SQLException {
    ps.setString(index, row.lane());
    ps.setString(index + 1, row.eventType());
    ps.setString(index + 2, row.status().name());
    ps.setInt(index + 3, row.attempt());
    ps.setString(index + 4, row.error());
    Instant retryAt = row.retryAt();
    dialect.setInstant(ps, index + 5, retryAt == null ? null : ms(retryAt));
    ps.setInt(index + 6, row.skipRequested() ? 1 : 0);
    ps.setString(index + 7, row.version());
    dialect.setInstant(ps, index + 8, ms(row.startedAt()));
    dialect.setInstant(ps, index + 9, ms(row.updatedAt()));
    return index + 10;
  }

  Optional<InvocationRow> load(String effect, PollerKey source, long position) {
    return tables
        .runner()
        .autoCommit(
            "loadInvocation of effect " + effect,
            source,
            c -> {
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT "
                          + COLUMNS
                          + " FROM "
                          + sql.invocations
                          + sql.whereEffectSource
                          + " AND position = ?")) {
                int i = bindEffectSource(ps, 1, effect, source);
                ps.setLong(i, position);
                try (ResultSet rs = ps.executeQuery()) {
                  return rs.next()
                      ? Optional.of(row(rs, effect, source))
                      : Optional.<InvocationRow>empty();
                }
              }
            });
  }

  List<InvocationRow> list(
      String effect,
      PollerKey source,
      long afterPosition,
      Set<InvocationStatus> statuses,
      int limit) {
    Objects.requireNonNull(statuses, "statuses");
    requirePositive(limit);
    List<InvocationStatus> wanted = List.copyOf(statuses);
    return tables
        .runner()
        .autoCommit(
            "listInvocations of effect " + effect,
            source,
            c -> {
              String filter =
                  wanted.isEmpty()
                      ? ""
                      : " AND status IN ("
                          + String.join(", ", Collections.nCopies(wanted.size(), "?"))
                          + ")";
              List<InvocationRow> out = new ArrayList<>();
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT "
                          + COLUMNS
                          + " FROM "
                          + sql.invocations
                          + sql.whereEffectSource
                          + " AND position > ?"
                          + filter
                          + " ORDER BY position LIMIT ?")) {
                int i = bindEffectSource(ps, 1, effect, source);
                ps.setLong(i++, afterPosition);
                for (InvocationStatus status : wanted) {
                  ps.setString(i++, status.name());
                }
                ps.setInt(i, limit);
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    out.add(row(rs, effect, source));
                  }
                }
              }
              return List.copyOf(out);
            });
  }

  long count(String effect, PollerKey source, long afterPosition) {
    return tables
        .runner()
        .autoCommit(
            "countInvocations of effect " + effect,
            source,
            c -> {
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT COUNT(*) FROM "
                          + sql.invocations
                          + sql.whereEffectSource
                          + " AND position > ?")) {
                int i = bindEffectSource(ps, 1, effect, source);
                ps.setLong(i, afterPosition);
                try (ResultSet rs = ps.executeQuery()) {
                  rs.next();
                  return rs.getLong(1);
                }
              }
            });
  }

  boolean requestSkip(String effect, PollerKey source, long position, Instant now) {
    Instant at = ms(Objects.requireNonNull(now, "now"));
    return tables
        .runner()
        .autoCommit(
            "requestSkip of effect " + effect,
            source,
            c -> {
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "UPDATE "
                          + sql.invocations
                          + " SET skip_requested = 1, updated_at = ?"
                          + sql.whereEffectSource
                          + " AND position = ? AND status = ?")) {
                dialect.setInstant(ps, 1, at);
                int i = bindEffectSource(ps, 2, effect, source);
                ps.setLong(i, position);
                ps.setString(i + 1, InvocationStatus.FAILED.name());
                return ps.executeUpdate() == 1;
              }
            });
  }

  /**
   * One fenced transaction: deletes the rows and journal above {@code position} and writes the
   * cursor at {@code position} with no schemes, its live boundary kept or lowered.
   */
  long rewind(
      String effect,
      PollerKey source,
      long position,
      boolean lowerLiveBoundary,
      Lease lease,
      Instant now) {
    if (position < 0) {
      throw new IllegalArgumentException(
          "rewind of effect " + effect + " on " + source + ": position must be >= 0: " + position);
    }
    Instant at = ms(Objects.requireNonNull(now, "now"));
    return tables.fenced(
        "rewind",
        effect,
        source,
        lease,
        c -> {
          long deleted = deleteAbove(c, sql.invocations, effect, source, position);
          deleteAbove(c, sql.journal, effect, source, position);
          Long boundary = cursors.liveBoundary(c, effect, source);
          if (lowerLiveBoundary && (boundary == null || boundary > position)) {
            boundary = position;
          }
          cursors.write(c, new EffectCursor(effect, source, position, boundary, Map.of(), at));
          return deleted;
        });
  }

  private int deleteAbove(
      Connection c, String table, String effect, PollerKey source, long position)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("DELETE FROM " + table + sql.whereEffectSource + " AND position > ?")) {
      int i = bindEffectSource(ps, 1, effect, source);
      ps.setLong(i, position);
      return ps.executeUpdate();
    }
  }

  /**
   * One transaction: picks at most {@code limit} completed rows older than {@code completedBefore}
   * at or below the stored watermark (none without a cursor: the comparison with a missing
   * watermark is never true), then deletes them and their journals.
   */
  int sweep(String effect, PollerKey source, Instant completedBefore, int limit) {
    Objects.requireNonNull(completedBefore, "completedBefore");
    requirePositive(limit);
    Instant before = ms(completedBefore);
    return tables
        .runner()
        .transaction(
            "sweepInvocations of effect " + effect,
            source,
            c -> {
              List<Long> positions = new ArrayList<>();
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT position FROM "
                          + sql.invocations
                          + sql.whereEffectSource
                          + " AND status IN "
                          + COMPLETED
                          + " AND updated_at < ? AND position <= (SELECT watermark FROM "
                          + sql.effectCursors
                          + sql.whereEffectSource
                          + ") ORDER BY position LIMIT ?")) {
                int i = bindEffectSource(ps, 1, effect, source);
                dialect.setInstant(ps, i, before);
                i = bindEffectSource(ps, i + 1, effect, source);
                ps.setInt(i, limit);
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    positions.add(rs.getLong(1));
                  }
                }
              }
              if (positions.isEmpty()) {
                return 0;
              }
              int deleted = 0;
              for (List<Long> chunk : Sql.chunks(positions, dialect.maxListSize())) {
                deleted += deleteIn(c, sql.invocations, effect, source, chunk);
                deleteIn(c, sql.journal, effect, source, chunk);
              }
              return deleted;
            });
  }

  private int deleteIn(
      Connection c, String table, String effect, PollerKey source, List<Long> positions)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "DELETE FROM "
                + table
                + sql.whereEffectSource
                + " AND "
                + dialect.inList("position", positions.size()))) {
      int i = bindEffectSource(ps, 1, effect, source);
      dialect.bindList(c, ps, i, ColumnType.LONG, positions);
      return ps.executeUpdate();
    }
  }

  private InvocationRow row(ResultSet rs, String effect, PollerKey source) throws SQLException {
    return new InvocationRow(
        effect,
        source,
        rs.getLong(1),
        rs.getString(2),
        rs.getString(3),
        InvocationStatus.valueOf(rs.getString(4)),
        rs.getInt(5),
        rs.getString(6),
        dialect.getInstant(rs, 7),
        rs.getInt(8) == 1,
        rs.getString(9),
        Objects.requireNonNull(dialect.getInstant(rs, 10), "started_at"),
        Objects.requireNonNull(dialect.getInstant(rs, 11), "updated_at"));
  }

  static void requirePositive(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be positive, was " + limit);
    }
  }
}
