package io.watukuy.internal.http;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Hides credentials in text meant for people: exception messages, logs, parked rows, inspect output
 * (docs/architecture.md, "Partitions, tick, listeners"). Three rules:
 *
 * <ul>
 *   <li>the values of {@code Authorization}, {@code Proxy-Authorization}, {@code Cookie} and {@code
 *       Set-Cookie} headers become {@value #REDACTED};
 *   <li>in a URL, the value of a query (or fragment) parameter whose name, case-insensitively,
 *       contains {@code token}, {@code key}, {@code secret}, {@code password}, {@code passwd},
 *       {@code signature}, {@code sig}, {@code auth}, {@code credential} or {@code session}, or is
 *       {@code code}, becomes {@value #REDACTED}, and so does the password of a {@code
 *       user:password@} part;
 *   <li>every secret value (those that came from a {@code ${ENV}} substitution) becomes {@value
 *       #REDACTED} wherever it appears, also in its URL-encoded form.
 * </ul>
 *
 * The name rule errs on the side of hiding: {@code author} and {@code monkey} match too. Immutable
 * and thread-safe.
 */
public final class Redactor {

  /** What a hidden value is replaced with. */
  public static final String REDACTED = "[redacted]";

  /** The name rules only, for results that know no secret values. */
  public static final Redactor NONE = new Redactor(Set.of());

  private static final Set<String> SECRET_HEADERS =
      Set.of("authorization", "proxy-authorization", "cookie", "set-cookie");

  private static final Set<String> URL_HEADERS = Set.of("location", "content-location");

  private static final List<String> SECRET_PARAMETER_PARTS =
      List.of(
          "token",
          "key",
          "secret",
          "password",
          "passwd",
          "signature",
          "sig",
          "auth",
          "credential",
          "session");

  // Longest first, so that a secret containing another one is replaced whole.
  private final List<String> secrets;

  /**
   * @param secretValues values to hide wherever they appear; empty strings are ignored
   */
  public Redactor(Collection<String> secretValues) {
    Set<String> forms = new LinkedHashSet<>();
    for (String secret : secretValues) {
      Objects.requireNonNull(secret, "secret value");
      if (secret.isEmpty()) continue;
      forms.add(secret);
      // A secret put into a query string shows up encoded in the URL.
      String encoded = URLEncoder.encode(secret, StandardCharsets.UTF_8);
      forms.add(encoded);
      forms.add(encoded.replace("+", "%20"));
    }
    List<String> sorted = new ArrayList<>(forms);
    sorted.sort(Comparator.comparingInt(String::length).reversed());
    this.secrets = List.copyOf(sorted);
  }

  /** Whether a header's values are always hidden. */
  public static boolean isSecretHeader(String name) {
    return SECRET_HEADERS.contains(name.toLowerCase(Locale.ROOT));
  }

  /** Whether a query parameter's value is always hidden. */
  public static boolean isSecretParameter(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.equals("code")) return true;
    for (String part : SECRET_PARAMETER_PARTS) {
      if (lower.contains(part)) return true;
    }
    return false;
  }

  /** {@code text} with every secret value replaced; null gives the empty string. */
  public String message(@Nullable String text) {
    if (text == null) return "";
    String out = text;
    for (String secret : secrets) {
      if (out.contains(secret)) out = out.replace(secret, REDACTED);
    }
    return out;
  }

  /** {@code url} with the password of its user info and credential-like parameters hidden. */
  public String url(String url) {
    int fragmentStart = url.indexOf('#');
    String beforeFragment = fragmentStart < 0 ? url : url.substring(0, fragmentStart);
    @Nullable String fragment = fragmentStart < 0 ? null : url.substring(fragmentStart + 1);
    int queryStart = beforeFragment.indexOf('?');
    String base = queryStart < 0 ? beforeFragment : beforeFragment.substring(0, queryStart);
    @Nullable String query = queryStart < 0 ? null : beforeFragment.substring(queryStart + 1);

    StringBuilder out = new StringBuilder(url.length() + 16).append(userInfoHidden(base));
    if (query != null) out.append('?').append(parametersHidden(query));
    // OAuth implicit flows put tokens in the fragment.
    if (fragment != null) out.append('#').append(parametersHidden(fragment));
    return message(out.toString());
  }

  /**
   * A copy of {@code headers} for messages: names lower-cased (values of names differing only in
   * case merged), sorted, secret headers hidden, URLs in {@code Location} redacted, secret values
   * replaced. HTTP/2 pseudo-headers are left out. Unmodifiable.
   */
  public Map<String, List<String>> headers(Map<String, List<String>> headers) {
    TreeMap<String, List<String>> out = new TreeMap<>();
    headers.forEach(
        (name, values) -> {
          if (name.startsWith(":")) return;
          String lower = name.toLowerCase(Locale.ROOT);
          List<String> target = out.computeIfAbsent(lower, k -> new ArrayList<>());
          for (String value : values) target.add(headerValue(lower, value));
        });
    out.replaceAll((name, values) -> List.copyOf(values));
    return Collections.unmodifiableMap(out);
  }

  /** One header value as it may be shown. */
  public String headerValue(String name, String value) {
    if (isSecretHeader(name)) return REDACTED;
    if (URL_HEADERS.contains(name.toLowerCase(Locale.ROOT))) return url(value);
    return message(value);
  }

  private static String userInfoHidden(String base) {
    int schemeEnd = base.indexOf("://");
    if (schemeEnd < 0) return base;
    int authorityStart = schemeEnd + 3;
    int authorityEnd = base.indexOf('/', authorityStart);
    if (authorityEnd < 0) authorityEnd = base.length();
    int at = base.lastIndexOf('@', authorityEnd - 1);
    if (at < authorityStart) return base;
    int colon = base.indexOf(':', authorityStart);
    if (colon < 0 || colon > at) return base;
    return base.substring(0, colon + 1) + REDACTED + base.substring(at);
  }

  private static String parametersHidden(String parameters) {
    if (parameters.indexOf('=') < 0) return parameters;
    String[] parts = parameters.split("&", -1);
    StringBuilder out = new StringBuilder(parameters.length());
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) out.append('&');
      String part = parts[i];
      int eq = part.indexOf('=');
      if (eq > 0 && isSecretParameter(decode(part.substring(0, eq)))) {
        out.append(part, 0, eq + 1).append(REDACTED);
      } else {
        out.append(part);
      }
    }
    return out.toString();
  }

  private static String decode(String name) {
    try {
      return URLDecoder.decode(name, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException malformed) {
      return name;
    }
  }
}
