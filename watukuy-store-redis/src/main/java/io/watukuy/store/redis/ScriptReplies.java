package io.watukuy.store.redis;

import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.store.redis.RowCodec.Parked;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reads the replies of the Lua scripts in {@link Scripts} into Java values. A reply is an array of
 * strings and integers (never nil or false, so RESP2 and RESP3 clients see the same shapes): a
 * status word first for writes ({@code OK}, {@code LEASE_LOST}, ...), flat tuples for reads. Every
 * stored value that cannot be read is a {@link StoreException} naming what and which key, never the
 * value itself beyond a number's text.
 */
final class ScriptReplies {
  private ScriptReplies() {}

  /** The status word of a write's reply, or null for an empty reply. */
  static @Nullable Object status(List<Object> reply) {
    return reply.isEmpty() ? null : reply.get(0);
  }

  /** The element at {@code index} as text: a string, or an integer's decimal form. */
  static String text(List<Object> reply, int index) {
    Object o = index < reply.size() ? reply.get(index) : null;
    if (o instanceof String s) {
      return s;
    }
    if (o instanceof Long || o instanceof Integer) {
      return o.toString();
    }
    throw new StoreException(
        "redis store: expected a string at " + index + " of the reply, but got " + o, null);
  }

  /** Every element as text, in order. */
  static List<String> texts(List<Object> reply) {
    List<String> out = new ArrayList<>(reply.size());
    for (int i = 0; i < reply.size(); i++) {
      out.add(text(reply, i));
    }
    return out;
  }

  /** A reply of field, value pairs (as {@code HGETALL} gives) as a map. */
  static Map<String, String> fieldMap(List<Object> reply) {
    Map<String, String> fields = new HashMap<>();
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      fields.put(text(reply, i), text(reply, i + 1));
    }
    return fields;
  }

  static long parseLong(String s, String what, PollerKey key) {
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new StoreException(
          "redis store: stored " + what + " of " + key + " is not a number: '" + s + "'", e);
    }
  }

  /** A sorted-set score as Redis prints it (an integer, or a double in exponent form). */
  static long score(String s, PollerKey key) {
    try {
      return new BigDecimal(s).longValue();
    } catch (NumberFormatException e) {
      throw new StoreException(
          "redis store: stored log time of " + key + " is not a number: '" + s + "'", e);
    }
  }

  static Instant instant(String ms, String what, PollerKey key) {
    return Instant.ofEpochMilli(parseLong(ms, what, key));
  }

  static String required(@Nullable String value, String what, PollerKey key) {
    if (value == null) {
      throw new StoreException("redis store: stored " + what + " of " + key + " is missing", null);
    }
    return value;
  }

  // ---- the replies of reads

  /** {@link Scripts#GET_LEASE}: empty, or owner, epoch, expiry (epoch ms). */
  static @Nullable Lease lease(List<Object> reply, PollerKey key) {
    if (reply.isEmpty()) {
      return null;
    }
    return new Lease(
        text(reply, 0),
        parseLong(text(reply, 1), "lease epoch", key),
        Instant.ofEpochMilli(parseLong(text(reply, 2), "lease expiry", key)));
  }

  /** {@link Scripts#LOAD_VERSIONS}: identity, item row pairs, added to {@code rows}. */
  static void itemRows(List<Object> reply, Map<String, ItemRow> rows) {
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      String identity = text(reply, i);
      rows.put(identity, RowCodec.decodeItem(identity, text(reply, i + 1)));
    }
  }

  /** {@link Scripts#LOAD_PENDING}: (member, row, attempts, errors) tuples, in sequence order. */
  static List<OutboxRow> outboxRows(List<Object> reply, PollerKey key) {
    List<OutboxRow> rows = new ArrayList<>(reply.size() / 4);
    for (int i = 0; i + 3 < reply.size(); i += 4) {
      long sequence = parseLong(text(reply, i), "outbox sequence", key);
      rows.add(
          RowCodec.decodeOutbox(
              key, sequence, text(reply, i + 1), text(reply, i + 2), text(reply, i + 3)));
    }
    return List.copyOf(rows);
  }

  /** {@link Scripts#READ_LOG}: (member, creation time as a score, row) tuples. */
  static List<LoggedEvent> loggedEvents(List<Object> reply, PollerKey key) {
    List<LoggedEvent> events = new ArrayList<>(reply.size() / 3);
    for (int i = 0; i + 2 < reply.size(); i += 3) {
      long sequence = parseLong(text(reply, i), "log sequence", key);
      Instant createdAt = Instant.ofEpochMilli(score(text(reply, i + 1), key));
      events.add(RowCodec.decodeLogged(key, sequence, createdAt, text(reply, i + 2)));
    }
    return List.copyOf(events);
  }

  /** {@link Scripts#LIST_PARKED} and {@link Scripts#READ_PARKED}: id, parked row pairs. */
  static List<Parked> parkedRows(List<Object> reply, PollerKey key) {
    List<Parked> rows = new ArrayList<>(reply.size() / 2);
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      rows.add(RowCodec.decodeParked(key, text(reply, i), text(reply, i + 1)));
    }
    return rows;
  }
}
