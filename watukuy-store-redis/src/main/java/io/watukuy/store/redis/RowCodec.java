package io.watukuy.store.redis;

import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How the rows of a {@link RedisStore} are written into Redis values and read back: items, outbox
 * rows and their attempt errors, parked rows, HTTP validators and logged events, each one {@link
 * Fields} text; and outbox sequences as sorted-set members. Instants are stored as epoch
 * milliseconds. The layout is the store's on-Redis format: the Lua scripts in {@link Scripts} read
 * the first field of outbox and parked rows, so any change here is a change of that format.
 */
final class RowCodec {
  private RowCodec() {}

  // ---- items: version, hash, schema version, payload, ordering key, seen at

  static String encodeItem(ItemRow row) {
    return Fields.encode(
        row.version(),
        row.hash(),
        Integer.toString(row.schemaVersion()),
        row.payload(),
        row.orderingKey(),
        millis(row.seenAt()));
  }

  static ItemRow decodeItem(String identity, String text) {
    @Nullable String[] f = Fields.decode(text, 6, "item row " + identity);
    try {
      return new ItemRow(
          identity,
          f[0],
          Objects.requireNonNull(f[1]),
          Integer.parseInt(Objects.requireNonNull(f[2])),
          f[3],
          Objects.requireNonNull(f[4]),
          Instant.ofEpochMilli(Long.parseLong(Objects.requireNonNull(f[5]))));
    } catch (RuntimeException e) {
      throw new StoreException("redis store: stored item row " + identity + " is not readable", e);
    }
  }

  // ---- outbox: created at, event id, ordering key, event; attempts and errors apart

  static String encodeOutbox(Instant createdAt, String eventId, String orderingKey, String event) {
    return Fields.encode(millis(createdAt), eventId, orderingKey, event);
  }

  /** The error row of a failed attempt: next attempt time (or null), error JSON. */
  static String encodeAttemptError(@Nullable Instant nextAttemptAt, String errorJson) {
    return Fields.encode(millis(nextAttemptAt), errorJson);
  }

  /**
   * An outbox row from its stored parts.
   *
   * @param text the row as {@link #encodeOutbox} wrote it
   * @param attempts the stored attempt count, as decimal text
   * @param errors the error row as {@link #encodeAttemptError} wrote it, or {@code ""} when the row
   *     never failed
   */
  static OutboxRow decodeOutbox(
      PollerKey key, long sequence, String text, String attempts, String errors) {
    @Nullable String[] row = Fields.decode(text, 4, "outbox row of " + key);
    int attemptCount = (int) ScriptReplies.parseLong(attempts, "outbox attempts", key);
    Instant nextAttemptAt = null;
    String lastError = null;
    if (!errors.isEmpty()) {
      @Nullable String[] e = Fields.decode(errors, 2, "outbox error of " + key);
      nextAttemptAt = e[0] == null ? null : ScriptReplies.instant(e[0], "next attempt", key);
      lastError = e[1];
    }
    return new OutboxRow(
        sequence,
        ScriptReplies.required(row[1], "event id", key),
        ScriptReplies.required(row[2], "ordering key", key),
        ScriptReplies.required(row[3], "event", key),
        attemptCount,
        nextAttemptAt,
        lastError,
        ScriptReplies.instant(
            ScriptReplies.required(row[0], "created at", key), "created at", key));
  }

  // ---- parked: the outbox commit time, then kind, sequence, event id, ordering key, event,
  //      item, error, attempts, parked at, hold key

  /** A stored parked row and the commit time its event had in the outbox, when known. */
  record Parked(ParkedRow row, @Nullable Instant createdAt) {}

  /** The parked row without its first field (the outbox commit time), which the script adds. */
  static String encodeParked(ParkedRow row) {
    Long seq = row.sequence();
    return Fields.encode(
        row.kind().wire(),
        seq == null ? null : Long.toString(seq),
        row.eventId(),
        row.orderingKey(),
        row.event(),
        row.item(),
        row.error(),
        Integer.toString(row.attempts()),
        millis(row.parkedAt()),
        row.holdKey());
  }

  static Parked decodeParked(PollerKey key, String id, String text) {
    @Nullable String[] f = Fields.decode(text, 11, "parked row " + id + " of " + key);
    try {
      ParkedRow row =
          new ParkedRow(
              id,
              ParkedKind.fromWire(Objects.requireNonNull(f[1])),
              f[2] == null ? null : Long.valueOf(f[2]),
              f[3],
              Objects.requireNonNull(f[4]),
              f[5],
              f[6],
              Objects.requireNonNull(f[7]),
              Integer.parseInt(Objects.requireNonNull(f[8])),
              Instant.ofEpochMilli(Long.parseLong(Objects.requireNonNull(f[9]))),
              f[10]);
      return new Parked(row, f[0] == null ? null : Instant.ofEpochMilli(Long.parseLong(f[0])));
    } catch (RuntimeException e) {
      throw new StoreException(
          "redis store: stored parked row " + id + " of " + key + " is not readable", e);
    }
  }

  /** The hold argument of the park scripts: {@code ""} for none, else {@code +} and the key. */
  static String holdArg(ParkedRow row) {
    String hold = row.holdKey();
    return hold == null ? "" : "+" + hold;
  }

  // ---- validators: etag, last modified, stored at

  static String encodeValidator(HttpValidator validator) {
    return Fields.encode(validator.etag(), validator.lastModified(), millis(validator.storedAt()));
  }

  static HttpValidator decodeValidator(PollerKey key, String text) {
    @Nullable String[] f = Fields.decode(text, 3, "validator of " + key);
    return new HttpValidator(
        f[0],
        f[1],
        ScriptReplies.instant(ScriptReplies.required(f[2], "stored at", key), "stored at", key));
  }

  // ---- log: the outbox row it logged

  static LoggedEvent decodeLogged(PollerKey key, long sequence, Instant createdAt, String text) {
    @Nullable String[] row = Fields.decode(text, 4, "log row of " + key);
    return new LoggedEvent(sequence, ScriptReplies.required(row[3], "event", key), createdAt);
  }

  // ---- scalars

  static @Nullable String millis(@Nullable Instant at) {
    return at == null ? null : Long.toString(at.toEpochMilli());
  }

  /**
   * A sequence as a sorted-set member: 19 zero-padded digits, so byte order is numeric order for
   * every non-negative {@code long}.
   */
  static String member(long sequence) {
    if (sequence < 0) {
      throw new IllegalArgumentException(
          "outbox sequence must not be negative, but was " + sequence);
    }
    String digits = Long.toString(sequence);
    return "0".repeat(19 - digits.length()) + digits;
  }
}
