package io.watukuy.auth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.oauth2.sdk.JWTBearerGrant;
import com.nimbusds.oauth2.sdk.Scope;
import com.nimbusds.oauth2.sdk.TokenRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Collection;
import java.util.Date;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * OAuth2 JWT bearer grant (RFC 7523 section 2.1), as service accounts use it: for each token
 * request it signs a fresh assertion ({@code iss}, {@code sub}, {@code aud}, {@code iat}, {@code
 * exp}, a random {@code jti}, and any extra claims), sends it as {@code grant_type=
 * urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=JWT}, and sends the access token it gets as
 * {@code Authorization: Bearer TOKEN}. The assertion is signed with RS256/RS384/RS512 or
 * ES256/ES384 from a PKCS#8 PEM private key, or with HS256/HS384/HS512 and a shared secret.
 *
 * <p>The token is kept, renewed, dropped after a 401 and backed off from exactly as {@link
 * ClientCredentialsSigner} does (docs/config.md, "auth"): one retry of a refused request with a new
 * token; a failing or refusing endpoint ({@code invalid_grant} for an assertion it does not accept)
 * is named in the message and asked again only after a doubling backoff; token requests are not
 * charged to the poller's rate budget.
 *
 * <p>The private key or shared secret, the last assertion and the current access token are in
 * {@link #secretValues()}: hidden wherever they would be printed. Thread-safe.
 */
public final class JwtBearerSigner extends TokenSigner {

  /** How long an assertion is valid ({@code exp - iat}), unless set. */
  public static final Duration DEFAULT_LIFETIME = Duration.ofMinutes(5);

  /** The longest assertion lifetime accepted (Google's limit; most servers refuse longer ones). */
  public static final Duration MAX_LIFETIME = Duration.ofHours(1);

  /** The algorithms an assertion may be signed with. */
  public static final List<String> ALGORITHMS =
      List.of("RS256", "RS384", "RS512", "ES256", "ES384", "HS256", "HS384", "HS512");

  // Set by the signer itself; an extra claim of one of these names would contradict it.
  private static final Set<String> REGISTERED = Set.of("iss", "sub", "aud", "iat", "exp", "jti");

  private final String issuer;
  private final String subject;
  private final String audience;
  private final List<String> scopes;
  private final boolean scopeClaim;
  private final Map<String, Object> claims;
  private final Duration lifetime;
  private final JWSAlgorithm algorithm;
  private final @Nullable String keyId;
  private final JWSSigner jwsSigner;
  private final Set<String> keyMaterial;
  private final RandomGenerator random;
  private volatile @Nullable String assertion;

  private JwtBearerSigner(Builder b) {
    super(b, refused(b));
    this.issuer = b.issuer;
    this.subject = b.subject == null ? b.issuer : b.subject;
    this.audience = b.audience == null ? b.tokenUrl.toString() : b.audience;
    this.scopes = b.scopes;
    this.scopeClaim = b.scopeClaim;
    this.claims = Map.copyOf(b.claims);
    this.lifetime = b.lifetime;
    this.keyId = b.keyId;
    this.random = b.random;
    if (b.privateKey != null) {
      if (b.secret != null) {
        throw new IllegalArgumentException("privateKey and secret are both set: keep one");
      }
      PrivateKey key = privateKey(b.privateKey);
      this.algorithm = algorithm(b.algorithm, key);
      this.jwsSigner = asymmetric(key, algorithm);
      this.keyMaterial = Set.of(b.privateKey.strip(), pemBody(b.privateKey));
    } else if (b.secret != null) {
      this.algorithm = JWSAlgorithm.parse(b.algorithm == null ? "HS256" : b.algorithm);
      if (!JWSAlgorithm.Family.HMAC_SHA.contains(algorithm)) {
        throw new IllegalArgumentException(
            "algorithm " + algorithm + " needs privateKey; a secret signs HS256, HS384 or HS512");
      }
      byte[] bytes = b.secret.getBytes(StandardCharsets.UTF_8);
      int bits = Integer.parseInt(algorithm.getName().substring(2));
      if (bytes.length * 8 < bits) {
        throw new IllegalArgumentException(
            "secret is too short for "
                + algorithm
                + ": at least "
                + bits / 8
                + " bytes (RFC 7518 section 3.2), but was "
                + bytes.length);
      }
      try {
        this.jwsSigner = new MACSigner(bytes);
      } catch (JOSEException e) {
        throw new IllegalArgumentException("secret cannot sign " + algorithm);
      }
      this.keyMaterial = Set.of(b.secret);
    } else {
      throw new IllegalArgumentException(
          "privateKey: missing (a PKCS#8 PEM private key, or secret for HS256)");
    }
  }

  // "the JWT assertion of ISSUER" (and "for SUBJECT" when it names another principal)
  private static String refused(Builder b) {
    String what = "the JWT assertion of " + b.issuer;
    return b.subject == null || b.subject.equals(b.issuer) ? what : what + " for " + b.subject;
  }

  /**
   * A builder.
   *
   * @param tokenUrl the token endpoint, an absolute http or https URL; also the assertion's {@code
   *     aud} unless {@link Builder#audience} is set
   * @param issuer the assertion's {@code iss}: the service account or client id
   * @return a new builder
   * @throws IllegalArgumentException if the URL is not absolute http or https, or the issuer empty
   */
  public static Builder builder(String tokenUrl, String issuer) {
    return new Builder(tokenUrl, issuer);
  }

  /**
   * A builder from a Google-style service account key file: {@code client_email} is the issuer,
   * {@code private_key} the RS256 key, {@code private_key_id} the {@code kid}, {@code token_uri}
   * the token endpoint and the audience; the scopes go in the assertion's {@code scope} claim, as
   * Google expects, not in a request parameter.
   *
   * @param json the file's content
   * @throws IllegalArgumentException naming the field that is missing or not a string (never the
   *     key), or when the text is not JSON
   */
  public static Builder serviceAccount(String json) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(json);
    } catch (IOException e) {
      // The parser's message quotes the text around the error: the key, maybe.
      throw new IllegalArgumentException("serviceAccount is not a JSON service account key file");
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("serviceAccount is not a JSON object");
    }
    Builder b =
        new Builder(field(root, "token_uri"), field(root, "client_email"))
            .privateKey(field(root, "private_key"));
    if (root.hasNonNull("private_key_id")) b.keyId(field(root, "private_key_id"));
    b.scopeClaim = true;
    return b;
  }

  private static String field(JsonNode root, String name) {
    JsonNode n = root.get(name);
    if (n == null || !n.isTextual() || n.textValue().isBlank()) {
      throw new IllegalArgumentException("serviceAccount: " + name + " is missing or not a string");
    }
    return n.textValue();
  }

  /** The algorithm assertions are signed with: given, or RS256/ES256 from the key. */
  public String algorithm() {
    return algorithm.getName();
  }

  @Override
  Collection<String> credentials() {
    Set<String> out = new HashSet<>(keyMaterial);
    String a = assertion;
    if (a != null) out.add(a);
    return out;
  }

  /** A new signed assertion at {@code now}; called by the endpoint under its lock. */
  @Override
  TokenRequest tokenRequest(Instant now) {
    JWTClaimsSet.Builder c = new JWTClaimsSet.Builder();
    claims.forEach(c::claim);
    c.issuer(issuer)
        .subject(subject)
        .audience(audience)
        .issueTime(Date.from(now))
        .expirationTime(Date.from(now.plus(lifetime)))
        .jwtID(jti());
    if (scopeClaim && !scopes.isEmpty()) c.claim("scope", String.join(" ", scopes));
    JWSHeader header =
        new JWSHeader.Builder(algorithm).type(JOSEObjectType.JWT).keyID(keyId).build();
    SignedJWT jwt = new SignedJWT(header, c.build());
    try {
      jwt.sign(jwsSigner);
    } catch (JOSEException e) {
      throw new IllegalStateException("cannot sign the JWT assertion with " + algorithm, e);
    }
    String signed = jwt.serialize();
    assertion = signed;
    TokenRequest.Builder b = new TokenRequest.Builder(endpoint.url(), new JWTBearerGrant(jwt));
    if (!scopeClaim && !scopes.isEmpty()) b.scope(new Scope(scopes.toArray(String[]::new)));
    return b.build();
  }

  private String jti() {
    byte[] bytes = new byte[16];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** A PKCS#8 PEM private key, RSA or EC; messages name the field, never the key. */
  private static PrivateKey privateKey(String pem) {
    String text = pem.strip();
    if (text.startsWith("-----BEGIN RSA PRIVATE KEY-----")
        || text.startsWith("-----BEGIN EC PRIVATE KEY-----")) {
      throw new IllegalArgumentException(
          "privateKey is a PKCS#1 or SEC1 key; convert it to PKCS#8 (BEGIN PRIVATE KEY) with"
              + " openssl pkcs8 -topk8 -nocrypt -in KEY");
    }
    if (text.startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
      throw new IllegalArgumentException(
          "privateKey is encrypted; decrypt it with openssl pkcs8 -topk8 -nocrypt -in KEY");
    }
    if (!text.startsWith("-----BEGIN PRIVATE KEY-----")
        || !text.endsWith("-----END PRIVATE KEY-----")) {
      throw new IllegalArgumentException(
          "privateKey is not a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY----- ..."
              + " -----END PRIVATE KEY-----)");
    }
    byte[] der;
    try {
      der = Base64.getDecoder().decode(pemBody(text));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("privateKey has invalid base64 between its PEM lines");
    }
    for (String type : new String[] {"RSA", "EC"}) {
      try {
        return KeyFactory.getInstance(type).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        // not this type; try the next
      }
    }
    throw new IllegalArgumentException("privateKey is neither an RSA nor an EC private key");
  }

  // The base64 between the PEM lines, without whitespace.
  private static String pemBody(String pem) {
    return pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
  }

  private static JWSAlgorithm algorithm(@Nullable String name, PrivateKey key) {
    boolean rsa = key instanceof RSAPrivateKey;
    if (name == null) return rsa ? JWSAlgorithm.RS256 : JWSAlgorithm.ES256;
    JWSAlgorithm alg = JWSAlgorithm.parse(name);
    if (rsa && !JWSAlgorithm.Family.RSA.contains(alg)) {
      throw new IllegalArgumentException(
          "algorithm " + name + " does not match privateKey, an RSA key (RS256, RS384, RS512)");
    }
    if (!rsa && !JWSAlgorithm.Family.EC.contains(alg)) {
      throw new IllegalArgumentException(
          "algorithm " + name + " does not match privateKey, an EC key (ES256, ES384)");
    }
    return alg;
  }

  private static JWSSigner asymmetric(PrivateKey key, JWSAlgorithm alg) {
    if (key instanceof ECPrivateKey ec) {
      Curve curve = Curve.forECParameterSpec(ec.getParams());
      if (curve == null || !Curve.forJWSAlgorithm(alg).contains(curve)) {
        throw new IllegalArgumentException(
            "algorithm "
                + alg
                + " needs a key on "
                + Curve.forJWSAlgorithm(alg)
                + ", but privateKey is on "
                + (curve == null ? "another curve" : curve));
      }
      try {
        return new ECDSASigner(ec);
      } catch (JOSEException e) {
        throw new IllegalArgumentException("privateKey cannot sign " + alg);
      }
    }
    return new RSASSASigner(key);
  }

  /**
   * Builds a {@link JwtBearerSigner}; the token endpoint settings shared by the OAuth2 signers are
   * in {@link TokenSignerBuilder}. Set a {@link #privateKey} or a {@link #secret}. Not thread-safe.
   */
  public static final class Builder extends TokenSignerBuilder<Builder> {
    private final String issuer;
    private @Nullable String subject;
    private @Nullable String audience;
    private List<String> scopes = List.of();
    private boolean scopeClaim;
    private final Map<String, Object> claims = new LinkedHashMap<>();
    private Duration lifetime = DEFAULT_LIFETIME;
    private @Nullable String algorithm;
    private @Nullable String keyId;
    private @Nullable String privateKey;
    private @Nullable String secret;
    private RandomGenerator random = new SecureRandom();

    private Builder(String tokenUrl, String issuer) {
      super(tokenUrl);
      this.issuer = Credentials.nonEmpty("issuer", issuer);
    }

    /** The assertion's {@code sub}: the principal the token is for. Default the issuer. */
    public Builder subject(String subject) {
      this.subject = Credentials.nonEmpty("subject", subject);
      return this;
    }

    /** The assertion's {@code aud}. Default the token URL (RFC 7523 section 3). */
    public Builder audience(String audience) {
      this.audience = Credentials.nonEmpty("audience", audience);
      return this;
    }

    /** The scopes asked for: the {@code scope} request parameter, space-separated. Default none. */
    public Builder scopes(List<String> scopes) {
      this.scopes = checkedScopes(scopes);
      return this;
    }

    /**
     * An extra claim of every assertion (a tenant, a {@code target_audience}).
     *
     * @param value a string, number or boolean
     * @throws IllegalArgumentException for a claim the signer sets itself (iss, sub, aud, iat, exp,
     *     jti) or a value of another type
     */
    public Builder claim(String name, Object value) {
      Credentials.nonEmpty("claim name", name);
      if (REGISTERED.contains(name)) {
        throw new IllegalArgumentException(
            "claim " + name + " is set by the signer (iss, sub, aud, iat, exp, jti)");
      }
      if (!(value instanceof String || value instanceof Number || value instanceof Boolean)) {
        throw new IllegalArgumentException(
            "claim " + name + " must be a string, number or boolean");
      }
      claims.put(name, value);
      return this;
    }

    /**
     * How long each assertion is valid ({@code exp - iat}). Default {@link #DEFAULT_LIFETIME}.
     *
     * @throws IllegalArgumentException if not positive or longer than {@link #MAX_LIFETIME}
     */
    public Builder lifetime(Duration lifetime) {
      positive("lifetime", lifetime);
      if (lifetime.compareTo(MAX_LIFETIME) > 0) {
        throw new IllegalArgumentException(
            "lifetime must be at most 1h, but was "
                + io.watukuy.sink.SinkConfig.formatDuration(lifetime));
      }
      this.lifetime = lifetime;
      return this;
    }

    /**
     * The signing algorithm, one of {@link #ALGORITHMS}. Default RS256 for an RSA key, ES256 for an
     * EC key, HS256 for a secret.
     */
    public Builder algorithm(String algorithm) {
      if (!ALGORITHMS.contains(algorithm)) {
        throw new IllegalArgumentException(
            "algorithm '" + algorithm + "' is not one of " + String.join(", ", ALGORITHMS));
      }
      this.algorithm = algorithm;
      return this;
    }

    /** The {@code kid} header naming the key at the server. Default none. */
    public Builder keyId(String keyId) {
      this.keyId = Credentials.nonEmpty("keyId", keyId);
      return this;
    }

    /** The PKCS#8 PEM private key ({@code -----BEGIN PRIVATE KEY-----}) of RS* or ES*. */
    public Builder privateKey(String pem) {
      this.privateKey = Credentials.nonEmpty("privateKey", pem);
      return this;
    }

    /** The shared secret of HS256, HS384 or HS512: at least 32, 48 or 64 bytes. */
    public Builder secret(String secret) {
      this.secret = Credentials.nonEmpty("secret", secret);
      return this;
    }

    /** The source of each assertion's random {@code jti}. Default a {@link SecureRandom}. */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * The signer.
     *
     * @throws IllegalArgumentException naming the field (never its value) when the key is missing,
     *     unreadable, or does not fit the algorithm, or when a secret is too short
     */
    public JwtBearerSigner build() {
      return new JwtBearerSigner(this);
    }
  }
}
