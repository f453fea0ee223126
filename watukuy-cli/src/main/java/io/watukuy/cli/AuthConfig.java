package io.watukuy.cli;

import io.watukuy.RequestSigner;
import io.watukuy.auth.ApiKeySigner;
import io.watukuy.auth.BasicSigner;
import io.watukuy.auth.BearerSigner;
import io.watukuy.auth.ClientCredentialsSigner;
import io.watukuy.auth.HmacSigner;
import io.watukuy.auth.RefreshTokenSigner;
import io.watukuy.cli.ConfigReader.At;
import io.watukuy.spi.CredentialStore;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * {@code auth:} of a poller and the named ones under a top-level {@code auths:} (docs/config.md,
 * "auth"): bearer, basic, apiKey, oauth2 (client credentials), hmac and jwtBearer (RFC 7523, read
 * by {@link JwtBearerConfig}), each made into a {@link RequestSigner} of watukuy-auth. Every
 * credential ({@code token}, {@code password}, {@code value}, {@code clientSecret}, {@code secret})
 * may be written as {@code ${ENV}} or {@code ${file:PATH}} (trimmed), and is hidden wherever it
 * would be printed, whatever it looks like. A named auth is one signer shared by every poller that
 * names it: one OAuth2 token for all of them.
 */
final class AuthConfig {
  private AuthConfig() {}

  /** The types an {@code auth:} may have, as written. */
  static final List<String> TYPES =
      List.of("bearer", "basic", "apiKey", "oauth2", "hmac", "jwtBearer");

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");

  /**
   * A poller's signer and the origin ({@code scheme://host:port}) of its request URL: the one
   * origin the credentials go to.
   */
  record PollerAuth(String origin, RequestSigner signer) {}

  /**
   * {@code auths: {NAME: {type, ...}}}, each made once.
   *
   * @throws io.watukuy.ConfigException naming the file, line and key of the first error
   */
  static Map<String, RequestSigner> named(At auths) {
    return named(auths, null, null);
  }

  /**
   * {@code auths:} with what a {@code grant: refreshToken} needs: the {@code secretKey} that seals
   * its row and the store's credentials table.
   *
   * @throws io.watukuy.ConfigException as {@link #named(At)}, and for a refresh token grant without
   *     {@code secretKey}
   */
  static Map<String, RequestSigner> named(
      At auths, io.watukuy.@Nullable SealingKeys keys, @Nullable CredentialStore credentials) {
    Map<String, RequestSigner> out = new LinkedHashMap<>();
    if (auths.missing()) return out;
    if (!auths.node.isObject()) throw auths.error("must be a map of names to auth settings");
    for (Iterator<String> it = auths.node.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      At one = auths.child(name);
      if (!NAME.matcher(name).matches()) {
        throw one.error("'" + name + "' is not an auth name (letters, digits, _ . -)");
      }
      out.put(name, signer(one, new Stored(name, keys, credentials)));
    }
    return out;
  }

  /**
   * A poller's {@code auth:}, a map or the name of one under {@code auths:}; null when absent.
   *
   * @param requestUrl the poller's {@code request.url}, whose origin the credentials go to
   * @throws io.watukuy.ConfigException for an unknown name, an unknown type, a missing or bad value
   */
  static @Nullable PollerAuth poller(At auth, At requestUrl, Map<String, RequestSigner> named) {
    if (auth.missing()) return null;
    RequestSigner signer;
    if (auth.node.isTextual()) {
      signer = named.get(auth.node.textValue());
      if (signer == null) {
        throw auth.error(
            "'"
                + auth.node.textValue()
                + "' is not declared under auths"
                + (named.isEmpty()
                    ? " (the file has no auths: section)"
                    : " (declared: " + String.join(", ", new TreeSet<>(named.keySet())) + ")"));
      }
    } else {
      signer = signer(auth, null);
    }
    return new PollerAuth(origin(requestUrl), signer);
  }

  // scheme://host:port of the URL (${ENV} replaced); a {{variable}} there would make the origin
  // unknowable until a request is made.
  private static String origin(At urlAt) {
    String url = urlAt.envString();
    int scheme = url.indexOf("://");
    int end = url.length();
    for (char c : new char[] {'/', '?', '#'}) {
      int i = url.indexOf(c, scheme + 3);
      if (i >= 0 && i < end) end = i;
    }
    String authority = url.substring(0, end);
    if (authority.contains("{{")) {
      throw urlAt.error(
          "with auth: the scheme, host and port must not use {{variables}}: they name the one"
              + " origin the credentials are sent to");
    }
    URI uri;
    try {
      uri = URI.create(authority);
    } catch (IllegalArgumentException e) {
      throw urlAt.error("is not a valid URL: " + e.getMessage());
    }
    if (uri.getHost() == null) throw urlAt.error("has no host");
    String s = uri.getScheme().toLowerCase(Locale.ROOT);
    int port = uri.getPort() < 0 ? (s.equals("https") ? 443 : 80) : uri.getPort();
    return s + "://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" + port;
  }

