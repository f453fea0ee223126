package io.watukuy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.internal.http.Redactor;
import io.watukuy.internal.http.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A response returned by {@link Http}: a 2xx (or, for a request whose conditional headers the
 * caller set itself, a 304). The body is fully read; instances are immutable and thread-safe.
 *
 * <p>Implemented by watukuy; test code creates one with {@link #of}.
 *
 * @since 0.1
 */
public interface HttpResult {

  /**
   * Upper bound on how far ahead {@link #retryAfter()} and {@link RateLimitInfo#resetAt()} are put:
   * 1 day after the response. A header that asks for longer (a huge delta, a far-future date, a
   * millisecond value read as seconds) is clamped to it, so a bad header never stalls a poller for
   * years.
   */
  Duration MAX_WAIT = Duration.ofDays(1);

  /**
   * The HTTP status code.
   *
   * @return 200 to 299, or 304 for a request whose conditional headers the caller set
   */
  int status();

  /**
   * The request method.
   *
   * @return {@code GET}, {@code POST} or {@code PUT}
   */
  String method();

  /**
   * The request URL, query included, with credential-like query values and secret values replaced
   * by {@code [redacted]}: safe for messages and logs, not for requesting again.
   *
   * @return the redacted URL
   */
  String url();

  /**
   * Response headers: names lower-cased, values in received order, nothing redacted.
   *
   * @return an unmodifiable map, empty when the response had no headers
   */
  Map<String, List<String>> headers();

  /**
   * The first value of a response header.
   *
   * @param name the header name, compared case-insensitively
   * @return the first value, or {@code null} when the header is absent
   */
  default @Nullable String header(String name) {
    List<String> values = headers().get(name.toLowerCase(Locale.ROOT));
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /**
   * The body bytes.
   *
   * @return a fresh copy on each call; empty when there was no body
   */
  byte[] bodyBytes();

  /**
   * The body decoded as UTF-8, whatever the content type says.
   *
   * @return the text; malformed bytes become U+FFFD, an absent body gives {@code ""}
   */
  String body();

  /**
   * The start of the body for a message: at most {@code maxChars} characters of it, whitespace runs
   * made one space, secrets hidden, {@code ...} appended when cut; or {@code binary body (...), N
   * bytes} when the body is compressed ({@code Content-Encoding} other than identity, or gzip's
   * magic bytes: the JDK client decodes none) or is not UTF-8 text. Decodes only the start of the
   * body, never prints binary bytes.
   *
   * @param maxChars how many characters to show at most; positive
   * @return the excerpt; {@code ""} for an empty body
   */
  default String bodyExcerpt(int maxChars) {
    return Response.excerpt(this, maxChars);
  }

  /**
   * Decodes the body with the engine's Jackson mapper (unknown properties ignored, ISO-8601 {@code
   * java.time} values).
   *
   * @param <R> the result type
   * @param type the class to decode into
   * @return the decoded value; {@code null} for a JSON {@code null} body
   * @throws java.io.UncheckedIOException if the body is not JSON of that shape, repeats a key in an
   *     object or has anything after its value; the message names the method, the redacted URL,
   *     Jackson's description of the problem (a read limit by name and value), where it is (a JSON
   *     Pointer) and the start of the body ({@link #bodyExcerpt})
   */
  <R> R json(Class<R> type);

  /**
   * Decodes the body into a generic type, for example {@code new TypeReference<List<Order>>() {}}.
   *
   * @param <R> the result type
   * @param type the full type to decode into
   * @return the decoded value; {@code null} for a JSON {@code null} body
   * @throws java.io.UncheckedIOException if the body is not JSON of that shape; the message names
   *     the method, the redacted URL and Jackson's description of the problem
   */
  <R> R json(TypeReference<R> type);

  /**
   * Decodes the body as a JSON tree; an empty body gives a {@link
   * com.fasterxml.jackson.databind.node.MissingNode}.
   *
   * @return the tree, never null
   * @throws java.io.UncheckedIOException if the body is not JSON, repeats a key in an object or has
   *     anything after its value; the message as {@link #json(Class)}'s
   */
  JsonNode json();

  /**
   * Reads the body as a tree in the format its {@code Content-Type} names ({@link
   * BodyFormat#forContentType}): JSON, NDJSON, and CSV or XML with module {@code watukuy-formats};
   * JSON when the type is absent or unknown, as {@link #json()} would.
   *
   * @return the tree, never null
   * @throws java.io.UncheckedIOException as for {@link #tree(BodyFormat)}
   * @since 0.2
   */
  default JsonNode tree() {
    return tree(BodyFormat.forContentType(header("content-type")));
  }

  /**
   * Reads the body as a tree in {@code format}, decoding text in the {@code charset} of the {@code
   * Content-Type} when it names one (docs/config.md, "response.format"). A compressed body has
   * already been decoded by {@link Http}. The body is read in place, without a copy.
   *
   * @param format the body's format
   * @return the tree, never null; for JSON exactly {@link #json()}'s
   * @throws java.io.UncheckedIOException if the body is not in {@code format}, or the {@code
   *     charset} is one the Java runtime does not know; the message names the method, the redacted
   *     URL, the status and content type, the format, what is wrong and where (a line, a row and
   *     column, a JSON Pointer) and the start of the body ({@link #bodyExcerpt})
   * @since 0.2
   */
  default JsonNode tree(BodyFormat format) {
    return Response.tree(this, format);
  }

  /**
   * When the response was received, on the engine's clock ({@link TimeSource#now()}).
   *
   * @return the receive time; the base of {@link #retryAfter()} and {@link #rateLimit()}
   */
  Instant receivedAt();

  /**
   * The absolute time the server asked the client to wait until, from {@code Retry-After}:
   * delay-seconds or any HTTP-date form of RFC 9110 (IMF-fixdate, the obsolete RFC 850 form with a
   * two-digit year, asctime). A date is converted with the response's {@code Date} field when
   * present (the server's own clock, so clock skew cancels out) and taken as is otherwise. The
   * result is never before {@link #receivedAt()} and never more than {@link #MAX_WAIT} after it.
   * Empty when the field is absent or malformed ({@code -1}, {@code 1.5}, {@code 120s}, a zone
   * other than {@code GMT}, lower-case names).
   *
   * @return the instant to wait until, or empty
   */
  Optional<Instant> retryAfter();

  /**
   * The rate-limit state reported by the response, empty when none of the supported field families
   * is present and well formed, or when the reset time is unknown. Families, first match wins:
   * {@code RateLimit} of drafts -08 to -10 (with {@code RateLimit-Policy} for the limit), {@code
   * RateLimit} of draft -07 ({@code limit=, remaining=, reset=}), {@code RateLimit-Remaining} /
   * {@code -Reset} / {@code -Limit} of drafts up to -06, and {@code X-RateLimit-Remaining} / {@code
   * -Reset} / {@code -Limit} (GitHub and others).
   *
   * <p>Reset values are read as follows, in every family: a value of at least 10<sup>12</sup> is
   * epoch milliseconds, a value of at least 10<sup>9</sup> (2001-09-09) is epoch seconds, and a
   * smaller value is delta seconds from {@link #receivedAt()}; a delta of 10<sup>9</sup> seconds
   * would be 31 years. Epoch values are converted with the response's {@code Date} field when
   * present. The result is clamped to [{@link #receivedAt()}, {@link #receivedAt()} + {@link
   * #MAX_WAIT}]. When a field lists several policies, the one with the fewest remaining units is
   * reported (on a tie, the later reset).
   *
   * @return the reported state, or empty
   */
  Optional<RateLimitInfo> rateLimit();

  /**
   * A result for tests and fakes. {@code url} is redacted by the standard rules (credential-like
   * query parameters; there are no secret values here).
   *
   * @param status the status code
   * @param method the request method, {@code GET}, {@code POST} or {@code PUT}
   * @param url the request URL, query included
   * @param headers response headers; names are lower-cased and lists copied
   * @param body the body bytes, copied
   * @param receivedAt when the response was received, the base of {@link #retryAfter()} and {@link
   *     #rateLimit()}
   * @return an immutable result
   */
  static HttpResult of(
      int status,
      String method,
      String url,
      Map<String, List<String>> headers,
      byte[] body,
      Instant receivedAt) {
    return new Response(status, method, url, headers, body, receivedAt, Redactor.NONE);
  }
}
