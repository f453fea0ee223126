package io.watukuy.internal.http;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BodyFormat;
import io.watukuy.HttpResult;
import io.watukuy.RateLimitInfo;
import io.watukuy.internal.Json;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/** The {@link HttpResult} of {@link DefaultHttp} and {@link HttpResult#of}. Immutable. */
public final class Response implements HttpResult {

  /** Characters of the body quoted in a decoding failure. */
  static final int EXCERPT_CHARS = 60;

  private final @Nullable String who;
  private final int status;
  private final String method;
  private final String url;
  private final Map<String, List<String>> headers;
  private final byte[] body;
  private final Instant receivedAt;
  private final Redactor redactor;
  // Decoded on first use; a racing second decode yields an equal String.
  private @Nullable String text;
  // Parsed on first use and kept: the scheduler reads them after fetch code may have. A racing
  // second parse yields an equal value.
  private @Nullable Optional<Instant> retryAfter;
  private @Nullable Optional<RateLimitInfo> rateLimit;

  /**
   * @param url the request URL as sent; redacted here with {@code redactor}
   * @param headers response headers; names are lower-cased, values of names differing only in case
   *     are merged and HTTP/2 pseudo-headers are dropped
   * @param body the body; copied
   * @param redactor hides secrets in {@link #url()} and in decoding-failure messages
   */
  public Response(
      int status,
      String method,
      String url,
      Map<String, List<String>> headers,
      byte[] body,
      Instant receivedAt,
      Redactor redactor) {
    this(status, method, url, headers, body, receivedAt, redactor, null);
  }

  /**
   * A response of a poller's request: {@code who} ({@code poller orders}, and partition) starts the
   * warning of a Retry-After that cannot be read.
   */
  public Response(
      int status,
      String method,
      String url,
      Map<String, List<String>> headers,
      byte[] body,
      Instant receivedAt,
      Redactor redactor,
      @Nullable String who) {
    this(status, method, url, headers, body.clone(), receivedAt, redactor, who, true);
  }

  /**
   * A response of a poller's request that takes {@code body} as its own, without copying it: the
   * caller hands it over and keeps no reference (the body may be {@code request.maxBodySize} large,
   * and one copy of it is enough).
   */
  static Response owning(
      int status,
      String method,
      String url,
      Map<String, List<String>> headers,
      byte[] body,
      Instant receivedAt,
      Redactor redactor,
      @Nullable String who) {
    return new Response(status, method, url, headers, body, receivedAt, redactor, who, true);
  }

  private Response(
      int status,
      String method,
      String url,
      Map<String, List<String>> headers,
      byte[] body,
      Instant receivedAt,
      Redactor redactor,
      @Nullable String who,
      boolean owned) {
    // `owned` only tells this constructor apart from the public one: `body` is kept as it is.
    this.who = who;
    this.status = status;
    this.method = Objects.requireNonNull(method, "method");
    this.redactor = Objects.requireNonNull(redactor, "redactor");
    this.url = redactor.url(Objects.requireNonNull(url, "url"));
    this.headers = lowerCased(Objects.requireNonNull(headers, "headers"));
    this.body = body;
    this.receivedAt = Objects.requireNonNull(receivedAt, "receivedAt");
  }

  @Override
  public int status() {
    return status;
  }

  @Override
  public String method() {
    return method;
  }

  @Override
  public String url() {
    return url;
  }

  @Override
  public Map<String, List<String>> headers() {
    return headers;
  }

  @Override
  public byte[] bodyBytes() {
    return body.clone();
  }

  /** The body without copying, for the helper's own use. */
  byte[] bodyBytesUnsafe() {
    return body;
  }

  @Override
  public String body() {
    String t = text;
    if (t == null) {
      t = new String(body, StandardCharsets.UTF_8);
      text = t;
    }
    return t;
  }

  @Override
  public <R> R json(Class<R> type) {
    Objects.requireNonNull(type, "type");
    try {
      return Json.VENDOR.readValue(body, type);
    } catch (IOException e) {
      throw decodingFailed(type.getSimpleName(), e);
    }
  }

  @Override
  public <R> R json(TypeReference<R> type) {
    Objects.requireNonNull(type, "type");
    try {
      return Json.VENDOR.readValue(body, type);
    } catch (IOException e) {
      throw decodingFailed(type.getType().getTypeName(), e);
    }
  }

  @Override
  public JsonNode json() {
    try {
      return Json.VENDOR_TREE.readTree(body);
    } catch (IOException e) {
      throw decodingFailed("a JSON tree", e);
    }
  }

  @Override
  public JsonNode tree(BodyFormat format) {
    Objects.requireNonNull(format, "format");
    return tree(body, format);
  }

