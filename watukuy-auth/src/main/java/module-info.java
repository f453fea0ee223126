/**
 * Request signers for pollers (docs/config.md, "auth"): {@code BearerSigner}, {@code BasicSigner},
 * {@code ApiKeySigner}, {@code HmacSigner}, {@code ClientCredentialsSigner} (OAuth2 client
 * credentials over the Nimbus OAuth 2.0 SDK), {@code JwtBearerSigner} (the RFC 7523 JWT bearer
 * grant) and {@code RefreshTokenSigner} (rotating refresh tokens kept sealed in the store). Each is
 * an {@code io.watukuy.RequestSigner}.
 */
module io.watukuy.auth {
  requires transitive io.watukuy;
  requires oauth2.oidc.sdk;
  requires com.nimbusds.jose.jwt;
  requires static org.jspecify;

  exports io.watukuy.auth;
}
