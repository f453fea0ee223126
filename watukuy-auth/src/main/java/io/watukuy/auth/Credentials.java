package io.watukuy.auth;

/** Checks shared by the signers; messages name the field, never the value. */
final class Credentials {
  private Credentials() {}

  static String nonEmpty(String field, String value) {
    if (value.isBlank()) throw new IllegalArgumentException(field + " is empty");
    return value;
  }

  /** A value sent in a header: non-empty, without a line break (it would split the header). */
  static String headerValue(String field, String value) {
    nonEmpty(field, value);
    if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
      throw new IllegalArgumentException(field + " has a line break");
    }
    return value;
  }

  /** An absolute http or https URL; the message names tokenUrl, not the value's secrets. */
  static java.net.URI tokenUrl(String tokenUrl) {
    java.net.URI uri;
    try {
      uri = java.net.URI.create(tokenUrl);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("tokenUrl is not a valid URL: " + e.getMessage(), e);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme();
    if (!(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
        || uri.getHost() == null) {
      throw new IllegalArgumentException("tokenUrl is not an absolute http or https URL");
    }
    return uri;
  }

  /** OAuth2 scopes: each non-empty and without a space (they are sent space-separated). */
  static java.util.List<String> scopes(java.util.List<String> scopes) {
    for (String s : scopes) {
      if (s.isBlank() || s.contains(" ")) {
        throw new IllegalArgumentException("scope '" + s + "' is empty or has a space");
      }
    }
    return java.util.List.copyOf(scopes);
  }
}
