package io.watukuy.store.redis;

import io.watukuy.ConfigException;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import java.util.List;

/**
 * The names of the Redis keys of a store (docs/architecture.md, "Redis layout"). Every key of one
 * {@link PollerKey} is {@code <prefix>{<tag>}:<part>}, where the tag is the escaped poller name, a
 * {@code |}, and the escaped partition; the shared hash tag puts them in one cluster slot, so one
 * Lua script may touch them all. The index of keys with state is {@code <prefix>keys}.
 *
 * <p>Escaping inside the tag: {@code %} as {@code %25}, {@code {} as {@code %7B}, {@code }} as
 * {@code %7D}, {@code |} as {@code %7C}. The escaped names contain none of {@code { } |}, so the
 * tag ends at the first {@code }} and the first {@code |} splits it: distinct keys never share a
 * tag, and the tag is never empty.
 */
final class KeyLayout {

  /** The parts of a key, in the order every script receives them as {@code KEYS[1..15]}. */
  static final List<String> PARTS =
      List.of(
          "meta", // hash: owner, epoch, expires (epoch ms), counter (highest epoch issued)
          "state", // hash: cursors, schedule, schemaVersion, lastSequence, createdAt, updatedAt,
          //          and "indexed" once the key is in the index set
          "items", // hash: identity -> item row
          "items:ids", // sorted set, score 0: identities in byte order, for keyset streaming
          "outbox", // sorted set, score 0: pending sequences as 19-digit members
          "outbox:rows", // hash: sequence member -> createdAt, eventId, orderingKey, event
          "outbox:attempts", // hash: sequence member -> failed attempts
          "outbox:errors", // hash: sequence member -> nextAttemptAt, lastError
          "parked", // hash: parked id -> parked row
          "parked:holds", // hash: parked id -> the ordering key it holds
          "held", // hash: held ordering key -> number of parked rows holding it
          "validators", // hash: url hash -> etag, lastModified, storedAt
          "log", // sorted set, score 0: logged sequences as 19-digit members
          "log:time", // sorted set: logged sequence member scored by its creation time (epoch ms)
          "log:rows"); // hash: sequence member -> the outbox row it logged

  /** Longest prefix accepted. */
  static final int MAX_PREFIX = 200;

  private final String prefix;

  KeyLayout(String prefix) {
    this.prefix = checkPrefix(prefix);
  }

  String prefix() {
    return prefix;
  }

  /**
   * Accepts 1 to {@value #MAX_PREFIX} printable characters without braces (a brace would move the
   * hash tag into the prefix) or whitespace.
   */
  static String checkPrefix(String prefix) {
    if (prefix.isEmpty() || prefix.length() > MAX_PREFIX) {
      throw new ConfigException(
          "redis store: prefix must be 1 to "
              + MAX_PREFIX
              + " characters, but was '"
              + prefix
              + "'");
    }
    for (int i = 0; i < prefix.length(); i++) {
      char c = prefix.charAt(i);
      if (c == '{' || c == '}' || Character.isWhitespace(c) || Character.isISOControl(c)) {
        throw new ConfigException(
            "redis store: prefix must not contain braces, whitespace or control characters"
                + " (a brace would break the hash tag), but was '"
                + prefix
                + "'");
      }
    }
    return prefix;
  }

  /** The hash tag of a key, without braces: {@code escape(poller) | escape(partition)}. */
  static String tag(PollerKey key) {
    return escape(key.poller()) + "|" + escape(key.partition());
  }

  /** The key a tag names; the inverse of {@link #tag}. */
  static PollerKey parseTag(String tag) {
    int bar = tag.indexOf('|');
    if (bar < 0 || tag.indexOf('|', bar + 1) >= 0) {
      throw new StoreException("redis store: index entry '" + tag + "' is not a poller key", null);
    }
    return new PollerKey(unescape(tag.substring(0, bar)), unescape(tag.substring(bar + 1)));
  }

  /** Every key of {@code key}, in {@link #PARTS} order. */
  List<String> keys(PollerKey key) {
    String base = prefix + "{" + tag(key) + "}:";
    return PARTS.stream().map(p -> base + p).toList();
  }

  /** The set of tags of keys with stored state. */
  String index() {
    return prefix + "keys";
  }

  static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length() + 8);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '%' -> b.append("%25");
        case '{' -> b.append("%7B");
        case '}' -> b.append("%7D");
        case '|' -> b.append("%7C");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  static String unescape(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '%') {
        b.append(c);
        continue;
      }
      String code = i + 3 <= s.length() ? s.substring(i + 1, i + 3) : "";
      switch (code) {
        case "25" -> b.append('%');
        case "7B" -> b.append('{');
        case "7D" -> b.append('}');
        case "7C" -> b.append('|');
        default ->
            throw new StoreException(
                "redis store: index entry part '" + s + "' has a bad escape at " + i, null);
      }
      i += 2;
    }
    return b.toString();
  }
}
