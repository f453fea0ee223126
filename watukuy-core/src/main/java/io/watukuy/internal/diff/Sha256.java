package io.watukuy.internal.diff;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 digests rendered as 64 lowercase hexadecimal characters. */
public final class Sha256 {

  private static final HexFormat HEX = HexFormat.of();

  private Sha256() {}

  /**
   * Hashes raw bytes.
   *
   * @param bytes the bytes to hash; not modified
   * @return the SHA-256 digest as 64 lowercase hex characters
   */
  public static String hex(byte[] bytes) {
    return hex(bytes, bytes.length);
  }

  /**
   * Hashes the first {@code length} bytes of an array.
   *
   * @param bytes the buffer; not modified
   * @param length how many bytes from index 0 to hash; at most {@code bytes.length}
   * @return the SHA-256 digest as 64 lowercase hex characters
   */
  public static String hex(byte[] bytes, int length) {
    MessageDigest digest = newDigest();
    digest.update(bytes, 0, length);
    return HEX.formatHex(digest.digest());
  }

  /**
   * Hashes the UTF-8 encoding of a string. As with {@link
   * String#getBytes(java.nio.charset.Charset)}, an unpaired surrogate has no UTF-8 form and is
   * encoded as {@code ?}.
   *
   * @param utf8 the text to hash
   * @return the SHA-256 digest of its UTF-8 bytes as 64 lowercase hex characters
   */
  public static String hex(String utf8) {
    return hex(utf8.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * A fresh SHA-256 digest, for a caller that feeds it in parts.
   *
   * @return a new digest; not thread-safe
   */
  public static MessageDigest newDigest() {
    try {
      // A fresh instance per call: MessageDigest is not thread-safe and creating one is cheap
      // next to hashing a payload.
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is mandatory on every Java platform", e);
    }
  }
}
