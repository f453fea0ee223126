package io.watukuy.auth;

import com.nimbusds.oauth2.sdk.ClientCredentialsGrant;
import io.watukuy.OutgoingRequest;
import io.watukuy.RequestSigner;
import io.watukuy.TimeSource;
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

  private final TokenEndpoint endpoint;
  private final String clientId;
  private final String clientSecret;
  private final Duration earlyRefresh;
  private final TimeSource time;

  // Guarded by this.
  private @Nullable String token;
  private @Nullable Instant renewAt;
  private final FailureBackoff backoff;
  private long tokenRequests;

  private ClientCredentialsSigner(Builder b) {
    this.clientId =
        Credentials.nonEmpty("clientId", Objects.requireNonNull(b.clientId, "clientId"));
    this.clientSecret =
        Credentials.nonEmpty(
            "clientSecret", Objects.requireNonNull(b.clientSecret, "clientSecret"));
    this.endpoint =
        new TokenEndpoint(
            Objects.requireNonNull(b.tokenUrl, "tokenUrl"),
            clientId,
            clientSecret,
            b.clientAuth,
            b.scopes,
            b.audience,
            b.timeout);
    this.earlyRefresh = b.earlyRefresh;
    this.backoff = new FailureBackoff(b.backoff);
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
    return endpoint.url();
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
    backoff.throwIfWaiting(now);
    try {
      requestToken(now);
      backoff.succeeded();
      return Objects.requireNonNull(token);
    } catch (RuntimeException e) {
      backoff.failed(e, now);
      throw e;
    }
  }

  private void requestToken(Instant now) {
    tokenRequests++;
    TokenEndpoint.Tokens t =
        endpoint.request(
            new ClientCredentialsGrant(), "the client credentials of " + clientId, List.of());
    token = t.accessToken();
    renewAt = renewAt(now, t.lifetimeSeconds(), earlyRefresh);
  }

  /**
   * When a token obtained at {@code now} is to be replaced: {@code earlyRefresh} before its
   * lifetime ends, at most half the lifetime early; null for a token without a lifetime.
   */
  static @Nullable Instant renewAt(Instant now, long lifetimeSeconds, Duration earlyRefresh) {
    if (lifetimeSeconds <= 0) return null;
    Duration life = Duration.ofSeconds(lifetimeSeconds);
    Duration early =
        earlyRefresh.compareTo(life.dividedBy(2)) > 0 ? life.dividedBy(2) : earlyRefresh;
    return now.plus(life).minus(early);
  }

  /** The token endpoint refused the request or answered something that is not a token response. */
  public static final class TokenEndpointException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final @Nullable String error;

    TokenEndpointException(String message, @Nullable String error) {
      super(message);
      this.error = error;
    }

    /**
     * The OAuth2 error code the endpoint answered (RFC 6749 section 5.2), such as {@code
     * invalid_client} or {@code invalid_grant}.
     *
     * @return the code, or null when the answer was not an error response
     */
    public @Nullable String error() {
      return error;
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
      URI uri = Credentials.tokenUrl(tokenUrl);
      this.tokenUrl = uri;
      this.clientId = clientId;
      this.clientSecret = clientSecret;
    }

    /** The scopes asked for ({@code scope}, space-separated). Default none. */
    public Builder scopes(List<String> scopes) {
      this.scopes = Credentials.scopes(scopes);
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
