package io.watukuy;

import java.util.Objects;

/**
 * One HTTP attempt of the engine's helper ({@link FetchContext#http()}) about to be sent, as {@link
 * WatukuyListener#onRequestStart} reports it: so that a timing or a span can start when the request
 * does. The matching {@link RequestInfo} follows with {@link WatukuyListener#onRequest}, on the
 * same thread, with the same method, origin and attempt.
 *
 * @param method {@code GET}, {@code POST} or {@code PUT}; a redirect hop's method after a 303 (or a
 *     301/302 answering a POST)
 * @param origin where the request goes, {@code scheme://host:port} in lower case with the scheme's
 *     default port filled in, as {@link RequestInfo#origin()}
 * @param url the whole URL sent (after a signer changed it), with the password of its user info,
 *     credential-like query parameters and every known secret value replaced by {@code [redacted]}:
 *     for a span's {@code url.full} or a log line, never for a meter's tag (it is unbounded)
 * @param attempt as {@link RequestInfo#attempt()}, from 1
 * @since 0.3
 */
public record RequestStart(String method, String origin, String url, int attempt) {

  /**
   * Checks the values.
   *
   * @throws NullPointerException if method, origin or url is null
   * @throws IllegalArgumentException if attempt is below 1
   */
  public RequestStart {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(url, "url");
    if (attempt < 1) throw new IllegalArgumentException("attempt must be >= 1, but was " + attempt);
  }
}
