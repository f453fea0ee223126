package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.Sql.ms;

import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Row mapping, both ways: the columns the engine selects and the SPI records it builds from them,
 * and the columns and values it writes. Instants go through the dialect's time codec.
 */
final class Rows {

  /** The columns of {@link #item}, in order. */
  static final List<String> ITEM_COLUMNS =
      List.of(
          "identity", "version", "hash", "schema_version", "payload", "ordering_key", "seen_at");

  /** The columns of {@link #outbox}, in order. */
  static final String OUTBOX_COLUMNS =
      "seq, event_id, ordering_key, event, attempts, next_attempt_at, last_error, created_at";

  /** The columns of {@link #parked}, in order. */
  static final String PARKED_COLUMNS =
      "id, kind, seq, event_id, ordering_key, event, item, error, attempts, parked_at, hold_key";

  /** The status of an outbox row until it is acknowledged (acknowledged rows are deleted). */
  static final String PENDING = "pending";

  private final SqlDialect dialect;

  /** What the engine writes into {@link StoreTable#ITEMS}, after the key. */
  final List<Column> itemColumns;

  /** What the engine writes into {@link StoreTable#OUTBOX}, after the key. */
  final List<Column> outboxColumns;

  /** What the engine writes into {@link StoreTable#LOG}, after the key. */
  final List<Column> logColumns;

  /** What the engine writes into {@link StoreTable#PARKED}, after the key. */
  final List<Column> parkedColumns;

  /** What the engine writes into {@link StoreTable#VALIDATORS}, after the key. */
  final List<Column> validatorColumns;

  Rows(SqlDialect dialect) {
    this.dialect = dialect;
    itemColumns =
        List.of(
            new Column("identity", ColumnType.TEXT),
            new Column("version", ColumnType.TEXT),
            new Column("hash", ColumnType.TEXT),
            new Column("schema_version", ColumnType.INT),
            new Column("payload", ColumnType.JSON),
            new Column("ordering_key", ColumnType.TEXT),
            new Column("seen_at", ColumnType.INSTANT));
    outboxColumns =
        List.of(
            new Column("seq", ColumnType.LONG),
            new Column("event_id", ColumnType.TEXT),
            new Column("ordering_key", ColumnType.TEXT),
            new Column("event", ColumnType.JSON),
            new Column("status", ColumnType.TEXT),
            new Column("attempts", ColumnType.INT),
            new Column("next_attempt_at", ColumnType.INSTANT),
            new Column("last_error", ColumnType.JSON),
            new Column("created_at", ColumnType.INSTANT));
    logColumns =
        List.of(
            new Column("seq", ColumnType.LONG),
            new Column("event", ColumnType.JSON),
            new Column("created_at", ColumnType.INSTANT));
    parkedColumns =
        List.of(
            new Column("id", ColumnType.TEXT),
            new Column("kind", ColumnType.TEXT),
            new Column("seq", ColumnType.LONG),
            new Column("event_id", ColumnType.TEXT),
            new Column("ordering_key", ColumnType.TEXT),
            new Column("event", ColumnType.JSON),
            new Column("item", ColumnType.JSON),
            new Column("error", ColumnType.JSON),
            new Column("attempts", ColumnType.INT),
            new Column("parked_at", ColumnType.INSTANT),
            new Column("hold_key", ColumnType.TEXT),
            new Column("created_at", ColumnType.INSTANT));
    validatorColumns =
        List.of(
            new Column("url_hash", ColumnType.TEXT),
            new Column("etag", ColumnType.TEXT),
            new Column("last_modified", ColumnType.TEXT),
            new Column("stored_at", ColumnType.INSTANT));
  }

  // ---- reading

  /** An item row from the columns {@link #ITEM_COLUMNS}, starting at column 1. */
  ItemRow item(ResultSet rs) throws SQLException {
    return new ItemRow(
        rs.getString(1),
        rs.getString(2),
        rs.getString(3),
        rs.getInt(4),
        rs.getString(5),
        rs.getString(6),
        instant(rs, 7));
  }

  /** A pending row from the columns {@link #OUTBOX_COLUMNS}. */
  OutboxRow outbox(ResultSet rs) throws SQLException {
    return new OutboxRow(
        rs.getLong(1),
        rs.getString(2),
        rs.getString(3),
        rs.getString(4),
        rs.getInt(5),
        dialect.getInstant(rs, 6),
        rs.getString(7),
        instant(rs, 8));
  }

  /** A parked row from the columns {@link #PARKED_COLUMNS}. */
  ParkedRow parked(ResultSet rs) throws SQLException {
    return new ParkedRow(
        rs.getString(1),
        ParkedKind.fromWire(rs.getString(2)),
        longOrNull(rs, 3),
        rs.getString(4),
        rs.getString(5),
        rs.getString(6),
        rs.getString(7),
        rs.getString(8),
        rs.getInt(9),
        instant(rs, 10),
        rs.getString(11));
  }

  /** A logged event from {@code seq, event, created_at}. */
  LoggedEvent logged(ResultSet rs) throws SQLException {
    return new LoggedEvent(rs.getLong(1), rs.getString(2), instant(rs, 3));
  }

  /** A validator from {@code etag, last_modified, stored_at}. */
  HttpValidator validator(ResultSet rs) throws SQLException {
    return new HttpValidator(rs.getString(1), rs.getString(2), instant(rs, 3));
  }

  /** An instant of a NOT NULL column. */
  Instant instant(ResultSet rs, int index) throws SQLException {
    return Objects.requireNonNull(dialect.getInstant(rs, index), "NOT NULL instant column");
  }

  static @Nullable Long longOrNull(ResultSet rs, int index) throws SQLException {
    long value = rs.getLong(index);
    return rs.wasNull() ? null : value;
  }

  // ---- writing

  static @Nullable Object[] item(ItemRow row) {
    return new Object[] {
      row.identity(),
      row.version(),
      row.hash(),
      row.schemaVersion(),
      row.payload(),
      row.orderingKey(),
      ms(row.seenAt())
    };
  }

  static @Nullable Object[] outbox(OutboxRow row) {
    Instant next = row.nextAttemptAt();
    return new Object[] {
      row.sequence(),
      row.eventId(),
      row.orderingKey(),
      row.event(),
      PENDING,
      row.attempts(),
      next == null ? null : ms(next),
      row.lastError(),
      ms(row.createdAt())
    };
  }

  static @Nullable Object[] logged(OutboxRow row, Instant now) {
    return new Object[] {row.sequence(), row.event(), ms(now)};
  }

  static @Nullable Object[] parked(ParkedRow row, @Nullable Instant createdAt) {
    return new Object[] {
      row.id(),
      row.kind().wire(),
      row.sequence(),
      row.eventId(),
      row.orderingKey(),
      row.event(),
      row.item(),
      row.error(),
      row.attempts(),
      ms(row.parkedAt()),
      row.holdKey(),
      createdAt == null ? null : ms(createdAt)
    };
  }

  static @Nullable Object[] validator(String urlHash, HttpValidator validator) {
    return new Object[] {
      urlHash, validator.etag(), validator.lastModified(), ms(validator.storedAt())
    };
  }
}
