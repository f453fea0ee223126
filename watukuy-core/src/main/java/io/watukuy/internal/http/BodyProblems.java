package io.watukuy.internal.http;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Words for what is wrong with a vendor's body, for messages a reader acts on without {@code
 * --verbose}: Jackson's problem with where in the body it is (a JSON Pointer that names the item,
 * and the line and column), and a short excerpt of the body that never prints binary bytes.
 */
final class BodyProblems {

  /**
   * Bytes read beyond the excerpt's length before it is cut, so that a secret straddling the cut is
   * still whole when the redactor sees it.
   */
  private static final int REDACTION_MARGIN = 4096;

  /** How a body that is not text is named instead of printed. */
  static final String BINARY = "binary body";

  private BodyProblems() {}

  /**
   * Jackson's own problem, without its source excerpt, then {@code at /items/3/id (line 1, column
   * 40)} when the parser knew where it was. A value over one of Jackson's read limits (string
   * length, number length, nesting depth, document length) keeps Jackson's wording, which names the
   * limit and its value.
   */
  static String describe(IOException e) {
    @Nullable StreamConstraintsException limit = limit(e);
    JsonProcessingException jpe =
        limit != null ? limit : e instanceof JsonProcessingException j ? j : null;
    if (jpe == null) return String.valueOf(e.getMessage());
    String message = String.valueOf(jpe.getOriginalMessage());
    // A tree's duplicate key is found where the tree is built (Json.VENDOR_TREE), and Jackson then
    // names its own feature; the reader needs the key and where it is.
    int ours = message.startsWith("Duplicate field '") ? message.indexOf(" for `ObjectNode`") : -1;
    if (ours > 0) message = message.substring(0, ours);
    StringBuilder out = new StringBuilder(message);
    String pointer = "";
    if (jpe.getProcessor() instanceof JsonParser parser && parser.getParsingContext() != null) {
      pointer = parser.getParsingContext().pathAsPointer().toString();
    }
    @Nullable JsonLocation location = jpe.getLocation();
    boolean located = location != null && location.getLineNr() > 0;
    if (!pointer.isEmpty() || located) out.append(" at");
    if (!pointer.isEmpty()) out.append(' ').append(pointer);
    if (located) {
      out.append(pointer.isEmpty() ? " " : " (")
          .append("line ")
          .append(location.getLineNr())
          .append(", column ")
          .append(location.getColumnNr())
          .append(pointer.isEmpty() ? "" : ")");
    }
    return out.toString();
  }

  /** The read limit {@code e} ran into, if it is one (databind may wrap it). */
  static @Nullable StreamConstraintsException limit(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StreamConstraintsException s) return s;
      if (t.getCause() == t) break;
    }
    return null;
  }

  /**
   * At most {@code maxChars} characters of the start of {@code body}, whitespace runs made one
   * space, secrets hidden; or the binary note of {@link #text}.
   *
   * @return the excerpt with {@code ...} when cut; {@code ""} for an empty body
   */
  static String excerpt(
      byte[] body, @Nullable String contentEncoding, int maxChars, Redactor redactor) {
    return excerpt(body, contentEncoding, null, maxChars, redactor);
  }

  /**
   * {@link #excerpt(byte[], String, int, Redactor)} of a body in {@code charset} (the {@code
   * Content-Type}'s), UTF-8 when null.
   */
  static String excerpt(
      byte[] body,
      @Nullable String contentEncoding,
      @Nullable Charset charset,
      int maxChars,
      Redactor redactor) {
    String text = text(body, contentEncoding, charset, maxChars, redactor);
    if (text.startsWith(BINARY)) return text;
    String shown = text.strip().replaceAll("\\s+", " ");
    boolean partial = 4L * (maxChars + REDACTION_MARGIN) < body.length;
    if (shown.length() <= maxChars && !partial) return shown;
    return shown.substring(0, Math.min(maxChars, shown.length())) + "...";
  }

  /**
   * The start of {@code body} as text, at least {@code chars} characters of it when it has them,
   * after {@code redactor} hid secrets in it; or {@code binary body, N bytes} when the body is
   * compressed ({@code Content-Encoding} other than identity, or gzip's magic bytes) or is not
   * UTF-8 text. The JDK client asks for no compression and decodes none, so a compressed body is
   * one the server sent unasked: it is named, not printed. Decodes only the start of the body.
   *
   * @return the text, or the binary note; {@code ""} for an empty body
   */
  static String text(byte[] body, @Nullable String contentEncoding, int chars, Redactor redactor) {
    return text(body, contentEncoding, null, chars, redactor);
  }

  /** {@link #text(byte[], String, int, Redactor)} of a body in {@code charset}, UTF-8 when null. */
  static String text(
      byte[] body,
      @Nullable String contentEncoding,
      @Nullable Charset charset,
      int chars,
      Redactor redactor) {
    if (body.length == 0) return "";
    String encoding =
        contentEncoding == null ? "" : contentEncoding.strip().toLowerCase(Locale.ROOT);
    if (!encoding.isEmpty() && !encoding.equals("identity")) {
      return BINARY + " (Content-Encoding " + encoding + "), " + body.length + " bytes";
    }
    if (body.length >= 2 && (body[0] & 0xff) == 0x1f && (body[1] & 0xff) == 0x8b) {
      return BINARY + " (gzip), " + body.length + " bytes";
    }
    int take = (int) Math.min(body.length, 4L * (chars + REDACTION_MARGIN));
    @Nullable String text = prefix(body, take, charset == null ? StandardCharsets.UTF_8 : charset);
    if (text == null) return BINARY + ", " + body.length + " bytes";
    return redactor.message(text);
  }

  /** The first {@code length} bytes as text in {@code charset}, or null when they are not text. */
  private static @Nullable String prefix(byte[] body, int length, Charset charset) {
    CharsetDecoder decoder =
        charset
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    CharBuffer out = CharBuffer.allocate(length);
    ByteBuffer in = ByteBuffer.wrap(body, 0, length);
    CoderResult result = decoder.decode(in, out, length == body.length);
    // A sequence cut by the prefix's end is underflow, not an error.
    if (result.isError()) return null;
    out.flip();
    for (int i = 0; i < out.length(); i++) {
      char c = out.charAt(i);
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return null;
    }
    return out.toString();
  }
}
