package io.watukuy.auth;

import static io.watukuy.auth.JwtTokenServer.pem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jwt.JWTClaimsSet;
import io.watukuy.OutgoingRequest;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.net.URI;
import java.text.ParseException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link JwtBearerSigner} against {@link JwtTokenServer}, a token endpoint on 127.0.0.1 that
 * verifies each assertion (RFC 7523 section 3), on a virtual clock: what the assertion holds and
 * how it is signed (RS256, ES256, HS256), how long the token is kept, what a 401 does, how a
 * refusal is reported and backed off from, and that bad key material is refused without being
 * quoted.
 */
class JwtBearerSignerTest {
  private static final String ISS = "svc@watukuy.test";
  private static final String HS_SECRET = "a-shared-secret-of-at-least-32-bytes!";

  private final VirtualClock clock = new VirtualClock();
  private JwtTokenServer server;

  @AfterEach
  void stop() {
    if (server != null) server.close();
  }

  private JwtBearerSigner.Builder rsaSigner() throws Exception {
    server = new JwtTokenServer(clock, JwtTokenServer.rsa("rsa-public.pem"));
    return JwtBearerSigner.builder(server.url(), ISS)
        .privateKey(pem("rsa-private.pem"))
        .time(clock)
        .random(SeededRandom.of(7));
  }

  private static String signed(JwtBearerSigner signer) {
    OutgoingRequest r = request();
    signer.sign(r);
    return r.addedHeaders().get("Authorization");
  }

  private static OutgoingRequest request() {
    return new OutgoingRequest(
        "GET", URI.create("https://api.example.com/orders"), Map.of(), new byte[0]);
  }

  private JWTClaimsSet claims(int i) throws ParseException {
    return server.assertions.get(i).getJWTClaimsSet();
  }

  @Test
  void anRs256AssertionWithTheRfc7523ClaimsEarnsAToken() throws Exception {
    JwtBearerSigner signer =
        rsaSigner()
            .keyId("key-1")
            .scopes(List.of("orders:read", "customers:read"))
            .claim("tenant", "eu-1")
            .build();

    assertThat(signed(signer)).isEqualTo("Bearer at-1");

    assertThat(server.refusals).isEmpty();
    assertThat(signer.algorithm()).isEqualTo("RS256");
    assertThat(server.forms.get(0))
        .containsEntry("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer")
        .containsEntry("scope", "orders:read customers:read")
        .containsKey("assertion")
        .doesNotContainKey("client_secret");
    assertThat(server.assertions.get(0).getHeader().getKeyID()).isEqualTo("key-1");
    JWTClaimsSet c = claims(0);
    assertThat(c.getIssuer()).isEqualTo(ISS);
    assertThat(c.getSubject()).isEqualTo(ISS); // no subject given: the issuer acts as itself
    assertThat(c.getAudience()).containsExactly(server.url());
    assertThat(c.getIssueTime().toInstant()).isEqualTo(VirtualClock.DEFAULT_START);
    assertThat(c.getExpirationTime().toInstant())
        .isEqualTo(VirtualClock.DEFAULT_START.plus(JwtBearerSigner.DEFAULT_LIFETIME));
    assertThat(c.getJWTID()).hasSize(22); // 16 random bytes, base64url
    assertThat(c.getStringClaim("tenant")).isEqualTo("eu-1");
    assertThat(c.getClaim("scope")).isNull(); // a parameter, not a claim
  }

  @Test
  void anEs256KeySignsWithEs256AndAConfiguredAudienceAndSubjectAreUsed() throws Exception {
    server = new JwtTokenServer(clock, JwtTokenServer.ec("ec-public.pem"));
    server.audience = "https://erp.example.com";
    server.subject = "orders-reader";
    JwtBearerSigner signer =
        JwtBearerSigner.builder(server.url(), ISS)
            .privateKey(pem("ec-private.pem"))
            .audience("https://erp.example.com")
            .subject("orders-reader")
            .lifetime(Duration.ofMinutes(10))
            .time(clock)
            .build();

    assertThat(signed(signer)).isEqualTo("Bearer at-1");
    assertThat(signer.algorithm()).isEqualTo("ES256");
    assertThat(claims(0).getExpirationTime().toInstant())
        .isEqualTo(VirtualClock.DEFAULT_START.plus(Duration.ofMinutes(10)));
  }

  @Test
  void aSharedSecretSignsWithHs256() throws Exception {
    server = new JwtTokenServer(clock, JwtTokenServer.hmac(HS_SECRET));
    JwtBearerSigner signer =
        JwtBearerSigner.builder(server.url(), ISS).secret(HS_SECRET).time(clock).build();

    assertThat(signed(signer)).isEqualTo("Bearer at-1");
    assertThat(server.assertions.get(0).getHeader().getAlgorithm().getName()).isEqualTo("HS256");
  }

