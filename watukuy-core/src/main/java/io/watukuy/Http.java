package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * The HTTP helper a fetch function gets from its context: blocking JSON requests over the JDK's
 * {@link java.net.http.HttpClient}, with conditional requests, Retry-After and rate-limit
 * reporting, and secret redaction in every message.
 *
 * <p><b>Requests.</b> Every request sends {@code Accept: application/json}, {@code Accept-Encoding:
 * gzip, deflate} (such bodies are decoded, {@code request.maxBodySize} bounding the decoded bytes)
 * and {@code User-Agent: watukuy/0.1} unless {@link RequestOptions} sets those headers. Query
 * parameters from the options are URL-encoded and appended to any query already in the URL; null
 * values are not sent. Redirects are followed except from HTTPS to HTTP. The connect timeout is
 * {@link RequestOptions#DEFAULT_CONNECT_TIMEOUT}; the whole-request timeout is the options'
 * timeout, else the poller's {@code request.timeout}, else {@link
 * RequestOptions#DEFAULT_REQUEST_TIMEOUT}.
 *
 * <p><b>Conditional GETs.</b> With {@link RequestOptions#validators()} on (the default), a GET on
 * page 1 of the live lane stores the ETag (byte for byte, weak or strong) and Last-Modified of its
 * 200 for its exact URL. They are sent back as {@code If-None-Match} and {@code If-Modified-Since}
 * only where a 304 can be trusted: page 1 of a listing whose previous cycle ended on page 1
 * (docs/architecture.md, "304 Not Modified"). There a 304 never reaches the caller: the engine ends
 * the cycle as not modified (the helper tells it by throwing an internal unchecked exception that
 * fetch code must let through: do not catch {@code RuntimeException} around a request without
 * rethrowing what you do not handle). Every other request goes out unconditional, because a 304
 * there would have to be asked again without validators: one request per page, never two. A 304
 * without an ETag keeps the stored one. If the options set {@code If-None-Match} or {@code
 * If-Modified-Since} themselves, the helper sends exactly those, stores nothing and returns a 304
 * like a 2xx.
 *
 * <p><b>Rate budgets.</b> When the poller names a budget ({@link Poller.Builder#budget}), every
 * request (GET, POST or PUT, every page, lane and partition) first takes one token of it (guarantee
 * G6). Without a token the call blocks on the engine's clock, up to the poller's {@link
 * Poller#maxWait()} and never past the tick deadline, and then throws {@link
 * BudgetTimeoutException} without sending anything; let it through, so the engine defers the cycle
 * instead of counting a failure.
 *
 * <p><b>Throttling.</b> The engine sees the {@code Retry-After} and rate-limit fields of every
 * response, successful or not, and schedules the poller accordingly; fetch code need not read them.
 *
 * <p>Instances are bound to one fetch call; use them only on the thread running it.
 *
 * @since 0.1
 */
public interface Http {

  /**
   * {@code GET url} with {@link RequestOptions#DEFAULT}: no extra query or headers, validators on,
   * the poller's request timeout.
   *
   * @param url an absolute {@code http} or {@code https} URL, possibly with a query
   * @return the 2xx response
   * @throws HttpStatusException as for {@link #get(String, RequestOptions)}
   * @throws java.io.UncheckedIOException as for {@link #get(String, RequestOptions)}
   * @throws IllegalArgumentException if {@code url} is not an absolute http(s) URL
   * @throws BudgetTimeoutException as for {@link #get(String, RequestOptions)}
   * @see #get(String, RequestOptions)
   */
  HttpResult get(String url);

  /**
   * {@code GET url}, blocking until the body is read or the request timeout passes.
   *
   * @param url an absolute {@code http} or {@code https} URL, possibly with a query
   * @param options query parameters, headers, validators and timeout of this request
   * @return the 2xx response; a 304 only when {@code options} set {@code If-None-Match} or {@code
   *     If-Modified-Since} themselves
   * @throws HttpStatusException for any status other than 2xx and 304, after the engine has seen
   *     its Retry-After and rate-limit fields; the exception carries the status, the redacted URL
   *     and headers and up to 2 KiB of the body
   * @throws java.io.UncheckedIOException when the request fails without a response (connection
   *     refused, reset, TLS failure) or the timeout passes (cause {@link
   *     java.net.http.HttpTimeoutException}); when the thread is interrupted, with the interrupt
   *     flag set again and cause {@link java.io.InterruptedIOException}. Messages name the method
   *     and the redacted URL.
   * @throws IllegalArgumentException if {@code url} is not an absolute http(s) URL
   * @throws BudgetTimeoutException when the poller's rate budget had no token in time; nothing was
   *     sent
   */
  HttpResult get(String url, RequestOptions options);

  /**
   * {@code POST url} with a JSON body, blocking like {@link #get(String, RequestOptions)}. Never
   * conditional: no validators are sent or stored.
   *
   * @param url an absolute {@code http} or {@code https} URL, possibly with a query
   * @param jsonBody a String is sent as is, with the options' {@code Content-Type} or {@code
   *     application/json}; any other object is serialized with the engine's Jackson mapper and sent
   *     as {@code application/json} unless the options set a content type; null sends no body
   * @param options query parameters, headers and timeout of this request; {@link
   *     RequestOptions#validators()} is ignored
   * @return the 2xx response
   * @throws IllegalArgumentException if Jackson cannot serialize {@code jsonBody}, or {@code url}
   *     is not an absolute http(s) URL
   * @throws HttpStatusException as for {@link #get(String, RequestOptions)}
   * @throws java.io.UncheckedIOException as for {@link #get(String, RequestOptions)}; a failed POST
   *     may still have reached the server
   * @throws BudgetTimeoutException when the poller's rate budget had no token in time; nothing was
   *     sent
   */
  HttpResult post(String url, @Nullable Object jsonBody, RequestOptions options);

  /**
   * {@code PUT url} with a JSON body, exactly like {@link #post(String, Object, RequestOptions)}
   * but for the method: for the APIs whose search or export endpoint reads its filter from a PUT
   * body. Never conditional.
   *
   * @param url an absolute {@code http} or {@code https} URL, possibly with a query
   * @param jsonBody as for {@link #post(String, Object, RequestOptions)}
   * @param options query parameters, headers and timeout of this request; {@link
   *     RequestOptions#validators()} is ignored
   * @return the 2xx response
   * @throws IllegalArgumentException as for {@link #post(String, Object, RequestOptions)}
   * @throws HttpStatusException as for {@link #get(String, RequestOptions)}
   * @throws java.io.UncheckedIOException as for {@link #post(String, Object, RequestOptions)}
   * @throws BudgetTimeoutException when the poller's rate budget had no token in time; nothing was
   *     sent
   * @since 0.2
   */
  HttpResult put(String url, @Nullable Object jsonBody, RequestOptions options);
}
