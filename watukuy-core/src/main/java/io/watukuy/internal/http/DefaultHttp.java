package io.watukuy.internal.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.watukuy.Http;
import io.watukuy.HttpResult;
import io.watukuy.HttpStatusException;
import io.watukuy.OutgoingRequest;
import io.watukuy.RequestInfo;
import io.watukuy.RequestOptions;
import io.watukuy.RequestSigner;
import io.watukuy.RequestStart;
import io.watukuy.internal.Json;
import io.watukuy.spi.HttpValidator;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Http} over the JDK {@link HttpClient}, bound to one fetch call through its {@link
 * HttpScope}. Behaviour, in the order a GET goes through it:
 *
 * <ol>
 *   <li>Right before each request is sent, {@link HttpScope#beforeSend} takes a token of the
 *       poller's rate budget, waiting for one if need be.
 *   <li>The options' query is appended to the URL (null values were dropped by the options, values
 *       are URL-encoded, a space as {@code %20}); the validator key is the lowercase hex SHA-256 of
 *       that full URL.
 *   <li>With validators on, the stored ETag is sent as {@code If-None-Match} byte for byte and the
 *       stored Last-Modified as {@code If-Modified-Since}.
 *   <li>Redirects are followed here, not by the client, up to {@value #MAX_REDIRECTS} hops; a hop
 *       to another origin carries none of the request options' headers (credentials only go to the
 *       origin the caller named).
 *   <li>A body is read up to {@link HttpScope#maxBodySize} bytes: one whose Content-Length says
 *       more is refused unread, one without a length is cut off when it passes the bound (a fetch
 *       error naming both sizes; docs/config.md, "request.maxBodySize"). The body read is the
 *       response's own array, not copied again.
 *   <li>{@code Accept-Encoding: gzip, deflate} is sent unless the options set one; a body with
 *       {@code Content-Encoding} gzip or deflate (zlib or raw) is decoded here, the bound applying
 *       to the decoded bytes, and reaches the caller without those two headers. A 2xx body in
 *       another coding ({@code br}, {@code zstd}) or not valid in its own is a fetch error naming
 *       the coding (docs/config.md, "response.format").
 *   <li>Every response is passed to {@link HttpScope#observe} first (after redirects, the last).
 *   <li>A 200 carrying an ETag or Last-Modified that differs from the stored one is stored.
 *   <li>A 304 to a conditional request updates the stored validator with the fields it carries
 *       (none: the stored one is kept) and {@link NotModified} is thrown. Validators are sent only
 *       where the scope trusts a 304 (docs/architecture.md, "304 Not Modified"); elsewhere the
 *       request goes out unconditional, because an untrusted 304 would have to be repeated without
 *       them.
 *   <li>A status other than 2xx and 304 throws {@link HttpStatusException} with the redacted URL,
 *       the redacted lower-cased headers and at most {@value #BODY_SNIPPET_BYTES} bytes of the
 *       redacted body.
 * </ol>
 *
 * Holds no mutable state of its own: as thread-safe as its scope.
 */
public final class DefaultHttp implements Http {

  /** Sent unless the request options set a User-Agent. */
  public static final String USER_AGENT = "watukuy/0.1";

  /** Sent as Accept unless the request options set one, and the default body content type. */
  public static final String APPLICATION_JSON = "application/json";

  /** Upper bound, in UTF-8 bytes, of the body kept in an {@link HttpStatusException}. */
  public static final int BODY_SNIPPET_BYTES = 2048;

  /** Redirects followed per request; the response to one more is an error. */
  public static final int MAX_REDIRECTS = 5;

  private static final String IF_NONE_MATCH = "If-None-Match";
  private static final String IF_MODIFIED_SINCE = "If-Modified-Since";

  private static final Logger LOG = LoggerFactory.getLogger(DefaultHttp.class);

  private final HttpClient client;
  private final HttpScope scope;
  private final Redactor fixedRedactor;
  private static final byte[] NO_BODY = new byte[0];

  /**
   * @param client shared by the engine; see {@link HttpClients#newDefault()}
   * @param scope the fetch this helper serves
   */
  public DefaultHttp(HttpClient client, HttpScope scope) {
    this.client = Objects.requireNonNull(client, "client");
    this.scope = Objects.requireNonNull(scope, "scope");
    this.fixedRedactor = Redactor.of(scope.secretValues());
  }

  /**
   * The redactor of the scope's secret values, for the engine's own messages. With a request signer
   * the values are read again each time: a token fetched a moment ago is hidden too.
   */
  public Redactor redactor() {
    return scope.signer() == null ? fixedRedactor : Redactor.of(scope.secretValues());
  }

  @Override
  public HttpResult get(String url) {
    return get(url, RequestOptions.DEFAULT);
  }

  @Override
  public HttpResult get(String url, RequestOptions options) {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(options, "options");
    String target = withQuery(url, options.query());
    URI uri = toUri("GET", target);
    scope.beforeRequest("GET", target, options.headers(), null);
    boolean ownConditional = hasOwnConditionalHeaders(options);
    if (!options.validators() || ownConditional) {
      return accept(send("GET", uri, target, options, null, null, null), ownConditional);
    }

    String urlHash = sha256Hex(target);
    if (!scope.trustNotModified()) {
      // A 304 here could not be trusted (docs/architecture.md, "304 Not Modified"): asking for one
      // would only add a second request per page. Validators of page 1 are kept for when the
      // listing fits one page again.
      Response plain = send("GET", uri, target, options, null, null, null);
      if (scope.keepsValidators() && plain.status() != 304) {
        remember(urlHash, scope.loadValidator(urlHash), plain);
      }
      return accept(plain, false);
    }
    @Nullable HttpValidator stored = scope.loadValidator(urlHash);
    if (stored != null && stored.etag() == null && stored.lastModified() == null) stored = null;
    Response first = send("GET", uri, target, options, null, null, stored);
    if (first.status() != 304) {
      remember(urlHash, stored, first);
      return accept(first, false);
    }
    // Without stored validators nothing was conditional: a 304 then is a server fault.
    if (stored == null) throw statusFailure(first);
    @Nullable HttpValidator updated = merged(stored, first);
    if (updated != null) scope.storeValidator(urlHash, updated);
    throw new NotModified(first.url());
  }

  @Override
  public HttpResult post(String url, @Nullable Object jsonBody, RequestOptions options) {
    return withBody("POST", url, jsonBody, options);
  }

  @Override
  public HttpResult put(String url, @Nullable Object jsonBody, RequestOptions options) {
    return withBody("PUT", url, jsonBody, options);
  }

  /** A POST or PUT: the body serialized as {@link Http#post} says, never conditional. */
  private HttpResult withBody(
      String method, String url, @Nullable Object jsonBody, RequestOptions options) {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(options, "options");
    String target = withQuery(url, options.query());
    URI uri = toUri(method, target);
    byte @Nullable [] publisher;
    @Nullable String contentType = null;
    if (jsonBody == null) {
      publisher = null;
      scope.beforeRequest(method, target, options.headers(), null);
    } else {
      byte[] bytes;
      if (jsonBody instanceof String s) {
        bytes = s.getBytes(StandardCharsets.UTF_8);
      } else {
        try {
          bytes = Json.MAPPER.writeValueAsBytes(jsonBody);
        } catch (JsonProcessingException e) {
          throw new IllegalArgumentException(
              method
                  + " "
                  + redactor().url(target)
                  + ": cannot serialize "
                  + jsonBody.getClass().getName()
                  + " as JSON: "
                  + redactor().message(e.getOriginalMessage()),
              e);
        }
      }
      publisher = bytes;
      if (options.header("Content-Type").isEmpty()) contentType = APPLICATION_JSON;
      scope.beforeRequest(method, target, options.headers(), bytes);
    }
    return accept(
        send(method, uri, target, options, publisher, contentType, null),
        hasOwnConditionalHeaders(options));
  }

  /**
   * Appends query parameters to a URL, before any fragment, after any query it already has.
   *
   * @param params names to rendered values, in order; encoded here
   */
  public static String withQuery(String url, Map<String, String> params) {
    if (params.isEmpty()) return url;
    int hash = url.indexOf('#');
    String base = hash < 0 ? url : url.substring(0, hash);
    String fragment = hash < 0 ? "" : url.substring(hash);
    StringBuilder out = new StringBuilder(base);
    int question = base.indexOf('?');
    if (question < 0) {
      out.append('?');
    } else if (question != base.length() - 1 && !base.endsWith("&")) {
      out.append('&');
    }
    boolean firstParam = true;
    for (Map.Entry<String, String> p : params.entrySet()) {
      if (!firstParam) out.append('&');
      firstParam = false;
      out.append(encode(p.getKey())).append('=').append(encode(p.getValue()));
    }
    return out.append(fragment).toString();
  }

  /** The validator key of a request URL: lowercase hex SHA-256 of its UTF-8 bytes. */
  public static String sha256Hex(String url) {
    try {
      // A fresh digest per call: MessageDigest is not thread-safe.
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(digest.digest(url.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory on every Java platform", e);
    }
  }

  private Response send(
      String method,
      URI uri,
      String target,
      RequestOptions options,
      byte @Nullable [] body,
      @Nullable String contentType,
      @Nullable HttpValidator validator) {
    Duration timeout = options.timeout().orElseGet(scope::requestTimeout);
    HttpResponse<byte[]> response =
        exchangeFollowingRedirects(
            method, uri, target, options, body, contentType, validator, timeout);

    Map<String, List<String>> headers = response.headers().map();
    byte[] bytes = response.body();
    String coding =
        ContentCoding.of(response.headers().firstValue("Content-Encoding").orElse(null));
    @Nullable IOException undecodable = null;
    if (!coding.isEmpty() && bytes.length > 0) {
      if (ContentCoding.decodes(coding)) {
        try {
          bytes = ContentCoding.decode(bytes, coding, scope.maxBodySize());
          // The body is the decoded one now: its coding and compressed length no longer apply.
          TreeMap<String, List<String>> decoded = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
          decoded.putAll(headers);
          decoded.remove("Content-Encoding");
          decoded.remove("Content-Length");
          headers = decoded;
        } catch (BoundedBody.BodyTooLargeException e) {
          throw new UncheckedIOException(
              method + " " + redactor().url(target) + " failed: " + e.getMessage(), e);
        } catch (IOException e) {
          undecodable = e;
        }
      } else {
        undecodable =
            new IOException(
                "the response body has Content-Encoding "
                    + coding
                    + ", which watukuy does not decode (it sends Accept-Encoding: "
                    + ContentCoding.ACCEPTED
                    + ")");
      }
    }
    // The body array is the response's own from here on: it is not copied again (it may be
    // request.maxBodySize large).
    Response result =
        Response.owning(
            response.statusCode(),
            method,
            target,
            headers,
            bytes,
            scope.now(),
            redactor(),
            "poller "
                + scope.poller()
                + (scope.partition().isEmpty() ? "" : " partition " + scope.partition()));
    LOG.debug(
        "poller {} partition '{}' page {}: {} {} -> HTTP {}",
        scope.poller(),
        scope.partition(),
        scope.page(),
        method,
        result.url(),
        result.status());
    scope.observe(result);
    // A 2xx body that cannot be read is a fetch error; an error status keeps its own exception,
    // whose snippet names the body as binary.
    if (undecodable != null && result.status() >= 200 && result.status() < 300) {
      throw new UncheckedIOException(
          method + " " + result.url() + " failed: " + undecodable.getMessage(), undecodable);
    }
    return result;
  }

  /** {@code uri} without its {@code user:password@}, which must not travel in the request line. */
  private static URI withoutUserInfo(URI uri) {
    @Nullable String raw = uri.getRawUserInfo();
    if (raw == null) return uri;
    return URI.create(uri.toString().replace("//" + raw + "@", "//"));
  }

  /**
   * Sends the request and follows up to {@value #MAX_REDIRECTS} redirects itself, so that the
   * caller's headers (credentials among them) reach only the origin the caller named: a hop to
   * another origin (scheme, host, port; default ports filled in) goes out without any header of the
   * request options, with the engine's Accept and User-Agent and the validators only. A POST or PUT
   * follows only a 307 or 308 within its origin (method and body repeated); any other redirect of
   * it is a fetch error naming the status and Location ({@link #refuseToRedirect}). A redirect from
   * https to http, one without a usable http(s) Location, or the last of too many, is returned as
   * it is. The request timeout bounds all hops together.
   */
  private HttpResponse<byte[]> exchangeFollowingRedirects(
      String method,
      URI uri,
      String target,
      RequestOptions options,
      byte @Nullable [] body,
      @Nullable String contentType,
      @Nullable HttpValidator validator,
      Duration timeout) {
    // On the engine's clock (G8), like every other time the helper reads.
    Instant deadline = scope.now().plus(timeout);
    String origin = origin(uri);
    @Nullable RequestSigner signer = scope.signer();
    @Nullable String signerOrigin = scope.signerOrigin();
    String hopMethod = method;
    URI hopUri = uri;
    byte @Nullable [] hopBody = body;
    @Nullable String hopContentType = contentType;
    boolean retriedUnauthorized = false;
    // Each send below is the next attempt of this request (RequestInfo.attempt).
    int attempt = scope.firstAttempt(method, target) - 1;
    for (int hop = 0; ; hop++) {
      boolean sameOrigin = origin.equals(origin(hopUri));
      Duration left = hop == 0 ? timeout : Duration.between(scope.now(), deadline);
      if (left.isNegative() || left.isZero()) {
        throw timedOut(method, target, timeout, new HttpTimeoutException("request timed out"));
      }
      Map<String, String> headers = new LinkedHashMap<>();
      // The JDK client sends no user:password@ of a URL: it goes as Basic credentials, to the
      // origin the caller named only, unless the request sets its own Authorization.
      @Nullable String userInfo = hopUri.getUserInfo();
      if (userInfo != null && hop == 0 && options.header("Authorization").isEmpty()) {
        headers.put(
            "Authorization",
            "Basic "
                + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8)));
      }
      if (!sameOrigin || options.header("Accept").isEmpty()) {
        headers.put("Accept", APPLICATION_JSON);
      }
      if (!sameOrigin || options.header("Accept-Encoding").isEmpty()) {
        headers.put("Accept-Encoding", ContentCoding.ACCEPTED);
      }
      if (!sameOrigin || options.header("User-Agent").isEmpty()) {
        headers.put("User-Agent", USER_AGENT);
      }
      if (sameOrigin) headers.putAll(options.headers());
      if (hopContentType != null) headers.put("Content-Type", hopContentType);
      if (validator != null) {
        @Nullable String etag = validator.etag();
        @Nullable String lastModified = validator.lastModified();
        if (etag != null) headers.put(IF_NONE_MATCH, etag);
        if (lastModified != null) headers.put(IF_MODIFIED_SINCE, lastModified);
      }
      URI sent = withoutUserInfo(hopUri);
      // The signer's credentials go to its own origin only, whatever origin the fetch started at.
      boolean signed = signer != null && origin(sent).equals(signerOrigin);
      HttpResponse<byte[]> response;
      while (true) {
        @Nullable OutgoingRequest outgoing = null;
        URI requestUri = sent;
        if (signed) {
          outgoing =
              new OutgoingRequest(hopMethod, sent, headers, hopBody == null ? NO_BODY : hopBody);
          signer.sign(outgoing);
          requestUri = outgoing.uri();
        }
        HttpRequest.Builder request =
            HttpRequest.newBuilder(requestUri)
                .timeout(left)
                .method(
                    hopMethod,
                    hopBody == null
                        ? BodyPublishers.noBody()
                        : BodyPublishers.ofByteArray(hopBody));
        headers.forEach(request::setHeader);
        if (outgoing != null) outgoing.addedHeaders().forEach(request::setHeader);
        // Every request that goes out is charged, each redirect hop and retry included (G6).
        scope.beforeSend();
        attempt++;
        String sentTo = origin(requestUri);
        scope.sending(
            new RequestStart(hopMethod, sentTo, redactor().url(requestUri.toString()), attempt));
        Instant sentAt = scope.now();
        try {
          response = exchange(method, target, request.build(), left);
        } catch (RuntimeException e) {
          scope.sent(
              method,
              target,
              new RequestInfo(hopMethod, sentTo, 0, failure(e), since(sentAt), attempt));
          throw e;
        }
        scope.sent(
            method,
            target,
            new RequestInfo(
                hopMethod, sentTo, response.statusCode(), null, since(sentAt), attempt));
        if (outgoing == null
            || response.statusCode() != 401
            || retriedUnauthorized
            || !signer.retryAfterUnauthorized(outgoing)) {
          break;
        }
        // One new credential and one retry of this same request, never more (a second 401 is
        // the answer); the timeout still bounds both.
        retriedUnauthorized = true;
        left = Duration.between(scope.now(), deadline);
        if (left.isNegative() || left.isZero()) {
          throw timedOut(method, target, timeout, new HttpTimeoutException("request timed out"));
        }
      }
      @Nullable URI next = redirectTarget(hopUri, response);
      if (next == null) return response;
      if (hop == MAX_REDIRECTS) {
        throw new UncheckedIOException(
            method
                + " "
                + redactor().url(target)
                + " failed: more than "
                + MAX_REDIRECTS
                + " redirects",
            new IOException("too many redirects"));
      }
      if (!hopMethod.equals("GET")) {
        refuseToRedirect(hopMethod, target, origin, response.statusCode(), next);
      }
      hopUri = next;
    }
  }

  /**
   * Refuses a redirect of a POST or PUT that would not reach its target as sent: a 301, 302 or 303
   * (clients, the JDK's among them, turn those into a GET without the body, so a search would
   * silently become another request), or a 307 or 308 to another origin (the body, which may hold
   * credentials or the caller's query, stays with the origin the caller named). A 307 or 308 within
   * the origin is followed with the method and body.
   *
   * @throws UncheckedIOException naming the method, the redacted URL, the status and the redacted
   *     Location: a fetch error, so the page is not committed and the poller's lastError says it
   */
  private void refuseToRedirect(String method, String target, String origin, int status, URI next) {
    boolean keepsMethod = status == 307 || status == 308;
    boolean sameOrigin = origin.equals(origin(next));
    if (keepsMethod && sameOrigin) return;
    String why =
        keepsMethod
            ? "a redirect to another origin is not followed with the request's body"
            : "following it would send a GET without the body, another request than the " + method;
    String message =
        method
            + " "
            + redactor().url(target)
            + " failed: HTTP "
            + status
            + " redirect to "
            + redactor().url(next.toString())
            + " not followed: "
            + why
            + "; point the request at the URL that answers the "
            + method
            + " (a 307 or 308 within the same origin is followed)";
    throw new UncheckedIOException(
        message, new IOException("redirect of a " + method + " refused"));
  }

  // The URI a redirect response points to, or null when it is not a redirect to follow.
  private static @Nullable URI redirectTarget(URI from, HttpResponse<byte[]> response) {
    int status = response.statusCode();
    if (status != 301 && status != 302 && status != 303 && status != 307 && status != 308) {
      return null;
    }
    @Nullable String location = response.headers().firstValue("Location").orElse(null);
    if (location == null || location.isBlank()) return null;
    URI next;
    try {
      next = from.resolve(new URI(location.strip()));
    } catch (URISyntaxException | IllegalArgumentException e) {
      return null;
    }
    String scheme = next.getScheme() == null ? "" : next.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || next.getHost() == null) return null;
    // A downgrade to plain http would expose the request; the JDK's NORMAL policy refused it too.
    if (scheme.equals("http") && from.getScheme().equalsIgnoreCase("https")) return null;
    return next;
  }

  /**
   * The origin of an absolute URI: {@code scheme://host:port}, lower case, with the scheme's
   * default port when the URI names none.
   */
  public static String origin(URI uri) {
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    int port = uri.getPort();
    if (port < 0) port = scheme.equals("https") ? 443 : 80;
    return scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" + port;
  }

  // HttpRequest.timeout() stops at the response headers; the bounded get() also covers the body.
  private HttpResponse<byte[]> exchange(
      String method, String target, HttpRequest request, Duration timeout) {
    CompletableFuture<HttpResponse<byte[]>> future =
        client.sendAsync(request, new BoundedBody(scope.maxBodySize()));
    try {
      return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw timedOut(method, target, timeout, new HttpTimeoutException("request timed out"));
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      String message = method + " " + redactor().url(target) + " interrupted";
      InterruptedIOException cause = new InterruptedIOException(message);
      cause.initCause(e);
      throw new UncheckedIOException(message, cause);
    } catch (ExecutionException e) {
      Throwable failure = e.getCause() == null ? e : e.getCause();
      if (failure instanceof HttpConnectTimeoutException connect) {
        String within =
            client.connectTimeout().map(d -> " within " + d.toMillis() + " ms").orElse("");
        throw new UncheckedIOException(
            method + " " + redactor().url(target) + " failed: could not connect" + within, connect);
      }
      BoundedBody.BodyTooLargeException tooLarge = tooLarge(failure);
      if (tooLarge != null) {
        throw new UncheckedIOException(
            method + " " + redactor().url(target) + " failed: " + tooLarge.getMessage(), tooLarge);
      }
      if (failure instanceof HttpTimeoutException timeoutFailure) {
        throw timedOut(method, target, timeout, timeoutFailure);
      }
      if (failure instanceof IOException io) {
        throw new UncheckedIOException(
            method + " " + redactor().url(target) + " failed: " + describe(io, request.uri()), io);
      }
      if (failure instanceof RuntimeException runtime) throw runtime;
      if (failure instanceof Error error) throw error;
      throw new IllegalStateException(
          method + " " + redactor().url(target) + " failed: " + failure.getClass().getName(),
          failure);
    }
  }

  /** Time since {@code from} on the engine's clock; never negative. */
  private Duration since(Instant from) {
    Duration d = Duration.between(from, scope.now());
    return d.isNegative() ? Duration.ZERO : d;
  }

  /** The kind of a send's failure, from the first cause in its chain that says one. */
  static RequestInfo.Failure failure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof HttpConnectTimeoutException) return RequestInfo.Failure.CONNECT_TIMEOUT;
      if (t instanceof HttpTimeoutException) return RequestInfo.Failure.TIMEOUT;
      if (t instanceof BoundedBody.BodyTooLargeException) return RequestInfo.Failure.BODY_TOO_LARGE;
      if (t instanceof InterruptedIOException) return RequestInfo.Failure.INTERRUPTED;
      if (t.getCause() == t) break;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IOException) return RequestInfo.Failure.IO;
      if (t.getCause() == t) break;
    }
    return RequestInfo.Failure.OTHER;
  }

  // The client may wrap the body's own failure in an IOException of its own.
  private static BoundedBody.@Nullable BodyTooLargeException tooLarge(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof BoundedBody.BodyTooLargeException e) return e;
      if (t.getCause() == t) break;
    }
    return null;
  }

  private UncheckedIOException timedOut(
      String method, String target, Duration timeout, HttpTimeoutException cause) {
    return new UncheckedIOException(
        method
            + " "
            + redactor().url(target)
            + " timed out after "
            + timeout.toMillis()
            + " ms (request timeout)",
        cause);
  }

  private void remember(String urlHash, @Nullable HttpValidator stored, Response response) {
    if (response.status() != 200) return;
    @Nullable String etag = response.header("etag");
    @Nullable String lastModified = response.header("last-modified");
    if (etag == null && lastModified == null) return;
    if (stored != null
        && Objects.equals(stored.etag(), etag)
        && Objects.equals(stored.lastModified(), lastModified)) {
      return;
    }
    scope.storeValidator(urlHash, new HttpValidator(etag, lastModified, scope.now()));
  }

  // The stored validator with what a 304 carries, or null when nothing changed.
  private @Nullable HttpValidator merged(HttpValidator stored, Response notModified) {
    @Nullable String etag = notModified.header("etag");
    @Nullable String lastModified = notModified.header("last-modified");
    @Nullable String newEtag = etag != null ? etag : stored.etag();
    @Nullable String newLastModified = lastModified != null ? lastModified : stored.lastModified();
    if (Objects.equals(newEtag, stored.etag())
        && Objects.equals(newLastModified, stored.lastModified())) {
      return null;
    }
    return new HttpValidator(newEtag, newLastModified, scope.now());
  }

  private Response accept(Response response, boolean notModifiedIsSuccess) {
    int status = response.status();
    if ((status >= 200 && status < 300) || (notModifiedIsSuccess && status == 304)) {
      return response;
    }
    throw statusFailure(response);
  }

  private HttpStatusException statusFailure(Response response) {
    return new HttpStatusException(
        response.status(),
        response.method(),
        response.url(),
        redactor().headers(response.headers()),
        snippet(response));
  }

  private @Nullable String snippet(Response response) {
    String text =
        BodyProblems.text(
            response.bodyBytesUnsafe(),
            response.header("content-encoding"),
            BODY_SNIPPET_BYTES,
            redactor());
    if (text.isEmpty()) return null;
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    if (utf8.length <= BODY_SNIPPET_BYTES) return text;
    int cut = BODY_SNIPPET_BYTES;
    // Back up to the first byte of a UTF-8 sequence so no character is split.
    while (cut > 0 && (utf8[cut] & 0xC0) == 0x80) cut--;
    return new String(utf8, 0, cut, StandardCharsets.UTF_8);
  }

  private URI toUri(String method, String target) {
    URI uri;
    try {
      uri = new URI(target);
    } catch (URISyntaxException e) {
      // The JDK's own message quotes the whole input, secrets included.
      throw new IllegalArgumentException(
          method
              + " "
              + redactor().url(target)
              + ": not a valid URL: "
              + e.getReason()
              + " at index "
              + e.getIndex());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
      throw new IllegalArgumentException(
          method + " " + redactor().url(target) + ": not an absolute http or https URL");
    }
    return uri;
  }

  /**
   * What went wrong, in words a reader of the log acts on: the JDK's exception types (and its often
   * empty messages) name the cause only to a Java programmer.
   */
  private String describe(IOException e, URI uri) {
    String message = e.getMessage();
    String detail = message == null || message.isBlank() ? "" : redactor().message(message);
    // The JDK client reports a failed name lookup as a ConnectException caused by an
    // UnresolvedAddressException, neither naming the host.
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
        return "unknown host " + redactor().message(uri.getHost());
      }
      if (t.getCause() == t) break;
    }
    if (e instanceof ConnectException) return "connection refused";
    if (e instanceof NoRouteToHostException) return "no route to host";
    if (e instanceof SSLException) {
      return detail.isEmpty() ? "TLS handshake failed" : "TLS: " + detail;
    }
    if (e instanceof EOFException) return "the server closed the connection";
    if (detail.isEmpty()) return "I/O error";
    return detail;
  }

  private static boolean hasOwnConditionalHeaders(RequestOptions options) {
    return options.header(IF_NONE_MATCH).isPresent()
        || options.header(IF_MODIFIED_SINCE).isPresent();
  }

  private static String encode(String s) {
    // URLEncoder writes form encoding; %20 reads as a space in both forms and paths.
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
