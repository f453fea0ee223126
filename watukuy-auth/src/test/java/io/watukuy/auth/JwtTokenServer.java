package io.watukuy.auth;

import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A token endpoint on 127.0.0.1 that speaks the JWT bearer grant (RFC 7523 section 3) and checks
 * what it is sent as a server must: the signature with the public key it knows, {@code iss}, {@code
 * sub}, {@code aud} (its own URL), {@code exp} not passed and not more than an hour ahead by its
 * clock (the test's virtual clock, plus {@link #skew}), and a {@code jti} it has not seen. A valid
 * assertion gets {@code at-N} with {@code expires_in} 100; anything else gets 400 {@code
 * invalid_grant} with what was wrong. No npm server speaks this grant, hence this one.
 */
final class JwtTokenServer implements AutoCloseable {
  final List<Map<String, String>> forms = new CopyOnWriteArrayList<>();
  final List<SignedJWT> assertions = new CopyOnWriteArrayList<>();
  final List<String> refusals = new CopyOnWriteArrayList<>();
  volatile Duration skew = Duration.ZERO;
  volatile String issuer = "svc@watukuy.test";
  volatile String subject = "svc@watukuy.test";
  volatile String audience;
  volatile boolean echoAssertionInRefusal;

  private final HttpServer server;
  private final VirtualClock clock;
  private final JWSVerifier verifier;
  private final Set<String> seenJti = ConcurrentHashMap.newKeySet();
  private final AtomicInteger issued = new AtomicInteger();

  JwtTokenServer(VirtualClock clock, JWSVerifier verifier) throws IOException {
    this.clock = clock;
    this.verifier = verifier;
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/token", this::token);
    server.start();
    audience = url();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/token";
  }

  static JWSVerifier rsa(String publicPemResource) {
    try {
      return new RSASSAVerifier(
          (RSAPublicKey)
              KeyFactory.getInstance("RSA")
                  .generatePublic(new X509EncodedKeySpec(der(publicPemResource))));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static JWSVerifier ec(String publicPemResource) {
    try {
      return new ECDSAVerifier(
          (ECPublicKey)
              KeyFactory.getInstance("EC")
                  .generatePublic(new X509EncodedKeySpec(der(publicPemResource))));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static JWSVerifier hmac(String secret) {
    try {
      return new MACVerifier(secret.getBytes(StandardCharsets.UTF_8));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A PEM file of src/test/resources/jwt (test-only keys; their README says how they were made).
   */
  static String pem(String name) {
    try (InputStream in = JwtTokenServer.class.getResourceAsStream("/jwt/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] der(String pemResource) {
    return Base64.getMimeDecoder()
        .decode(pem(pemResource).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", ""));
  }

  private void token(HttpExchange ex) throws IOException {
    Map<String, String> form = form(new String(ex.getRequestBody().readAllBytes(), UTF8));
    forms.add(form);
    String why = refusal(form);
    if (why == null) {
      reply(
          ex,
          200,
          "{\"access_token\":\"at-"
              + issued.incrementAndGet()
              + "\",\"token_type\":\"Bearer\",\"expires_in\":100}");
      return;
    }
    refusals.add(why);
    if (echoAssertionInRefusal) why += " in " + form.get("assertion");
    reply(ex, 400, "{\"error\":\"invalid_grant\",\"error_description\":\"" + why + "\"}");
  }

  private static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  /** What is wrong with the request, or null when it earns a token. */
  private String refusal(Map<String, String> form) {
    if (!"urn:ietf:params:oauth:grant-type:jwt-bearer".equals(form.get("grant_type"))) {
      return "grant_type " + form.get("grant_type");
    }
    SignedJWT jwt;
    JWTClaimsSet claims;
    try {
      jwt = SignedJWT.parse(form.get("assertion"));
      claims = jwt.getJWTClaimsSet();
    } catch (Exception e) {
      return "assertion is not a signed JWT";
    }
    assertions.add(jwt);
    try {
      if (!jwt.verify(verifier)) return "signature does not verify";
    } catch (Exception e) {
      return "signature cannot be checked: " + e.getMessage();
    }
    Instant now = clock.now().plus(skew);
    if (!issuer.equals(claims.getIssuer())) return "iss " + claims.getIssuer();
    if (!subject.equals(claims.getSubject())) return "sub " + claims.getSubject();
    if (claims.getAudience() == null || !claims.getAudience().contains(audience)) {
      return "aud " + claims.getAudience();
    }
    if (claims.getExpirationTime() == null) return "no exp";
    Instant exp = claims.getExpirationTime().toInstant();
    if (!exp.isAfter(now)) return "assertion expired";
    if (exp.isAfter(now.plus(Duration.ofHours(1)))) return "exp too far ahead";
    if (claims.getJWTID() == null || !seenJti.add(claims.getJWTID())) return "jti replayed";
    return null;
  }

  private static void reply(HttpExchange ex, int status, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, body.length);
    ex.getResponseBody().write(body);
    ex.close();
  }

  static Map<String, String> form(String body) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String pair : body.split("&")) {
      String[] kv = pair.split("=", 2);
      out.put(
          URLDecoder.decode(kv[0], StandardCharsets.UTF_8),
          URLDecoder.decode(kv.length > 1 ? kv[1] : "", StandardCharsets.UTF_8));
    }
    return out;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