  /** What a named auth can keep in the store; null for a poller's own {@code auth:}. */
  private record Stored(
      String name, io.watukuy.@Nullable SealingKeys keys, @Nullable CredentialStore credentials) {}

  private static RequestSigner signer(At at, @Nullable Stored stored) {
    if (!at.node.isObject()) {
      throw at.error(
          "must be a map with a type ("
              + String.join(", ", TYPES)
              + ") or the name of one under auths");
    }
    At typeAt = at.child("type");
    if (typeAt.missing()) throw at.error("type: missing (" + String.join(", ", TYPES) + ")");
    String type = typeAt.string("");
    try {
      return switch (type) {
        case "bearer" -> {
          at.object("type", "token");
          yield new BearerSigner(required(at, "token").secret());
        }
        case "basic" -> {
          at.object("type", "user", "password");
          yield new BasicSigner(
              required(at, "user").envString(), required(at, "password").secret());
        }
        case "apiKey" -> apiKey(at);
        case "oauth2" -> oauth2(at, stored);
        case "hmac" -> hmac(at);
        case "jwtBearer" -> JwtBearerConfig.signer(at);
        default -> throw typeAt.error("'" + type + "' is not one of " + String.join(", ", TYPES));
      };
    } catch (IllegalArgumentException e) {
      throw at.error(e.getMessage());
    }
  }

  private static RequestSigner apiKey(At at) {
    at.object("type", "in", "name", "value");
    String in = at.child("in").missing() ? "header" : at.child("in").string("");
    String name = required(at, "name").envString();
    String value = required(at, "value").secret();
    return switch (in) {
      case "header" -> ApiKeySigner.header(name, value);
      case "query" -> ApiKeySigner.query(name, value);
      default -> throw at.child("in").error("'" + in + "' is not header or query");
    };
  }

  private static RequestSigner oauth2(At at, @Nullable Stored stored) {
    At grantAt = at.child("grant");
    if (!grantAt.missing() && "refreshToken".equals(grantAt.node.asText()))
      return refreshToken(at, stored);
    at.object(
        "type",
        "grant",
        "tokenUrl",
        "clientId",
        "clientSecret",
        "scopes",
        "audience",
        "clientAuth",
        "earlyRefresh");
    At grant = at.child("grant");
    if (!grant.missing() && !"clientCredentials".equals(grant.string(""))) {
      throw grant.error(
          "'" + grant.node.asText() + "' is not clientCredentials (the default) or refreshToken");
    }
    At urlAt = at.child("tokenUrl");
    if (urlAt.missing()) {
      throw at.error(
          "tokenUrl: missing (the token endpoint, e.g. https://login.example.com/oauth2/token)");
    }
    ClientCredentialsSigner.Builder b;
    try {
      b =
          ClientCredentialsSigner.builder(
              urlAt.envString(),
              required(at, "clientId").envString(),
              required(at, "clientSecret").secret());
    } catch (IllegalArgumentException e) {
      throw urlAt.error(e.getMessage());
    }
    List<String> scopes = scopes(at.child("scopes"));
    if (scopes != null) b.scopes(scopes);
    if (!at.child("audience").missing()) b.audience(at.child("audience").envString());
    ClientCredentialsSigner.@Nullable ClientAuth how = clientAuth(at.child("clientAuth"));
    if (how != null) b.clientAuth(how);
    Duration early = at.child("earlyRefresh").duration(null);
    if (early != null) b.earlyRefresh(early);
    return b.build();
  }

  private static ClientCredentialsSigner.@Nullable ClientAuth clientAuth(At clientAuth) {
    if (clientAuth.missing()) return null;
    String how = clientAuth.string("");
    return switch (how) {
      case "basic" -> ClientCredentialsSigner.ClientAuth.BASIC;
      case "post" -> ClientCredentialsSigner.ClientAuth.POST;
      default -> throw clientAuth.error("'" + how + "' is not basic or post");
    };
  }

