package io.watukuy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a fetch returns: the items of one page, and what the cursor strategy needs to continue.
 * Immutable; build with {@link #of(List)} and the {@code with*} methods.
 *
 * <ul>
 *   <li>{@code cursor}: for token, the next token ({@code null} or {@code ""} ends the listing);
 *       for timestamp, a string that overrides the watermark; for custom, the page cursor handed to
 *       {@code advance}; ignored by page and snapshotDiff.
 *   <li>{@code hasMore}: {@code true} fetches again at once (catch-up), {@code false} ends the
 *       cycle, {@code null} lets the strategy decide (docs/architecture.md, "Cursor strategies").
 *   <li>{@code tombstones}: identities the API reports deleted (docs/architecture.md,
 *       "Tombstones").
 * </ul>
 *
 * @param <T> the item type
 * @since 0.1
 */
public final class Page<T> {
  private final List<T> items;
  private final @Nullable Object cursor;
  private final @Nullable Boolean hasMore;
  private final List<String> tombstones;
  private final boolean notModified;
  private final @Nullable Long total;

  private Page(
      List<T> items,
      @Nullable Object cursor,
      @Nullable Boolean hasMore,
      List<String> tombstones,
      boolean notModified) {
    this(items, cursor, hasMore, tombstones, notModified, null);
  }

  private Page(
      List<T> items,
      @Nullable Object cursor,
      @Nullable Boolean hasMore,
      List<String> tombstones,
      boolean notModified,
      @Nullable Long total) {
    this.items = items;
    this.cursor = cursor;
    this.hasMore = hasMore;
    this.tombstones = tombstones;
    this.notModified = notModified;
    this.total = total;
  }

  /**
   * A page of items, with no cursor, {@code hasMore} null and no tombstones. The list is copied; a
   * null element is allowed here but fails the cycle with a {@link FetchException} naming its
   * index.
   *
   * @param <T> the item type
   * @param items the page's items in the API's order
   * @return an immutable page
   * @throws NullPointerException if {@code items} is null
   */
  public static <T> Page<T> of(List<? extends T> items) {
    Objects.requireNonNull(items, "items");
    return new Page<>(
        Collections.unmodifiableList(new ArrayList<>(items)), null, null, List.of(), false);
  }

  /**
   * An empty page: no items, no cursor, {@code hasMore} null.
   *
   * @param <T> the item type
   * @return an immutable page
   */
  public static <T> Page<T> empty() {
    return new Page<>(List.of(), null, null, List.of(), false);
  }

  /**
   * The listing is unchanged since the last cycle (an HTTP 304 the caller handled itself). Trusted
   * only on page 1 of a listing whose previous cycle ended on page 1 (docs/architecture.md, "304
   * Not Modified"); elsewhere it fails the cycle with a {@link FetchException}.
   *
   * @param <T> the item type
   * @return a page with no items and {@code hasMore} false
   */
  public static <T> Page<T> notModified() {
    return new Page<>(List.of(), null, false, List.of(), true);
  }

  /**
   * This page with a cursor. A String or a JSON scalar is read as text by the token and timestamp
   * strategies.
   *
   * @param cursor the next token (token), a watermark override (timestamp), anything {@code
   *     advance} expects (custom), or {@code null} for none
   * @return a new page; this one is unchanged
   */
  public Page<T> withCursor(@Nullable Object cursor) {
    return new Page<>(items, cursor, hasMore, tombstones, notModified, total);
  }

  /**
   * This page with a {@code hasMore} flag.
   *
   * @param hasMore {@code true} fetches again at once, {@code false} ends the cycle, {@code null}
   *     lets the strategy decide
   * @return a new page; this one is unchanged
   */
  public Page<T> withHasMore(@Nullable Boolean hasMore) {
    return new Page<>(items, cursor, hasMore, tombstones, notModified, total);
  }

  /**
   * This page with tombstones: identities the API reports deleted. A known one commits a deleted
   * event with the last stored version-or-hash and removes the row; an unknown one does nothing. An
   * identity that is also among this page's items is left to the item.
   *
   * @param identities the deleted identities; copied
   * @return a new page; this one is unchanged
   * @throws NullPointerException if {@code identities} or one of them is null
   */
  public Page<T> withTombstones(List<String> identities) {
    return new Page<>(items, cursor, hasMore, List.copyOf(identities), notModified, total);
  }

  /**
   * This page with the size of the whole listing as the API reports it (a {@code total}, {@code
   * count} or {@code X-Total-Count}). Only full listings read it (snapshotDiff, reconcile): a
   * listing whose pages report different totals, or whose distinct identities differ from its last
   * page's total, shifted under the scan, so it emits no deletes (docs/operations.md, "False
   * deletes").
   *
   * @param total the number of items in the listing, at least 0
   * @return a copy with the total; this page is unchanged
   * @throws IllegalArgumentException if {@code total} is negative
   * @since 0.2
   */
  public Page<T> withTotal(long total) {
    if (total < 0) throw new IllegalArgumentException("total must be >= 0, but was " + total);
    return new Page<>(items, cursor, hasMore, tombstones, notModified, total);
  }

  /**
   * The items.
   *
   * @return an unmodifiable list in the API's order
   */
  public List<T> items() {
    return items;
  }

  /**
   * The cursor fetch returned.
   *
   * @return the cursor, or {@code null} for none
   */
  public @Nullable Object cursor() {
    return cursor;
  }

  /**
   * Whether more pages follow.
   *
   * @return {@code true}, {@code false}, or {@code null} to let the strategy decide
   */
  public @Nullable Boolean hasMore() {
    return hasMore;
  }

  /**
   * Identities the API reports deleted.
   *
   * @return an unmodifiable list, empty by default
   */
  public List<String> tombstones() {
    return tombstones;
  }

  /**
   * The size of the whole listing as the API reported it on this page.
   *
   * @return the total, or {@code null} when fetch gave none ({@link #withTotal})
   * @since 0.2
   */
  public @Nullable Long total() {
    return total;
  }

  /**
   * Whether this page stands for an unchanged listing.
   *
   * @return {@code true} for a page made by {@link #notModified()}
   */
  public boolean isNotModified() {
    return notModified;
  }

  @Override
  public String toString() {
    return "Page[items="
        + items.size()
        + ", cursor="
        + cursor
        + ", hasMore="
        + hasMore
        + (tombstones.isEmpty() ? "" : ", tombstones=" + tombstones.size())
        + (notModified ? ", notModified" : "")
        + (total == null ? "" : ", total=" + total)
        + "]";
  }
}
