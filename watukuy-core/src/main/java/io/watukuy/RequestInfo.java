package io.watukuy;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP request the engine's helper ({@link FetchContext#http()}) sent, as {@link
 * WatukuyListener#onRequest} reports it: one per attempt, answered or failed. Every value is
 * bounded, for a meter's tags or a span's attributes: the origin names the server and never the
 * path or query (where a credential may travel), the status is a number, the failure one of a few
 * kinds.
 *
 * @param method {@code GET}, {@code POST} or {@code PUT}; after a 303 (or a 301/302 answering a
 *     POST) the redirect hop's {@code GET}
 * @param origin where the request went, {@code scheme://host:port} in lower case with the scheme's
 *     default port filled in; no user, path, query or fragment
 * @param status the HTTP status of the answer, or {@code 0} when there was none ({@link #failure()}
 *     says why)
 * @param failure why the request got no answer, or {@code null} when it got one (an error status is
 *     an answer)
 * @param duration from the moment the request was handed to the HTTP client until its whole body
 *     was read or it failed, on the engine's {@link TimeSource}; a wait for a rate-budget token
 *     (G6) comes before and is not counted
 * @param attempt how many times this same request has been sent, this one included, from 1: a
 *     redirect hop or the one retry after a 401 with a fresh credential counts as the next attempt,
 *     and so does the same method and URL sent by a later cycle of the key after the previous
 *     attempt failed or was answered 408, 429 or 5xx (the engine retries by polling again). Minus
 *     one, it is OpenTelemetry's {@code http.request.resend_count}
 * @since 0.3
 */
public record RequestInfo(
    String method,
    String origin,
    int status,
    @Nullable Failure failure,
    Duration duration,
    int attempt) {

  /**
   * Checks the values.
   *
   * @throws NullPointerException if method, origin or duration is null
   * @throws IllegalArgumentException if there is both a status and a failure, or neither, or the
   *     attempt is below 1, or the duration is negative: a report that says two things at once
   */
  public RequestInfo {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(duration, "duration");
    if ((status == 0) == (failure == null))
      throw new IllegalArgumentException(
          "a request has a status or a failure, but was status " + status + ", failure " + failure);
    if (attempt < 1) throw new IllegalArgumentException("attempt must be >= 1, but was " + attempt);
    if (duration.isNegative())
      throw new IllegalArgumentException("duration must not be negative, but was " + duration);
  }

  /**
   * The answer in one of five bounded words, as Micrometer's {@code outcome} tag has them.
   *
   * @return {@code SUCCESS} for 1xx to 3xx (a 304 included), {@code CLIENT_ERROR} for 4xx, {@code
   *     SERVER_ERROR} for 5xx, {@code UNKNOWN} for another status or no answer
   */
  public String outcome() {
    if (status >= 100 && status < 400) return "SUCCESS";
    if (status >= 400 && status < 500) return "CLIENT_ERROR";
    if (status >= 500 && status < 600) return "SERVER_ERROR";
    return "UNKNOWN";
  }

  /**
   * The host of {@link #origin()}, OpenTelemetry's {@code server.address}.
   *
   * @return the host name or address, lower case
   */
  public String serverAddress() {
    return URI.create(origin).getHost();
  }

  /**
   * The port of {@link #origin()}, OpenTelemetry's {@code server.port}.
   *
   * @return the port, the scheme's default when the URL named none
   */
  public int serverPort() {
    return URI.create(origin).getPort();
  }

  /** Why a request got no answer; the message of the fetch's error says more. */
  public enum Failure {
    /** No connection within the client's connect timeout. */
    CONNECT_TIMEOUT,
    /** No whole answer within the poller's request timeout. */
    TIMEOUT,
    /** The body was larger than the poller's {@code request.maxBodySize}. */
    BODY_TOO_LARGE,
    /** The thread was interrupted, or the page fetched ahead was dropped. */
    INTERRUPTED,
    /** Another I/O failure: refused or reset connection, a TLS or protocol error. */
    IO,
    /** Anything else the HTTP client threw. */
    OTHER
  }
}
