package io.watukuy.internal.diff;

/**
 * Thrown when a JSON tree has no RFC 8785 canonical form: a number that is NaN, infinite or outside
 * the IEEE-754 double range, a string or object key containing an unpaired UTF-16 surrogate, or a
 * node that is not JSON data (a missing node, or a POJO node that does not wrap a {@code
 * JsonNode}).
 *
 * <p>The message starts with the location of the offending value, for example {@code /items/3/name:
 * unpaired surrogate U+D800} or {@code /price: NaN cannot be canonicalized}; the top-level value is
 * shown as {@code (root)}. The location is also available from {@link #path()}.
 */
public final class CanonicalizationException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Location of the offending value; see {@link #path()}. */
  private final String path;

  /**
   * Creates the exception.
   *
   * @param path JSON-Pointer-like location of the offending value, empty for the top-level value
   * @param problem what is wrong with the value, without the location
   */
  public CanonicalizationException(String path, String problem) {
    super((path.isEmpty() ? "(root)" : path) + ": " + problem);
    this.path = path;
  }

  /**
   * The location of the offending value in JSON Pointer (RFC 6901) form, empty for the top-level
   * value. It is meant for people: characters that would make the message unreadable (control
   * characters, unpaired surrogates) are written as <code>&#92;uXXXX</code> text, so it cannot
   * always be resolved against the tree.
   *
   * @return the location, never {@code null}
   */
  public String path() {
    return path;
  }
}
