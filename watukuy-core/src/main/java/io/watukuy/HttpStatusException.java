package io.watukuy;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An HTTP response from {@code ctx.http()} with a status the helper does not treat as success.
 * Carries the status, the method, the URL and the response headers with secrets redacted
 * (credential-like query parameters and {@code Authorization}, {@code Cookie}, {@code
 * Proxy-Authorization}, {@code Set-Cookie} values replaced by {@code [redacted]}), and up to 2 KiB
 * of the body. 429 and 503-with-Retry-After are throttles, not failures, for the scheduler.
 *
 * @since 0.1
 */
public final class HttpStatusException extends WatukuyException {
  /** The response status. */
  private final int status;

  /** The request method. */
  private final String method;

  /** The redacted request URL. */
  private final String url;

  /** The redacted response headers, names lower-cased. */
  private final Map<String, List<String>> headers;

  /** Up to 2 KiB of the redacted body, or null. */
  private final @Nullable String bodySnippet;

  /**
   * Creates the exception; the message is {@code "<method> <redactedUrl> returned HTTP <status>"}.
   * The caller redacts; this constructor copies but does not redact.
   *
   * @param status the response status
   * @param method the request method
   * @param redactedUrl the request URL with credential-like query values redacted
   * @param redactedHeaders the response headers, names lower-cased, secret values redacted
   * @param bodySnippet up to 2 KiB of the redacted body as text, or {@code null} when there was no
   *     body
   */
  public HttpStatusException(
      int status,
      String method,
      String redactedUrl,
      Map<String, List<String>> redactedHeaders,
      @Nullable String bodySnippet) {
    super(method + " " + redactedUrl + " returned HTTP " + status, null);
    this.status = status;
    this.method = method;
    this.url = redactedUrl;
    this.headers = Map.copyOf(redactedHeaders);
    this.bodySnippet = bodySnippet;
  }

  /**
   * The response status.
   *
   * @return the HTTP status code, neither 2xx nor 304
   */
  public int status() {
    return status;
  }

  /**
   * The request method.
   *
   * @return {@code GET}, {@code POST} or {@code PUT}
   */
  public String method() {
    return method;
  }

  /**
   * The request URL.
   *
   * @return the URL with credential-like query values redacted
   */
  public String url() {
    return url;
  }

  /**
   * The response headers.
   *
   * @return an unmodifiable map, names lower-cased, secret values redacted
   */
  public Map<String, List<String>> headers() {
    return headers;
  }

  /**
   * The first value of a response header.
   *
   * @param name the header name, compared case-insensitively
   * @return the first (redacted) value, or {@code null} when the header is absent
   */
  public @Nullable String header(String name) {
    List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  /**
   * The start of the response body, for diagnosis.
   *
   * @return up to 2 KiB of the body decoded as UTF-8 with secrets redacted, or {@code null} when
   *     the body was empty
   */
  public @Nullable String bodySnippet() {
    return bodySnippet;
  }

  /**
   * Whether the scheduler treats this response as a throttle rather than a failure: the key waits
   * until the {@code Retry-After} instant (when there is none: until the rate-limit reset, or for
   * the next step of {@link Schedule#backoff()}) without counting a failure.
   *
   * @return {@code true} for 429, and for 503 carrying a {@code Retry-After} header
   */
  public boolean isThrottle() {
    return status == 429 || (status == 503 && header("retry-after") != null);
  }

  /**
   * {@inheritDoc}
   *
   * @return {@code true} for 408, 425, 429 and every 5xx status
   */
  @Override
  public boolean retryable() {
    return status == 408 || status == 425 || status == 429 || status >= 500;
  }
}
