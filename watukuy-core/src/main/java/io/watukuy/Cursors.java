package io.watukuy;

import com.fasterxml.jackson.core.type.TypeReference;
import io.watukuy.internal.Json;
import org.jspecify.annotations.Nullable;

/**
 * Factories for the five cursor strategies (Cursor strategies document). Pick from what the API
 * offers: an {@code updated_since} filter is {@link #timestamp}; an opaque next token is
 * {@link #token}; plain page numbers are {@link #page} (or {@link #snapshotDiff} when the whole
 * listing is small enough to walk every cycle, which also yields deletes); anything else is
 * {@link #custom}.
 *
 * @since 0.1
 */
public final class Cursors {
  private Cursors() {}

  /**
   * A timestamp strategy on {@code field} (a dot path in the item's JSON form).
   *
   * @throws ConfigException if {@code field} is blank
   */
  public static TimestampCursor.Builder timestamp(String field) {
    return TimestampCursor.builder(field);
  }

  /** A token strategy whose first request carries {@code initial} ({@code null} for none). */
  public static TokenCursor token(@Nullable String initial) {
    return new TokenCursor(initial);
  }

  /** A token strategy starting with no token. */
  public static TokenCursor token() {
    return new TokenCursor(null);
  }

  /** A page strategy starting at page 1. */
  public static PageCursor page() {
    return new PageCursor(PageCursor.DEFAULT_INITIAL);
  }

  /**
   * A page strategy starting at {@code initial}.
   *
   * @throws ConfigException if negative
   */
  public static PageCursor page(int initial) {
    return new PageCursor(initial);
  }

  /** The snapshotDiff strategy. */
  public static SnapshotDiffCursor snapshotDiff() {
    return SnapshotDiffCursor.INSTANCE;
  }

  /** A custom cursor stored as JSON of {@code initial}'s class. */
  public static <C> CustomCursor<C> custom(C initial, CustomCursor.Advance<C> advance) {
    return new CustomCursor<>(initial, advance, null, null, null);
  }

  /** A custom cursor of a generic type, stored as JSON of {@code type}. */
  public static <C> CustomCursor<C> custom(
      C initial, TypeReference<C> type, CustomCursor.Advance<C> advance) {
    return new CustomCursor<>(
        initial, advance, Json.MAPPER.getTypeFactory().constructType(type), null, null);
  }
}
