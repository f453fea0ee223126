package io.watukuy.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.Fetcher;
import io.watukuy.Page;
import io.watukuy.TimeSource;
import io.watukuy.Watermark;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * An in-memory vendor API that serves every cursor strategy from one data set: a keyset {@code
 * updated_since + after_id} listing (timestamp), a change feed with tombstones (token), numbered
 * pages of the whole listing (page and snapshotDiff), and an {@code after_id} keyset (custom).
 * Items are JSON objects {@code {"id", "updatedAt", "rev", ...fields}}, where {@code updatedAt} is
 * ISO-8601 UTC with milliseconds and {@code rev} counts the item's changes.
 *
 * <p>Mutations: {@link #put} (create or update, stamped now), {@link #putAt} (stamped with a chosen
 * time, for ties at a page boundary), {@link #stage} / {@link #commit} (a late commit: stamped when
 * staged, visible when committed), {@link #delete}. Faults: {@link #failNext}. Thread-safe (one
 * lock).
 *
 * @since 0.1
 */
public final class FakeApi {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final DateTimeFormatter ISO_MILLIS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final TimeSource time;
  private final Object lock = new Object();
  // Guarded by lock
  private final TreeMap<String, ObjectNode> items = new TreeMap<>();
  // Guarded by lock
  private final Map<String, ObjectNode> staged = new HashMap<>();
  // Guarded by lock: the change feed, one entry per visible mutation
  private final List<Change> feed = new ArrayList<>();
  // Guarded by lock
  private final List<Supplier<RuntimeException>> faults = new ArrayList<>();
  private final AtomicInteger requests = new AtomicInteger();

  /**
   * An API with no items.
   *
   * @param time stamps {@code updatedAt} of {@link #put} and {@link #stage}; usually the engine's
   *     {@code VirtualClock}
   * @throws NullPointerException if {@code time} is null
   */
  public FakeApi(TimeSource time) {
    this.time = Objects.requireNonNull(time, "time");
  }

  /**
   * The API's own timestamp shape: ISO-8601 UTC with exactly three fraction digits.
   *
   * @param at the instant; truncated to milliseconds
   * @return for example {@code 2024-01-01T00:00:00.000Z}
   */
  public static String iso(Instant at) {
    return ISO_MILLIS.format(at.truncatedTo(ChronoUnit.MILLIS));
  }

  // ---- mutations

  /**
   * Creates or updates an item, stamped now, and appends it to the change feed. {@code rev} is 1
   * for a new item and one more than before for an existing one.
   *
   * @param id the item's identity
   * @param fields the item's other fields, serialized with Jackson; they replace every earlier
   *     field (a field named {@code id}, {@code updatedAt} or {@code rev} replaces the generated
   *     one)
   * @return a copy of the stored item
   */
  public JsonNode put(String id, Map<String, ?> fields) {
    return putAt(id, fields, time.now());
  }

  /**
   * Creates or updates an item with the given {@code updatedAt}, as {@link #put} does; for ties at
   * a page boundary or timestamps that go back.
   *
   * @param id the item's identity
   * @param fields the item's other fields
   * @param updatedAt the item's timestamp
   * @return a copy of the stored item
   */
  public JsonNode putAt(String id, Map<String, ?> fields, Instant updatedAt) {
    synchronized (lock) {
      ObjectNode n = build(id, fields, updatedAt);
      items.put(id, n);
      feed.add(new Change(id, n.deepCopy(), false));
      return n.deepCopy();
    }
  }

  /**
   * A late commit: stamped now, invisible until {@link #commit}. Staging the same id again replaces
   * the staged state.
   *
   * @param id the item's identity
   * @param fields the item's other fields
   */
  public void stage(String id, Map<String, ?> fields) {
    synchronized (lock) {
      staged.put(id, build(id, fields, time.now()));
    }
  }

  /**
   * Makes a staged item visible with the timestamp it was staged with, and appends it to the change
   * feed.
   *
   * @param id the identity given to {@link #stage}
   * @throws IllegalStateException if nothing is staged for {@code id}
   */
  public void commit(String id) {
    synchronized (lock) {
      ObjectNode n = staged.remove(id);
      if (n == null) throw new IllegalStateException("nothing staged for " + id);
      items.put(id, n);
      feed.add(new Change(id, n.deepCopy(), false));
    }
  }

  /**
   * Deletes an item; the change feed reports a tombstone {@code {"id", "deleted": true}}.
   *
   * @param id the item's identity
   * @return whether it existed; nothing changes when it did not
   */
  public boolean delete(String id) {
    synchronized (lock) {
      ObjectNode n = items.remove(id);
      if (n == null) return false;
      ObjectNode tomb = MAPPER.createObjectNode();
      tomb.put("id", id);
      tomb.put("deleted", true);
      feed.add(new Change(id, tomb, true));
      return true;
    }
  }

  /**
   * The next {@code count} requests throw what {@code fault} supplies, after being counted by
   * {@link #requests()}. Calls add up: faults queue behind earlier ones.
   *
   * @param count how many requests fail; 0 or more
   * @param fault called once per failing request
   */
  public void failNext(int count, Supplier<RuntimeException> fault) {
    synchronized (lock) {
      for (int i = 0; i < count; i++) faults.add(fault);
    }
  }

