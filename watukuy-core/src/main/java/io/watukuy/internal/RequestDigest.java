package io.watukuy.internal;

import io.watukuy.internal.diff.Sha256;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What makes one request what it is, as a SHA-256 digest: method, URL with its query, headers
 * (names folded to lower case, sorted) and body. Two requests with the same digest fetch the same
 * page, which is how a stalled lane is told apart from one that moves (docs/operations.md, "Stalled
 * lanes"). A digest, not the text, so that a page's request body and credentials are not held
 * beside the run.
 */
final class RequestDigest {
  private RequestDigest() {}

  static String of(
      String method, String target, Map<String, String> headers, byte @Nullable [] body) {
    MessageDigest digest = Sha256.newDigest();
    update(digest, method);
    update(digest, target);
    Map<String, String> sorted = new TreeMap<>();
    headers.forEach((name, value) -> sorted.put(name.toLowerCase(Locale.ROOT), value));
    sorted.forEach(
        (name, value) -> {
          update(digest, name);
          update(digest, value);
        });
    if (body != null) digest.update(body);
    return HexFormat.of().formatHex(digest.digest());
  }

  /** The text and a separator no header or URL contains, so that fields cannot run together. */
  private static void update(MessageDigest digest, String text) {
    digest.update(text.getBytes(StandardCharsets.UTF_8));
    digest.update((byte) 0);
  }
}
