package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.FetchContext;
import io.watukuy.FetchException;
import io.watukuy.Page;
import io.watukuy.Watermark;
import io.watukuy.cli.CliConfig.RequestSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Offset and last-record paging of a YAML listing (docs/config.md, "Offset paging"): {@code
 * {{offset}}} is the number of items the listing returned before this page (0 on the first), so a
 * server that silently caps {@code limit} skips nothing; {@code {{last.POINTER}}} is the value at
 * POINTER in the last item of the previous page (no value on the first, so a query parameter that
 * holds it is not sent). The listing ends on {@code hasMore}, on {@code response.total} reached, or
 * on an empty page.
 *
 * <p>On a timestamp lane the pages of one query keep the watermark they started from, and only the
 * offset moves; with {@code cursor.maxOffset: N} a page that would ask for offset N or more starts
 * a new query, at offset 0, from the watermark the pages before it committed, so an API that
 * refuses offsets past N (HubSpot search, Salesforce) is never asked for one. A new query that
 * would start from the same watermark as the query before it (more than N items share one {@code
 * cursor.value} and no {@code cursor.tieBreak} moves the watermark inside the tie) would read the
 * same pages forever: the lane stalls with {@code PageRepeated} instead, before sending it.
 *
 * <p>The position of a lane is kept by {@link io.watukuy.OffsetPaging} (the paging a Java poller
 * uses), in memory per lane and partition, for the next page of the cycle only: the engine fetches
 * a key's pages one after another, and page 1 of every cycle starts afresh.
 */
final class OffsetPaging {
  /** The offset variable. */
  static final String OFFSET = "offset";

  /** The prefix of the last-record variables: {@code {{last./id}}}, {@code {{last.meta.id}}}. */
  static final String LAST = "last.";

  // The cursor variables a timestamp query keeps from its first page while the offset moves.
  private static final List<String> QUERY_VARIABLES = List.of("cursor.value", "cursor.tieBreak");

  private final boolean offset;
  private final Map<String, Locator> last;
  private final @Nullable Integer maxOffset;
  // The cursor variables the request holds: two queries that agree on them are the same query.
  private final List<String> queryVariables;
  // The position of each lane and partition: the engine's own offset paging (one implementation
  // for Java and YAML), with a query compared by the cursor variables the request holds.
  private final io.watukuy.OffsetPaging<JsonNode> positions;

  private OffsetPaging(
      boolean offset,
      Map<String, Locator> last,
      @Nullable Integer maxOffset,
      List<String> queryVariables) {
    this.offset = offset;
    this.last = last;
    this.maxOffset = maxOffset;
    this.queryVariables = queryVariables;
    io.watukuy.OffsetPaging.Builder<JsonNode> b =
        io.watukuy.OffsetPaging.<JsonNode>builder().queryKey(this::queryKey);
    if (maxOffset != null) b.maxOffset(maxOffset);
    this.positions = b.build();
  }

  /**
   * Whether {@code name} is {@code offset} or a {@code last.POINTER} variable.
   *
   * @throws IllegalArgumentException when a {@code last.} variable's pointer is empty or not a JSON
   *     Pointer, naming it
   */
  static boolean isVariable(String name) {
    if (name.equals(OFFSET)) return true;
    if (!name.startsWith(LAST)) return false;
    pointer(name);
    return true;
  }

