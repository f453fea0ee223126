package io.watukuy.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Byte sizes as a config writes them: {@code 32MB}, {@code 512 KB}, {@code 4096}. */
final class Sizes {
  /** The accepted forms, for messages. */
  static final String UNITS = "(a whole number with B, KB, MB or GB, e.g. 32MB)";

  private static final Pattern SIZE =
      Pattern.compile("(\\d{1,12})\\s*(B|KB|MB|GB|KiB|MiB|GiB)?", Pattern.CASE_INSENSITIVE);

  private Sizes() {}

  /**
   * A size in bytes: a whole number, alone (bytes) or with B, KB, MB or GB (powers of 1024; KiB,
   * MiB and GiB are the same), case-insensitive, optionally with a space: {@code 32MB}, {@code 512
   * KB}, {@code 4096}.
   *
   * @throws IllegalArgumentException naming the text and the accepted forms
   */
  static long parse(String text) {
    Matcher m = SIZE.matcher(text.trim());
    if (!m.matches()) throw new IllegalArgumentException("'" + text + "' is not a size " + UNITS);
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT);
    int shift =
        switch (unit) {
          case "KB", "KIB" -> 10;
          case "MB", "MIB" -> 20;
          case "GB", "GIB" -> 30;
          default -> 0;
        };
    if (n > (Long.MAX_VALUE >> shift))
      throw new IllegalArgumentException("'" + text + "' is too large");
    return n << shift;
  }
}
