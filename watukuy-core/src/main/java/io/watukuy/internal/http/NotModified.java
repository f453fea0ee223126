package io.watukuy.internal.http;

/**
 * Thrown by {@link DefaultHttp} when a conditional GET gets a 304 that the engine may trust ({@link
 * HttpScope#trustNotModified()}): the fetch ends and the engine records the cycle as not modified,
 * with no events and no deletes. Control flow, not an error: it carries no stack trace, and it is
 * deliberately not an {@link io.watukuy.WatukuyException} so that nothing treats it as a failure.
 */
public final class NotModified extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String url;

  /**
   * @param redactedUrl the request URL with secrets hidden
   */
  public NotModified(String redactedUrl) {
    super("GET " + redactedUrl + " returned HTTP 304 Not Modified", null, false, false);
    this.url = redactedUrl;
  }

  /** The request URL with secrets hidden. */
  public String url() {
    return url;
  }
}
