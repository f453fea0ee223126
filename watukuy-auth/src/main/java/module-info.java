/**
 * Request signers for pollers (docs/config.md, "auth"): {@code BearerSigner}, {@code BasicSigner},
 * {@code ApiKeySigner}, {@code HmacSigner} and {@code ClientCredentialsSigner} (OAuth2 client
 * credentials over the Nimbus OAuth 2.0 SDK) and {@code RefreshTokenSigner} (rotating refresh
 * tokens kept sealed in the store). Each is an {@code io.watukuy.RequestSigner}.
 */
module io.watukuy.auth {
  requires transitive io.watukuy;
  requires oauth2.oidc.sdk;
  requires static org.jspecify;

  exports io.watukuy.auth;
}
