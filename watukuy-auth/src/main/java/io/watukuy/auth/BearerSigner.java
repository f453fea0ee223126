package io.watukuy.auth;

import io.watukuy.OutgoingRequest;
import io.watukuy.RequestSigner;
import java.util.Set;

/**
 * Sends a fixed token as {@code Authorization: Bearer TOKEN} (RFC 6750 section 2.1). The token is
 * hidden wherever it would be printed. Immutable and thread-safe.
 */
public final class BearerSigner implements RequestSigner {
  private final String token;

  /**
   * @param token the token, sent as it is
   * @throws IllegalArgumentException if the token is blank or has a line break
   */
  public BearerSigner(String token) {
    this.token = Credentials.headerValue("token", token);
  }

  @Override
  public void sign(OutgoingRequest request) {
    request.setHeader("Authorization", "Bearer " + token);
  }

  @Override
  public Set<String> secretValues() {
    return Set.of(token);
  }
}
