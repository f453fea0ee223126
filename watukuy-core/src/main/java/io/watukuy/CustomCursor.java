package io.watukuy;

import com.fasterxml.jackson.databind.JavaType;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A cursor of the user's own type (docs/architecture.md, "custom"): offset + limit, GraphQL {@code
 * endCursor}, keyset over a numeric id. {@link Advance#advance} computes the next cursor from the
 * page. The cursor is stored as JSON (Jackson) unless {@code serialize} / {@code deserialize} are
 * given.
 *
 * @param <C> the cursor type
 * @since 0.1
 */
public final class CustomCursor<C> implements CursorStrategy<C> {
  private final C initial;
  private final Advance<C> advance;
  private final @Nullable JavaType type;
  private final @Nullable Function<C, String> serialize;
  private final @Nullable Function<String, C> deserialize;
  private final @Nullable Comparator<C> ordering;

  CustomCursor(
      C initial,
      Advance<C> advance,
      @Nullable JavaType type,
      @Nullable Function<C, String> serialize,
      @Nullable Function<String, C> deserialize) {
    this(initial, advance, type, serialize, deserialize, null);
  }

  CustomCursor(
      C initial,
      Advance<C> advance,
      @Nullable JavaType type,
      @Nullable Function<C, String> serialize,
      @Nullable Function<String, C> deserialize,
      @Nullable Comparator<C> ordering) {
    this.ordering = ordering;
    this.initial = Objects.requireNonNull(initial, "initial");
    this.advance = Objects.requireNonNull(advance, "advance");
    this.type = type;
    this.serialize = serialize;
    this.deserialize = deserialize;
  }

  @Override
  public String name() {
    return "custom";
  }

  /**
   * The cursor of the first request; also what a reset, and a stored cursor that decodes to JSON
   * {@code null}, yield.
   *
   * @return the initial cursor, never null
   */
  public C initial() {
    return initial;
  }

  /**
   * The user's function that computes the next cursor from each page.
   *
   * @return the advance function
   */
  public Advance<C> advance() {
    return advance;
  }

  /**
   * The Jackson type used for JSON (de)serialization.
   *
   * @return the type given to the {@code TypeReference} overload of {@link Cursors#custom}, or
   *     {@code null} to use the runtime class of {@link #initial()}
   */
  public @Nullable JavaType type() {
    return type;
  }

  /**
   * The user's cursor-to-text function, used instead of JSON when set.
   *
   * @return the function given to {@link #withCodec}, or {@code null} for JSON
   */
  public @Nullable Function<C, String> serialize() {
    return serialize;
  }

  /**
   * The user's text-to-cursor function, used instead of JSON when set.
   *
   * @return the function given to {@link #withCodec}, or {@code null} for JSON
   */
  public @Nullable Function<String, C> deserialize() {
    return deserialize;
  }

  /**
   * The same strategy with explicit text (de)serialization, for cursors that do not round-trip
   * through JSON. The stored text is what {@code serialize} returns; a stored text that {@code
   * deserialize} cannot read fails the cycle with a {@link ConfigException}. This strategy is not
   * changed.
   *
   * @param serialize cursor to stored text; must not return null
   * @param deserialize stored text back to the cursor; the inverse of {@code serialize}
   * @return a new strategy with the same initial cursor, advance function and type
   */
  public CustomCursor<C> withCodec(Function<C, String> serialize, Function<String, C> deserialize) {
    return new CustomCursor<>(initial, advance, type, serialize, deserialize, ordering);
  }

  /**
   * The same strategy with an ordering of its cursors, which backfill needs to know when it has
   * reached its target (a custom cursor without one rejects backfill).
   *
   * @param ordering orders cursors from the start of the listing to its end
   * @return a copy of this strategy with the ordering
   */
  public CustomCursor<C> withOrdering(Comparator<C> ordering) {
    return new CustomCursor<>(
        initial,
        advance,
        type,
        serialize,
        deserialize,
        Objects.requireNonNull(ordering, "ordering"));
  }

  /**
   * The ordering of cursors given with {@link #withOrdering}, or null.
   *
   * @return the ordering, or null
   */
  public @Nullable Comparator<C> ordering() {
    return ordering;
  }

  /**
   * Computes the next cursor from a fetched page.
   *
   * @param <C> the cursor type
   */
  @FunctionalInterface
  public interface Advance<C> {
    /**
     * Computes the next cursor. Called on the cycle's thread once per fetched page, after the
     * page's items were validated and before the page is committed; it must not block on I/O.
     * Anything it throws fails the cycle before that page is committed.
     *
     * @param input the cursor the page was fetched with, the page's valid items, and what fetch
     *     returned as cursor and {@code hasMore}
     * @return the next cursor and whether the cycle is done; a null result or a null cursor fails
     *     the cycle with a {@link FetchException}
     */
    Step<C> advance(Input<C> input);
  }

  /**
   * What {@link Advance} receives.
   *
   * @param cursor the cursor the page was fetched with
   * @param items the page's valid items
   * @param pageCursor {@link Page#cursor()} as fetch returned it
   * @param hasMore {@link Page#hasMore()} as fetch returned it
   */
  public record Input<C>(
      C cursor, List<?> items, @Nullable Object pageCursor, @Nullable Boolean hasMore) {}

  /**
   * The next cursor, and whether the cycle is done.
   *
   * @param cursor the cursor to store and fetch with next
   * @param done {@code true} ends the cycle
   */
  public record Step<C>(C cursor, boolean done) {}
}
