package io.watukuy.internal.cursor;

import io.watukuy.FetchException;

/**
 * Why a lane stalled within a cycle, and the fix that fits (docs/operations.md, "Stalled lanes").
 *
 * @param kind what {@code lastError.name} records: {@code PageRepeated} or {@code
 *     TokenNotAdvancing}
 * @param fix what the user can change, in a sentence without a trailing period
 */
public record Stall(String kind, String fix) {
  /** The name of a stall where the API or the request repeats a page. */
  public static final String PAGE_REPEATED = FetchException.PAGE_REPEATED;

  /** The name of a stall where a token API hands back the token it was sent. */
  public static final String TOKEN_NOT_ADVANCING = "TokenNotAdvancing";

  /**
   * Whether {@code kind} names a stall.
   *
   * @param kind a {@code lastError} name
   * @return true for {@link #PAGE_REPEATED} and {@link #TOKEN_NOT_ADVANCING}
   */
  public static boolean isStall(String kind) {
    return PAGE_REPEATED.equals(kind) || TOKEN_NOT_ADVANCING.equals(kind);
  }

  /** How the stall showed. */
  public enum Mode {
    /** The cursor did not move, so the next request would be the same. */
    SAME_CURSOR,
    /** The cursor moved but the request does not carry it, so it would be the same. */
    REQUEST_IGNORES_CURSOR,
    /** The request carried a new cursor (or page) and the API answered the same items again. */
    API_IGNORES_CURSOR
  }

  /** The fix for a listing paged by number (snapshotDiff, page, reconcile). */
  static Stall byPage(Mode mode) {
    return new Stall(
        PAGE_REPEATED,
        mode == Mode.API_IGNORES_CURSOR
            ? "the API answered the next page number with the same items; check the parameter that"
                + " carries {{page}}, and that the response says when there are no more pages"
            : "the request does not change with the page number: put {{page}} (or"
                + " {{cursor.page}}) in its URL or query, or read ctx.page() in a Java fetcher");
  }

  /** The fix when the strategy knows nothing better. */
  static Stall generic(Mode mode) {
    return new Stall(
        PAGE_REPEATED,
        switch (mode) {
          case SAME_CURSOR ->
              "the page did not move the cursor; check that the API pages by the cursor and that"
                  + " the response says when there are no more pages";
          case REQUEST_IGNORES_CURSOR ->
              "the request does not change with the cursor: put {{cursor.value}} (or {{page}}) in"
                  + " its URL, query or body, or read FetchContext.cursor() in a Java fetcher";
          case API_IGNORES_CURSOR ->
              "the API answered the next page with the same items; check the parameter that"
                  + " carries the cursor or page number, and that the response says when there are"
                  + " no more pages";
        });
  }
}
