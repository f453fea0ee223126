package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.interfaces.RSAPublicKey;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code auth: {type: jwtBearer}} in YAML (issue 19, section 1; docs/config.md, "auth"): a poller
 * run end to end against a token endpoint on 127.0.0.1 that verifies the RS256 assertion with the
 * public key (signature, iss, sub, aud, exp) and an API that wants its token; a refused assertion
 * named in stderr and {@code inspect} without the key or the assertion; and the mistakes {@code
 * validate} reports at their line.
 */
class JwtBearerConfigTest {
  private static final String ISS = "reader@watukuy.test";

  @TempDir Path dir;
  private HttpServer server;
  private static KeyPair keys;
  private final List<String> assertions = new CopyOnWriteArrayList<>();
  private final List<String> forms = new CopyOnWriteArrayList<>();
  private final List<String> apiAuth = new CopyOnWriteArrayList<>();
  private final AtomicInteger issued = new AtomicInteger();

  @BeforeAll
  static void makeKey() throws Exception {
    // A fixed seed: the same key every run, so that nothing about the run depends on chance.
    SecureRandom seeded = SecureRandom.getInstance("SHA1PRNG");
    seeded.setSeed(19L);
    KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
    gen.initialize(2048, seeded);
    keys = gen.generateKeyPair();
  }

