package io.watukuy.effects;

/**
 * Thrown while building an {@link EffectHttp.Request} that can never be sent: the URL is not a
 * valid absolute http(s) URI, or a header name or value is one the HTTP client cannot send (a value
 * with CR, LF or another control character, or a non-ASCII character such as {@code ü}). Built from
 * an event's values, such a request fails the same way on every retry, so when this exception
 * leaves an arm the invocation ends as a terminal failure (docs/effects.md, "HTTP calls"): the
 * position completes, {@code terminal_skips} counts it and {@code last_terminal_error} keeps {@code
 * effect NAME: the request cannot be built: } and this message.
 *
 * <p>The message names the part (the URL, or the header by name) and why, and never quotes a header
 * value, nor a URL's query.
 *
 * @since 0.1
 */
public final class InvalidRequest extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message which part of the request is invalid and why, without a header value or query
   */
  public InvalidRequest(String message) {
    super(message);
  }
}
