package io.watukuy;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An HTTP response from {@code ctx.http()} with a status the helper does not treat as success.
 * Carries the status, the method, the URL and the response headers with secrets redacted
 * (credential-like query parameters and {@code Authorization}, {@code Cookie},
 * {@code Proxy-Authorization}, {@code Set-Cookie} values replaced by {@code [redacted]}), and up
 * to 2 KiB of the body. 429 and 503-with-Retry-After are throttles, not failures, for the
 * scheduler.
 *
 * @since 0.1
 */
public final class HttpStatusException extends WatukuyException {
  private final int status;
  private final String method;
  private final String url;
  private final Map<String, List<String>> headers;
  private final @Nullable String bodySnippet;

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

  public int status() {
    return status;
  }

  public String method() {
    return method;
  }

  /** The request URL with credential-like query values redacted. */
  public String url() {
    return url;
  }

  /** Response headers, names lower-cased, secrets redacted. */
  public Map<String, List<String>> headers() {
    return headers;
  }

  /** First value of a response header (case-insensitive name), or null. */
  public @Nullable String header(String name) {
    List<String> v = headers.get(name.toLowerCase(java.util.Locale.ROOT));
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  public @Nullable String bodySnippet() {
    return bodySnippet;
  }

  /** True for 429, and for 503 carrying a Retry-After header. */
  public boolean isThrottle() {
    return status == 429 || (status == 503 && header("retry-after") != null);
  }

  @Override
  public boolean retryable() {
    return status == 408 || status == 425 || status == 429 || status >= 500;
  }
}