  @Test
  void theTokenIsKeptUntilEarlyRefreshThenReplacedWithAFreshAssertion() throws Exception {
    JwtBearerSigner signer = rsaSigner().earlyRefresh(Duration.ofSeconds(30)).build();

    assertThat(signed(signer)).isEqualTo("Bearer at-1");
    clock.advance(Duration.ofSeconds(69)); // expires_in 100, replaced 30 s early: at 70 s
    assertThat(signed(signer)).isEqualTo("Bearer at-1");
    clock.advance(Duration.ofSeconds(1));
    assertThat(signed(signer)).isEqualTo("Bearer at-2");

    assertThat(signer.tokenRequests()).isEqualTo(2);
    assertThat(claims(1).getIssueTime().toInstant())
        .isEqualTo(VirtualClock.DEFAULT_START.plusSeconds(70));
    assertThat(claims(1).getJWTID()).isNotEqualTo(claims(0).getJWTID());
    assertThat(signer.secretValues())
        .contains("at-2", server.forms.get(1).get("assertion"))
        .contains(pem("rsa-private.pem").strip());
  }

  @Test
  void a401GetsANewTokenWithANewAssertionForTheOneRetry() throws Exception {
    // The token handling is ClientCredentialsSigner's (TokenSigner); here: a new jti, no replay.
    JwtBearerSigner signer = rsaSigner().build();
    OutgoingRequest refused = request();
    signer.sign(refused);

    assertThat(signer.retryAfterUnauthorized(refused)).isTrue();

    assertThat(signed(signer)).isEqualTo("Bearer at-2");
    assertThat(server.refusals).isEmpty();
    assertThat(claims(1).getJWTID()).isNotEqualTo(claims(0).getJWTID());
  }

  @Test
  void aForgedAssertionIsRefusedAndTheSignerBacksOffNamingTheEndpoint() throws Exception {
    server = new JwtTokenServer(clock, JwtTokenServer.rsa("rsa-public.pem"));
    server.echoAssertionInRefusal = true; // a server that quotes what it was sent
    JwtBearerSigner signer =
        JwtBearerSigner.builder(server.url(), ISS)
            .privateKey(pem("other-rsa-private.pem"))
            .backoff(Duration.ofSeconds(1))
            .time(clock)
            .build();

    assertThatThrownBy(() -> signed(signer))
        .hasMessage(
            "token endpoint "
                + server.url()
                + " refused the JWT assertion of "
                + ISS
                + ": HTTP 400 invalid_grant (signature does not verify in [redacted])");
    assertThat(server.refusals).containsExactly("signature does not verify");
    assertThatThrownBy(() -> signed(signer)).hasMessageContaining("invalid_grant");
    assertThat(server.forms).hasSize(1); // within the backoff: the same failure, no request

    clock.advance(Duration.ofSeconds(1));
    assertThatThrownBy(() -> signed(signer)).hasMessageContaining("invalid_grant");
    assertThat(server.forms).hasSize(2);
    clock.advance(Duration.ofSeconds(1)); // the backoff doubled to 2 s
    assertThatThrownBy(() -> signed(signer)).hasMessageContaining("invalid_grant");
    assertThat(server.forms).hasSize(2);
  }

  @Test
  void anAssertionExpiredByTheServersClockIsRefusedThenAcceptedOnceTheClocksAgree()
      throws Exception {
    JwtBearerSigner signer = rsaSigner().backoff(Duration.ofSeconds(1)).build();
    server.skew = Duration.ofMinutes(6); // the server's clock runs past the 5 min lifetime

    assertThatThrownBy(() -> signed(signer))
        .hasMessageEndingWith("HTTP 400 invalid_grant (assertion expired)");

    server.skew = Duration.ZERO;
    clock.advance(Duration.ofSeconds(1));
    assertThat(signed(signer)).isEqualTo("Bearer at-1");
  }

  @Test
  void aWrongIssuerOrAudienceIsRefusedByTheServer() throws Exception {
    JwtBearerSigner signer = rsaSigner().audience("https://elsewhere.example.com").build();

    assertThatThrownBy(() -> signed(signer))
        .hasMessageContaining("invalid_grant (aud [https://elsewhere.example.com])");
  }

