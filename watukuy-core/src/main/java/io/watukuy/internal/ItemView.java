package io.watukuy.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.internal.diff.Jcs;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One fetched item with what the diff needs: its JSON form, identity, version, ordering key. The
 * hash is computed on demand, because most polls re-see unchanged items whose version alone
 * decides.
 */
public final class ItemView {
  final int index;
  final Object item;
  public final JsonNode json;
  final String identity;
  final @Nullable String version;
  final String orderingKey;
  final boolean tombstone;
  private final @Nullable Object fingerprint;
  private @Nullable String hash;

  /** The validator's problems, or null when valid (or not validated). */
  @Nullable List<String> problems;

  /**
   * Whether the item has no usable identity: it is parked as invalid and takes no part in the diff
   * or in a full listing's deletes ({@link #identity} is then {@link #NO_IDENTITY}).
   */
  boolean noIdentity;

  /**
   * The item's size as compact JSON when it is over the poller's {@code maxItemSize}, else 0: such
   * an item is parked as invalid without its body, and never hashed nor stored.
   */
  long oversize;

  /**
   * The identity (and ordering key) of an item that has none: empty, which no valid identity is.
   * Not a control character: a PostgreSQL text column refuses NUL.
   */
  static final String NO_IDENTITY = "";

  ItemView(
      int index,
      Object item,
      JsonNode json,
      String identity,
      @Nullable String version,
      String orderingKey,
      boolean tombstone,
      @Nullable Object fingerprint) {
    this.index = index;
    this.item = item;
    this.json = json;
    this.identity = identity;
    this.version = version;
    this.orderingKey = orderingKey;
    this.tombstone = tombstone;
    this.fingerprint = fingerprint;
  }

  /** The 0-based index of the item in its page. */
  public int index() {
    return index;
  }

  /** Whether the validator accepted the item (always true without a validator). */
  public boolean valid() {
    return problems == null;
  }

  public Object item() {
    return item;
  }

  /**
   * The size of {@code node} written as compact JSON, in UTF-8 bytes (string escapes not counted),
   * counted without writing it: no copy of a huge item is made to measure it.
   */
  static long compactSize(JsonNode node) {
    // Recursion is bounded by the parser's nesting limit (1000 levels by default).
    if (node.isObject()) {
      long total = 2 + Math.max(0, node.size() - 1); // braces and commas
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        total += utf8(e.getKey()) + 3 + compactSize(e.getValue()); // quotes and colon
      }
      return total;
    }
    if (node.isArray()) {
      long total = 2 + Math.max(0, node.size() - 1);
      for (JsonNode element : node) total += compactSize(element);
      return total;
    }
    if (node.isTextual()) return utf8(node.textValue()) + 2;
    if (node.isNumber() || node.isBoolean() || node.isNull()) return node.asText().length();
    return node.toString().length();
  }

  /**
   * The size of {@code node} as compact JSON when it is over {@code max} bytes, else 0: {@link
   * #compactSize} for the items that exceed the bound, and no byte-by-byte count for the others.
   * Every item of every page is checked (an idle re-scan too), so the check first sums a bound that
   * reads each string's length alone, three UTF-8 bytes per UTF-16 unit at most; only an item whose
   * bound passes {@code max} is counted exactly.
   *
   * @param node the item; not modified
   * @param max the largest compact size allowed, in bytes
   * @return 0 when {@code compactSize(node) <= max}, else {@code compactSize(node)}
   */
  static long oversize(JsonNode node, long max) {
    if (compactSizeBound(node) <= max) return 0;
    long size = compactSize(node);
    return size <= max ? 0 : size;
  }

  /** At least {@link #compactSize}: each string counted as three bytes per UTF-16 unit. */
  static long compactSizeBound(JsonNode node) {
    if (node.isObject()) {
      long total = 2 + Math.max(0, node.size() - 1);
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        total += 3L * e.getKey().length() + 3 + compactSizeBound(e.getValue());
      }
      return total;
    }
    if (node.isArray()) {
      long total = 2 + Math.max(0, node.size() - 1);
      for (JsonNode element : node) total += compactSizeBound(element);
      return total;
    }
    if (node.isTextual()) return 3L * node.textValue().length() + 2;
    if (node.isInt() || node.isLong()) return digits(node.longValue());
    if (node.isBoolean()) return node.booleanValue() ? 4 : 5;
    if (node.isNull()) return 4;
    return compactSize(node);
  }

  /** The length of {@code Long.toString(value)}, without building it. */
  static int digits(long value) {
    if (value == Long.MIN_VALUE) return 20;
    int n = value < 0 ? 2 : 1;
    for (long v = Math.abs(value); v >= 10; v /= 10) n++;
    return n;
  }

  private static long utf8(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      n += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
    }
    return n;
  }

  String hash() {
    if (hash == null) {
      JsonNode basis = fingerprint == null ? json : Json.MAPPER.valueToTree(fingerprint);
      hash = Jcs.hash(basis);
    }
    return hash;
  }
}
