package io.watukuy.admin;

import com.sun.net.httpserver.Headers;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Decides whether a request may go on (docs/operations.md, "Admin HTTP"): the {@code Host} it names
 * (DNS rebinding), its {@code Origin} (CSRF), the bearer token, and the custom header a cross-site
 * form cannot send on a {@code POST}.
 */
final class RequestGuard {
  /** Why a request is refused, or {@code null} when it may go on. */
  record Refusal(int status, String message) {}

  private final Set<String> hosts;
  private final boolean anyHost;
  private final byte @Nullable [] tokenDigest;
  private volatile int port;

  /**
   * @param hosts the names a request may send in {@code Host}
   * @param anyHost bound to a wildcard address ({@code 0.0.0.0}, {@code [::]}): every name of the
   *     machine reaches it, so {@code Host} cannot be checked; the token, which such a bind
   *     requires, guards everything but the probes and the dashboard's files, which hold no data
   * @param token the bearer token, or null
   */
  RequestGuard(Set<String> hosts, boolean anyHost, @Nullable String token) {
    this.hosts = Set.copyOf(hosts);
    this.anyHost = anyHost;
    this.tokenDigest = token == null ? null : digest(token);
  }

  void bound(int port) {
    this.port = port;
  }

  boolean hasToken() {
    return tokenDigest != null;
  }

  /**
   * Checks a request's headers.
   *
   * @param post whether it changes something
   * @param open whether the path is readable without the token ({@code /health/live} and {@code
   *     /health/ready}, which say nothing about the pollers)
   * @return the refusal, or null
   */
  @Nullable Refusal check(Headers headers, boolean post, boolean open) {
    boolean tokenOk = tokenMatches(headers.getFirst("Authorization"));
    String host = headers.getFirst("Host");
    // A page that rebinds its own name to 127.0.0.1 still sends that name: refuse it. A request
    // with the token passes, since no such page can have the token.
    if (!tokenOk && !anyHost && !hostAllowed(host))
      return new Refusal(403, "Host '" + host + "' is not this server's address");
    // Same origin: the page's own scheme and Host; https when a TLS proxy fronts the server.
    String origin = headers.getFirst("Origin");
    if (origin != null
        && !origin.equalsIgnoreCase("http://" + host)
        && !origin.equalsIgnoreCase("https://" + host))
      return new Refusal(403, "cross-origin request from " + origin + " refused");
    if (tokenDigest != null && !open && !tokenOk)
      return new Refusal(401, "missing or wrong bearer token (Authorization: Bearer TOKEN)");
    if (post && tokenDigest == null && !"1".equals(headers.getFirst(AdminServer.ADMIN_HEADER)))
      return new Refusal(
          403, "a POST needs the header " + AdminServer.ADMIN_HEADER + ": 1 (or the bearer token)");
    return null;
  }

  private boolean hostAllowed(@Nullable String host) {
    if (host == null) return false;
    String h = host.toLowerCase(Locale.ROOT);
    int colon = h.lastIndexOf(':');
    if (colon < 0 || h.endsWith("]")) return false; // the port must be named
    String name = h.substring(0, colon);
    return hosts.contains(name) && h.substring(colon + 1).equals(Integer.toString(port));
  }

  /**
   * Compares the bearer token in constant time: both sides are hashed first, so neither the content
   * nor the length of the token leaks through the time the comparison takes.
   */
  boolean tokenMatches(@Nullable String authorization) {
    if (tokenDigest == null || authorization == null) return false;
    if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7)) return false;
    return MessageDigest.isEqual(tokenDigest, digest(authorization.substring(7).strip()));
  }

  private static byte[] digest(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
