/**
 * Request signers: static credentials ({@link io.watukuy.auth.BearerSigner}, {@link
 * io.watukuy.auth.BasicSigner}, {@link io.watukuy.auth.ApiKeySigner}), an HMAC signature over each
 * request ({@link io.watukuy.auth.HmacSigner}) OAuth2 client credentials ({@link
 * io.watukuy.auth.ClientCredentialsSigner}) and the OAuth2 JWT bearer grant ({@link
 * io.watukuy.auth.JwtBearerSigner}). Set one on a poller with {@code
 * Poller.Builder.requestSigner(origin, signer)}.
 */
@NullMarked
package io.watukuy.auth;

import org.jspecify.annotations.NullMarked;
