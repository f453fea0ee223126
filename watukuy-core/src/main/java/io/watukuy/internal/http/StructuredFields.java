package io.watukuy.internal.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Just enough of RFC 8941 (Structured Field Values) to read rate-limit fields: a List or a
 * Dictionary of bare items (Integer, Decimal, String, Token, Byte Sequence, Boolean), each with
 * parameters. Inner lists are not supported and make the field malformed, as does any other syntax
 * error; the caller then ignores the field, as the RateLimit drafts require.
 */
final class StructuredFields {

  /** A token, kept apart from a String so that {@code "default"} and {@code default} differ. */
  record Token(String value) {}

  /**
   * One member. In a Dictionary {@code key} is the member's key (a key without {@code =} has value
   * {@link Boolean#TRUE}); in a List {@code key} is null. A bare lower-case token in a List reads
   * as a Dictionary key with value TRUE, which is harmless for the fields read here.
   */
  record Member(@Nullable String key, Object value, Map<String, Object> params) {
    @Nullable Long longParam(String name) {
      return params.get(name) instanceof Long l ? l : null;
    }
  }

  // RFC 8941 allows 15 digits; a few more tolerate epoch milliseconds in vendor fields.
  private static final int MAX_INTEGER_DIGITS = 18;

  private final String in;
  private int pos;

  private StructuredFields(String in) {
    this.in = in;
  }

  /** The members of a List or Dictionary field value, or empty when it is malformed. */
  static Optional<List<Member>> parse(String fieldValue) {
    StructuredFields p = new StructuredFields(fieldValue);
    try {
      return Optional.of(p.members());
    } catch (IllegalArgumentException malformed) {
      return Optional.empty();
    }
  }

  private List<Member> members() {
    List<Member> out = new ArrayList<>();
    skipWhitespace();
    if (atEnd()) return out;
    while (true) {
      out.add(member());
      skipWhitespace();
      if (atEnd()) return out;
      expect(',');
      skipWhitespace();
      if (atEnd()) throw malformed("trailing comma");
    }
  }

  private Member member() {
    @Nullable String key = null;
    Object value;
    if (isKeyStart(peek())) {
      key = key();
      if (!atEnd() && peek() == '=') {
        pos++;
        value = bareItem();
      } else {
        value = Boolean.TRUE;
      }
    } else {
      value = bareItem();
    }
    return new Member(key, value, parameters());
  }

  private Map<String, Object> parameters() {
    Map<String, Object> params = new LinkedHashMap<>();
    while (!atEnd() && peek() == ';') {
      pos++;
      while (!atEnd() && peek() == ' ') pos++;
      String name = key();
      Object value = Boolean.TRUE;
      if (!atEnd() && peek() == '=') {
        pos++;
        value = bareItem();
      }
      params.put(name, value);
    }
    return Collections.unmodifiableMap(params);
  }

  private Object bareItem() {
    if (atEnd()) throw malformed("missing item");
    char c = peek();
    if (c == '-' || isDigit(c)) return number();
    if (c == '"') return string();
    if (c == ':') return byteSequence();
    if (c == '?') return bool();
    if (isAlpha(c) || c == '*') return new Token(token());
    throw malformed("unexpected '" + c + "'");
  }

  private Object number() {
    int start = pos;
    if (peek() == '-') pos++;
    int digitsStart = pos;
    while (!atEnd() && isDigit(peek())) pos++;
    if (pos == digitsStart) throw malformed("sign without digits");
    if (!atEnd() && peek() == '.') {
      pos++;
      int fractionStart = pos;
      while (!atEnd() && isDigit(peek())) pos++;
      if (pos == fractionStart) throw malformed("decimal without fraction");
      return Double.parseDouble(in.substring(start, pos));
    }
    if (pos - digitsStart > MAX_INTEGER_DIGITS) throw malformed("integer too long");
    return Long.parseLong(in.substring(start, pos));
  }

  private String string() {
    pos++; // opening quote
    StringBuilder out = new StringBuilder();
    while (!atEnd()) {
      char c = in.charAt(pos++);
      if (c == '"') return out.toString();
      if (c == '\\') {
        if (atEnd()) throw malformed("dangling escape");
        char escaped = in.charAt(pos++);
        if (escaped != '"' && escaped != '\\') throw malformed("bad escape");
        out.append(escaped);
      } else if (c < 0x20 || c > 0x7e) {
        throw malformed("control character in string");
      } else {
        out.append(c);
      }
    }
    throw malformed("unterminated string");
  }

  private String byteSequence() {
    int close = in.indexOf(':', pos + 1);
    if (close < 0) throw malformed("unterminated byte sequence");
    String base64 = in.substring(pos + 1, close);
    pos = close + 1;
    return base64;
  }

  private Boolean bool() {
    pos++;
    if (atEnd()) throw malformed("missing boolean");
    char c = in.charAt(pos++);
    if (c == '1') return Boolean.TRUE;
    if (c == '0') return Boolean.FALSE;
    throw malformed("bad boolean");
  }

  private String token() {
    int start = pos;
    while (!atEnd() && isTokenChar(peek())) pos++;
    return in.substring(start, pos);
  }

  private String key() {
    if (atEnd() || !isKeyStart(peek())) throw malformed("missing key");
    int start = pos;
    while (!atEnd()) {
      char c = peek();
      if (!(isLowerAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*')) break;
      pos++;
    }
    return in.substring(start, pos);
  }

  private void expect(char c) {
    if (atEnd() || peek() != c) throw malformed("expected '" + c + "'");
    pos++;
  }

  private void skipWhitespace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t')) pos++;
  }

  private boolean atEnd() {
    return pos >= in.length();
  }

  private char peek() {
    return in.charAt(pos);
  }

  private static boolean isKeyStart(char c) {
    return isLowerAlpha(c) || c == '*';
  }

  private static boolean isLowerAlpha(char c) {
    return c >= 'a' && c <= 'z';
  }

  private static boolean isAlpha(char c) {
    return isLowerAlpha(c) || (c >= 'A' && c <= 'Z');
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isTokenChar(char c) {
    return isAlpha(c) || isDigit(c) || ":/!#$%&'*+-.^_`|~".indexOf(c) >= 0;
  }

  private IllegalArgumentException malformed(String why) {
    return new IllegalArgumentException(why + " at " + pos);
  }
}
