package io.watukuy.bench;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The baselines' SHA-256: the JDK digest and hex, with no canonical form in front. */
final class Digests {
  private static final HexFormat HEX = HexFormat.of();

  private Digests() {}

  static String sha256Hex(byte[] bytes) {
    try {
      return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
