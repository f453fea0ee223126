package io.watukuy.sink.nats;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The {@code url} of a NATS sink: {@code nats://[user:password@]host:port} (or {@code tls://},
 * {@code ws://}, {@code wss://}; a bare {@code host:port} means {@code nats://}). Credentials in it
 * are secrets: {@link #toString()} and {@link #redact} replace them with {@code ***}, so they never
 * reach a log, a message or {@code name()}. Immutable.
 */
final class NatsServerUrl {
  private static final List<String> SCHEMES = List.of("nats", "tls", "ws", "wss");

  private final String url;
  private final String redacted;
  private final List<String> secrets;

  private NatsServerUrl(String url, String redacted, List<String> secrets) {
    this.url = url;
    this.redacted = redacted;
    this.secrets = secrets;
  }

  /**
   * Parses a URL.
   *
   * @param text the setting's value
   * @return the URL
   * @throws IllegalArgumentException with a message that holds no credential
   */
  static NatsServerUrl parse(String text) {
    String url = text.contains("://") ? text.trim() : "nats://" + text.trim();
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "is not a URL nats://host:port (" + e.getReason() + ")", null);
    }
    String userInfo = uri.getRawUserInfo();
    String shown =
        userInfo == null
            ? url
            : uri.getScheme() + "://***@" + uri.getRawAuthority().substring(userInfo.length() + 1);
    if (uri.getScheme() == null || !SCHEMES.contains(uri.getScheme()))
      throw new IllegalArgumentException(
          "'" + shown + "' is not a NATS URL: the scheme must be one of " + SCHEMES);
    if (uri.getHost() == null)
      throw new IllegalArgumentException("'" + shown + "' has no host (nats://host:port)");
    List<String> secrets = new ArrayList<>();
    if (userInfo != null) {
      secrets.add(userInfo);
      for (String part : userInfo.split(":", 2)) if (part.length() >= 3) secrets.add(part);
    }
    return new NatsServerUrl(url, shown, List.copyOf(secrets));
  }

  /**
   * How messages show a URL setting: redacted, or a placeholder when it does not parse (its text
   * could hold a credential).
   *
   * @param text the setting's value
   * @return the redacted URL
   */
  static String shown(String text) {
    try {
      return parse(text).toString();
    } catch (IllegalArgumentException e) {
      return "(an invalid URL)";
    }
  }

  /**
   * The URL as the client needs it, credentials included: never log it.
   *
   * @return the full URL
   */
  String secretUrl() {
    return url;
  }

  /**
   * The parts of the URL that are secret (the user information, the password), for a redactor.
   *
   * @return the values, possibly empty
   */
  List<String> secrets() {
    return secrets;
  }

  /**
   * {@code text} with the URL's credentials replaced by {@code ***}.
   *
   * @param text a message, e.g. a client exception's
   * @return the redacted text
   */
  String redact(String text) {
    String out = text.replace(url, redacted);
    for (String s : secrets) out = out.replace(s, "***");
    return out;
  }

  /** The URL with its credentials replaced by {@code ***}. */
  @Override
  public String toString() {
    return redacted;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NatsServerUrl u && u.url.equals(url);
  }

  @Override
  public int hashCode() {
    return Objects.hash(url);
  }
}
