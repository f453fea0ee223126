package io.watukuy;

/**
 * The page strategy: page numbers (docs/architecture.md, "page"). Advances to page + 1 while {@code
 * hasMore} is true; when the cycle completes it resets to {@code initial}.
 *
 * @since 0.1
 */
public final class PageCursor implements CursorStrategy<Integer> {
  /** The default first page. */
  public static final int DEFAULT_INITIAL = 1;

  private final int initial;

  PageCursor(int initial) {
    if (initial < 0) throw new ConfigException("cursor.initial must be >= 0, but was " + initial);
    this.initial = initial;
  }

  @Override
  public String name() {
    return "page";
  }

  /**
   * The first page number.
   *
   * @return the page of the first request and of every cycle after a completed one; 0 or more
   */
  public int initial() {
    return initial;
  }
}
