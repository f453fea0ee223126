package io.watukuy.auth;

import com.nimbusds.oauth2.sdk.ClientCredentialsGrant;
import com.nimbusds.oauth2.sdk.Scope;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.auth.ClientAuthentication;
import com.nimbusds.oauth2.sdk.auth.ClientSecretBasic;
import com.nimbusds.oauth2.sdk.auth.ClientSecretPost;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.id.ClientID;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * OAuth2 client credentials (RFC 6749 section 4.4): asks the token endpoint for an access token,
 * sends it as {@code Authorization: Bearer TOKEN}, and keeps it until {@link
 * TokenSignerBuilder#earlyRefresh} before its {@code expires_in} (a token without {@code
 * expires_in} is kept until a request is refused). Token requests and responses are built and
 * parsed by the Nimbus OAuth 2.0 SDK.
 *
 * <ul>
 *   <li>A 401 to a request signed with the current token drops it: the helper then signs that same
 *       request once more with a new token, and sends it once more ({@link
 *       #retryAfterUnauthorized}).
 *   <li>The token endpoint failing (unreachable, 5xx, an unreadable answer) or refusing ({@code
 *       invalid_client}, {@code invalid_scope}, ...) fails the request with a message naming the
 *       token endpoint, what it said and never a secret; the poller's key backs off as after any
 *       fetch error and keeps the message as its {@code lastError}. Until {@link
 *       TokenSignerBuilder#backoff} has passed (doubling after each failure up to {@link
 *       #MAX_BACKOFF}) the endpoint is not asked again: the same failure is reported at once, so no
 *       key, partition or retry can make a hot loop of token requests.
 *   <li>Token requests go out on their own connection, not through the poller's HTTP helper: they
 *       are not charged to the poller's rate budget.
 * </ul>
 *
 * The client secret and the current access token are hidden wherever they would be printed.
 * Thread-safe: one token request at a time, shared by every thread.
 */
public final class ClientCredentialsSigner extends TokenSigner {

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

  private final String clientId;
  private final String clientSecret;
  private final List<String> scopes;
  private final @Nullable String audience;
  private final ClientAuth clientAuth;

  private ClientCredentialsSigner(Builder b) {
    super(b, "the client credentials of " + b.clientId);
    this.clientId =
        Credentials.nonEmpty("clientId", Objects.requireNonNull(b.clientId, "clientId"));
    this.clientSecret =
        Credentials.nonEmpty(
            "clientSecret", Objects.requireNonNull(b.clientSecret, "clientSecret"));
    this.scopes = b.scopes;
    this.audience = b.audience;
    this.clientAuth = b.clientAuth;
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

  @Override
  Collection<String> credentials() {
    return List.of(clientSecret);
  }

  @Override
  TokenRequest tokenRequest(Instant now) {
    ClientAuthentication auth =
        clientAuth == ClientAuth.BASIC
            ? new ClientSecretBasic(new ClientID(clientId), new Secret(clientSecret))
            : new ClientSecretPost(new ClientID(clientId), new Secret(clientSecret));
    TokenRequest.Builder b =
        new TokenRequest.Builder(endpoint.url(), auth, new ClientCredentialsGrant());
    if (!scopes.isEmpty()) b.scope(new Scope(scopes.toArray(String[]::new)));
    if (audience != null) b.customParameter("audience", audience);
    return b.build();
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
     * invalid_grant} or {@code invalid_client}.
     *
     * @return the code, or null when the answer was not an OAuth2 error response
     */
    public @Nullable String error() {
      return error;
    }
  }

  /**
   * Builds a {@link ClientCredentialsSigner}; the token endpoint settings shared by the OAuth2
   * signers are in {@link TokenSignerBuilder}. Not thread-safe.
   */
  public static final class Builder extends TokenSignerBuilder<Builder> {
    private final String clientId;
    private final String clientSecret;
    private List<String> scopes = List.of();
    private @Nullable String audience;
    private ClientAuth clientAuth = ClientAuth.BASIC;

    private Builder(String tokenUrl, String clientId, String clientSecret) {
      super(tokenUrl);
      this.clientId = clientId;
      this.clientSecret = clientSecret;
    }

    /** The scopes asked for ({@code scope}, space-separated). Default none. */
    public Builder scopes(List<String> scopes) {
      this.scopes = checkedScopes(scopes);
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
     * The signer.
     *
     * @throws IllegalArgumentException if the client id or secret is empty
     */
    public ClientCredentialsSigner build() {
      return new ClientCredentialsSigner(this);
    }
  }
}
