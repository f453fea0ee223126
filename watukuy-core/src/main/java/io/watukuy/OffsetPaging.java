package io.watukuy;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Offset and last-record paging within one cycle: docs/architecture.md, "Paging shapes from Java",
 * the Java side of docs/config.md, "Offset paging". One instance per listing (a poller's fetch, or
 * its reconcile's); thread-safe, with the position kept in memory per lane and partition for the
 * next page of the cycle only (page 1 of every cycle starts afresh).
 *
 * <pre>{@code
 * OffsetPaging<JsonNode> paging = OffsetPaging.<JsonNode>builder().maxOffset(10_000).build();
 * Poller.builder("contacts", JsonNode.class)
 *     .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
 *     .fetch(ctx -> {
 *       OffsetPaging.Position<JsonNode> at = paging.position(ctx);
 *       Watermark from = (Watermark) at.query();      // not ctx.cursor(): the query's own start
 *       JsonNode body = ctx.http().get(url(from, at.offset())).json();
 *       return paging.read(ctx, Page.of(items(body)).withTotal(body.get("total").asLong()));
 *     })
 * }</pre>
 *
 * <ul>
 *   <li>{@link Position#offset()} is the number of items the query returned before this page: 0 on
 *       its first page, then the sum of the items of the pages before it. It advances by what came
 *       back, never by the {@code limit} asked for, so a server that caps {@code limit} silently
 *       skips nothing.
 *   <li>{@link Position#last()} is the last item of the page before (null on the first page): a
 *       cursor from the last record ({@code after=<last id>}).
 *   <li>{@link #read} ends the listing on the {@code hasMore} the page carries, else on an empty
 *       page, else once {@code offset + items} reaches the page's {@code total}; with neither, more
 *       pages follow a non-empty one.
 *   <li>On a timestamp lane the engine moves the watermark after every page, but the pages of one
 *       query must keep the watermark the query started from, or the offset would skip rows: {@link
 *       Position#query()} is that cursor. With {@link Builder#maxOffset}, a page that would ask for
 *       offset N or more starts a new query at offset 0 from the watermark the pages before it
 *       committed, so an API that refuses offsets past N (HubSpot search: 10 000, Salesforce: 2
 *       000) is never asked for one. A new query whose {@link Builder#queryKey key} equals the
 *       query's before it (more than N items share one watermark) would read the same pages
 *       forever: {@link #position} throws {@code PageRepeated} instead.
 * </ul>
 *
 * @param <T> the item type
 * @since 0.1
 */
public final class OffsetPaging<T> {
  private final @Nullable Long maxOffset;
  private final Function<@Nullable Object, @Nullable Object> queryKey;
  private final Map<String, State<T>> positions = new ConcurrentHashMap<>();

  /** Where page {@code page} of a lane starts. */
  private record State<T>(int page, Position<T> at) {}

  /**
   * Where a page starts.
   *
   * @param offset the number of items the query returned before this page; 0 or more
   * @param last the last item of the page before, or null on the query's first page
   * @param query the cursor the query started from: {@code ctx.cursor()} of its first page (a
   *     {@link Watermark} on a timestamp lane); build the request's filter from it
   * @param <T> the item type
   */
  public record Position<T>(long offset, @Nullable T last, @Nullable Object query) {
    /**
     * Checks the offset.
     *
     * @throws IllegalArgumentException if {@code offset} is negative
     */
    public Position {
      if (offset < 0) throw new IllegalArgumentException("offset must be >= 0, but was " + offset);
    }
  }

  private OffsetPaging(Builder<T> b) {
    this.maxOffset = b.maxOffset;
    this.queryKey = b.queryKey;
  }

  /**
   * Offset paging without a cap.
   *
   * @param <T> the item type
   * @return new paging
   */
  public static <T> OffsetPaging<T> create() {
    return new Builder<T>().build();
  }

  /**
   * A builder: no {@code maxOffset}, queries compared by their whole cursor.
   *
   * @param <T> the item type
   * @return a new builder
   */
  public static <T> Builder<T> builder() {
    return new Builder<>();
  }

  /**
   * The largest offset the API serves, if any.
   *
   * @return {@link Builder#maxOffset}, or null
   */
  public @Nullable Long maxOffset() {
    return maxOffset;
  }

  /**
   * Where page {@code ctx.page()} starts; call once per fetch, before the request.
   *
   * @param ctx the fetch, for its lane, partition, page and cursor
   * @return the offset, last item and query cursor of this page
   * @throws FetchException {@code PageRepeated} when {@code maxOffset} would start a new query from
   *     the same query key as the query before it: a tie wider than maxOffset that the query cannot
   *     step past (docs/operations.md, "Stalled lanes"); the request must not be sent
   */
  public Position<T> position(FetchContext<?> ctx) {
    String slot = NextUrlPaging.slot(ctx);
    int page = ctx.page();
    State<T> at = positions.get(slot);
    boolean current = page != 1 && at != null && at.page() == page;
    boolean restart = current && maxOffset != null && at.at().offset() >= maxOffset;
    if (!current || restart) {
      Object query = ctx.cursor();
      if (restart && Objects.equals(queryKey.apply(at.at().query()), queryKey.apply(query))) {
        throw FetchException.pageRepeated(ctx, tieWiderThanMaxOffset(query));
      }
      at = new State<>(page, new Position<>(0, null, query));
      positions.put(slot, at);
    }
    return at.at();
  }

  /**
   * Records where the next page starts and gives this page its {@code hasMore} when it has none:
   * false on an empty page or once {@code total} items were listed, true otherwise.
   *
   * @param ctx the same fetch {@link #position} was called for
   * @param page the page read
   * @return the page with {@code hasMore} set
   */
  public Page<T> read(FetchContext<?> ctx, Page<T> page) {
    String slot = NextUrlPaging.slot(ctx);
    State<T> at = positions.get(slot);
    if (at == null || at.page() != ctx.page()) {
      throw new IllegalStateException(
          "OffsetPaging.read for page " + ctx.page() + " without position(ctx) first");
    }
    List<? extends T> items = page.items();
    long next = at.at().offset() + items.size();
    Boolean more = page.hasMore();
    if (items.isEmpty()) more = false;
    else if (more == null) more = page.total() == null || next < page.total();
    T last = items.isEmpty() ? at.at().last() : items.get(items.size() - 1);
    positions.put(slot, new State<>(ctx.page() + 1, new Position<>(next, last, at.at().query())));
    return page.withHasMore(more);
  }

  private String tieWiderThanMaxOffset(@Nullable Object query) {
    String at =
        query instanceof Watermark w
            ? w.value() + (w.tieBreak() == null ? "" : " (tieBreak " + w.tieBreak() + ")")
            : String.valueOf(query);
    return "the tie at "
        + at
        + " is wider than maxOffset "
        + maxOffset
        + ": the new query at offset 0 would start from the same cursor as the query before it"
        + " and read the same pages again; filter the query by a tieBreak as well, or raise"
        + " maxOffset above the widest tie";
  }

  /**
   * Builds {@link OffsetPaging}.
   *
   * @param <T> the item type
   */
  public static final class Builder<T> {
    private @Nullable Long maxOffset;
    private Function<@Nullable Object, @Nullable Object> queryKey = c -> c;

    private Builder() {}

    /**
     * The largest offset the API serves: a page that would ask for {@code maxOffset} or more starts
     * a new query from the current cursor (a timestamp lane's committed watermark).
     *
     * @param maxOffset at least 1
     * @return this
     * @throws ConfigException if {@code maxOffset} is less than 1
     */
    public Builder<T> maxOffset(long maxOffset) {
      if (maxOffset < 1) throw new ConfigException("maxOffset must be >= 1, but was " + maxOffset);
      this.maxOffset = maxOffset;
      return this;
    }

    /**
     * What of the cursor the request filters by: two queries with equal keys read the same pages.
     * The default is the whole cursor (a {@link Watermark}'s value and tieBreak); a request that
     * sends only the watermark's value uses {@code c -> ((Watermark) c).value()}.
     *
     * @param queryKey maps {@link Position#query()} to what the request sends; may return null
     * @return this
     */
    public Builder<T> queryKey(Function<@Nullable Object, @Nullable Object> queryKey) {
      this.queryKey = Objects.requireNonNull(queryKey, "queryKey");
      return this;
    }

    /**
     * The paging.
     *
     * @return a new instance with no state
     */
    public OffsetPaging<T> build() {
      return new OffsetPaging<>(this);
    }
  }
}
