package io.watukuy.effects;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The journaled HTTP client of an arm, {@link EffectContext#http()} (docs/effects.md, "HTTP
 * calls"). A request is looked up in the invocation's journal first: a recorded response comes back
 * and nothing is sent; otherwise the request is sent and its response recorded at once.
 *
 * <p>The journal key is the SHA-256 of the method, the URL and the body, with the request's ordinal
 * among identical requests of the attempt; headers are not part of it and are never stored. Every
 * request carries an {@code Idempotency-Key} of 64 hex digits, the SHA-256 of the effect, the
 * source poller and partition, the event's log position and the journal key: one per event and
 * call, the same on every re-send, retry and replay, so a receiver can drop the one repeat a crash
 * between a request and its record can cause, and two events making the same request send different
 * keys.
 *
 * <p>Two retry loops: this client re-sends on a transport error and on 408, 425, 429 and any 5xx,
 * up to {@link #MAX_ATTEMPTS} attempts, waiting {@link #FIRST_RESEND_DELAY} doubling between them;
 * those statuses never reach the arm. When they are spent, {@link #send} throws {@link
 * HttpRetriesExhausted}, the invocation fails and is retried under its own backoff, raised (never
 * lowered) by a {@code Retry-After} the server sent, up to {@link #MAX_RETRY_AFTER}. Every other
 * status, 4xx included, comes back to the arm as a {@link Response} and is journaled. One attempt
 * has {@link #CONNECT_TIMEOUT} to connect and {@link #REQUEST_TIMEOUT} overall; neither is
 * configurable.
 *
 * <p>A response body is read up to {@link #MAX_RESPONSE_BYTES}; a larger one (declared by its
 * {@code Content-Length} or found while reading) is not read further, nothing is recorded and the
 * call throws an {@link IOException} naming the effect, the URL (secrets hidden) and the limit: the
 * invocation fails and is retried under its backoff like any failure, sending the request again
 * with the same {@code Idempotency-Key}. Redirects are never followed: a 3xx comes back to the arm
 * as its status, with its {@code Location} header, and is journaled like any answer.
 *
 * @since 0.1
 */
public interface EffectHttp {
  /** Attempts of one request before the invocation fails: 4 (one send, three re-sends). */
  int MAX_ATTEMPTS = 4;

  /** The wait before the first re-send: 250 ms, doubling (250 ms, 500 ms, 1 s). */
  Duration FIRST_RESEND_DELAY = Duration.ofMillis(250);

  /** How long one attempt may take to connect: 10 s. */
  Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  /** How long one attempt may take in all: 30 s. */
  Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /**
   * The largest response body a journaled call reads, in bytes as received: 1 MiB (1 048 576).
   * Beyond it the call fails rather than hold or journal the body.
   */
  long MAX_RESPONSE_BYTES = 1L << 20;

  /** The most a {@code Retry-After} raises the invocation's backoff to: 5 minutes. */
  Duration MAX_RETRY_AFTER = Duration.ofMinutes(5);

  /**
   * The header every request carries with its idempotency key: per event and call, see {@link
   * EffectContext#idempotencyKey()}.
   */
  String IDEMPOTENCY_KEY = "Idempotency-Key";

  /**
   * Sends a request, or returns its recorded response.
   *
   * @param request the request
   * @return the response: fresh, or from the journal (then nothing was sent)
   * @throws HttpRetriesExhausted when every attempt met a transport error or a status that clears
   *     on its own (nothing recorded; the invocation fails and is retried)
   * @throws IOException when the response body is larger than {@link #MAX_RESPONSE_BYTES} (nothing
   *     recorded; the invocation fails and is retried)
   * @throws IllegalArgumentException if the request sets {@code Idempotency-Key} itself, or a
   *     header the JDK client refuses to set ({@code Host}, {@code Content-Length}, ...)
   * @throws IllegalStateException if a recorded response cannot be read back, or the request names
   *     a subject and the engine has no {@code secretKey} (then nothing is sent)
   * @throws TerminalFailure on replay of a request that named a subject erased since: its sealed
   *     response cannot be opened; the position completes, nothing is sent
   * @throws InterruptedException if the thread is interrupted while waiting to re-send
   */
  Response send(Request request) throws IOException, InterruptedException;

  /**
   * A request.
   *
   * @param method the method, upper case ({@code GET}, {@code POST}, ...)
   * @param url an absolute {@code http} or {@code https} URL
   * @param headers header names and values; never journaled, so an {@code Authorization} header is
   *     safe here
   * @param body the body as UTF-8 text, or {@code null} for none
   * @param subject whose data the response holds, or {@code null}: see {@link #subject(String)}
   * @since 0.1
   */
  record Request(
      String method,
      URI url,
      Map<String, String> headers,
      @Nullable String body,
      @Nullable String subject) {
    /**
     * Creates a request.
     *
     * @throws NullPointerException if {@code method}, {@code url} or {@code headers} is null
     * @throws IllegalArgumentException if the method is not an upper-case token
     * @throws InvalidRequest if the URL is not an absolute http(s) URL with a host (the message
     *     names its origin and path, never its query), or a header name or value is one the HTTP
     *     client refuses (see {@link #header}): leaving an arm, a terminal failure
     */
    public Request {
      Objects.requireNonNull(method, "method");
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(headers, "headers");
      if (!method.matches("[A-Z]{1,20}"))
        throw new IllegalArgumentException(
            "HTTP method must be an upper-case token like GET or POST, but was '" + method + "'");
      String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || url.getHost() == null)
        throw new InvalidRequest(
            "HTTP URL must be absolute http(s) with a host, but was '"
                + (url.getScheme() == null ? "" : url.getScheme() + "://")
                + (url.getHost() == null ? "" : url.getHost())
                + (url.getPath() == null ? "" : url.getPath())
                + "'");
      headers.forEach(Request::checkHeader);
      headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
      if (subject != null && subject.isBlank())
        throw new IllegalArgumentException("a request's subject is blank");
    }

    /**
     * Creates a request that names no subject: its response is journaled as it came, with the
     * engine's secrets hidden.
     *
     * @throws NullPointerException if {@code method}, {@code url} or {@code headers} is null
     * @throws IllegalArgumentException if the method is not an upper-case token
     * @throws InvalidRequest as the canonical constructor
     */
    public Request(String method, URI url, Map<String, String> headers, @Nullable String body) {
      this(method, url, headers, body, null);
    }

    /**
     * A request with no headers and no body.
     *
     * @param method the method
     * @param url the URL
     * @return the request
     * @throws InvalidRequest if {@code url} is not a valid absolute http(s) URL; the message gives
     *     the reason and the index, never the URL (its query may hold a secret). Leaving an arm, a
     *     terminal failure: a URL built from an event's values stays invalid on every retry
     */
    public static Request of(String method, String url) {
      Objects.requireNonNull(url, "url");
      URI uri;
      try {
        uri = new URI(url);
      } catch (URISyntaxException e) {
        throw new InvalidRequest(
            "HTTP URL is not a valid URI: " + e.getReason() + " at index " + e.getIndex());
      }
      return new Request(method, uri, Map.of(), null, null);
    }

    /**
     * This request with a header added (or replaced).
     *
     * @param name the header's name
     * @param value its value
     * @return a new request
     * @throws InvalidRequest if the name is not an HTTP token, or the value holds a character the
     *     HTTP client cannot send: a control character other than tab (CR and LF included), which
     *     it refuses, or a non-ASCII one, which it refuses beyond U+00FF and sends as {@code ?}
     *     below (encode such a value first, as RFC 8187 or Base64); the message names the header
     *     and the index, never the value. Leaving an arm, a terminal failure
     */
    public Request header(String name, String value) {
      Map<String, String> h = new LinkedHashMap<>(headers);
      h.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return new Request(method, url, h, body, subject);
    }

    private static void checkHeader(String name, String value) {
      Objects.requireNonNull(value, "value");
      if (name.isEmpty() || !name.chars().allMatch(Request::isTokenChar))
        throw new InvalidRequest("HTTP header name '" + name + "' is not a token");
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        if (c > 0x7F)
          throw new InvalidRequest(
              "HTTP header "
                  + name
                  + ": its value has a non-ASCII character at index "
                  + i
                  + ", which the HTTP client cannot send (encode the value first)");
        if ((c < 0x20 && c != '\t') || c == 0x7F)
          throw new InvalidRequest(
              "HTTP header "
                  + name
                  + ": its value has a control character (CR, LF, ...) at index "
                  + i
                  + ", which the HTTP client refuses");
      }
    }

    private static boolean isTokenChar(int c) {
      return c > 0x20 && c < 0x7F && "\"(),/:;<=>?@[\\]{}".indexOf(c) < 0;
    }

    /**
     * This request with a body.
     *
     * @param text the body as UTF-8 text
     * @return a new request
     */
    public Request body(String text) {
      return new Request(method, url, headers, Objects.requireNonNull(text, "text"), subject);
    }

    /**
     * This request naming the subject whose data its response holds (docs/effects.md, "HTTP calls",
     * "Sealed documents"), as {@link EffectContext#call(String, Object, Class, String,
     * java.util.concurrent.Callable)} does for a named call: the journal keeps the response sealed
     * under the subject's data key (AES-256-GCM) and names the subject, so {@code
     * Effects.erase(subject)} reaches the journal too. A replay after the erasure cannot read the
     * response back and is a terminal failure; nothing is sent. The subject is not part of the
     * journal key nor of the {@code Idempotency-Key}. Sending it needs the engine's {@code
     * secretKey}: without one, {@link EffectHttp#send} fails naming it before anything is sent.
     *
     * @param subject whose data the response holds (a customer id, say); non-blank
     * @return a new request
     * @throws NullPointerException if {@code subject} is null
     * @throws IllegalArgumentException if {@code subject} is blank
     */
    public Request subject(String subject) {
      return new Request(method, url, headers, body, Objects.requireNonNull(subject, "subject"));
    }

    /**
     * The call's label as the journal keeps it: method, origin and path, without query or body.
     *
     * @return e.g. {@code POST https://api.example.com/v1/charges}
     */
    public String label() {
      String port = url.getPort() < 0 ? "" : ":" + url.getPort();
      String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
      return method
          + " "
          + url.getScheme().toLowerCase(Locale.ROOT)
          + "://"
          + url.getHost()
          + port
          + path;
    }

    /** The label and the header names: no header value, no query, no body. */
    @Override
    public String toString() {
      return "Request[" + label() + ", headers=" + headers.keySet() + "]";
    }
  }

  /**
   * A response, fresh or from the journal. The journal keeps its status, its headers except those
   * that carry credentials ({@code Set-Cookie} and the like) and its body.
   *
   * @param status the status code
   * @param headers header values by name, names in lower case
   * @param body the body as text (decoded by the response's charset, UTF-8 by default)
   * @since 0.1
   */
  record Response(int status, Map<String, List<String>> headers, String body) {
    /**
     * Creates a response.
     *
     * @throws NullPointerException if {@code headers} or {@code body} is null
     */
    public Response {
      Map<String, List<String>> copy = new TreeMap<>();
      Objects.requireNonNull(headers, "headers")
          .forEach((k, v) -> copy.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
      headers = Collections.unmodifiableMap(copy);
      Objects.requireNonNull(body, "body");
    }

    /**
     * A header's first value.
     *
     * @param name the header's name, any case
     * @return the first value, or null when absent
     */
    public @Nullable String header(String name) {
      List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
      return v == null || v.isEmpty() ? null : v.get(0);
    }

    /** The status and the body's length, never the body. */
    @Override
    public String toString() {
      return "Response[status=" + status + ", body=" + body.length() + " chars]";
    }
  }
}
