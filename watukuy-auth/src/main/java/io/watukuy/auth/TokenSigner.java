package io.watukuy.auth;

import com.nimbusds.oauth2.sdk.TokenRequest;
import io.watukuy.OutgoingRequest;
import io.watukuy.RequestSigner;
import java.net.URI;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * What the OAuth2 signers share: the access token of a {@link TokenEndpoint} sent as {@code
 * Authorization: Bearer TOKEN}, dropped after a 401 so that the one retry gets a new one, and
 * hidden with the grant's own credentials. A grant says only what its token request is.
 */
abstract class TokenSigner implements RequestSigner {
  final TokenEndpoint endpoint;

  /**
   * @param settings the token endpoint settings of the grant's builder
   * @param refused what the endpoint refuses, for messages: "the client credentials of watukuy"
   */
  TokenSigner(TokenSignerBuilder<?> settings, String refused) {
    this.endpoint = new TokenEndpoint(settings, refused, this::tokenRequest, this::credentials);
  }

  /** The token request to send at {@code now}; called under the endpoint's lock. */
  abstract TokenRequest tokenRequest(Instant now);

  /** The grant's own credentials (a client secret, a key, the last assertion), to be hidden. */
  abstract Collection<String> credentials();

  /** The token endpoint. */
  public URI tokenUrl() {
    return endpoint.url();
  }

  /** How many token requests were sent so far (successful or not). */
  public long tokenRequests() {
    return endpoint.requests();
  }

  @Override
  public void sign(OutgoingRequest request) {
    request.setHeader("Authorization", "Bearer " + endpoint.token());
  }

  @Override
  public boolean retryAfterUnauthorized(OutgoingRequest request) {
    endpoint.unauthorized(request);
    return true;
  }

  @Override
  public Set<String> secretValues() {
    Set<String> out = new HashSet<>(credentials());
    String token = endpoint.current();
    if (token != null) out.add(token);
    return out;
  }
}