  @Test
  void aServiceAccountFileGivesIssuerKeyIdTokenUrlAndTheScopeAsAClaim() throws Exception {
    server = new JwtTokenServer(clock, JwtTokenServer.rsa("rsa-public.pem"));
    server.issuer = "reader@project.iam.example.com";
    server.subject = "reader@project.iam.example.com";
    String json =
        """
        {"type": "service_account", "client_email": "reader@project.iam.example.com",
         "private_key_id": "8f2a", "private_key": %s, "token_uri": "%s"}
        """
            .formatted(quoted(pem("rsa-private.pem")), server.url());
    JwtBearerSigner signer =
        JwtBearerSigner.serviceAccount(json).scopes(List.of("orders.read")).time(clock).build();

    assertThat(signed(signer)).isEqualTo("Bearer at-1");
    assertThat(server.assertions.get(0).getHeader().getKeyID()).isEqualTo("8f2a");
    assertThat(claims(0).getStringClaim("scope")).isEqualTo("orders.read");
    assertThat(server.forms.get(0)).doesNotContainKey("scope");
  }

  @Test
  void aServiceAccountFileWithoutAFieldNamesTheFieldAndNeverTheKey() {
    String key = pem("rsa-private.pem");
    String json = "{\"client_email\": \"a@b\", \"private_key\": " + quoted(key) + "}";

    assertThatThrownBy(() -> JwtBearerSigner.serviceAccount(json))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("serviceAccount: token_uri is missing or not a string");
    assertThatThrownBy(() -> JwtBearerSigner.serviceAccount("{\"private_key\": \"" + key))
        .hasMessage("serviceAccount is not a JSON service account key file");
  }

  @Test
  void badKeyMaterialIsRefusedNamingTheFieldNeverTheKey() {
    String url = "https://login.example.com/token";
    String body = pem("rsa-private.pem").lines().skip(1).findFirst().orElseThrow();
    Map<String, String> cases =
        Map.of(
            "not a key " + body,
            "privateKey is not a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY----- ..."
                + " -----END PRIVATE KEY-----)",
            pem("rsa-pkcs1.pem"),
            "privateKey is a PKCS#1 or SEC1 key; convert it to PKCS#8 (BEGIN PRIVATE KEY) with"
                + " openssl pkcs8 -topk8 -nocrypt -in KEY",
            "-----BEGIN PRIVATE KEY-----\n" + body.substring(0, 40) + "\n-----END PRIVATE KEY-----",
            "privateKey is neither an RSA nor an EC private key",
            "-----BEGIN PRIVATE KEY-----\n!!" + body + "\n-----END PRIVATE KEY-----",
            "privateKey has invalid base64 between its PEM lines");
    cases.forEach(
        (key, message) ->
            assertThatThrownBy(() -> JwtBearerSigner.builder(url, ISS).privateKey(key).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message)
                .message()
                .doesNotContain(body.substring(0, 12)));
    assertThatThrownBy(
            () ->
                JwtBearerSigner.builder(url, ISS)
                    .privateKey(pem("ec-private.pem"))
                    .algorithm("RS256")
                    .build())
        .hasMessage("algorithm RS256 does not match privateKey, an EC key (ES256, ES384)");
    assertThatThrownBy(
            () ->
                JwtBearerSigner.builder(url, ISS)
                    .privateKey(pem("ec384-private.pem"))
                    .algorithm("ES256")
                    .build())
        .hasMessage("algorithm ES256 needs a key on [P-256], but privateKey is on P-384");
    assertThatThrownBy(() -> JwtBearerSigner.builder(url, ISS).secret("short").build())
        .hasMessage(
            "secret is too short for HS256: at least 32 bytes (RFC 7518 section 3.2), but was 5");
    assertThatThrownBy(() -> JwtBearerSigner.builder(url, ISS).build())
        .hasMessage("privateKey: missing (a PKCS#8 PEM private key, or secret for HS256)");
  }

  @Test
  void lifetimeAlgorithmAndClaimsAreChecked() {
    JwtBearerSigner.Builder b = JwtBearerSigner.builder("https://login.example.com/token", ISS);

    assertThatThrownBy(() -> b.lifetime(Duration.ofMinutes(61)))
        .hasMessage("lifetime must be at most 1h, but was 1h1m");
    assertThatThrownBy(() -> b.lifetime(Duration.ZERO))
        .hasMessage("lifetime must be > 0, but was PT0S");
    assertThatThrownBy(() -> b.algorithm("none"))
        .hasMessage(
            "algorithm 'none' is not one of RS256, RS384, RS512, ES256, ES384, HS256, HS384,"
                + " HS512");
    assertThatThrownBy(() -> b.claim("exp", 1))
        .hasMessage("claim exp is set by the signer (iss, sub, aud, iat, exp, jti)");
    assertThatThrownBy(() -> JwtBearerSigner.builder("login.example.com/token", ISS))
        .hasMessage("tokenUrl is not an absolute http or https URL");
  }

  private static String quoted(String text) {
    return "\"" + text.replace("\n", "\\n") + "\"";
  }
}
