package io.watukuy;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Per-request settings of {@link Http}: query parameters, extra headers, conditional-request
 * validators and the whole-request timeout. Immutable and thread-safe; build one with {@link
 * #builder()} and derive variants with {@link #toBuilder()}.
 *
 * <pre>{@code
 * HttpResult res = ctx.http().get("https://erp.example.com/orders",
 *     RequestOptions.builder()
 *         .query("updated_since", cursor.value())   // null: the parameter is not sent at all
 *         .query("limit", 500)
 *         .header("Authorization", "Bearer " + token)
 *         .build());
 * }</pre>
 *
 * @since 0.1
 */
public final class RequestOptions {

  /** Time allowed to open a connection: 10 s (docs/architecture.md, "Defaults"). */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Time allowed for a whole request, from sending it until the response body is read: 30 s
   * (docs/architecture.md, "Defaults"). The poller's {@code request.timeout} replaces it for every
   * request of the poller; {@link Builder#timeout(Duration)} replaces it for one request.
   */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /**
   * The largest response body a poller reads: 32 MiB (docs/config.md, "request.maxBodySize"). A
   * listing page is a few hundred KB at most in practice; 32 MiB leaves room for pages of large
   * items while a JSON tree of it (several times its size) still fits a small heap beside other
   * pollers. The poller's {@code request.maxBodySize} replaces it.
   */
  public static final long DEFAULT_MAX_BODY_SIZE = 32L * 1024 * 1024;

  /** Conditional requests are on unless a request turns them off. */
  public static final boolean DEFAULT_VALIDATORS = true;

  /** No query, no extra headers, validators on, the poller's timeout. */
  public static final RequestOptions DEFAULT = new Builder().build();

  // Set by the JDK client itself; java.net.http.HttpRequest rejects them.
  private static final Set<String> RESTRICTED_HEADERS =
      Set.of("connection", "content-length", "expect", "host", "upgrade");

  private final Map<String, String> query;
  private final Map<String, String> headers;
  private final boolean validators;
  private final @Nullable Duration timeout;

  private RequestOptions(Builder b) {
    this.query = Collections.unmodifiableMap(new LinkedHashMap<>(b.query));
    this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
    this.validators = b.validators;
    this.timeout = b.timeout;
  }

  /**
   * A builder with the defaults: no query, no headers, validators on, the poller's timeout.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A builder that starts from these options; changing it does not change them.
   *
   * @return a new builder holding a copy of every setting
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.query.putAll(query);
    b.headers.putAll(headers);
    b.validators = validators;
    b.timeout = timeout;
    return b;
  }

  /**
   * Query parameters to append to the URL, in insertion order: names as given, values already
   * rendered with {@link String#valueOf(Object)} and not yet URL-encoded. Parameters whose value
   * was null are absent.
   *
   * @return an unmodifiable map, empty by default
   */
  public Map<String, String> query() {
    return query;
  }

  /**
   * Extra request headers in insertion order, names as last given (setting a header again moves it
   * to the end under the new spelling of its name). They replace the helper's defaults ({@code
   * Accept: application/json}, {@code User-Agent: watukuy/0.1}) when the names match
   * case-insensitively.
   *
   * @return an unmodifiable map, empty by default
   */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * The value of a header set on these options.
   *
   * @param name the header name, compared case-insensitively
   * @return the value, or empty when these options do not set the header
   * @throws NullPointerException if {@code name} is null
   */
  public Optional<String> header(String name) {
    Objects.requireNonNull(name, "name");
    for (Map.Entry<String, String> e : headers.entrySet()) {
      if (e.getKey().equalsIgnoreCase(name)) return Optional.of(e.getValue());
    }
    return Optional.empty();
  }

  /**
   * Whether a GET sends and stores {@code If-None-Match} / {@code If-Modified-Since}.
   *
   * @return {@code true} unless turned off; default {@value #DEFAULT_VALIDATORS}
   */
  public boolean validators() {
    return validators;
  }

  /**
   * The whole-request timeout of this request.
   *
   * @return the timeout, or empty for the poller's request timeout
   */
  public Optional<Duration> timeout() {
    return Optional.ofNullable(timeout);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RequestOptions other
        && query.equals(other.query)
        && headers.equals(other.headers)
        && validators == other.validators
        && Objects.equals(timeout, other.timeout);
  }

  @Override
  public int hashCode() {
    return Objects.hash(query, headers, validators, timeout);
  }

  /** Names only: header and query values may hold credentials. */
  @Override
  public String toString() {
    return "RequestOptions{query="
        + query.keySet()
        + ", headers="
        + headers.keySet()
        + ", validators="
        + validators
        + ", timeout="
        + (timeout == null ? "default" : timeout)
        + "}";
  }

  /**
   * Builds {@link RequestOptions}. Not thread-safe; each setter returns this builder. Setting a
   * query parameter or header again replaces its earlier value.
   *
   * @since 0.1
   */
  public static final class Builder {
    private final LinkedHashMap<String, String> query = new LinkedHashMap<>();
    // Keyed by the name as last given; lookups are case-insensitive, see header().
    private final LinkedHashMap<String, String> headers = new LinkedHashMap<>();
    private boolean validators = DEFAULT_VALIDATORS;
    private @Nullable Duration timeout;

    private Builder() {}

    /**
     * Adds every entry of {@code params} as a query parameter, in the map's iteration order (use a
     * {@link LinkedHashMap} to keep an order). Entries with a null value are dropped, and remove a
     * parameter of that name set earlier, so {@code Map.of("after_id", cursor)} sends nothing while
     * the cursor is null.
     *
     * @param params parameter names to values rendered with {@link String#valueOf(Object)}
     * @return this builder
     * @throws NullPointerException if {@code params} or one of its keys is null
     * @throws ConfigException if one of its keys is empty
     */
    public Builder query(Map<String, ?> params) {
      Objects.requireNonNull(params, "params");
      params.forEach(this::query);
      return this;
    }

    /**
     * Adds one query parameter: {@code value} rendered with {@link String#valueOf(Object)} and
     * URL-encoded (UTF-8, a space as {@code %20}) when the request is made, appended after any
     * query already in the URL. A null {@code value} drops the parameter instead.
     *
     * @param name the parameter name, sent URL-encoded; not empty
     * @param value the value, or {@code null} to remove the parameter
     * @return this builder
     * @throws NullPointerException if {@code name} is null
     * @throws ConfigException if {@code name} is empty
     */
    public Builder query(String name, @Nullable Object value) {
      Objects.requireNonNull(name, "query parameter name");
      if (name.isEmpty()) throw new ConfigException("query parameter name must not be empty");
      if (value == null) {
        query.remove(name);
      } else {
        query.put(name, String.valueOf(value));
      }
      return this;
    }

    /**
     * Sets a request header, replacing a value set earlier under the same name (compared
     * case-insensitively) and the helper's default for that name. {@code Content-Type} here is the
     * content type of a {@link Http#post} body given as a String.
     *
     * @param name the header name, an HTTP token
     * @param value the value; may hold a credential, which is never echoed in messages
     * @return this builder
     * @throws NullPointerException if {@code name} or {@code value} is null
     * @throws ConfigException if {@code name} is not an HTTP token, is one the HTTP client sets
     *     itself ({@code Connection}, {@code Content-Length}, {@code Expect}, {@code Host}, {@code
     *     Upgrade}), or {@code value} contains CR, LF or NUL
     */
    public Builder header(String name, String value) {
      Objects.requireNonNull(name, "header name");
      Objects.requireNonNull(value, "header value");
      if (!isToken(name)) {
        throw new ConfigException("header name '" + name + "' is not a valid HTTP field name");
      }
      if (RESTRICTED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
        throw new ConfigException(
            "header " + name + " is set by the HTTP client and cannot be set per request");
      }
      // The value is not echoed: it may be a credential.
      if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0 || value.indexOf('\0') >= 0) {
        throw new ConfigException("header " + name + ": value contains CR, LF or NUL");
      }
      headers.keySet().removeIf(existing -> existing.equalsIgnoreCase(name));
      headers.put(name, value);
      return this;
    }

    /**
     * Whether a GET sends the validators stored for its URL ({@code If-None-Match}, {@code
     * If-Modified-Since}) and stores those of a 200. Default true. Turn it off for URLs that change
     * every cycle (a timestamp in the query): each distinct URL keeps one stored row per poller
     * key. POST requests never use validators.
     *
     * @param enabled {@code false} to send no validators and store none
     * @return this builder
     */
    public Builder validators(boolean enabled) {
      this.validators = enabled;
      return this;
    }

    /**
     * The whole-request timeout of this request, replacing the poller's (itself by default {@link
     * #DEFAULT_REQUEST_TIMEOUT}). The connect timeout is the HTTP client's.
     *
     * @param timeout time from sending the request until the body is read; positive
     * @return this builder
     * @throws NullPointerException if {@code timeout} is null
     * @throws ConfigException if {@code timeout} is zero or negative
     */
    public Builder timeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isZero() || timeout.isNegative()) {
        throw new ConfigException("request timeout must be > 0, but was " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * The immutable options. The builder stays usable.
     *
     * @return new options holding a copy of this builder's settings
     */
    public RequestOptions build() {
      return new RequestOptions(this);
    }

    private static boolean isToken(String s) {
      if (s.isEmpty()) return false;
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        boolean ok =
            (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
        if (!ok) return false;
      }
      return true;
    }
  }
}
