package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * The token strategy: an opaque next / cursor / sync token (docs/architecture.md, "token"). A
 * non-empty token returned in {@link Page#cursor()} continues the cycle, unless the page says
 * {@code hasMore: false} (the sync-token pattern: the token is kept for next time). {@code null} or
 * {@code ""} ends the listing and resets the cursor to {@code initial}. A page with no items whose
 * token equals the one just sent ends the cycle and keeps the token.
 *
 * @since 0.1
 */
public final class TokenCursor implements CursorStrategy<String> {
  private final @Nullable String initial;

  TokenCursor(@Nullable String initial) {
    this.initial = initial;
  }

  @Override
  public String name() {
    return "token";
  }

  /**
   * The token of the first request, and the one the cursor returns to when a listing is exhausted.
   *
   * @return the initial token, or {@code null} for none
   */
  public @Nullable String initial() {
    return initial;
  }
}
