package io.watukuy;

import com.fasterxml.jackson.core.type.TypeReference;
import io.watukuy.internal.Json;
import org.jspecify.annotations.Nullable;

/**
 * Factories for the five cursor strategies (docs/architecture.md, "Cursor strategies"). Pick from
 * what the API offers: an {@code updated_since} filter is {@link #timestamp}; an opaque next token
 * is {@link #token}; plain page numbers are {@link #page} (or {@link #snapshotDiff} when the whole
 * listing is small enough to walk every cycle, which also yields deletes); anything else is {@link
 * #custom}.
 *
 * @since 0.1
 */
public final class Cursors {
  private Cursors() {}

  /**
   * A timestamp strategy on {@code field} (docs/architecture.md, "timestamp"). Finish it with
   * {@link TimestampCursor.Builder#build()}.
   *
   * @param field dot path of the timestamp in the item's JSON form, e.g. {@code updatedAt} or
   *     {@code meta.updatedAt}
   * @return a builder with no tie-break, no initial value, zero lag and zero overlap
   * @throws NullPointerException if {@code field} is null
   * @throws ConfigException if {@code field} is blank
   */
  public static TimestampCursor.Builder timestamp(String field) {
    return TimestampCursor.builder(field);
  }

  /**
   * A token strategy (docs/architecture.md, "token") whose first request carries {@code initial}.
   *
   * @param initial the token of the first request, or {@code null} for none; the cursor returns to
   *     it whenever a listing is exhausted
   * @return the strategy
   */
  public static TokenCursor token(@Nullable String initial) {
    return new TokenCursor(initial);
  }

  /**
   * A token strategy starting with no token: {@code token(null)}.
   *
   * @return the strategy
   */
  public static TokenCursor token() {
    return new TokenCursor(null);
  }

  /**
   * A page strategy (docs/architecture.md, "page") starting at page {@value
   * PageCursor#DEFAULT_INITIAL}.
   *
   * @return the strategy
   */
  public static PageCursor page() {
    return new PageCursor(PageCursor.DEFAULT_INITIAL);
  }

  /**
   * A page strategy starting at {@code initial}.
   *
   * @param initial the first page number, also the page each completed cycle returns to; 0 or more
   * @return the strategy
   * @throws ConfigException if {@code initial} is negative
   */
  public static PageCursor page(int initial) {
    return new PageCursor(initial);
  }

  /**
   * The snapshotDiff strategy (docs/architecture.md, "snapshotDiff"): no cursor, a full listing
   * every cycle, deletes built in.
   *
   * @return the shared stateless instance
   */
  public static SnapshotDiffCursor snapshotDiff() {
    return SnapshotDiffCursor.INSTANCE;
  }

  /**
   * A custom cursor (docs/architecture.md, "custom") stored as JSON (Jackson) of {@code initial}'s
   * runtime class. Use {@link #custom(Object, TypeReference, CustomCursor.Advance)} for a generic
   * cursor type, or {@link CustomCursor#withCodec} for one that does not round-trip through JSON.
   *
   * @param <C> the cursor type
   * @param initial the cursor of the first request, and of a reset
   * @param advance computes the next cursor and whether the cycle is done from each page
   * @return the strategy
   * @throws NullPointerException if {@code initial} or {@code advance} is null
   */
  public static <C> CustomCursor<C> custom(C initial, CustomCursor.Advance<C> advance) {
    return new CustomCursor<>(initial, advance, null, null, null);
  }

  /**
   * A custom cursor of a generic type, such as {@code Map<String, Long>}, stored as JSON (Jackson)
   * of {@code type}.
   *
   * @param <C> the cursor type
   * @param initial the cursor of the first request, and of a reset
   * @param type the full cursor type, for example {@code new TypeReference<Map<String, Long>>() {}}
   * @param advance computes the next cursor and whether the cycle is done from each page
   * @return the strategy
   * @throws NullPointerException if {@code initial} or {@code advance} is null
   */
  public static <C> CustomCursor<C> custom(
      C initial, TypeReference<C> type, CustomCursor.Advance<C> advance) {
    return new CustomCursor<>(
        initial, advance, Json.MAPPER.getTypeFactory().constructType(type), null, null);
  }
}
