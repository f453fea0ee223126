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
}
