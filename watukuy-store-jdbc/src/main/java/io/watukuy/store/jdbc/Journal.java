package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.EffectTables.bindEffectSource;
import static io.watukuy.store.jdbc.Sql.ms;

import io.watukuy.PollerKey;
import io.watukuy.spi.JournalEntry;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The journal table ({@link StoreTable#JOURNAL}): an append is one insert-if-absent in auto-commit
 * ({@link SqlDialect#insertIfAbsent}), never fenced and never replacing an entry, so each call's
 * row is committed on its own the moment it is written.
 */
final class Journal {
  private static final String COLUMNS = "call_key, ordinal, label, result, subject, created_at";

  private final EffectTables tables;
  private final SqlDialect dialect;
  private final Sql sql;
  private final String insert;
  private final List<String> key;

  Journal(EffectTables tables) {
    this.tables = tables;
    this.dialect = tables.dialect();
    this.sql = tables.sql();
    this.insert =
        "INSERT INTO "
            + sql.journal
            + " (effect, poller, "
            + sql.partition
            + ", position, "
            + COLUMNS
            + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    this.key = List.of("effect", "poller", sql.partition, "position", "call_key");
  }

  Optional<JournalEntry> load(String effect, PollerKey source, long position, String callKey) {
    Objects.requireNonNull(callKey, "callKey");
    return tables
        .runner()
        .autoCommit(
            "loadJournalEntry of effect " + effect,
            source,
            c -> {
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT "
                          + COLUMNS
                          + " FROM "
                          + sql.journal
                          + sql.whereEffectSource
                          + " AND position = ? AND call_key = ?")) {
                int i = bindEffectSource(ps, 1, effect, source);
                ps.setLong(i, position);
                ps.setString(i + 1, callKey);
                try (ResultSet rs = ps.executeQuery()) {
                  return rs.next()
                      ? Optional.of(entry(rs, effect, source, position))
                      : Optional.<JournalEntry>empty();
                }
              }
            });
  }

  boolean append(JournalEntry entry) {
    Objects.requireNonNull(entry, "entry");
    return tables
        .runner()
        .autoCommit(
            "appendJournalEntry of effect " + entry.effect(),
            entry.source(),
            c ->
                tables.insertIfAbsent(
                    c,
                    insert,
                    key,
                    ps -> {
                      int i = bindEffectSource(ps, 1, entry.effect(), entry.source());
                      ps.setLong(i, entry.position());
                      ps.setString(i + 1, entry.callKey());
                      ps.setInt(i + 2, entry.ordinal());
                      ps.setString(i + 3, entry.label());
                      ps.setString(i + 4, entry.result());
                      ps.setString(i + 5, entry.subject());
                      dialect.setInstant(ps, i + 6, ms(entry.createdAt()));
                    }));
  }

  List<JournalEntry> list(String effect, PollerKey source, long position, int offset, int limit) {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0, was " + offset);
    }
    Invocations.requirePositive(limit);
    return tables
        .runner()
        .autoCommit(
            "listJournal of effect " + effect,
            source,
            c -> {
              List<JournalEntry> out = new ArrayList<>();
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT "
                          + COLUMNS
                          + " FROM "
                          + sql.journal
                          + sql.whereEffectSource
                          + " AND position = ? ORDER BY ordinal, call_key LIMIT ? OFFSET ?")) {
                int i = bindEffectSource(ps, 1, effect, source);
                ps.setLong(i, position);
                ps.setInt(i + 1, limit);
                ps.setInt(i + 2, offset);
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    out.add(entry(rs, effect, source, position));
                  }
                }
              }
              return List.copyOf(out);
            });
  }

  private JournalEntry entry(ResultSet rs, String effect, PollerKey source, long position)
      throws SQLException {
    return new JournalEntry(
        effect,
        source,
        position,
        rs.getString(1),
        rs.getInt(2),
        rs.getString(3),
        rs.getString(4),
        rs.getString(5),
        Objects.requireNonNull(dialect.getInstant(rs, 6), "created_at"));
  }
}
