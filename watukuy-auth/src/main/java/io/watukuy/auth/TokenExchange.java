package io.watukuy.auth;

import com.nimbusds.oauth2.sdk.AuthorizationGrant;
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
import com.nimbusds.oauth2.sdk.token.RefreshToken;
import io.watukuy.Watukuy;
import io.watukuy.auth.ClientCredentialsSigner.ClientAuth;
import io.watukuy.auth.ClientCredentialsSigner.TokenEndpointException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One OAuth2 token endpoint as the signers use it (RFC 6749 section 3.2): sends a grant with the
 * client's authentication, reads the answer with the Nimbus SDK, and turns every failure into a
 * message that names the endpoint and what it said, never a secret. Shared by {@link
 * ClientCredentialsSigner} and {@link RefreshTokenSigner}. Stateless and thread-safe.
 */
final class TokenExchange {

  /** What a successful token response gave. */
  record Tokens(String accessToken, long lifetimeSeconds, @Nullable String refreshToken) {}

  private final URI tokenUrl;
  private final String clientId;
  private final @Nullable String clientSecret;
  private final ClientAuth clientAuth;
  private final List<String> scopes;
  private final @Nullable String audience;
  private final Duration timeout;

  TokenExchange(
      URI tokenUrl,
      String clientId,
      @Nullable String clientSecret,
      ClientAuth clientAuth,
      List<String> scopes,
      @Nullable String audience,
      Duration timeout) {
    this.tokenUrl = tokenUrl;
    this.clientId = clientId;
    this.clientSecret = clientSecret;
    this.clientAuth = clientAuth;
    this.scopes = List.copyOf(scopes);
    this.audience = audience;
    this.timeout = timeout;
  }

  URI url() {
    return tokenUrl;
  }

  String clientId() {
    return clientId;
  }

  /** The client secret, if the client has one, for the signer's {@code secretValues}. */
  @Nullable String clientSecret() {
    return clientSecret;
  }

  /**
   * Sends one token request.
   *
   * @param grant the grant
   * @param refused what the refusal message says was refused ("the client credentials of X")
   * @param hide further secrets the answer may quote (the refresh token sent)
   * @return the tokens
   * @throws UncheckedIOException when the endpoint cannot be reached or does not answer in time
   * @throws TokenEndpointException when it refuses or answers something else than a token response;
   *     {@link TokenEndpointException#error()} is the OAuth2 error code when there is one
   */
  Tokens request(AuthorizationGrant grant, String refused, Collection<String> hide) {
    TokenRequest.Builder b;
    if (clientSecret == null) {
      b = new TokenRequest.Builder(tokenUrl, new ClientID(clientId), grant); // a public client
    } else {
      ClientAuthentication auth =
          clientAuth == ClientAuth.BASIC
              ? new ClientSecretBasic(new ClientID(clientId), new Secret(clientSecret))
              : new ClientSecretPost(new ClientID(clientId), new Secret(clientSecret));
      b = new TokenRequest.Builder(tokenUrl, auth, grant);
    }
    if (!scopes.isEmpty()) b.scope(new Scope(scopes.toArray(String[]::new)));
    if (audience != null) b.customParameter("audience", audience);
    List<String> secrets = new ArrayList<>(hide);
    if (clientSecret != null) secrets.add(clientSecret);
    return send(b.build(), tokenUrl, timeout, refused, secrets);
  }

  /**
   * Sends a token request built elsewhere (a grant that authenticates the client in its own way,
   * such as a JWT-bearer assertion) and reads its answer, with the messages {@link #request} gives.
   *
   * @param tokenRequest the request to send
   * @param tokenUrl the endpoint, for messages
   * @param timeout the connect and the read timeout, each
   * @param refused what the refusal message says was refused
   * @param hide every secret the answer or a failure may quote
   * @return the tokens
   * @throws UncheckedIOException when the endpoint cannot be reached or does not answer in time
   * @throws TokenEndpointException when it refuses or answers something else than a token response
   */
  static Tokens send(
      TokenRequest tokenRequest,
      URI tokenUrl,
      Duration timeout,
      String refused,
      Collection<String> hide) {
    HTTPRequest http = tokenRequest.toHTTPRequest();
    http.setConnectTimeout((int) timeout.toMillis());
    http.setReadTimeout((int) timeout.toMillis());
    http.setFollowRedirects(false);
    HTTPResponse response;
    try {
      response = http.send();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "token endpoint " + tokenUrl + " failed: " + transportFailure(e, timeout, hide), e);
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
              + hidden(e.getMessage(), hide),
          null);
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
                + (status == 404 || status == 405 ? "; check tokenUrl" : ""),
            null);
      }
      String description = error.getDescription();
      throw new TokenEndpointException(
          "token endpoint "
              + tokenUrl
              + " refused "
              + refused
              + ": HTTP "
              + response.getStatusCode()
              + " "
              + error.getCode()
              + (description == null ? "" : " (" + hidden(description, hide) + ")"),
          error.getCode());
    }
    var tokens = parsed.toSuccessResponse().getTokens();
    AccessToken access = tokens.getAccessToken();
    RefreshToken refresh = tokens.getRefreshToken();
    return new Tokens(
        access.getValue(), access.getLifetime(), refresh == null ? null : refresh.getValue());
  }

  /** What went wrong on the way, in words: "connection refused", "no answer within 10 s", … */
  private static String transportFailure(IOException e, Duration timeout, Collection<String> hide) {
    if (e instanceof java.net.ConnectException) return "connection refused";
    if (e instanceof java.net.SocketTimeoutException)
      return "no answer within " + io.watukuy.sink.SinkConfig.formatDuration(timeout);
    if (e instanceof java.net.UnknownHostException) return "unknown host " + e.getMessage();
    String m = e.getMessage();
    return e.getClass().getSimpleName() + (m == null ? "" : " (" + hidden(m, hide) + ")");
  }

  // A description the server wrote may quote what it was sent.
  private static String hidden(@Nullable String text, Collection<String> hide) {
    // The engine's redaction: every encoding, one pass, a short secret only as a whole token.
    return Watukuy.redaction(List.copyOf(hide)).apply(text);
  }
}
