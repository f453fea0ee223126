package io.watukuy.cli;

import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** Reads the {@code rel="next"} target of an RFC 8288 {@code Link} header. */
final class LinkHeader {
  private LinkHeader() {}

  /**
   * The target of the first link whose {@code rel} includes {@code next}.
   *
   * @param values the {@code Link} header's values, or null when there is none
   * @return the target as written (possibly relative), or null when no link has {@code rel=next}
   */
  static @Nullable String next(@Nullable List<String> values) {
    if (values == null) return null;
    for (String value : values) {
      String found = next(value);
      if (found != null) return found;
    }
    return null;
  }

  private static @Nullable String next(String header) {
    int i = 0;
    while (true) {
      int open = header.indexOf('<', i);
      if (open < 0) return null;
      int close = header.indexOf('>', open + 1);
      if (close < 0) return null;
      String target = header.substring(open + 1, close).trim();
      // The parameters run to the next link; a comma inside a quoted value does not end them.
      int end = close + 1;
      boolean quoted = false;
      while (end < header.length()) {
        char c = header.charAt(end);
        if (c == '"') quoted = !quoted;
        else if (c == ',' && !quoted) break;
        end++;
      }
      if (hasRelNext(header.substring(close + 1, end))) return target;
      i = end;
    }
  }

  private static boolean hasRelNext(String params) {
    for (String param : params.split(";")) {
      int eq = param.indexOf('=');
      if (eq < 0 || !param.substring(0, eq).trim().equalsIgnoreCase("rel")) continue;
      String rel = param.substring(eq + 1).trim();
      if (rel.length() >= 2 && rel.startsWith("\"") && rel.endsWith("\""))
        rel = rel.substring(1, rel.length() - 1);
      for (String r : rel.toLowerCase(Locale.ROOT).trim().split("\\s+")) {
        if (r.equals("next")) return true;
      }
    }
    return false;
  }
}
