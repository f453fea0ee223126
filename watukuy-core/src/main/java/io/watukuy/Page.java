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

  private Page(
      List<T> items,
      @Nullable Object cursor,
      @Nullable Boolean hasMore,
      List<String> tombstones,
      boolean notModified) {
    this.items = items;
    this.cursor = cursor;
    this.hasMore = hasMore;
    this.tombstones = tombstones;
    this.notModified = notModified;
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
    return new Page<>(items, cursor, hasMore, tombstones, notModified);
  }

  /**
   * This page with a {@code hasMore} flag.
   *
   * @param hasMore {@code true} fetches again at once, {@code false} ends the cycle, {@code null}
   *     lets the strategy decide
   * @return a new page; this one is unchanged
   */
  public Page<T> withHasMore(@Nullable Boolean hasMore) {
    return new Page<>(items, cursor, hasMore, tombstones, notModified);
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
    return new Page<>(items, cursor, hasMore, List.copyOf(identities), notModified);
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
        + "]";
  }
}
