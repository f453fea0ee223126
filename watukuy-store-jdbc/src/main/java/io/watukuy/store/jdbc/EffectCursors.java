package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.EffectTables.bindEffectSource;
import static io.watukuy.store.jdbc.Sql.ms;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The effect cursors table ({@link StoreTable#EFFECT_CURSORS}): one row per effect and source key,
 * written by a fenced upsert; the schemes map is a JSON object of text, written with sorted keys.
 * The lowest watermark of a source is one {@code MIN} over an index on {@code (poller, "partition",
 * watermark)}.
 */
final class EffectCursors {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<Map<String, String>> SCHEMES = new TypeReference<>() {};

  private final EffectTables tables;
  private final SqlDialect dialect;
  private final Sql sql;
  private final String upsert;

  EffectCursors(EffectTables tables) {
    this.tables = tables;
    this.dialect = tables.dialect();
    this.sql = tables.sql();
    this.upsert =
        dialect.upsert(
            "INSERT INTO "
                + sql.effectCursors
                + " (effect, poller, "
                + sql.partition
                + ", watermark, live_boundary, schemes, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            List.of("effect", "poller", sql.partition),
            List.of("watermark", "live_boundary", "schemes", "updated_at"));
  }

  List<EffectCursor> load(String effect) {
    Objects.requireNonNull(effect, "effect");
    return tables
        .runner()
        .autoCommit(
            "loadCursors of effect " + effect,
            null,
            c -> {
              List<EffectCursor> out = new ArrayList<>();
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT poller, "
                          + sql.partition
                          + ", watermark, live_boundary, schemes, updated_at FROM "
                          + sql.effectCursors
                          + " WHERE effect = ?")) {
                ps.setString(1, effect);
                try (ResultSet rs = ps.executeQuery()) {
                  while (rs.next()) {
                    out.add(
                        new EffectCursor(
                            effect,
                            PollerKey.of(rs.getString(1), rs.getString(2)),
                            rs.getLong(3),
                            Rows.longOrNull(rs, 4),
                            schemes(effect, rs.getString(5)),
                            Objects.requireNonNull(dialect.getInstant(rs, 6), "updated_at")));
                  }
                }
              }
              // PollerKey order, whatever the columns' collation.
              out.sort((a, b) -> a.source().compareTo(b.source()));
              return List.copyOf(out);
            });
  }

  void save(EffectCursor cursor, Lease lease) {
    Objects.requireNonNull(cursor, "cursor");
    tables.fenced(
        "saveCursor",
        cursor.effect(),
        cursor.source(),
        lease,
        c -> {
          write(c, cursor);
          return null;
        });
  }

  /** The upsert of one cursor, inside the caller's fenced transaction. */
  void write(Connection c, EffectCursor cursor) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(upsert)) {
      int i = bindEffectSource(ps, 1, cursor.effect(), cursor.source());
      ps.setLong(i, cursor.watermark());
      Long boundary = cursor.liveBoundary();
      if (boundary == null) {
        ps.setNull(i + 1, Types.BIGINT);
      } else {
        ps.setLong(i + 1, boundary);
      }
      ps.setString(i + 2, json(cursor.schemes()));
      dialect.setInstant(ps, i + 3, ms(cursor.updatedAt()));
      ps.executeUpdate();
    }
  }

  /** The stored cursor's {@code on live} boundary, inside the caller's transaction. */
  @Nullable Long liveBoundary(Connection c, String effect, PollerKey source) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT live_boundary FROM " + sql.effectCursors + sql.whereEffectSource)) {
      bindEffectSource(ps, 1, effect, source);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Rows.longOrNull(rs, 1) : null;
      }
    }
  }

  OptionalLong lowestWatermark(PollerKey source) {
    Objects.requireNonNull(source, "source");
    return tables
        .runner()
        .autoCommit(
            "lowestWatermark",
            source,
            c -> {
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT MIN(watermark) FROM " + sql.effectCursors + sql.whereKey)) {
                Sql.bindKey(ps, 1, source);
                try (ResultSet rs = ps.executeQuery()) {
                  rs.next();
                  long lowest = rs.getLong(1);
                  return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(lowest);
                }
              }
            });
  }

  private static String json(Map<String, String> schemes) {
    try {
      return JSON.writeValueAsString(new TreeMap<>(schemes));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a map of strings always serializes", e);
    }
  }

  private Map<String, String> schemes(String effect, String text) {
    try {
      return JSON.readValue(text, SCHEMES);
    } catch (JsonProcessingException e) {
      throw new StoreException(
          tables.runner().prefix()
              + "the schemes of effect "
              + effect
              + "'s cursor are not a JSON object of text; the row was changed by hand",
          e);
    }
  }
}
