package io.watukuy.internal.cursor;

import io.watukuy.ConfigException;
import io.watukuy.Page;
import io.watukuy.internal.ItemView;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The engine's side of a cursor strategy: decoding the stored cursor, what fetch sees, and how a
 * page advances it (docs/architecture.md, "Cursor strategies").
 *
 * @param <C> the cursor type handed to fetch
 */
public interface LaneCursor<C> {

  /** The strategy's initial cursor. */
  @Nullable C initial();

  /**
   * The stored cursor, or the initial one when {@code json} is null.
   *
   * @throws io.watukuy.ConfigException when the stored text cannot be read
   */
  @Nullable C decode(@Nullable String json);

  /** The cursor as stored JSON text; null stores nothing (the lane is at its initial cursor). */
  @Nullable String encode(@Nullable C cursor);

  /** The cursor handed to fetch for a stored cursor (timestamp overlap). */
  default @Nullable C forFetch(@Nullable C stored) {
    return stored;
  }

  /**
   * The cursor handed to fetch for request {@code page} (1-based) of a cycle: {@link
   * #forFetch(Object)} on the first request, the stored cursor itself on later ones. The overlap
   * re-scan is once per cycle; repeating it on every page would fetch a burst larger than a page
   * inside the overlap window again and again, never passing it.
   */
  default @Nullable C forFetch(@Nullable C stored, int page) {
    return page == 1 ? forFetch(stored) : stored;
  }

  /**
   * Advances past a page.
   *
   * @param sent the cursor the page was fetched with (after {@link #forFetch})
   * @param stored the stored cursor before this page
   * @param items every item of the page, in page order, duplicates included
   * @throws BadPage when the page breaks the strategy's rules
   */
  Step<C> advance(
      @Nullable C stored, @Nullable C sent, Page<?> page, List<ItemView> items, Instant now);

  /**
   * Whether the stored cursor moves only when a listing completes (a timestamp cursor with {@code
   * sorted(false)}): every page commits the cursor the listing started from, and a lane cut short
   * leaves it there. The running state of the listing is {@link #startListing}'s, in memory.
   */
  default boolean holdsUntilComplete() {
    return false;
  }

  /**
   * The running state of one listing of a lane that {@link #holdsUntilComplete()}, made just before
   * the fetch of its page 1 is called; null for the other lanes.
   *
   * @param start the engine's clock at that moment: the scan's start
   */
  default @Nullable Object startListing(Instant start) {
    return null;
  }

  /**
   * Advances past a page of a listing whose running state is {@code listing} ({@link
   * #startListing}); the other lanes ignore it.
   */
  default Step<C> advance(
      @Nullable C stored,
      @Nullable C sent,
      Page<?> page,
      List<ItemView> items,
      Instant now,
      @Nullable Object listing) {
    return advance(stored, sent, page, items, now);
  }

  /**
   * The cursor for an API's own raw string, as {@code resetCursor} and {@code backfill} take it (a
   * timestamp, a page number, a token, a custom cursor's text); null gives the initial cursor.
   *
   * @throws io.watukuy.ConfigException when the string is not a cursor of this strategy
   */
  @Nullable C fromRaw(@Nullable String raw);

  /**
   * Whether {@code cursor} has reached {@code target} (backfill stops there).
   *
   * @throws io.watukuy.ConfigException when the strategy has no ordering of its cursors
   */
  default boolean reached(@Nullable C cursor, @Nullable C target) {
    throw new ConfigException(
        "this cursor strategy cannot be backfilled: its cursors have no order");
  }

  /**
   * The cursor as the API's own raw string, the inverse of {@link #fromRaw}: what {@code backfill}
   * records as its default target.
   */
  default @Nullable String toRaw(@Nullable C cursor) {
    return encode(cursor);
  }

  /**
   * How far the cursor lags behind {@code now} in milliseconds, for timestamp cursors; null for the
   * others (docs/architecture.md, "Lag as a metric").
   */
  default @Nullable Long lagMs(@Nullable C cursor, Instant now) {
    return null;
  }

  /**
   * Whether an item lies past {@code target}, so a backfill stopping there leaves it out. Only
   * strategies whose cursor is read from the items can tell; the others answer false.
   */
  default boolean beyond(ItemView item, @Nullable C target) {
    return false;
  }

  /** Whether {@link #reached} is supported, so backfill is possible. */
  default boolean ordered() {
    return false;
  }

  /**
   * Why a lane of this strategy stalled and the fix that fits, for the error that ends it
   * (docs/operations.md, "Stalled lanes").
   *
   * @param before the cursor the last page was fetched with (where the API repeated a page: the
   *     cursor the repeated page was fetched with)
   * @param after the cursor the next page would be fetched with (where the API repeated a page: the
   *     cursor after it, which did not move)
   * @param page the items of the last page read
   * @param mode how the stall showed
   */
  default Stall stall(@Nullable C before, @Nullable C after, List<ItemView> page, Stall.Mode mode) {
    return Stall.generic(mode);
  }

  /** Whether every cycle lists everything (snapshotDiff): completed listings delete the rest. */
  default boolean fullScan() {
    return false;
  }
}
