package io.watukuy;

import com.fasterxml.jackson.databind.JavaType;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A cursor of the user's own type (Cursor strategies document, "custom"): offset + limit,
 * GraphQL {@code endCursor}, keyset over a numeric id. {@link Advance#advance} computes the next
 * cursor from the page. The cursor is stored as JSON (Jackson) unless {@code serialize} /
 * {@code deserialize} are given.
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

  CustomCursor(
      C initial,
      Advance<C> advance,
      @Nullable JavaType type,
      @Nullable Function<C, String> serialize,
      @Nullable Function<String, C> deserialize) {
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

  public C initial() {
    return initial;
  }

  public Advance<C> advance() {
    return advance;
  }

  /** The Jackson type used for JSON (de)serialization, or null for the initial value's class. */
  public @Nullable JavaType type() {
    return type;
  }

  public @Nullable Function<C, String> serialize() {
    return serialize;
  }

  public @Nullable Function<String, C> deserialize() {
    return deserialize;
  }

  /**
   * The same strategy with explicit text (de)serialization, for cursors that do not round-trip
   * through JSON.
   */
  public CustomCursor<C> withCodec(Function<C, String> serialize, Function<String, C> deserialize) {
    return new CustomCursor<>(initial, advance, type, serialize, deserialize);
  }

  /**
   * Computes the next cursor from a fetched page.
   *
   * @param <C> the cursor type
   */
  @FunctionalInterface
  public interface Advance<C> {
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
