package io.watukuy.internal.http;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import java.util.zip.ZipException;
import org.jspecify.annotations.Nullable;

/**
 * The content codings of RFC 9110 section 8.4.1 that the engine decodes itself, because the JDK
 * client decodes none: {@code gzip} (and its alias {@code x-gzip}) and {@code deflate}, the latter
 * zlib-wrapped as RFC 9110 says or raw as some servers send it. The size bound {@code
 * request.maxBodySize} applies to the decoded bytes, counted as they are inflated, so a small
 * compressed body that inflates to gigabytes (a "zip bomb") stops at the bound with the same
 * too-large error as a plain body.
 */
final class ContentCoding {

  /** Sent as Accept-Encoding unless the request options set one. */
  static final String ACCEPTED = "gzip, deflate";

  private static final int CHUNK = 64 * 1024;

  private ContentCoding() {}

  /**
   * The coding a {@code Content-Encoding} value names, lower case and stripped; {@code ""} for none
   * and for {@code identity}.
   */
  static String of(@Nullable String contentEncoding) {
    if (contentEncoding == null) return "";
    String c = contentEncoding.strip().toLowerCase(Locale.ROOT);
    return c.equals("identity") ? "" : c;
  }

  /** Whether {@link #decode} reads bodies of {@code coding} (a value of {@link #of}). */
  static boolean decodes(String coding) {
    return coding.equals("gzip") || coding.equals("x-gzip") || coding.equals("deflate");
  }

  /**
   * Decodes {@code body} of a coding that {@link #decodes}.
   *
   * @param maxBytes the largest decoded body accepted
   * @throws BoundedBody.BodyTooLargeException once more than {@code maxBytes} bytes were inflated;
   *     nothing beyond the bound plus one chunk is allocated
   * @throws IOException when the body is not of that coding (names the coding and what is wrong)
   */
  static byte[] decode(byte[] body, String coding, long maxBytes) throws IOException {
    try (InputStream in = open(body, coding)) {
      List<byte[]> chunks = new ArrayList<>();
      long total = 0;
      while (true) {
        byte[] chunk = new byte[CHUNK];
        int filled = 0;
        int n;
        while (filled < CHUNK && (n = in.read(chunk, filled, CHUNK - filled)) > 0) filled += n;
        total += filled;
        if (total > maxBytes) {
          chunks.clear();
          throw new BoundedBody.BodyTooLargeException(total, maxBytes, coding);
        }
        if (filled > 0)
          chunks.add(filled == CHUNK ? chunk : java.util.Arrays.copyOf(chunk, filled));
        if (filled < CHUNK) break;
      }
      byte[] out = new byte[(int) total];
      int at = 0;
      for (byte[] c : chunks) {
        System.arraycopy(c, 0, out, at, c.length);
        at += c.length;
      }
      return out;
    } catch (ZipException | EOFException e) {
      throw new IOException(
          "the body is not valid "
              + coding
              + " (Content-Encoding "
              + coding
              + "): "
              + (e instanceof EOFException
                  ? "it ends before the compressed data does"
                  : e.getMessage()),
          e);
    }
  }

  private static InputStream open(byte[] body, String coding) throws IOException {
    ByteArrayInputStream raw = new ByteArrayInputStream(body);
    if (!coding.equals("deflate")) return new GZIPInputStream(raw, CHUNK);
    // RFC 9110 means zlib (RFC 1950) by "deflate"; some servers send raw RFC 1951 data. A zlib
    // header is a CMF byte with method 8 and a check value that makes CMF*256+FLG divisible by 31.
    boolean zlib =
        body.length >= 2
            && (body[0] & 0x0f) == 8
            && (((body[0] & 0xff) << 8) | (body[1] & 0xff)) % 31 == 0;
    return new InflaterInputStream(raw, new Inflater(!zlib), CHUNK) {
      @Override
      public void close() throws IOException {
        super.close();
        inf.end(); // an Inflater passed in is not ended by the stream
      }
    };
  }
}
