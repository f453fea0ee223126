package io.watukuy.sink.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A Standard Webhooks symmetric signing secret and the {@code v1} signature it makes
 * (standard-webhooks.md, "Signature scheme"): the secret is written {@code whsec_} followed by the
 * Base64 of 24 to 64 random bytes (the prefix may be left out); a signature is {@code v1,} followed
 * by the Base64 of HMAC-SHA256 over {@code <webhook-id>.<webhook-timestamp>.<body>}. Immutable.
 *
 * <p>The secret never leaves this object in clear: {@link #toString()} is redacted, and no message
 * quotes it.
 *
 * @since 0.2
 */
public final class SigningSecret {
  /** The prefix Standard Webhooks gives symmetric secrets. */
  public static final String PREFIX = "whsec_";

  /** The fewest key bytes Standard Webhooks allows (192 bits). */
  public static final int MIN_BYTES = 24;

  /** The most key bytes Standard Webhooks allows (512 bits). */
  public static final int MAX_BYTES = 64;

  private static final String ALGORITHM = "HmacSHA256";

  private final SecretKeySpec key;

  private SigningSecret(byte[] key) {
    this.key = new SecretKeySpec(key, ALGORITHM);
  }

  /**
   * Reads a secret as Standard Webhooks writes it.
   *
   * @param text {@code whsec_} and Base64, or the Base64 alone
   * @return the secret
   * @throws IllegalArgumentException when the text is not Base64 or not 24 to 64 bytes; the message
   *     never quotes the text
   */
  public static SigningSecret parse(String text) {
    String base64 = text.strip();
    if (base64.startsWith(PREFIX)) base64 = base64.substring(PREFIX.length());
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(base64);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "is not a Standard Webhooks secret: expected whsec_ followed by Base64");
    }
    if (bytes.length < MIN_BYTES || bytes.length > MAX_BYTES)
      throw new IllegalArgumentException(
          "is a secret of "
              + bytes.length
              + " bytes; Standard Webhooks secrets are "
              + MIN_BYTES
              + " to "
              + MAX_BYTES
              + " random bytes, Base64 after whsec_");
    return new SigningSecret(bytes);
  }

  /**
   * The {@code webhook-signature} header value for one request.
   *
   * @param id the {@code webhook-id}
   * @param timestamp the {@code webhook-timestamp}, Unix seconds
   * @param body the exact bytes sent
   * @return {@code v1,} and the Base64 HMAC-SHA256
   */
  public String sign(String id, long timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
      return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      // Every JDK ships HmacSHA256 (a required Mac algorithm); a key it takes at parse it takes
      // here.
      throw new IllegalStateException("HmacSHA256 is not available: " + e.getMessage(), e);
    }
  }

  /**
   * Redacted.
   *
   * @return {@code whsec_***}
   */
  @Override
  public String toString() {
    return PREFIX + "***";
  }
}
