package io.watukuy.internal.diff;

import com.fasterxml.jackson.core.io.NumberOutput;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.POJONode;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * RFC 8785 JSON Canonicalization Scheme (JCS) for Jackson trees, and the content hash built on it.
 *
 * <p>The canonical form is UTF-8 JSON without whitespace where
 *
 * <ul>
 *   <li>object members are sorted by their keys compared as sequences of UTF-16 code units ({@link
 *       String#compareTo(String)}), with no Unicode normalisation;
 *   <li>strings escape only {@code "}, {@code \} and the control characters below U+0020 (as {@code
 *       \b \t \n \f \r} or <code>&#92;u00xx</code> with lowercase hex); every other character,
 *       including U+007F, U+0080 and characters outside the BMP, is written as raw UTF-8;
 *   <li>every number, whatever its Jackson node type ({@code int}, {@code long}, {@code
 *       BigInteger}, {@code BigDecimal}, {@code float}, {@code double}), is first converted to the
 *       nearest IEEE-754 double and then written as ECMAScript's {@code Number.prototype.toString}
 *       would: the shortest digits that read back as the same double, {@code -0} as {@code 0},
 *       plain decimal notation for 1e-6 &le; |x| &lt; 1e21 and otherwise exponent notation such as
 *       {@code 1e+21} or {@code 1e-7}.
 * </ul>
 *
 * <p>Nodes that are not produced by parsing JSON are handled as follows: a binary node is written
 * as the string of its standard Base64 encoding with padding (which is how Jackson serialises it),
 * a POJO node that wraps a {@code JsonNode} is written as that node, and any other POJO node or a
 * missing node is rejected.
 *
 * <p>All methods are thread-safe. Nesting is handled by recursion, so trees nested deeper than
 * Jackson's default parser limit of 1000 levels may exhaust the stack.
 */
public final class Jcs {

  private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  // Integers with magnitude up to 2^53 are exact doubles and ES prints them as plain digits,
  // so they can skip the double round trip.
  private static final long MAX_EXACT_LONG = 1L << 53;

  private Jcs() {}

  /**
   * Returns the RFC 8785 canonical UTF-8 bytes of a JSON tree.
   *
   * @param node the tree; not modified
   * @return a new array holding the canonical JSON text encoded as UTF-8, without a trailing
   *     newline
   * @throws CanonicalizationException if the tree contains NaN, an infinity, a number outside the
   *     double range, an unpaired surrogate in a string or key, a missing node, or a POJO node that
   *     does not wrap a {@code JsonNode}; the message names the offending path
   */
  public static byte[] canonicalize(JsonNode node) {
    return write(node).toByteArray();
  }

  private static ByteSink write(JsonNode node) {
    Objects.requireNonNull(node, "node");
    // API items are mostly a few KB: start there rather than doubling up from a few bytes.
    ByteSink out = new ByteSink(4096);
    try {
      writeValue(node, out);
    } catch (Failure failure) {
      throw failure.toException();
    }
    return out;
  }

  /**
   * Returns the RFC 8785 canonical form of a JSON tree as a string.
   *
   * @param node the tree; not modified
   * @return the canonical JSON text; its UTF-8 encoding equals {@link #canonicalize(JsonNode)}
   * @throws CanonicalizationException as {@link #canonicalize(JsonNode)}
   */
  public static String canonicalString(JsonNode node) {
    return new String(canonicalize(node), StandardCharsets.UTF_8);
  }

  /**
   * Returns the content hash of a JSON tree: the SHA-256 of its RFC 8785 canonical bytes.
   *
   * @param node the tree; not modified
   * @return 64 lowercase hex characters
   * @throws CanonicalizationException as {@link #canonicalize(JsonNode)}
   */
  public static String hash(JsonNode node) {
    ByteSink out = write(node);
    return Sha256.hex(out.buf, out.len);
  }

  /**
   * Formats a finite double as ECMAScript {@code Number.prototype.toString} does, which is the RFC
   * 8785 number form.
   *
   * @param value a finite double
   * @return the shortest round-trip digits in ES layout, {@code "0"} for both zeros
   * @throws IllegalArgumentException if {@code value} is NaN or infinite
   */
  static String formatNumber(double value) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException(value + " has no JSON representation");
    }
    if (value == 0) {
      return "0";
    }
    // Jackson's Schubfach port yields the shortest round-trip digits (unlike Double.toString
    // before JDK 19), but in Java's layout, e.g. "1.0E21" or "1.234E-5".
    String java = NumberOutput.toString(Math.abs(value), true);
    int end = java.indexOf('E');
    int exponent = 0;
    if (end < 0) {
      end = java.length();
    } else {
      exponent = Integer.parseInt(java, end + 1, java.length(), 10);
    }
    char[] digits = new char[end];
    int count = 0;
    // pointAt is ES's n: the decimal point sits after that many digits (may be <= 0 or > count).
    int pointAt = 0;
    boolean seenPoint = false;
    for (int i = 0; i < end; i++) {
      char c = java.charAt(i);
      if (c == '.') {
        seenPoint = true;
      } else if (count == 0 && c == '0') {
        if (seenPoint) {
          pointAt--;
        }
      } else {
        digits[count++] = c;
        if (!seenPoint) {
          pointAt++;
        }
      }
    }
    while (digits[count - 1] == '0') {
      count--;
    }
    pointAt += exponent;
    if (count == 2) {
      // Java deliberately prefers the closest two-digit decimal when one digit would do
      // (4.9E-324 for Double.MIN_VALUE); ES wants the shortest, i.e. 5e-324.
      int single = shortestSingleDigit(Math.abs(value), digits[0] - '0', pointAt);
      if (single > 0) {
        count = 1;
        if (single == 10) {
          single = 1;
          pointAt++;
        }
        digits[0] = (char) ('0' + single);
      }
    }
    StringBuilder es = new StringBuilder(count + 8);
    if (value < 0) {
      es.append('-');
    }
    layOut(es, digits, count, pointAt);
    return es.toString();
  }

  /**
   * Returns the one-digit significand (1..10, where 10 means 1 at the next power of ten) that reads
   * back as {@code magnitude} and is closest to it, or 0 if neither neighbour at this scale does.
   * {@code first} and {@code pointAt} describe the two-digit shortest form.
   */
  private static int shortestSingleDigit(double magnitude, int first, int pointAt) {
    int scale = pointAt - 1;
    boolean lowRoundTrips = Double.parseDouble(first + "E" + scale) == magnitude;
    boolean highRoundTrips = Double.parseDouble((first + 1) + "E" + scale) == magnitude;
    if (lowRoundTrips && highRoundTrips) {
      BigDecimal exact = new BigDecimal(magnitude);
      BigDecimal low = BigDecimal.valueOf(first, -scale);
      BigDecimal high = BigDecimal.valueOf(first + 1L, -scale);
      int cmp = exact.subtract(low).compareTo(high.subtract(exact));
      if (cmp != 0) {
        return cmp < 0 ? first : first + 1;
      }
      return first % 2 == 0 ? first : first + 1;
    }
    if (lowRoundTrips) {
      return first;
    }
    return highRoundTrips ? first + 1 : 0;
  }

  // ECMA-262 Number::toString, steps for k digits with the decimal point after n of them.
  private static void layOut(StringBuilder es, char[] digits, int k, int n) {
    if (k <= n && n <= 21) {
      es.append(digits, 0, k);
      for (int i = k; i < n; i++) {
        es.append('0');
      }
    } else if (0 < n && n <= 21) {
      es.append(digits, 0, n).append('.').append(digits, n, k - n);
    } else if (-6 < n && n <= 0) {
      es.append("0.");
      for (int i = n; i < 0; i++) {
        es.append('0');
      }
      es.append(digits, 0, k);
    } else {
      es.append(digits[0]);
      if (k > 1) {
        es.append('.').append(digits, 1, k - 1);
      }
      int e = n - 1;
      es.append('e').append(e < 0 ? '-' : '+').append(Math.abs(e));
    }
  }

  private static void writeValue(JsonNode node, ByteSink out) {
    switch (node.getNodeType()) {
      case OBJECT -> writeObject(node, out);
      case ARRAY -> writeArray(node, out);
      case STRING -> writeString(node.textValue(), false, out);
      case NUMBER -> writeNumber(node, out);
      case BOOLEAN -> out.writeAscii(node.booleanValue() ? "true" : "false");
      case NULL -> out.writeAscii("null");
      case BINARY -> {
        try {
          writeString(Base64.getEncoder().encodeToString(node.binaryValue()), false, out);
        } catch (IOException e) {
          throw new Failure("binary value cannot be read: " + e.getMessage());
        }
      }
      case POJO -> {
        Object pojo = ((POJONode) node).getPojo();
        if (!(pojo instanceof JsonNode wrapped)) {
          throw new Failure(
              "POJO value of type "
                  + (pojo == null ? "null" : pojo.getClass().getName())
                  + " cannot be canonicalized");
        }
        writeValue(wrapped, out);
      }
      case MISSING -> throw new Failure("missing node cannot be canonicalized");
      default -> throw new Failure(node.getNodeType() + " node cannot be canonicalized");
    }
  }

  private static void writeObject(JsonNode node, ByteSink out) {
    out.write('{');
    int size = node.size();
    if (size > 0) {
      List<Map.Entry<String, JsonNode>> members = new ArrayList<>(node.properties());
      if (size > 1) {
        members.sort(Map.Entry.comparingByKey());
      }
      boolean first = true;
      for (Map.Entry<String, JsonNode> member : members) {
        if (!first) {
          out.write(',');
        }
        first = false;
        String key = member.getKey();
        try {
          writeString(key, true, out);
          out.write(':');
          writeValue(member.getValue(), out);
        } catch (Failure failure) {
          failure.enclosedBy(key);
          throw failure;
        }
      }
    }
    out.write('}');
  }

  private static void writeArray(JsonNode node, ByteSink out) {
    out.write('[');
    int index = 0;
    for (Iterator<JsonNode> it = node.elements(); it.hasNext(); index++) {
      if (index > 0) {
        out.write(',');
      }
      JsonNode element = it.next();
      try {
        writeValue(element, out);
      } catch (Failure failure) {
        failure.enclosedBy(index);
        throw failure;
      }
    }
    out.write(']');
  }

  private static void writeNumber(JsonNode node, ByteSink out) {
    if (node.isIntegralNumber() && node.canConvertToLong()) {
      long value = node.longValue();
      if (value >= -MAX_EXACT_LONG && value <= MAX_EXACT_LONG) {
        out.writeAscii(Long.toString(value));
        return;
      }
    }
    double value = node.doubleValue();
    if (Double.isNaN(value)) {
      throw new Failure("NaN cannot be canonicalized");
    }
    if (Double.isInfinite(value)) {
      String sign = value < 0 ? "-" : "";
      throw new Failure(
          node.isDouble() || node.isFloat()
              ? sign + "Infinity cannot be canonicalized"
              : "number " + node.numberValue() + " is outside the IEEE-754 double range");
    }
    out.writeAscii(formatNumber(value));
  }

  private static void writeString(String s, boolean isKey, ByteSink out) {
    int n = s.length();
    // Room for the worst case (three bytes per UTF-16 unit, or an escape of six per unit), so
    // the plain-ASCII run below writes without a bounds check per byte.
    out.ensure(6 * n + 2);
    byte[] buf = out.buf;
    int len = out.len;
    buf[len++] = '"';
    int i = 0;
    while (i < n) {
      char c = s.charAt(i);
      if (c < 0x80 && c >= 0x20 && c != '"' && c != '\\') {
        buf[len++] = (byte) c;
        i++;
        continue;
      }
      out.len = len;
      i = writeSpecial(s, i, isKey, out);
      len = out.len;
    }
    buf[len++] = '"';
    out.len = len;
  }

  /**
   * Writes the character at {@code i} that needs an escape or UTF-8 encoding; returns the next
   * index.
   */
  private static int writeSpecial(String s, int i, boolean isKey, ByteSink out) {
    char c = s.charAt(i);
    if (c < 0x80) {
      writeEscape(c, out);
    } else if (c < 0x800) {
      out.write(0xC0 | (c >> 6));
      out.write(0x80 | (c & 0x3F));
    } else if (!Character.isSurrogate(c)) {
      out.write(0xE0 | (c >> 12));
      out.write(0x80 | ((c >> 6) & 0x3F));
      out.write(0x80 | (c & 0x3F));
    } else if (Character.isHighSurrogate(c)
        && i + 1 < s.length()
        && Character.isLowSurrogate(s.charAt(i + 1))) {
      int cp = Character.toCodePoint(c, s.charAt(++i));
      out.write(0xF0 | (cp >> 18));
      out.write(0x80 | ((cp >> 12) & 0x3F));
      out.write(0x80 | ((cp >> 6) & 0x3F));
      out.write(0x80 | (cp & 0x3F));
    } else {
      throw new Failure(
          "unpaired surrogate U+"
              + Integer.toHexString(c).toUpperCase(Locale.ROOT)
              + (isKey ? " in object key" : ""));
    }
    return i + 1;
  }

  private static void writeEscape(char c, ByteSink out) {
    out.write('\\');
    switch (c) {
      case '"' -> out.write('"');
      case '\\' -> out.write('\\');
      case '\b' -> out.write('b');
      case '\t' -> out.write('t');
      case '\n' -> out.write('n');
      case '\f' -> out.write('f');
      case '\r' -> out.write('r');
      default -> {
        out.writeAscii("u00");
        out.write(HEX_DIGITS[c >> 4]);
        out.write(HEX_DIGITS[c & 0xF]);
      }
    }
  }

  /** A growable byte buffer without the locking of {@link java.io.ByteArrayOutputStream}. */
  private static final class ByteSink {
    private byte[] buf;
    private int len;

    ByteSink(int capacity) {
      buf = new byte[capacity];
    }

    void ensure(int extra) {
      if (len + extra > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
      }
    }

    void write(int b) {
      if (len == buf.length) {
        buf = Arrays.copyOf(buf, buf.length * 2);
      }
      buf[len++] = (byte) b;
    }

    void writeAscii(String s) {
      int n = s.length();
      ensure(n);
      for (int i = 0; i < n; i++) {
        buf[len++] = (byte) s.charAt(i);
      }
    }

    byte[] toByteArray() {
      return Arrays.copyOf(buf, len);
    }
  }

  /**
   * Carries a problem up the recursion; each container adds its own path segment on the way out so
   * that no path has to be tracked while nothing fails.
   */
  private static final class Failure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String problem;
    private final ArrayDeque<Object> segments = new ArrayDeque<>();

    Failure(String problem) {
      super(problem, null, false, false);
      this.problem = problem;
    }

    void enclosedBy(Object segment) {
      segments.addFirst(segment);
    }

    CanonicalizationException toException() {
      StringBuilder path = new StringBuilder();
      for (Object segment : segments) {
        path.append('/');
        if (segment instanceof String key) {
          appendPointerKey(path, key);
        } else {
          path.append(segment);
        }
      }
      return new CanonicalizationException(path.toString(), problem);
    }

    // RFC 6901 escaping, plus \\uXXXX text for characters that would garble a log line.
    private static void appendPointerKey(StringBuilder path, String key) {
      for (int i = 0, n = key.length(); i < n; i++) {
        char c = key.charAt(i);
        if (c == '~') {
          path.append("~0");
        } else if (c == '/') {
          path.append("~1");
        } else if (c < 0x20
            || (Character.isHighSurrogate(c)
                && !(i + 1 < n && Character.isLowSurrogate(key.charAt(i + 1))))
            || (Character.isLowSurrogate(c)
                && !(i > 0 && Character.isHighSurrogate(key.charAt(i - 1))))) {
          path.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
        } else {
          path.append(c);
        }
      }
    }
  }
}
