package io.watukuy;

/**
 * A credential the poller signs its requests with was refused for good: an OAuth2 refresh token
 * answered {@code invalid_grant} (revoked, expired, or already used), or any grant that no retry
 * can repair. A {@link RequestSigner} throws it from {@link RequestSigner#sign}; the engine then
 * opens the key's circuit at once, whatever {@code circuit.failures} says, with this message as
 * {@code lastError} ({@code lastError.name} {@code CredentialRevoked}), so no retry loop asks the
 * authorization server again (docs/config.md, "auth"). The half-open probe after {@code
 * circuit.probeEvery} tries once more, which finds a credential an operator set meanwhile.
 *
 * @since 0.1
 */
public final class CredentialRevokedException extends WatukuyException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message names the credential, the server and what it said; never a secret
   */
  public CredentialRevokedException(String message) {
    super(message, null);
  }

  /** {@inheritDoc} Always {@code false}: only an operator's new credential helps. */
  @Override
  public boolean retryable() {
    return false;
  }

  /** {@inheritDoc} {@code CredentialRevoked}. */
  @Override
  public String kind() {
    return "CredentialRevoked";
  }
}