  private ObjectNode build(String id, Map<String, ?> fields, Instant updatedAt) {
    ObjectNode previous = items.get(id);
    ObjectNode n = MAPPER.createObjectNode();
    n.put("id", id);
    n.put("updatedAt", iso(updatedAt));
    n.put("rev", previous == null ? 1 : previous.path("rev").asInt() + 1);
    for (Map.Entry<String, ?> e : new TreeMap<String, Object>(fields).entrySet())
      n.set(e.getKey(), MAPPER.valueToTree(e.getValue()));
    return n;
  }

  // ---- reads

  /**
   * The current items.
   *
   * @return copies, sorted by id; staged items are not included
   */
  public List<JsonNode> items() {
    synchronized (lock) {
      return items.values().stream().map(n -> (JsonNode) n.deepCopy()).toList();
    }
  }

  /**
   * The current state of one item.
   *
   * @param id the item's identity
   * @return a copy, or {@code null} when the item does not exist (or is only staged)
   */
  public @Nullable JsonNode item(String id) {
    synchronized (lock) {
      ObjectNode n = items.get(id);
      return n == null ? null : n.deepCopy();
    }
  }

  /**
   * The requests served so far, failed ones included.
   *
   * @return the count of calls to the listing methods and the fetchers built on them
   */
  public int requests() {
    return requests.get();
  }

  private void request() {
    requests.incrementAndGet();
    Supplier<RuntimeException> fault;
    synchronized (lock) {
      fault = faults.isEmpty() ? null : faults.remove(0);
    }
    if (fault != null) throw fault.get();
  }

  /**
   * Timestamp keyset: items with {@code updatedAt > value}, or {@code = value} and {@code id >
   * tieBreak} (all at {@code value} when tieBreak is null), ordered by {@code (updatedAt, id)}, at
   * most {@code limit}. {@code hasMore} when more remain.
   *
   * @param cursor the watermark; its value is parsed as an ISO-8601 instant
   * @param limit the page size; positive
   * @return the page, {@code hasMore} set, no cursor
   */
  public Page<JsonNode> updatedSince(Watermark cursor, int limit) {
    return updatedSince(cursor, limit, null);
  }

  /**
   * {@link #updatedSince(Watermark, int)} over the items whose {@code partition} field equals
   * {@code partition}: one API serving many keys, as a listing per region or tenant does.
   *
   * @param cursor the watermark; its value is parsed as an ISO-8601 instant
   * @param limit the page size; positive
   * @param partition the value of the items' {@code partition} field to list; {@code null} lists
   *     every item
   * @return the page, {@code hasMore} set, no cursor
   */
  public Page<JsonNode> updatedSince(Watermark cursor, int limit, @Nullable String partition) {
    request();
    synchronized (lock) {
      Instant from = cursor.value() == null ? null : Instant.parse(cursor.value());
      List<ObjectNode> match = new ArrayList<>();
      for (ObjectNode n : items.values()) {
        if (partition != null && !partition.equals(n.path("partition").asText(null))) continue;
        Instant at = Instant.parse(n.get("updatedAt").asText());
        String id = n.get("id").asText();
        if (from == null
            || at.isAfter(from)
            || (at.equals(from)
                && (cursor.tieBreak() == null || id.compareTo(cursor.tieBreak()) > 0))) {
          match.add(n);
        }
      }
      match.sort(
          Comparator.comparing((ObjectNode n) -> Instant.parse(n.get("updatedAt").asText()))
              .thenComparing(n -> n.get("id").asText()));
      return slice(match, limit).withHasMore(match.size() > limit);
    }
  }

  /**
   * Change feed: the visible mutations after {@code token} (a decimal position; null for the
   * start), at most {@code limit}, each the item's state at that mutation or a tombstone {@code
   * {"id", "deleted": true}}. The page cursor is the position after the last entry (the same token
   * when nothing is new); {@code hasMore} is false when the feed is exhausted (the sync-token
   * pattern).
   *
   * @param token the position to read after, as returned by an earlier page, or {@code null}
   * @param limit the page size; positive
   * @return the page, with cursor and {@code hasMore} set
   * @throws NumberFormatException if {@code token} is not a decimal position
   */
  public Page<JsonNode> changes(@Nullable String token, int limit) {
    request();
    synchronized (lock) {
      int from = token == null ? 0 : Integer.parseInt(token);
      int to = Math.min(feed.size(), from + limit);
      List<JsonNode> out = new ArrayList<>();
      for (int i = from; i < to; i++) out.add(feed.get(i).state.deepCopy());
      return Page.<JsonNode>of(out).withCursor(Integer.toString(to)).withHasMore(to < feed.size());
    }
  }

