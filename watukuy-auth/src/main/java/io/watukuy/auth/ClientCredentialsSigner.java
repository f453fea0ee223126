package io.watukuy.auth;

import com.nimbusds.oauth2.sdk.ClientCredentialsGrant;
import com.nimbusds.oauth2.sdk.ErrorObject;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.Scope;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.TokenResponse;
import com.nimbusds.oauth2.sdk.auth.ClientAuthentication;
import com.nimbusds.oauth2.sdk.auth.ClientSecretBasic;
import com.nimbusds.oauth2.sdk.auth.ClientSecretPost;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.nimbusds.oauth2.sdk.http.HTTPResponse;
import com.nimbusds.oauth2.sdk.id.ClientID;
import com.nimbusds.oauth2.sdk.token.AccessToken;
import io.watukuy.OutgoingRequest;
import io.watukuy.RequestSigner;
import io.watukuy.TimeSource;
import io.watukuy.Watukuy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * OAuth2 client credentials (RFC 6749 section 4.4): asks the token endpoint for an access token,
 * sends it as {@code Authorization: Bearer TOKEN}, and keeps it until {@link Builder#earlyRefresh}
 * before its {@code expires_in} (a token without {@code expires_in} is kept until a request is
 * refused). Token requests and responses are built and parsed by the Nimbus OAuth 2.0 SDK.
 *
 * <ul>
 *   <li>A 401 to a request signed with the current token drops it: the helper then signs that same
 *       request once more with a new token, and sends it once more ({@link
 *       #retryAfterUnauthorized}).
 *   <li>The token endpoint failing (unreachable, 5xx, an unreadable answer) or refusing ({@code
 *       invalid_client}, {@code invalid_scope}, ...) fails the request with a message naming the
 *       token endpoint, what it said and never a secret; the poller's key backs off as after any
 *       fetch error and keeps the message as its {@code lastError}. Until {@link Builder#backoff}
 *       has passed (doubling after each failure up to {@link #MAX_BACKOFF}) the endpoint is not
 *       asked again: the same failure is reported at once, so no key, partition or retry can make a
 *       hot loop of token requests.
 *   <li>Token requests go out on their own connection, not through the poller's HTTP helper: they
 *       are not charged to the poller's rate budget.
 * </ul>
 *
 * The client secret and the current access token are hidden wherever they would be printed.
 * Thread-safe: one token request at a time, shared by every thread.
 */
public final class ClientCredentialsSigner implements RequestSigner {

  /** How long before the token's expiry it is replaced, unless set: at most half its lifetime. */
  public static final Duration DEFAULT_EARLY_REFRESH = Duration.ofSeconds(30);

  /** The first wait after the token endpoint failed, unless set; it doubles after each failure. */
  public static final Duration DEFAULT_BACKOFF = Duration.ofSeconds(1);

  /** The longest wait between two token requests after failures. */
  public static final Duration MAX_BACKOFF = Duration.ofMinutes(5);

  /** The connect and read timeout of a token request, unless set. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  /** How the client authenticates at the token endpoint (RFC 6749 section 2.3.1). */
  public enum ClientAuth {
    /** HTTP Basic with the URL-encoded client id and secret ({@code client_secret_basic}). */
    BASIC,
    /**
     * {@code client_id} and {@code client_secret} in the form body ({@code client_secret_post}).
     */
    POST
  }

  private final URI tokenUrl;
  private final String clientId;
  private final String clientSecret;
  private final List<String> scopes;
  private final @Nullable String audience;
  private final ClientAuth clientAuth;
  private final Duration earlyRefresh;
  private final Duration firstBackoff;
  private final Duration timeout;
  private final TimeSource time;

  // Guarded by this.
  private @Nullable String token;
  private @Nullable Instant renewAt;
  private @Nullable RuntimeException failure;
  private @Nullable Instant retryAt;
  private Duration backoff;
  private long tokenRequests;

  private ClientCredentialsSigner(Builder b) {
    this.tokenUrl = Objects.requireNonNull(b.tokenUrl, "tokenUrl");
    this.clientId =
        Credentials.nonEmpty("clientId", Objects.requireNonNull(b.clientId, "clientId"));
    this.clientSecret =
        Credentials.nonEmpty(
            "clientSecret", Objects.requireNonNull(b.clientSecret, "clientSecret"));
    this.scopes = List.copyOf(b.scopes);
    this.audience = b.audience;
    this.clientAuth = b.clientAuth;
    this.earlyRefresh = b.earlyRefresh;
    this.firstBackoff = b.backoff;
    this.backoff = b.backoff;
    this.timeout = b.timeout;
    this.time = b.time;
  }

  /**
   * A builder.
   *
   * @param tokenUrl the token endpoint, an absolute http or https URL
   * @param clientId the client identifier
   * @param clientSecret the client secret
   * @return a new builder
   * @throws IllegalArgumentException if the URL is not absolute http or https
   */
  public static Builder builder(String tokenUrl, String clientId, String clientSecret) {
    return new Builder(tokenUrl, clientId, clientSecret);
  }

  /** The token endpoint. */
  public URI tokenUrl() {
    return tokenUrl;
  }

  /** How many token requests were sent so far (successful or not). */
  public synchronized long tokenRequests() {
    return tokenRequests;
  }

  @Override
  public void sign(OutgoingRequest request) {
    request.setHeader("Authorization", "Bearer " + currentToken());
  }

  @Override
  public synchronized boolean retryAfterUnauthorized(OutgoingRequest request) {
    // Another thread may have renewed the token since this request was signed: keep that one.
    if (token != null && request.header("Authorization").orElse("").equals("Bearer " + token)) {
      token = null;
      renewAt = null;
    }
    return true;
  }

  @Override
  public synchronized Set<String> secretValues() {
    Set<String> out = new HashSet<>();
    out.add(clientSecret);
    if (token != null) out.add(token);
    return out;
  }

  private synchronized String currentToken() {
    Instant now = time.now();
    if (token != null && (renewAt == null || now.isBefore(renewAt))) return token;
    if (failure != null && retryAt != null && now.isBefore(retryAt)) throw failure;
    try {
      requestToken(now);
      failure = null;
      retryAt = null;
      backoff = firstBackoff;
      return Objects.requireNonNull(token);
    } catch (RuntimeException e) {
      failure = e;
      retryAt = now.plus(backoff);
      Duration doubled = backoff.multipliedBy(2);
      backoff = doubled.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : doubled;
      throw e;
    }
  }

  private void requestToken(Instant now) {
    ClientAuthentication auth =
        clientAuth == ClientAuth.BASIC
            ? new ClientSecretBasic(new ClientID(clientId), new Secret(clientSecret))
            : new ClientSecretPost(new ClientID(clientId), new Secret(clientSecret));
    TokenRequest.Builder b = new TokenRequest.Builder(tokenUrl, auth, new ClientCredentialsGrant());
    if (!scopes.isEmpty()) b.scope(new Scope(scopes.toArray(String[]::new)));
    if (audience != null) b.customParameter("audience", audience);
    HTTPRequest http = b.build().toHTTPRequest();
    http.setConnectTimeout((int) timeout.toMillis());
    http.setReadTimeout((int) timeout.toMillis());
    http.setFollowRedirects(false);
    tokenRequests++;
    HTTPResponse response;
    try {
      response = http.send();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "token endpoint " + tokenUrl + " failed: " + transportFailure(e), e);
    }
    TokenResponse parsed;
    try {
      parsed = TokenResponse.parse(response);
    } catch (ParseException e) {
      throw new TokenEndpointException(
          "token endpoint "
              + tokenUrl
              + " answered HTTP "
              + response.getStatusCode()
              + " without a token response: "
              + hidden(e.getMessage()));
    }
    if (!parsed.indicatesSuccess()) {
      ErrorObject error = parsed.toErrorResponse().getErrorObject();
      int status = response.getStatusCode();
      if (error.getCode() == null || (status != 400 && status != 401)) {
        // RFC 6749 section 5.2 answers a refused grant or client with 400 or 401; anything else (a
        // 404 from a wrong tokenUrl, a proxy's 403 or 5xx page) is about the URL, not the secret.
        throw new TokenEndpointException(
            "token endpoint "
                + tokenUrl
                + " answered HTTP "
                + status
                + " without a token response"
                + (status == 404 || status == 405 ? "; check tokenUrl" : ""));
      }
      String description = error.getDescription();
      throw new TokenEndpointException(
          "token endpoint "
              + tokenUrl
              + " refused the client credentials of "
              + clientId
              + ": HTTP "
              + response.getStatusCode()
              + " "
              + error.getCode()
              + (description == null ? "" : " (" + hidden(description) + ")"));
    }
    AccessToken access = parsed.toSuccessResponse().getTokens().getAccessToken();
    token = access.getValue();
    long lifetime = access.getLifetime();
    if (lifetime <= 0) {
      renewAt = null;
    } else {
      Duration life = Duration.ofSeconds(lifetime);
      Duration early =
          earlyRefresh.compareTo(life.dividedBy(2)) > 0 ? life.dividedBy(2) : earlyRefresh;
      renewAt = now.plus(life).minus(early);
    }
  }

  /** What went wrong on the way, in words: "connection refused", "timed out after 10s", … */
  private String transportFailure(IOException e) {
    if (e instanceof java.net.ConnectException) return "connection refused";
    if (e instanceof java.net.SocketTimeoutException)
      return "no answer within " + io.watukuy.sink.SinkConfig.formatDuration(timeout);
    if (e instanceof java.net.UnknownHostException) return "unknown host " + e.getMessage();
    String m = e.getMessage();
    return e.getClass().getSimpleName() + (m == null ? "" : " (" + hidden(m) + ")");
  }

  // A description the server wrote may quote what it was sent.
  private String hidden(@Nullable String text) {
    // The engine's redaction: every encoding, one pass, a short secret only as a whole token.
    return Watukuy.redaction(List.of(clientSecret)).apply(text);
  }

  /** The token endpoint refused the request or answered something that is not a token response. */
  public static final class TokenEndpointException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TokenEndpointException(String message) {
      super(message);
    }
  }

  /** Builds a {@link ClientCredentialsSigner}. Not thread-safe. */
  public static final class Builder {
    private final URI tokenUrl;
    private final String clientId;
    private final String clientSecret;
    private List<String> scopes = List.of();
    private @Nullable String audience;
    private ClientAuth clientAuth = ClientAuth.BASIC;
    private Duration earlyRefresh = DEFAULT_EARLY_REFRESH;
    private Duration backoff = DEFAULT_BACKOFF;
    private Duration timeout = DEFAULT_TIMEOUT;
    private TimeSource time = TimeSource.system();

    private Builder(String tokenUrl, String clientId, String clientSecret) {
      URI uri;
      try {
        uri = URI.create(tokenUrl);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("tokenUrl is not a valid URL: " + e.getMessage(), e);
      }
      String scheme = uri.getScheme() == null ? "" : uri.getScheme();
      if (!(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
          || uri.getHost() == null) {
        throw new IllegalArgumentException("tokenUrl is not an absolute http or https URL");
      }
      this.tokenUrl = uri;
      this.clientId = clientId;
      this.clientSecret = clientSecret;
    }

    /** The scopes asked for ({@code scope}, space-separated). Default none. */
    public Builder scopes(List<String> scopes) {
      for (String s : scopes) {
        if (s.isBlank() || s.contains(" ")) {
          throw new IllegalArgumentException("scope '" + s + "' is empty or has a space");
        }
      }
      this.scopes = List.copyOf(scopes);
      return this;
    }

    /** The {@code audience} parameter some servers require (Auth0, Okta). Default none. */
    public Builder audience(String audience) {
      this.audience = Credentials.nonEmpty("audience", audience);
      return this;
    }

    /** How the client authenticates. Default {@link ClientAuth#BASIC}. */
    public Builder clientAuth(ClientAuth clientAuth) {
      this.clientAuth = Objects.requireNonNull(clientAuth, "clientAuth");
      return this;
    }

    /**
     * How long before its expiry a token is replaced; at most half its lifetime is used. Default
     * {@link #DEFAULT_EARLY_REFRESH}.
     */
    public Builder earlyRefresh(Duration earlyRefresh) {
      this.earlyRefresh = notNegative("earlyRefresh", earlyRefresh);
      return this;
    }

    /** The first wait after a failed token request. Default {@link #DEFAULT_BACKOFF}. */
    public Builder backoff(Duration backoff) {
      this.backoff = positive("backoff", backoff);
      return this;
    }

    /** Connect and read timeout of a token request. Default {@link #DEFAULT_TIMEOUT}. */
    public Builder timeout(Duration timeout) {
      this.timeout = positive("timeout", timeout);
      return this;
    }

    /** The clock of expiries and back-offs. Default the system clock. */
    public Builder time(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    /**
     * The signer.
     *
     * @throws IllegalArgumentException if the client id or secret is empty
     */
    public ClientCredentialsSigner build() {
      return new ClientCredentialsSigner(this);
    }

    private static Duration positive(String field, Duration d) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(field + " must be > 0, but was " + d);
      }
      return d;
    }

    private static Duration notNegative(String field, Duration d) {
      if (d.isNegative()) throw new IllegalArgumentException(field + " must be >= 0, but was " + d);
      return d;
    }
  }
}
