package io.watukuy.store.redis;

import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectRecord;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.JournalEntry;
import io.watukuy.spi.SubjectKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * How the rows of the effect tables are written into Redis values and read back. The parts a script
 * reads come first in a fixed form; the rest is {@link Fields} text, so results, errors and labels
 * of any content round-trip exactly. Instants are epoch milliseconds.
 *
 * <ul>
 *   <li>cursor: {@code <watermark as 19 digits>|<live boundary or nothing>|} then the fields update
 *       time and the schemes as event type, scheme pairs (sorted by event type);
 *   <li>invocation: {@code <STATUS> <skip 0 or 1> <updated at> } then the fields lane, event type,
 *       attempt, error, retry at, version, started at;
 *   <li>journal entry: the fields ordinal, label, result, subject, created at;
 *   <li>subject key: the fields key id, wrapped key, created at;
 *   <li>record: a hash of named fields ({@link #decodeRecord}).
 * </ul>
 *
 * A value that cannot be read is a {@link StoreException} naming the effect and what, never the
 * value (a result may hold personal data, a wrapped key is a secret).
 */
final class EffectRows {
  private EffectRows() {}

  // ---- cursors

  static String encodeCursor(EffectCursor cursor) {
    Long boundary = cursor.liveBoundary();
    return RowCodec.member(cursor.watermark())
        + "|"
        + (boundary == null ? "" : Long.toString(boundary))
        + "|"
        + cursorTail(cursor.schemes(), cursor.updatedAt());
  }

  /** The part of a cursor after its boundary: update time, then the schemes sorted by key. */
  static String cursorTail(Map<String, String> schemes, Instant updatedAt) {
    StringBuilder b = new StringBuilder();
    Fields.append(b, Long.toString(updatedAt.toEpochMilli()));
    new TreeMap<>(schemes)
        .forEach(
            (type, scheme) -> {
              Fields.append(b, type);
              Fields.append(b, scheme);
            });
    return b.toString();
  }

  static EffectCursor decodeCursor(String effect, PollerKey source, String text) {
    String what = "cursor of effect " + effect + " on " + source;
    try {
      int first = text.indexOf('|');
      int second = text.indexOf('|', first + 1);
      long watermark = Long.parseLong(text, 0, first, 10);
      Long boundary = second == first + 1 ? null : Long.parseLong(text, first + 1, second, 10);
      List<@Nullable String> tail = Fields.decodeAll(text.substring(second + 1), what);
      if (tail.size() % 2 != 1) {
        throw new IllegalArgumentException("schemes are not pairs");
      }
      Map<String, String> schemes = new TreeMap<>();
      for (int i = 1; i < tail.size(); i += 2) {
        schemes.put(Objects.requireNonNull(tail.get(i)), Objects.requireNonNull(tail.get(i + 1)));
      }
      Instant updated = Instant.ofEpochMilli(Long.parseLong(Objects.requireNonNull(tail.get(0))));
      return new EffectCursor(effect, source, watermark, boundary, schemes, updated);
    } catch (StoreException e) {
      throw e;
    } catch (RuntimeException e) {
      throw unreadable(what, text, e);
    }
  }

  // ---- invocations

  /** The row after its status, skip flag and update time, which the script puts in front. */
  static String invocationRest(InvocationRow row) {
    return Fields.encode(
        row.lane(),
        row.eventType(),
        Integer.toString(row.attempt()),
        row.error(),
        RowCodec.millis(row.retryAt()),
        row.version(),
        RowCodec.millis(row.startedAt()));
  }

  static InvocationRow decodeInvocation(
      String effect, PollerKey source, long position, String text) {
    String what = "invocation " + position + " of effect " + effect + " on " + source;
    try {
      int a = text.indexOf(' ');
      int b = text.indexOf(' ', a + 1);
      int c = text.indexOf(' ', b + 1);
      InvocationStatus status = InvocationStatus.valueOf(text.substring(0, a));
      boolean skip = text.charAt(a + 1) == '1';
      Instant updated = Instant.ofEpochMilli(Long.parseLong(text, b + 1, c, 10));
      @Nullable String[] f = Fields.decode(text.substring(c + 1), 7, what);
      return new InvocationRow(
          effect,
          source,
          position,
          Objects.requireNonNull(f[0]),
          Objects.requireNonNull(f[1]),
          status,
          Integer.parseInt(Objects.requireNonNull(f[2])),
          f[3],
          f[4] == null ? null : Instant.ofEpochMilli(Long.parseLong(f[4])),
          skip,
          Objects.requireNonNull(f[5]),
          Instant.ofEpochMilli(Long.parseLong(Objects.requireNonNull(f[6]))),
          updated);
    } catch (StoreException e) {
      throw e;
    } catch (RuntimeException e) {
      throw unreadable(what, text, e);
    }
  }

  // ---- journal

  /** The journal hash's field: position member, {@code :}, call key. */
  static String journalField(long position, String callKey) {
    return RowCodec.member(position) + ":" + callKey;
  }

  /** The member of the calls set: position member, 10-digit ordinal, call key, by {@code :}. */
  static String callMember(JournalEntry entry) {
    String ordinal = Integer.toString(entry.ordinal());
    return RowCodec.member(entry.position())
        + ":"
        + "0".repeat(10 - ordinal.length())
        + ordinal
        + ":"
        + entry.callKey();
  }

  static String encodeEntry(JournalEntry entry) {
    return Fields.encode(
        Integer.toString(entry.ordinal()),
        entry.label(),
        entry.result(),
        entry.subject(),
        RowCodec.millis(entry.createdAt()));
  }

  static JournalEntry decodeEntry(
      String effect, PollerKey source, long position, String callKey, String text) {
    String what = "journal entry " + callKey + " of effect " + effect + " at " + position;
    @Nullable String[] f = Fields.decode(text, 5, what);
    try {
      return new JournalEntry(
          effect,
          source,
          position,
          callKey,
          Integer.parseInt(Objects.requireNonNull(f[0])),
          Objects.requireNonNull(f[1]),
          Objects.requireNonNull(f[2]),
          f[3],
          Instant.ofEpochMilli(Long.parseLong(Objects.requireNonNull(f[4]))));
    } catch (RuntimeException e) {
      throw unreadable(what, text, e);
    }
  }

  // ---- subject keys

  static String encodeSubject(SubjectKey key) {
    return Fields.encode(key.keyId(), key.wrappedKey(), RowCodec.millis(key.createdAt()));
  }

  static SubjectKey decodeSubject(String subject, String text) {
    String what = "data key of subject " + subject;
    @Nullable String[] f = Fields.decode(text, 3, what);
    try {
      return new SubjectKey(
          subject,
          Objects.requireNonNull(f[0]),
          Objects.requireNonNull(f[1]),
          Instant.ofEpochMilli(Long.parseLong(Objects.requireNonNull(f[2]))));
    } catch (RuntimeException e) {
      throw unreadable(what, text, e);
    }
  }

  // ---- record: a hash

  static EffectRecord decodeRecord(String effect, Map<String, String> fields) {
    String what = "record of effect " + effect;
    try {
      String quarantinedAt = fields.get("quarantinedAt");
      return new EffectRecord(
          effect,
          quarantinedAt == null ? null : Instant.ofEpochMilli(Long.parseLong(quarantinedAt)),
          fields.get("quarantineReason"),
          Long.parseLong(fields.getOrDefault("terminalSkips", "0")),
          fields.get("lastTerminalError"),
          Long.parseLong(fields.getOrDefault("latestCollapsed", "0")),
          Instant.ofEpochMilli(Long.parseLong(Objects.requireNonNull(fields.get("updatedAt")))));
    } catch (RuntimeException e) {
      throw new StoreException("redis store: stored " + what + " is not readable", e);
    }
  }

  /** The status filter of the list script: each wanted status between spaces, or all. */
  static String statusFilter(Iterable<InvocationStatus> statuses) {
    List<String> names = new ArrayList<>();
    statuses.forEach(s -> names.add(s.name()));
    return names.isEmpty() ? "" : " " + String.join(" ", names) + " ";
  }

  private static StoreException unreadable(String what, String text, RuntimeException cause) {
    return new StoreException(
        "redis store: stored " + what + " is not readable (" + text.length() + " characters)",
        cause);
  }
}
