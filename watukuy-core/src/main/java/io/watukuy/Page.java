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
 *       for timestamp, a string that overrides the watermark; for custom, the page cursor handed
 *       to {@code advance}; ignored by page and snapshotDiff.
 *   <li>{@code hasMore}: {@code true} fetches again at once (catch-up), {@code false} ends the
 *       cycle, {@code null} lets the strategy decide (Cursor strategies document).
 *   <li>{@code tombstones}: identities the API reports deleted (DESIGN.md "Tombstones").
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
   * A page of items. The list is copied; it may contain nulls only to be reported as a bad page.
   *
   * @throws NullPointerException if {@code items} is null
   */
  public static <T> Page<T> of(List<? extends T> items) {
    Objects.requireNonNull(items, "items");
    return new Page<>(Collections.unmodifiableList(new ArrayList<>(items)), null, null, List.of(), false);
  }

  /** An empty page. */
  public static <T> Page<T> empty() {
    return new Page<>(List.of(), null, null, List.of(), false);
  }

  /**
   * The listing is unchanged since the last cycle (an HTTP 304 the caller handled itself).
   * Trusted only on page 1 of a listing whose previous cycle ended on page 1 (DESIGN.md "304 Not
   * Modified"); elsewhere it fails the cycle.
   */
  public static <T> Page<T> notModified() {
    return new Page<>(List.of(), null, false, List.of(), true);
  }

  public Page<T> withCursor(@Nullable Object cursor) {
    return new Page<>(items, cursor, hasMore, tombstones, notModified);
  }

  public Page<T> withHasMore(@Nullable Boolean hasMore) {
    return new Page<>(items, cursor, hasMore, tombstones, notModified);
  }

  /** Identities the API reports deleted; a known one commits a deleted event. */
  public Page<T> withTombstones(List<String> identities) {
    return new Page<>(items, cursor, hasMore, List.copyOf(identities), notModified);
  }

  public List<T> items() {
    return items;
  }

  public @Nullable Object cursor() {
    return cursor;
  }

  public @Nullable Boolean hasMore() {
    return hasMore;
  }

  public List<String> tombstones() {
    return tombstones;
  }

  /** Whether this page stands for an unchanged listing ({@link #notModified()}). */
  public boolean isNotModified() {
    return notModified;
  }

  @Override
  public String toString() {
    return "Page[items=" + items.size() + ", cursor=" + cursor + ", hasMore=" + hasMore
        + (tombstones.isEmpty() ? "" : ", tombstones=" + tombstones.size())
        + (notModified ? ", notModified" : "") + "]";
  }
}
