package io.watukuy.sink.webhook;

import java.util.regex.Pattern;

/**
 * A URL as messages may show it: the user info, every query value (a parameter without {@code =}
 * whole) and the fragment replaced by {@code ***}, so a token in {@code
 * https://user:pass@host/hook?token=...} never reaches a log, an error or {@link
 * WebhookSink#name()}. The scheme, host, port and path stay: they name the endpoint.
 */
final class RedactedUrl {
  private static final Pattern USER_INFO = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#]*@");

  private RedactedUrl() {}

  /**
   * The URL with its secrets replaced.
   *
   * @param url a URL or URL template, as written
   * @return the same URL with {@code ***} for the user info, each query value and the fragment
   */
  static String of(String url) {
    String s = USER_INFO.matcher(url).replaceFirst("$1***@");
    int hash = s.indexOf('#');
    String fragment = hash < 0 ? "" : "#***";
    if (hash >= 0) s = s.substring(0, hash);
    int q = s.indexOf('?');
    if (q < 0) return s + fragment;
    StringBuilder out = new StringBuilder(s.substring(0, q + 1));
    String[] params = s.substring(q + 1).split("&", -1);
    for (int i = 0; i < params.length; i++) {
      if (i > 0) out.append('&');
      int eq = params[i].indexOf('=');
      out.append(eq < 0 ? (params[i].isEmpty() ? "" : "***") : params[i].substring(0, eq) + "=***");
    }
    return out + fragment;
  }
}