  /**
   * {@code grant: refreshToken} (docs/config.md, "auth"): the rotating refresh token lives sealed
   * in the store under the auth's name; {@code refreshToken:} only seeds an empty row, so when it
   * cannot be read (an unset variable, a missing file) the signer is still made and fails only if
   * the store has no row ({@link RefreshTokenSigner.Builder#seedUnavailable}).
   */
  private static RequestSigner refreshToken(At at, @Nullable Stored stored) {
    at.object(
        "type",
        "grant",
        "tokenUrl",
        "clientId",
        "clientSecret",
        "refreshToken",
        "scopes",
        "audience",
        "clientAuth",
        "earlyRefresh",
        "claimTtl");
    if (stored == null || stored.credentials() == null)
      throw at.child("grant")
          .error(
              "refreshToken is supported under auths: only: the auth's name names the stored"
                  + " credential; declare it there and write auth: NAME");
    if (stored.keys() == null)
      throw at.child("grant")
          .error(
              "refreshToken keeps the rotating refresh token in the store, sealed: set a top-level"
                  + " secretKey (docs/config.md, \"secretKey\"); nothing is stored in clear");
    At urlAt = at.child("tokenUrl");
    if (urlAt.missing()) {
      throw at.error(
          "tokenUrl: missing (the token endpoint, e.g. https://login.example.com/oauth2/token)");
    }
    RefreshTokenSigner.Builder b;
    try {
      b =
          RefreshTokenSigner.builder(
              stored.name(),
              urlAt.envString(),
              required(at, "clientId").envString(),
              stored.credentials(),
              stored.keys());
    } catch (IllegalArgumentException e) {
      throw urlAt.error(e.getMessage());
    }
    if (!at.child("clientSecret").missing()) b.clientSecret(at.child("clientSecret").secret());
    At seedAt = at.child("refreshToken");
    if (!seedAt.missing()) {
      if (!seedAt.node.isValueNode() || seedAt.node.isNull()) seedAt.secret(); // "must be a string"
      String seed = null;
      try {
        seed = seedAt.secret();
      } catch (io.watukuy.ConfigException e) {
        // The seed only fills an empty store: a store that holds the row (rotated since) needs
        // no seed, so an unset ${NAME} or a missing ${file:PATH} fails only when it is needed.
        b.seedUnavailable(e.getMessage());
      }
      if (seed != null) b.initialRefreshToken(seed);
    }
    List<String> scopes = scopes(at.child("scopes"));
    if (scopes != null) b.scopes(scopes);
    if (!at.child("audience").missing()) b.audience(at.child("audience").envString());
    ClientCredentialsSigner.@Nullable ClientAuth how = clientAuth(at.child("clientAuth"));
    if (how != null) b.clientAuth(how);
    Duration early = at.child("earlyRefresh").duration(null);
    if (early != null) b.earlyRefresh(early);
    At claimAt = at.child("claimTtl");
    Duration claim = claimAt.duration(null);
    if (claim != null) b.claimTtl(claim);
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw (claim != null ? claimAt : at).error(e.getMessage());
    }
  }

  private static RequestSigner hmac(At at) {
    at.object(
        "type",
        "header",
        "template",
        "secret",
        "algorithm",
        "encoding",
        "prefix",
        "timestampHeader");
    HmacSigner.Builder b =
        HmacSigner.builder()
            .header(required(at, "header").string(""))
            .template(required(at, "template").string(""))
            .secret(required(at, "secret").secret());
    if (!at.child("algorithm").missing()) b.algorithm(at.child("algorithm").string(""));
    if (!at.child("prefix").missing()) b.prefix(at.child("prefix").string(""));
    if (!at.child("timestampHeader").missing()) {
      b.timestampHeader(at.child("timestampHeader").string(""));
    }
    At encoding = at.child("encoding");
    if (!encoding.missing()) {
      String e = encoding.string("");
      b.encoding(
          switch (e) {
            case "hex" -> HmacSigner.Encoding.HEX;
            case "base64" -> HmacSigner.Encoding.BASE64;
            default -> throw encoding.error("'" + e + "' is not hex or base64");
          });
    }
    return b.build();
  }

  /** {@code scopes:}, a list or one space-separated string; null when absent. */
  static @Nullable List<String> scopes(At scopesAt) {
    if (scopesAt.missing()) return null;
    List<String> scopes = new ArrayList<>();
    if (scopesAt.node.isTextual()) {
      for (String s : scopesAt.envString().trim().split("\\s+")) if (!s.isEmpty()) scopes.add(s);
    } else if (scopesAt.node.isArray()) {
      for (int i = 0; i < scopesAt.node.size(); i++) scopes.add(scopesAt.item(i).envString());
    } else {
      throw scopesAt.error("must be a list of scopes or one space-separated string");
    }
    return scopes;
  }

  static At required(At at, String key) {
    At child = at.child(key);
    if (child.missing()) throw at.error(key + ": missing");
    return child;
  }
}
