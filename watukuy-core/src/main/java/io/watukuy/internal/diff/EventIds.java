package io.watukuy.internal.diff;

import java.util.Objects;

/**
 * The event-id rule. An event id is the lowercase hex SHA-256 of the UTF-8 bytes of
 *
 * <pre>{@code watukuy|v1|<source>|<partition>|<identity>|<version-or-hash>|<schemaVersion>|<type>}
 * </pre>
 *
 * where each of the six variable parts is first passed through {@link #escape(String)} ({@code \}
 * becomes {@code \\}, then {@code |} becomes {@code \|}) and {@code schemaVersion} is written in
 * decimal. Escaping keeps the fields unambiguous: without it, identity {@code "a|b"} with version
 * {@code "c"} and identity {@code "a"} with version {@code "b|c"} would hash the same text. The
 * same inputs always give the same id, so a consumer can use it to drop redelivered events.
 */
public final class EventIds {

  private static final String PREFIX = "watukuy|v1|";

  private EventIds() {}

  /**
   * Computes the id of one event.
   *
   * @param source the source (poller) name
   * @param partition the partition name; empty when the source is not partitioned
   * @param identity the item's identity within the source and partition
   * @param versionOrHash the item's version, or its content hash when the source has no version
   * @param schemaVersion the item schema version, written in decimal
   * @param type the event type, for example {@code created}, {@code updated} or {@code deleted}
   * @return 64 lowercase hex characters
   * @throws NullPointerException if any string argument is {@code null}
   */
  public static String eventId(
      String source,
      String partition,
      String identity,
      String versionOrHash,
      int schemaVersion,
      String type) {
    StringBuilder text =
        new StringBuilder(
            PREFIX.length()
                + source.length()
                + partition.length()
                + identity.length()
                + versionOrHash.length()
                + type.length()
                + 24);
    text.append(PREFIX);
    appendEscaped(text, source).append('|');
    appendEscaped(text, partition).append('|');
    appendEscaped(text, identity).append('|');
    appendEscaped(text, versionOrHash).append('|');
    appendEscaped(text, Integer.toString(schemaVersion)).append('|');
    appendEscaped(text, type);
    return Sha256.hex(text.toString());
  }

  /**
   * Escapes one part of the event-id text: {@code \} becomes {@code \\}, then {@code |} becomes
   * {@code \|}.
   *
   * @param part the raw part
   * @return the escaped part; the same instance when nothing needed escaping
   * @throws NullPointerException if {@code part} is {@code null}
   */
  public static String escape(String part) {
    Objects.requireNonNull(part, "part");
    if (part.indexOf('\\') < 0 && part.indexOf('|') < 0) {
      return part;
    }
    return appendEscaped(new StringBuilder(part.length() + 8), part).toString();
  }

  // One pass is equivalent to the two sequential replacements because the first one never
  // produces a '|'.
  private static StringBuilder appendEscaped(StringBuilder out, String part) {
    Objects.requireNonNull(part, "event id part");
    for (int i = 0, n = part.length(); i < n; i++) {
      char c = part.charAt(i);
      if (c == '\\' || c == '|') {
        out.append('\\');
      }
      out.append(c);
    }
    return out;
  }
}
