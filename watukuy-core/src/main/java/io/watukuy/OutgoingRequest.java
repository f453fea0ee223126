package io.watukuy;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One request as a {@link RequestSigner} sees it, right before it is sent: the method, the URI
 * (query included), the headers set so far and the body bytes. The signer adds headers with {@link
 * #setHeader} or a query parameter with {@link #addQueryParameter}; nothing else changes. Not
 * thread-safe: one per request, used by the sending thread only.
 */
public final class OutgoingRequest {
  private final String method;
  private URI uri;
  private final Map<String, String> headers = new LinkedHashMap<>();
  private final byte[] body;
  private final Map<String, String> added = new LinkedHashMap<>();

  /**
   * @param method upper-case HTTP method, e.g. {@code GET}
   * @param uri the absolute URI the request goes to, query included, without user info
   * @param headers the headers the request carries so far (copied)
   * @param body the body bytes, empty for none (not copied: the signer must not change them)
   */
  public OutgoingRequest(String method, URI uri, Map<String, String> headers, byte[] body) {
    this.method = Objects.requireNonNull(method, "method");
    this.uri = Objects.requireNonNull(uri, "uri");
    headers.forEach(this.headers::put);
    this.body = Objects.requireNonNull(body, "body");
  }

  /** The HTTP method, upper case. */
  public String method() {
    return method;
  }

  /** The URI the request goes to, with any query parameter a signer added. */
  public URI uri() {
    return uri;
  }

  /** The body bytes, empty for a request without a body; the caller must not change them. */
  public byte[] body() {
    return body;
  }

  /** Every header set so far, as names to values, unmodifiable. */
  public Map<String, String> headers() {
    return Collections.unmodifiableMap(headers);
  }

  /** The value of a header, its name compared case-insensitively. */
  public Optional<String> header(String name) {
    for (Map.Entry<String, String> h : headers.entrySet()) {
      if (h.getKey().equalsIgnoreCase(name)) return Optional.of(h.getValue());
    }
    return Optional.empty();
  }

  /** The headers the signer set, names to values, in the order set: what the helper adds. */
  public Map<String, String> addedHeaders() {
    return Collections.unmodifiableMap(added);
  }

  /**
   * Sets a header, replacing one of the same name (compared case-insensitively).
   *
   * @throws IllegalArgumentException for an empty name or a value with a line break
   */
  public OutgoingRequest setHeader(String name, String value) {
    if (name.isEmpty()) throw new IllegalArgumentException("header name is empty");
    if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("header " + name + ": the value has a line break");
    }
    headers
        .keySet()
        .removeIf(k -> k.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT)));
    added.keySet().removeIf(k -> k.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT)));
    headers.put(name, value);
    added.put(name, value);
    return this;
  }

  /**
   * Appends {@code name=value} to the query, both URL-encoded (a space as {@code %20}).
   *
   * @return this request
   */
  public OutgoingRequest addQueryParameter(String name, String value) {
    String pair = encode(name) + "=" + encode(value);
    String raw = uri.toString();
    int hash = raw.indexOf('#');
    String base = hash < 0 ? raw : raw.substring(0, hash);
    String fragment = hash < 0 ? "" : raw.substring(hash);
    String joined;
    if (uri.getRawQuery() == null) joined = base + "?" + pair;
    else if (base.endsWith("?") || base.endsWith("&")) joined = base + pair;
    else joined = base + "&" + pair;
    uri = URI.create(joined + fragment);
    return this;
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