  /**
   * The whole listing sorted by id, page {@code page} of {@code size}; staged items are not listed.
   *
   * @param page 1-based page number; a page past the end is empty
   * @param size the page size; positive
   * @return the page, {@code hasMore} set, no cursor
   */
  public Page<JsonNode> page(int page, int size) {
    request();
    synchronized (lock) {
      List<ObjectNode> all = new ArrayList<>(items.values());
      int from = Math.min(all.size(), (page - 1) * size);
      int to = Math.min(all.size(), from + size);
      return slice(all.subList(from, to), size).withHasMore(to < all.size());
    }
  }

  /**
   * Items with {@code id > afterId} (all when null), sorted by id, at most {@code limit}.
   *
   * @param afterId exclusive lower bound, or {@code null} for the start
   * @param limit the page size; positive
   * @return the page, {@code hasMore} set, no cursor
   */
  public Page<JsonNode> afterId(@Nullable String afterId, int limit) {
    request();
    synchronized (lock) {
      List<ObjectNode> match =
          new ArrayList<>(
              afterId == null ? items.values() : items.tailMap(afterId, false).values());
      return slice(match, limit).withHasMore(match.size() > limit);
    }
  }

  private static Page<JsonNode> slice(List<ObjectNode> match, int limit) {
    List<JsonNode> out = new ArrayList<>();
    for (int i = 0; i < Math.min(limit, match.size()); i++) out.add(match.get(i).deepCopy());
    return Page.of(out);
  }

  // ---- ready-made fetchers

  /**
   * A timestamp fetcher over {@link #updatedSince}, for {@code Cursors.timestamp("updatedAt")} with
   * tie-break {@code id}.
   *
   * @param limit the page size; positive
   * @return the fetcher
   */
  public Fetcher<JsonNode, Watermark> timestampFetcher(int limit) {
    return ctx -> updatedSince(Objects.requireNonNull(ctx.cursor()), limit);
  }

  /**
   * A timestamp fetcher for a partitioned poller: each key lists the items whose {@code partition}
   * field equals its partition ({@link #updatedSince(Watermark, int, String)}).
   *
   * @param limit the page size; positive
   * @return the fetcher
   */
  public Fetcher<JsonNode, Watermark> partitionedTimestampFetcher(int limit) {
    return ctx -> updatedSince(Objects.requireNonNull(ctx.cursor()), limit, ctx.partition());
  }

  /**
   * A token fetcher over {@link #changes}, for {@code Cursors.token()}.
   *
   * @param limit the page size; positive
   * @return the fetcher
   */
  public Fetcher<JsonNode, String> tokenFetcher(int limit) {
    return ctx -> changes(ctx.cursor(), limit);
  }

  /**
   * A page fetcher over {@link #page}, for {@code Cursors.page()}.
   *
   * @param size the page size; positive
   * @return the fetcher
   */
  public Fetcher<JsonNode, Integer> pageFetcher(int size) {
    return ctx -> page(Objects.requireNonNull(ctx.cursor()), size);
  }

  /**
   * A snapshotDiff fetcher over {@link #page}, paged by {@code ctx.page()}.
   *
   * @param size the page size; positive
   * @return the fetcher
   */
  public Fetcher<JsonNode, Void> snapshotFetcher(int size) {
    return ctx -> page(ctx.page(), size);
  }

  /**
   * A search filtered by modification time but ordered by id, as CRM search APIs page (HubSpot
   * contacts): items with {@code updatedAt >= cursor.value} (all when the value is null; the
   * tie-break is not a filter here), sorted by id, page {@code page} of {@code size}. A page 3 may
   * hold an item older than page 1's newest.
   *
   * @param cursor the filter; its value is parsed as an ISO-8601 instant
   * @param page 1-based page number; a page past the end is empty
   * @param size the page size; positive
   * @return the page, {@code hasMore} set, no cursor
   */
  public Page<JsonNode> modifiedSinceById(Watermark cursor, int page, int size) {
    request();
    synchronized (lock) {
      Instant from = cursor.value() == null ? null : Instant.parse(cursor.value());
      List<ObjectNode> match = new ArrayList<>();
      for (ObjectNode n : items.values())
        if (from == null || !Instant.parse(n.get("updatedAt").asText()).isBefore(from))
          match.add(n);
      int start = Math.min(match.size(), (page - 1) * size);
      int end = Math.min(match.size(), start + size);
      return slice(match.subList(start, end), size).withHasMore(end < match.size());
    }
  }

  /**
   * A fetcher over {@link #modifiedSinceById} that pages by {@code ctx.page()} and keeps, for every
   * page of a listing, the filter its page 1 was sent with (one search query, read page by page),
   * per lane and partition.
   *
   * @param size the page size; positive
   * @return the fetcher
   */
  public Fetcher<JsonNode, Watermark> modifiedSinceFetcher(int size) {
    Map<String, Watermark> queries = new java.util.concurrent.ConcurrentHashMap<>();
    return ctx -> {
      String slot = ctx.lane() + "|" + ctx.partition();
      if (ctx.page() == 1) queries.put(slot, Objects.requireNonNull(ctx.cursor()));
      Watermark query = queries.getOrDefault(slot, Objects.requireNonNull(ctx.cursor()));
      return modifiedSinceById(query, ctx.page(), size);
    };
  }

  private record Change(String id, ObjectNode state, boolean deleted) {}
}
