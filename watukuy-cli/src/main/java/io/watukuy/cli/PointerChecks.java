package io.watukuy.cli;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pointer typos that would otherwise pass in silence (docs/operations.md, "Pointer typos"): a
 * {@code response.next}, {@code version}, {@code orderingKey}, {@code deleted} or {@code
 * cursor.field} that the responses never hold while they hold a member whose name differs only in
 * case or separators ({@code /lastSeq} vs {@code last_seq}) is a warning with "did you mean". A
 * {@code deleted: {pointer, equals}} in none of a page's items, and a {@code deleted} pointer whose
 * value is there but not a boolean, are warnings too. A plain {@code deleted} pointer absent from
 * items is not: CouchDB sets {@code _deleted} only on deleted rows. Each warning is said once per
 * poller and field, so a daemon does not repeat it every cycle; a correct config is never flagged,
 * because a pointer that finds its value is never checked further.
 */
final class PointerChecks {
  private static final Logger log = LoggerFactory.getLogger(PointerChecks.class);

  private final String poller;
  private final @Nullable Locator next;
  private final @Nullable Locator total;
  private final @Nullable Locator version;
  private final @Nullable Locator orderingKey;
  private final CliConfig.@Nullable DeletedSpec deleted;
  private final @Nullable Locator cursorField;
  private final Set<String> said = ConcurrentHashMap.newKeySet();

  PointerChecks(CliConfig.PollerSpec spec, CliConfig.ResponseSpec response) {
    this.poller = spec.name();
    // A next-URL pointer that finds nothing ends every listing after one page, as a token's does.
    this.next = response.nextUrl() != null ? response.nextUrl().url() : response.next();
    this.total = response.total();
    this.version = spec.version();
    this.orderingKey = spec.orderingKey();
    this.deleted = spec.deleted();
    String field = spec.cursor().field();
    this.cursorField = field == null ? null : Locator.parse(field);
  }

  /** Checks a response body: the token pointer and the total. */
  void response(JsonNode body) {
    if (total != null && total.find(body).isMissingNode()) {
      String guess = didYouMean(total, body);
      if (guess != null)
        warnOnce(
            "response.total",
            "response.total {} is not in the response; did you mean {}? Without it a listing"
                + " that shifts while it is read can report items deleted that still exist",
            show(total),
            guess);
    }
    if (next == null || !next.find(body).isMissingNode()) return;
    String guess = didYouMean(next, body);
    if (guess != null)
      warnOnce(
          "response.next",
          "response.next {} is not in the response; did you mean {}? Without it every listing"
              + " ends after one page and starts over",
          show(next),
          guess);
  }

  /** Checks a page's items: version, orderingKey, deleted and cursor.field. */
  void items(List<JsonNode> items) {
    if (items.isEmpty()) return;
    if (version != null && items.stream().allMatch(i -> version.find(i).isMissingNode())) {
      String guess = didYouMean(version, items);
      warnOnce(
          "version",
          "version {} is in none of the {} items of this page; their events carry the content"
              + " hash as version ("
              + (guess == null ? "check the pointer)" : "did you mean {}?)"),
          show(version),
          items.size(),
          guess);
    }
    nearMiss("orderingKey", orderingKey, items);
    nearMiss("cursor.field", cursorField, items);
    if (deleted == null) return;
    Locator at = deleted.at();
    boolean inNone = true;
    for (JsonNode item : items) {
      JsonNode v = at.find(item);
      if (v.isMissingNode()) continue;
      inNone = false;
      if (deleted.equals() == null && !v.isBoolean() && !v.isNull())
        warnOnce(
            "deleted.type",
            "deleted {} is {} in an item, not a boolean: only true marks a tombstone; to match"
                + " another value write deleted: {pointer: {}, equals: \"{}\"}",
            show(at),
            v.toString(),
            show(at),
            v.asText());
    }
    if (!inNone) return;
    String guess = didYouMean(at, items);
    if (deleted.equals() != null)
      warnOnce(
          "deleted",
          "deleted {} is in none of the {} items of this page, so none can match equals \"{}\""
              + (guess == null ? " (check the pointer)" : "; did you mean {}?"),
          show(at),
          items.size(),
          deleted.equals(),
          guess);
    else if (guess != null)
      warnOnce(
          "deleted",
          "deleted {} is in none of the {} items of this page; did you mean {}?",
          show(at),
          items.size(),
          guess);
  }

  private void nearMiss(String field, @Nullable Locator locator, List<JsonNode> items) {
    if (locator == null) return;
    for (JsonNode item : items) if (!locator.find(item).isMissingNode()) return;
    String guess = didYouMean(locator, items);
    if (guess != null)
      warnOnce(
          field,
          field + " {} is in none of the {} items of this page; did you mean {}?",
          show(locator),
          items.size(),
          guess);
  }

  private static @Nullable String didYouMean(Locator locator, List<JsonNode> items) {
    for (JsonNode item : items) {
      String guess = didYouMean(locator, item);
      if (guess != null) return guess;
    }
    return null;
  }

  /**
   * The locator with each segment that the document lacks replaced by the one member of the same
   * object whose name matches it but for case and separators, written the way the config wrote it;
   * null when the document holds no such path.
   */
  static @Nullable String didYouMean(Locator locator, JsonNode document) {
    StringBuilder pointer = new StringBuilder();
    StringBuilder dots = new StringBuilder();
    JsonNode at = document;
    boolean changed = false;
    for (JsonPointer p = locator.pointer(); p != null && !p.matches(); p = p.tail()) {
      String name = p.getMatchingProperty();
      String found = null;
      if (at.isObject()) {
        if (at.has(name)) found = name;
        else {
          for (Iterator<String> it = at.fieldNames(); it.hasNext(); ) {
            String candidate = it.next();
            if (fold(candidate).equals(fold(name))) {
              found = candidate;
              changed = true;
              break;
            }
          }
        }
      } else if (at.isArray() && p.getMatchingIndex() >= 0 && at.has(p.getMatchingIndex())) {
        found = name;
      }
      if (found == null) return null;
      at = at.isArray() ? at.get(Integer.parseInt(found)) : at.get(found);
      pointer.append('/').append(YamlTree.escape(found));
      if (dots.length() > 0) dots.append('.');
      dots.append(found);
    }
    if (!changed) return null;
    return locator.spec().startsWith("/") ? pointer.toString() : dots.toString();
  }

  /** Lower case, without separators: {@code lastSeq}, {@code last_seq}, {@code Last-Seq} agree. */
  private static String fold(String name) {
    StringBuilder b = new StringBuilder(name.length());
    for (char c : name.toCharArray()) if (c != '_' && c != '-' && c != ' ' && c != '.') b.append(c);
    return b.toString().toLowerCase(Locale.ROOT);
  }

  private void warnOnce(String field, String format, @Nullable Object... args) {
    if (!said.add(field)) return;
    Object[] all = new Object[args.length + 1];
    all[0] = poller;
    System.arraycopy(args, 0, all, 1, args.length);
    log.warn("poller {}: " + format, all);
  }

  private static String show(Locator l) {
    return l.spec().isEmpty() ? "\"\" (the body)" : l.spec();
  }
}