  /**
   * {@link HttpResult#tree(BodyFormat)} of {@code bytes}, this response's body or a copy of another
   * result's. JSON without a charset other than UTF-8 goes through {@link #json()}, with its
   * messages.
   */
  private JsonNode tree(byte[] bytes, BodyFormat format) {
    @Nullable Charset charset;
    try {
      charset = BodyFormats.charset(header("content-type"));
    } catch (IOException e) {
      throw decodingFailed(format, e);
    }
    if (format == BodyFormats.JSON
        && (charset == null || charset.equals(StandardCharsets.UTF_8))
        && bytes == body) {
      return json();
    }
    try {
      return format.read(new ByteArrayInputStream(bytes), charset);
    } catch (IOException e) {
      throw decodingFailed(format, e);
    }
  }

  /**
   * {@link HttpResult#tree(BodyFormat)}: a response of the engine's is read in place; another
   * result through its copy of the body.
   */
  public static JsonNode tree(HttpResult result, BodyFormat format) {
    Objects.requireNonNull(format, "format");
    if (result instanceof Response r) return r.tree(format);
    return new Response(
            result.status(),
            result.method(),
            result.url(),
            result.headers(),
            result.bodyBytes(),
            result.receivedAt(),
            Redactor.NONE,
            null,
            true)
        .tree(format);
  }

  @Override
  public Instant receivedAt() {
    return receivedAt;
  }

  @Override
  public Optional<Instant> retryAfter() {
    Optional<Instant> parsed = retryAfter;
    if (parsed == null) {
      parsed = RetryAfter.parse(header("retry-after"), header("date"), receivedAt, who);
      retryAfter = parsed;
    }
    return parsed;
  }

  @Override
  public Optional<RateLimitInfo> rateLimit() {
    Optional<RateLimitInfo> parsed = rateLimit;
    if (parsed == null) {
      parsed = RateLimitHeaders.parse(headers, receivedAt);
      rateLimit = parsed;
    }
    return parsed;
  }

  @Override
  public String toString() {
    return method + " " + url + " -> " + status;
  }

  /**
   * The message of a body that cannot be decoded: the request, the status and content type, what is
   * wrong and where (a JSON Pointer names the item), and the start of the body, never binary bytes
   * (docs/operations.md, "Bodies that are refused").
   */
  private UncheckedIOException decodingFailed(String target, IOException e) {
    return failed(
        BodyProblems.limit(e) != null
            ? "the body is JSON beyond a parser limit: "
            : "the body is not valid JSON for " + target + ": ",
        e);
  }

  /** As {@link #decodingFailed(String, IOException)}, for a body read in {@code format}. */
  private UncheckedIOException decodingFailed(BodyFormat format, IOException e) {
    String name = format.name().toUpperCase(Locale.ROOT);
    return failed(
        BodyProblems.limit(e) != null
            ? "the body is " + name + " beyond a parser limit: "
            : "the body is not valid " + name + ": ",
        e);
  }

  private UncheckedIOException failed(String what, IOException e) {
    String problem = BodyProblems.describe(e);
    @Nullable String type = header("content-type");
    String start = BodyProblems.excerpt(body, header("content-encoding"), EXCERPT_CHARS, redactor);
    String message =
        method
            + " "
            + url
            + " (HTTP "
            + status
            + (type == null ? "" : ", Content-Type " + type)
            + "): "
            + what
            + redactor.message(problem)
            + (start.isEmpty()
                ? "; empty body"
                : start.startsWith("binary body") ? "; " + start : "; body starts '" + start + "'");
    return new UncheckedIOException(message, e);
  }

  /**
   * {@link HttpResult#bodyExcerpt}: a response of the engine's is read in place, with its redactor;
   * another result through its copy of the body.
   */
  public static String excerpt(HttpResult result, int maxChars) {
    if (maxChars <= 0) throw new IllegalArgumentException("maxChars must be > 0: " + maxChars);
    if (result instanceof Response r) {
      return BodyProblems.excerpt(r.body, r.header("content-encoding"), maxChars, r.redactor);
    }
    return BodyProblems.excerpt(
        result.bodyBytes(), result.header("content-encoding"), maxChars, Redactor.NONE);
  }

  private static Map<String, List<String>> lowerCased(Map<String, List<String>> headers) {
    TreeMap<String, List<String>> out = new TreeMap<>();
    headers.forEach(
        (name, values) -> {
          if (name.startsWith(":")) return;
          out.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).addAll(values);
        });
    out.replaceAll((name, values) -> List.copyOf(values));
    return Collections.unmodifiableMap(out);
  }
}
