package io.watukuy.sink.webhook;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A receiver's check of a Standard Webhooks signature, written from Standard Webhooks
 * (spec/standard-webhooks.md, "Signature scheme" and "Verifying signatures") apart from the sink's
 * own code: the key is the Base64 after {@code whsec_}; the signed content is {@code
 * id.timestamp.body}; the header is a space-separated list of {@code version,signature}, and one
 * {@code v1} entry must match in constant time; the timestamp must be within the tolerance of now.
 */
final class StandardWebhooksVerifier {
  private final byte[] key;

  StandardWebhooksVerifier(String secret) {
    String base64 = secret.startsWith("whsec_") ? secret.substring("whsec_".length()) : secret;
    this.key = Base64.getDecoder().decode(base64);
  }

  /** Whether one of the header's {@code v1} signatures is the body's. */
  boolean verify(String id, String timestamp, String signatureHeader, byte[] body)
      throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    byte[] content = concat((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8), body);
    byte[] expected = mac.doFinal(content);
    for (String entry : signatureHeader.split(" ")) {
      int comma = entry.indexOf(',');
      if (comma < 0 || !entry.substring(0, comma).equals("v1")) continue;
      byte[] given;
      try {
        given = Base64.getDecoder().decode(entry.substring(comma + 1));
      } catch (IllegalArgumentException e) {
        continue;
      }
      if (MessageDigest.isEqual(expected, given)) return true;
    }
    return false;
  }

  /** {@link #verify} and a timestamp within {@code toleranceSeconds} of {@code nowSeconds}. */
  boolean verify(
      String id,
      String timestamp,
      String signatureHeader,
      byte[] body,
      long nowSeconds,
      long toleranceSeconds)
      throws Exception {
    long at = Long.parseLong(timestamp);
    return Math.abs(nowSeconds - at) <= toleranceSeconds
        && verify(id, timestamp, signatureHeader, body);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
