package io.watukuy.auth;

import io.watukuy.OutgoingRequest;
import io.watukuy.RequestSigner;
import io.watukuy.TimeSource;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Signs every request with an HMAC over a canonical string built from the request: the template's
 * {@code {{method}}} (upper case), {@code {{path}}} (raw, as sent), {@code {{query}}} (raw, without
 * {@code ?}, empty for none), {@code {{body}}} (the body as UTF-8 text, empty for none), {@code
 * {{bodySha256}}} (lowercase hex SHA-256 of the body bytes) and {@code {{timestamp}}} (Unix seconds
 * of the {@link TimeSource}) are replaced, any other text is kept. The MAC, hex (default) or
 * Base64, goes into the header {@link Builder#header}, optionally after a prefix; the timestamp
 * goes into {@link Builder#timestampHeader} so the server can recompute it. The secret is hidden
 * wherever it would be printed. Immutable and thread-safe.
 */
public final class HmacSigner implements RequestSigner {

  /** The MAC algorithm unless another is set. */
  public static final String DEFAULT_ALGORITHM = "HmacSHA256";

  /** The variables a template may use. */
  public static final Set<String> VARIABLES =
      Set.of("method", "path", "query", "body", "bodySha256", "timestamp");

  private static final Pattern VARIABLE = Pattern.compile("\\{\\{\\s*([A-Za-z0-9]+)\\s*}}");

  /** How the MAC is written. */
  public enum Encoding {
    /** Lowercase hexadecimal. */
    HEX,
    /** Standard Base64 with padding. */
    BASE64
  }

  private final String header;
  private final String template;
  private final String secret;
  private final String algorithm;
  private final Encoding encoding;
  private final String prefix;
  private final @Nullable String timestampHeader;
  private final TimeSource time;

  private HmacSigner(Builder b) {
    this.header = Credentials.nonEmpty("header", Objects.requireNonNull(b.header, "header"));
    this.template = Objects.requireNonNull(b.template, "template");
    this.secret = Credentials.nonEmpty("secret", Objects.requireNonNull(b.secret, "secret"));
    this.algorithm = b.algorithm;
    this.encoding = b.encoding;
    this.prefix = b.prefix;
    this.timestampHeader = b.timestampHeader;
    this.time = b.time;
    Matcher m = VARIABLE.matcher(template);
    while (m.find()) {
      if (!VARIABLES.contains(m.group(1))) {
        throw new IllegalArgumentException(
            "template: unknown variable {{"
                + m.group(1)
                + "}} (known: method, path, query, body, bodySha256, timestamp)");
      }
    }
    if (timestampHeader == null && usesTimestamp(template)) {
      throw new IllegalArgumentException(
          "template uses {{timestamp}} but no timestampHeader is set: the server could not"
              + " recompute the signature");
    }
    mac(); // fails now, not on the first request, for an unknown algorithm
  }

  private static boolean usesTimestamp(String template) {
    Matcher m = VARIABLE.matcher(template);
    while (m.find()) if (m.group(1).equals("timestamp")) return true;
    return false;
  }

  /**
   * A builder; {@code header}, {@code template} and {@code secret} are required.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void sign(OutgoingRequest request) {
    String timestamp = Long.toString(time.now().getEpochSecond());
    String canonical = canonical(request, timestamp);
    byte[] sum = mac().doFinal(canonical.getBytes(StandardCharsets.UTF_8));
    String text =
        encoding == Encoding.HEX
            ? HexFormat.of().formatHex(sum)
            : Base64.getEncoder().encodeToString(sum);
    if (timestampHeader != null) request.setHeader(timestampHeader, timestamp);
    request.setHeader(header, prefix + text);
  }

  /**
   * The canonical string of {@code request} at {@code timestamp}: what the MAC is computed over.
   */
  String canonical(OutgoingRequest request, String timestamp) {
    Matcher m = VARIABLE.matcher(template);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String value =
          switch (m.group(1)) {
            case "method" -> request.method().toUpperCase(Locale.ROOT);
            case "path" -> Objects.requireNonNullElse(request.uri().getRawPath(), "/");
            case "query" -> Objects.requireNonNullElse(request.uri().getRawQuery(), "");
            case "body" -> new String(request.body(), StandardCharsets.UTF_8);
            case "bodySha256" -> HexFormat.of().formatHex(sha256(request.body()));
            default -> timestamp;
          };
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    m.appendTail(out);
    return out.toString();
  }

  @Override
  public Set<String> secretValues() {
    return Set.of(secret);
  }

  private Mac mac() {
    try {
      Mac mac = Mac.getInstance(algorithm);
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), algorithm));
      return mac;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalArgumentException(
          "algorithm '" + algorithm + "' is not a MAC algorithm (HmacSHA256, HmacSHA512, ...)", e);
    } catch (InvalidKeyException e) {
      throw new IllegalArgumentException("secret is not a valid " + algorithm + " key", e);
    }
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory on every Java platform", e);
    }
  }

  /** Builds an {@link HmacSigner}. Not thread-safe. */
  public static final class Builder {
    private @Nullable String header;
    private @Nullable String template;
    private @Nullable String secret;
    private String algorithm = DEFAULT_ALGORITHM;
    private Encoding encoding = Encoding.HEX;
    private String prefix = "";
    private @Nullable String timestampHeader;
    private TimeSource time = TimeSource.system();

    private Builder() {}

    /** The header the MAC goes into. Required. */
    public Builder header(String header) {
      this.header = header;
      return this;
    }

    /** The canonical string template (see {@link HmacSigner}). Required. */
    public Builder template(String template) {
      this.template = template;
      return this;
    }

    /** The shared secret, as UTF-8 bytes. Required. */
    public Builder secret(String secret) {
      this.secret = secret;
      return this;
    }

    /** A JCA MAC algorithm name. Default {@value #DEFAULT_ALGORITHM}. */
    public Builder algorithm(String algorithm) {
      this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
      return this;
    }

    /** How the MAC is written. Default {@link Encoding#HEX}. */
    public Builder encoding(Encoding encoding) {
      this.encoding = Objects.requireNonNull(encoding, "encoding");
      return this;
    }

    /** Text before the MAC in the header, e.g. {@code sha256=}. Default none. */
    public Builder prefix(String prefix) {
      this.prefix = Objects.requireNonNull(prefix, "prefix");
      return this;
    }

    /** The header that carries the timestamp; required when the template uses it. */
    public Builder timestampHeader(String timestampHeader) {
      this.timestampHeader = Credentials.nonEmpty("timestampHeader", timestampHeader);
      return this;
    }

    /** The clock of {@code {{timestamp}}}. Default the system clock. */
    public Builder time(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    /**
     * The signer.
     *
     * @throws IllegalArgumentException if a required value is missing or empty, the template uses
     *     an unknown variable, or uses {@code {{timestamp}}} without a timestamp header, or the
     *     algorithm is unknown
     */
    public HmacSigner build() {
      if (header == null) throw new IllegalArgumentException("header is missing");
      if (template == null) throw new IllegalArgumentException("template is missing");
      if (secret == null) throw new IllegalArgumentException("secret is missing");
      return new HmacSigner(this);
    }
  }
}
