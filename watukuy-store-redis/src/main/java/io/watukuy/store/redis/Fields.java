package io.watukuy.store.redis;

import io.watukuy.StoreException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The text form of a stored row: each field is {@code ~} for null, or its length in UTF-16 units, a
 * colon and the text itself. Nothing is escaped or parsed as JSON, so payloads of any content (big
 * integers, any Unicode) round-trip exactly, and a row is never larger than its fields plus a few
 * digits each. Lua reads only the first field of an outbox row (its creation time, ASCII digits),
 * where UTF-16 units and bytes agree.
 */
final class Fields {
  private Fields() {}

  static String encode(@Nullable String... values) {
    int size = 0;
    for (String v : values) {
      size += v == null ? 1 : v.length() + 12;
    }
    StringBuilder b = new StringBuilder(size);
    for (String v : values) {
      append(b, v);
    }
    return b.toString();
  }

  static void append(StringBuilder b, @Nullable String value) {
    if (value == null) {
      b.append('~');
    } else {
      b.append(value.length()).append(':').append(value);
    }
  }

  /**
   * Splits what {@link #encode} wrote.
   *
   * @throws StoreException when {@code text} does not hold exactly {@code count} fields
   */
  static @Nullable String[] decode(String text, int count, String what) {
    List<@Nullable String> fields = decodeAll(text, what);
    if (fields.size() != count) {
      throw malformed(what, text);
    }
    return fields.toArray(new String[0]);
  }

  /**
   * Splits what {@link #encode} wrote when the number of fields is not known in advance (a map's
   * pairs): every field up to the end of {@code text}.
   *
   * @throws StoreException when {@code text} is not a sequence of fields
   */
  static List<@Nullable String> decodeAll(String text, String what) {
    List<@Nullable String> out = new ArrayList<>();
    int at = 0;
    while (at < text.length()) {
      if (text.charAt(at) == '~') {
        out.add(null);
        at++;
        continue;
      }
      int colon = text.indexOf(':', at);
      if (colon <= at || colon - at > 10) {
        throw malformed(what, text);
      }
      int length;
      try {
        length = Integer.parseInt(text, at, colon, 10);
      } catch (NumberFormatException e) {
        throw malformed(what, text);
      }
      int end = colon + 1 + length;
      if (length < 0 || end > text.length()) {
        throw malformed(what, text);
      }
      out.add(text.substring(colon + 1, end));
      at = end;
    }
    return out;
  }

  private static StoreException malformed(String what, String text) {
    // The text itself may be a payload with personal data: name its size only.
    return new StoreException(
        "redis store: stored " + what + " is not readable (" + text.length() + " characters)",
        null);
  }
}