  private static Locator pointer(String name) {
    String spec = name.substring(LAST.length());
    if (spec.isEmpty())
      throw new IllegalArgumentException(
          "{{" + name + "}} names no field: write a pointer into the last item, e.g. {{last./id}}");
    try {
      return Locator.parse(spec);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "{{" + name + "}}: '" + spec + "' is not a JSON Pointer: " + e.getMessage(), e);
    }
  }

  /**
   * The paging of {@code request}, or null when no template holds {@code {{offset}}} or {@code
   * {{last…}}}.
   *
   * @param maxOffset the largest offset the API serves ({@code cursor.maxOffset}), or null
   */
  static @Nullable OffsetPaging of(RequestSpec request, @Nullable Integer maxOffset) {
    Map<String, Locator> last = new LinkedHashMap<>();
    for (String name : variables(request))
      if (name.startsWith(LAST)) last.putIfAbsent(name, pointer(name));
    boolean offset = request.uses(OFFSET);
    if (!offset && last.isEmpty()) return null;
    List<String> used = QUERY_VARIABLES.stream().filter(request::uses).toList();
    return new OffsetPaging(offset, Map.copyOf(last), maxOffset, used);
  }

  /** Every variable name the request's URL, headers, query and body hold. */
  static List<String> variables(RequestSpec request) {
    List<String> names = new java.util.ArrayList<>(request.url().names());
    request.headers().values().forEach(t -> names.addAll(t.names()));
    request.query().values().forEach(t -> names.addAll(t.names()));
    // A search POST carries its keyset cursor in the body: {after: "{{last./id}}"}.
    names.addAll(request.body().names());
    return names;
  }

  /**
   * Puts {@code {{offset}}} and the {@code {{last…}}} values of page {@code ctx.page()} into {@code
   * vars}; on a timestamp lane, page 2 onwards of a query also take that query's cursor variables.
   *
   * @param ctx the lane, partition, page and poller, for the slot and messages
   * @param timestamp whether the lane's cursor is a watermark
   * @throws FetchException {@code PageRepeated} when {@code cursor.maxOffset} would start a new
   *     query from the same cursor variables as the query before it: a tie wider than maxOffset
   *     without a tieBreak the request can filter by, which would read the same pages forever
   *     (docs/config.md, "Offset paging"); the request is not sent
   */
  void render(FetchContext<?> ctx, boolean timestamp, Map<String, @Nullable String> vars) {
    io.watukuy.OffsetPaging.Position<JsonNode> at;
    try {
      at = positions.position(ctx);
    } catch (FetchException e) {
      if (!FetchException.PAGE_REPEATED.equals(e.kind())) throw e;
      throw tieWiderThanMaxOffset(ctx, cursorVariables(ctx.cursor()));
    }
    // A query's later pages keep the watermark it started from while the offset moves.
    if (timestamp) vars.putAll(cursorVariables(at.query()));
    if (offset) vars.put(OFFSET, Long.toString(at.offset()));
    for (Map.Entry<String, Locator> e : last.entrySet()) {
      JsonNode v = at.last() == null ? null : e.getValue().find(at.last());
      vars.put(e.getKey(), v == null || v.isMissingNode() || v.isNull() ? null : text(v));
    }
  }

  /** The cursor variables of a query that started from {@code cursor}, as the request sees them. */
  private static Map<String, @Nullable String> cursorVariables(@Nullable Object cursor) {
    Map<String, @Nullable String> vars = new LinkedHashMap<>();
    if (cursor instanceof Watermark w) {
      vars.put("cursor.value", w.value());
      vars.put("cursor.tieBreak", w.tieBreak());
    } else {
      vars.put("cursor.value", cursor == null ? null : cursor.toString());
      vars.put("cursor.tieBreak", null);
    }
    return vars;
  }

  /** What the request sends of a query's cursor: equal keys read the same pages. */
  private Object queryKey(@Nullable Object cursor) {
    Map<String, @Nullable String> vars = cursorVariables(cursor);
    Map<String, @Nullable String> key = new LinkedHashMap<>();
    for (String name : queryVariables) key.put(name, vars.get(name));
    return key;
  }

  /** The stall of a restart that would repeat the query before it (docs/operations.md). */
  private FetchException tieWiderThanMaxOffset(
      FetchContext<?> ctx, Map<String, @Nullable String> query) {
    String tieBreak = query.get("cursor.tieBreak");
    return FetchException.pageRepeated(
        ctx,
        "the tie at "
            + query.get("cursor.value")
            + (tieBreak == null ? "" : " (tieBreak " + tieBreak + ")")
            + " is wider than cursor.maxOffset "
            + maxOffset
            + ": the new query at offset 0 would start from the same watermark as the query"
            + " before it and read the same pages again. A cursor.tieBreak is needed: "
            + (queryVariables.contains("cursor.tieBreak")
                ? "the API's listing must filter by it"
                : "set it to a unique field (tieBreak: id) and pass it in the request (after_id:"
                    + " \"{{cursor.tieBreak}}\")")
            + ", or raise maxOffset above the widest tie");
  }

  /**
   * Records where page {@code page + 1} starts and gives the page its {@code hasMore} when the
   * response set none: false on an empty page or once {@code total} items were listed, true
   * otherwise.
   *
   * @param where the request, for messages
   * @throws IllegalStateException when more pages follow but the last item lacks a {@code
   *     {{last…}}} value: the next request could not carry it (the page is not committed)
   */
  Page<JsonNode> read(FetchContext<?> ctx, Page<JsonNode> read, String where) {
    Page<JsonNode> page = positions.read(ctx, read);
    List<JsonNode> items = page.items();
    // A failed check fails the fetch, and the cycle ends: page 1 of the next starts afresh.
    if (Boolean.TRUE.equals(page.hasMore()) && !items.isEmpty()) {
      JsonNode lastItem = items.get(items.size() - 1);
      for (Map.Entry<String, Locator> e : last.entrySet()) {
        JsonNode v = e.getValue().find(lastItem);
        if (v.isMissingNode() || v.isNull() || v.isContainerNode())
          throw new IllegalStateException(
              where
                  + ": {{"
                  + e.getKey()
                  + "}} finds "
                  + (v.isContainerNode() ? YamlPollers.YamlFetcher.kind(v) : "nothing")
                  + " in the last item of page "
                  + ctx.page()
                  + ", so the next page cannot be requested; fix the pointer (the page is not"
                  + " committed)");
      }
    }
    return page;
  }

  private static String text(JsonNode v) {
    return v.isValueNode() ? v.asText() : v.toString();
  }
}
