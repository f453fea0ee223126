package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.RequestSigner;
import io.watukuy.auth.JwtBearerSigner;
import io.watukuy.cli.ConfigReader.At;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;

/**
 * {@code auth: {type: jwtBearer, ...}} (docs/config.md, "auth"): the OAuth2 JWT bearer grant of RFC
 * 7523, made into a {@link JwtBearerSigner}. The key comes either from {@code privateKey} (a PKCS#8
 * PEM, RS* or ES*) or {@code secret} (HS*) beside {@code tokenUrl} and {@code issuer}, or from a
 * Google-style {@code serviceAccount} key file that holds all of them. The key, the secret and the
 * service account file are credentials: {@code ${file:PATH}} or {@code ${ENV}}, hidden wherever
 * they would be printed. A key that cannot be read is a config error at its own line that says why
 * and never quotes it.
 */
final class JwtBearerConfig {
  private JwtBearerConfig() {}

  /** The keys a service account file gives, so they are not set beside it. */
  private static final List<String> FROM_SERVICE_ACCOUNT =
      List.of("tokenUrl", "issuer", "privateKey", "secret", "keyId");

  /**
   * Reads one {@code jwtBearer} auth.
   *
   * @throws io.watukuy.ConfigException naming the file, line and key of the first error
   */
  static RequestSigner signer(At at) {
    at.object(
        "type",
        "tokenUrl",
        "issuer",
        "subject",
        "audience",
        "privateKey",
        "secret",
        "keyId",
        "algorithm",
        "scopes",
        "lifetime",
        "claims",
        "earlyRefresh",
        "serviceAccount");
    JwtBearerSigner.Builder b = at.child("serviceAccount").missing() ? keyed(at) : account(at);
    if (!at.child("subject").missing()) b.subject(at.child("subject").envString());
    if (!at.child("audience").missing()) b.audience(at.child("audience").envString());
    List<String> scopes = AuthConfig.scopes(at.child("scopes"));
    if (scopes != null) b.scopes(scopes);
    At lifetime = at.child("lifetime");
    Duration life = lifetime.duration(null);
    if (life != null) field(lifetime, () -> b.lifetime(life));
    Duration early = at.child("earlyRefresh").duration(null);
    if (early != null) b.earlyRefresh(early);
    claims(at.child("claims"), b);
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw keyError(at, e);
    }
  }

  private static JwtBearerSigner.Builder keyed(At at) {
    At urlAt = at.child("tokenUrl");
    if (urlAt.missing()) {
      throw at.error(
          "tokenUrl: missing (the token endpoint, e.g. https://oauth2.example.com/token), or"
              + " serviceAccount: a key file that names it");
    }
    if (at.child("privateKey").missing() && at.child("secret").missing()) {
      throw at.error(
          "privateKey: missing (a PKCS#8 PEM private key, e.g. \"${file:key.pem}\"), or secret for"
              + " HS256, or serviceAccount: a key file");
    }
    String issuer = AuthConfig.required(at, "issuer").envString();
    JwtBearerSigner.Builder b;
    try {
      b = JwtBearerSigner.builder(urlAt.envString(), issuer);
    } catch (IllegalArgumentException e) {
      throw urlAt.error(e.getMessage());
    }
    if (!at.child("privateKey").missing()) b.privateKey(at.child("privateKey").secret());
    if (!at.child("secret").missing()) b.secret(at.child("secret").secret());
    At algorithm = at.child("algorithm");
    if (!algorithm.missing()) field(algorithm, () -> b.algorithm(algorithm.string("")));
    if (!at.child("keyId").missing()) b.keyId(at.child("keyId").envString());
    return b;
  }

  private static JwtBearerSigner.Builder account(At at) {
    for (String key : FROM_SERVICE_ACCOUNT) {
      if (!at.child(key).missing()) {
        throw at.child(key).error("not with serviceAccount, whose key file gives it");
      }
    }
    if (!at.child("algorithm").missing()) {
      throw at.child("algorithm").error("not with serviceAccount, whose key signs RS256");
    }
    At file = at.child("serviceAccount");
    String json = file.secret();
    try {
      return JwtBearerSigner.serviceAccount(json);
    } catch (IllegalArgumentException e) {
      throw file.error(e.getMessage().replaceFirst("^serviceAccount:? ", ""));
    }
  }

  private static void claims(At claims, JwtBearerSigner.Builder b) {
    if (claims.missing()) return;
    if (!claims.node.isObject()) throw claims.error("must be a map of claim names to values");
    for (Iterator<String> it = claims.node.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      At value = claims.child(name);
      JsonNode n = value.node;
      Object v;
      if (n.isTextual()) v = value.envString();
      else if (n.isIntegralNumber()) v = n.longValue();
      else if (n.isNumber()) v = n.doubleValue();
      else if (n.isBoolean()) v = n.booleanValue();
      else throw value.error("must be a string, number or boolean");
      field(value, () -> b.claim(name, v));
    }
  }

  /**
   * Runs {@code set}; its IllegalArgumentException becomes a config error at {@code at}, without
   * the key's name at the front that the label already gives ("lifetime must be ..." becomes
   * "auth.lifetime: must be ...").
   */
  private static void field(At at, Runnable set) {
    try {
      set.run();
    } catch (IllegalArgumentException e) {
      String message = String.valueOf(e.getMessage());
      String key = at.label.substring(at.label.lastIndexOf('.') + 1) + " ";
      throw at.error(message.startsWith(key) ? message.substring(key.length()) : message);
    }
  }

  /**
   * A key error of {@link JwtBearerSigner.Builder#build} at the line of the key it names
   * ("privateKey is not ..." becomes "auth.privateKey: is not ..."), else at the auth's own line.
   */
  private static io.watukuy.ConfigException keyError(At at, IllegalArgumentException e) {
    String message = String.valueOf(e.getMessage());
    for (String key : List.of("privateKey", "secret", "algorithm", "serviceAccount")) {
      At child = at.child(key);
      if (!child.missing() && message.startsWith(key + " ")) {
        return child.error(message.substring(key.length() + 1));
      }
    }
    return at.error(message);
  }
}