  @BeforeEach
  void start() throws Exception {
    Files.writeString(
        dir.resolve("key.pem"),
        "-----BEGIN PRIVATE KEY-----\n"
            + Base64.getMimeEncoder(64, new byte[] {'\n'})
                .encodeToString(keys.getPrivate().getEncoded())
            + "\n-----END PRIVATE KEY-----\n");
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/token", this::token);
    server.createContext(
        "/orders",
        ex -> {
          String auth = String.valueOf(ex.getRequestHeaders().getFirst("Authorization"));
          apiAuth.add(auth);
          boolean ok = auth.matches("Bearer at-\\d+");
          reply(ex, ok ? 200 : 401, ok ? "[{\"id\":1},{\"id\":2}]" : "{\"error\":\"no token\"}");
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private String base() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** RFC 7523 section 3, as a server checks it; a refusal quotes the assertion, as some do. */
  private void token(HttpExchange ex) throws IOException {
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    forms.add(body);
    Map<String, String> form = new java.util.HashMap<>();
    for (String pair : body.split("&")) {
      String[] kv = pair.split("=", 2);
      form.put(kv[0], URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
    }
    String assertion = form.get("assertion");
    assertions.add(assertion);
    String why;
    try {
      SignedJWT jwt = SignedJWT.parse(assertion);
      JWTClaimsSet c = jwt.getJWTClaimsSet();
      if (!jwt.verify(new RSASSAVerifier((RSAPublicKey) keys.getPublic()))) why = "bad signature";
      else if (!ISS.equals(c.getIssuer())) why = "unknown issuer " + c.getIssuer();
      else if (!ISS.equals(c.getSubject())) why = "sub " + c.getSubject();
      else if (!c.getAudience().contains(base() + "/token")) why = "aud " + c.getAudience();
      else if (c.getExpirationTime() == null || c.getJWTID() == null) why = "no exp or jti";
      else why = null;
    } catch (Exception e) {
      why = "not a JWT";
    }
    if (why == null) {
      reply(
          ex,
          200,
          "{\"access_token\":\"at-"
              + issued.incrementAndGet()
              + "\",\"token_type\":\"Bearer\",\"expires_in\":300}");
    } else {
      reply(
          ex,
          400,
          "{\"error\":\"invalid_grant\",\"error_description\":\""
              + why
              + " in "
              + assertion
              + "\"}");
    }
  }

  private static void reply(HttpExchange ex, int status, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    ex.getResponseBody().write(bytes);
    ex.close();
  }

  private String yaml(String auth) {
    return """
        store: sqlite:state.db
        auths:
          erp:
        %s
        pollers:
          - name: orders
            auth: erp
            request: { url: %s/orders }
            response: { items: "" }
            identity: /id
            cursor: { strategy: snapshotDiff }
        """
        .formatted(auth.indent(4).stripTrailing(), base());
  }

  private String validAuth(String issuer) {
    return """
        type: jwtBearer
        tokenUrl: %s/token
        issuer: %s
        privateKey: "${file:key.pem}"
        scopes: orders.read
        lifetime: 10m
        """
        .formatted(base(), issuer);
  }

  private CliRun cli(String yaml, String... args) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(file, yaml);
    String[] argv = new String[args.length + 1];
    argv[0] = args[0];
    argv[1] = file.toString();
    System.arraycopy(args, 1, argv, 2, args.length - 1);
    CliRun r = CliRun.of(argv);
    return new CliRun(r.exit(), r.stdout(), r.stderr().replace(file.toString(), "watukuy.yaml"));
  }

  @Test
  void aPollerGetsItsTokenWithASignedAssertionAndSendsItToTheApi() throws IOException {
    CliRun r = cli(yaml(validAuth(ISS)), "run", "--once");

    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(r.changes()).containsExactly("created 1", "created 2");
    assertThat(apiAuth).containsExactly("Bearer at-1");
    assertThat(forms.get(0))
        .contains("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer")
        .contains("scope=orders.read");
    assertThat(r.stdout() + r.stderr()).doesNotContain(assertions.get(0));
  }

  @Test
  void aRefusedAssertionIsNamedInStderrAndInspectWithoutTheKeyOrTheAssertion() throws IOException {
    String yaml = yaml(validAuth("someone-else@watukuy.test"));

    CliRun failed = cli(yaml, "run", "--once");
    CliRun inspect = cli(yaml, "inspect", "--json");

    assertThat(failed.exit()).isEqualTo(1);
    assertThat(failed.stderr())
        .contains(
            "token endpoint "
                + base()
                + "/token refused the JWT assertion of someone-else@watukuy.test: HTTP 400"
                + " invalid_grant (unknown issuer someone-else@watukuy.test in ");
    assertThat(inspect.stdout()).contains("refused the JWT assertion of");
    assertThat(apiAuth).isEmpty(); // no token, no request to the API
    String key = Files.readString(dir.resolve("key.pem"));
    String keyLine = key.lines().skip(1).findFirst().orElseThrow();
    for (CliRun r : List.of(failed, inspect)) {
      assertThat(r.stdout() + r.stderr()).doesNotContain(assertions.get(0)).doesNotContain(keyLine);
    }
  }

  /** Standard error of {@code validate}, which must exit 2 (a config error). */
  private String configError(String auth) throws IOException {
    CliRun r = cli(yaml(auth), "validate");
    assertThat(r.exit()).as(r.stderr()).isEqualTo(2);
    return r.stderr();
  }

  @Test
  void validateNamesEachMistakeAtItsLineAndNeverQuotesTheKey() throws IOException {
    String valid = validAuth(ISS);
    assertThat(cli(yaml(valid), "validate").exit()).isZero();

    assertThat(configError(valid.replaceFirst("tokenUrl: .*\n", "")))
        .isEqualTo(
            "watukuy: watukuy.yaml:3: auths.erp: tokenUrl: missing (the token endpoint, e.g."
                + " https://oauth2.example.com/token), or serviceAccount: a key file that names"
                + " it\n");
    assertThat(configError(valid.replaceFirst("privateKey: .*\n", "")))
        .isEqualTo(
            "watukuy: watukuy.yaml:3: auths.erp: privateKey: missing (a PKCS#8 PEM private key,"
                + " e.g. \"${file:key.pem}\"), or secret for HS256, or serviceAccount: a key"
                + " file\n");
    assertThat(configError(valid.replaceFirst("issuer: .*\n", "")))
        .isEqualTo("watukuy: watukuy.yaml:3: auths.erp: issuer: missing\n");

    Files.writeString(dir.resolve("public.pem"), "-----BEGIN PUBLIC KEY-----\nMIIB\n");
    assertThat(configError(valid.replace("key.pem", "public.pem")))
        .isEqualTo(
            "watukuy: watukuy.yaml:7: auths.erp.privateKey: is not a PKCS#8 PEM private key"
                + " (-----BEGIN PRIVATE KEY----- ... -----END PRIVATE KEY-----)\n");
    assertThat(configError(valid + "algorithm: ES256\n"))
        .isEqualTo(
            "watukuy: watukuy.yaml:10: auths.erp.algorithm: ES256 does not match privateKey, an"
                + " RSA key (RS256, RS384, RS512)\n");
    assertThat(configError(valid.replace("lifetime: 10m", "lifetime: 2h")))
        .isEqualTo("watukuy: watukuy.yaml:9: auths.erp.lifetime: must be at most 1h, but was 2h\n");
    assertThat(configError(valid + "claims: { exp: 1 }\n"))
        .isEqualTo(
            "watukuy: watukuy.yaml:10: auths.erp.claims.exp: claim exp is set by the signer (iss,"
                + " sub, aud, iat, exp, jti)\n");
  }

  @Test
  void aServiceAccountFileGivesTheKeyAndTheTokenUrl() throws IOException {
    String key = Files.readString(dir.resolve("key.pem"));
    Files.writeString(
        dir.resolve("sa.json"),
        "{\"client_email\": \"%s\", \"private_key_id\": \"k1\", \"private_key\": \"%s\","
                .formatted(ISS, key.replace("\n", "\\n"))
            + " \"token_uri\": \""
            + base()
            + "/token\"}");
    String auth = "type: jwtBearer\nserviceAccount: \"${file:sa.json}\"\nscopes: [orders.read]\n";

    CliRun r = cli(yaml(auth), "run", "--once");

    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(apiAuth).containsExactly("Bearer at-1");
    assertThat(forms.get(0)).doesNotContain("scope="); // Google's form: scope is a claim
    assertThat(configError(auth + "tokenUrl: " + base() + "/token\n"))
        .isEqualTo(
            "watukuy: watukuy.yaml:7: auths.erp.tokenUrl: not with serviceAccount, whose key"
                + " file gives it\n");
    Files.writeString(dir.resolve("sa.json"), "{\"client_email\": \"" + ISS + "\"}");
    assertThat(configError(auth))
        .isEqualTo(
            "watukuy: watukuy.yaml:5: auths.erp.serviceAccount: token_uri is missing or not a"
                + " string\n");
  }
}
