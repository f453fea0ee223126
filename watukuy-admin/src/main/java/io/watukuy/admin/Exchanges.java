package io.watukuy.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/** Reading requests and writing answers, with the headers every answer carries. */
final class Exchanges {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String JSON_TYPE = "application/json; charset=utf-8";

  /** A request body over {@link AdminServer#MAX_BODY_BYTES}: answered 413. */
  static final class TooLarge extends Exception {
    private static final long serialVersionUID = 1L;

    TooLarge() {
      super("request body over " + AdminServer.MAX_BODY_BYTES + " bytes", null, false, false);
    }
  }

  private Exchanges() {}

  /** Headers of every answer: no script or frame from elsewhere, no type sniffing. */
  static void secure(HttpExchange ex, boolean api) {
    Headers h = ex.getResponseHeaders();
    h.set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'");
    h.set("X-Content-Type-Options", "nosniff");
    h.set("Referrer-Policy", "no-referrer");
    if (api) h.set("Cache-Control", "no-store");
  }

  /** Sends a body, redacted, with its type; closes the exchange. */
  static void send(
      HttpExchange ex,
      int status,
      String type,
      String body,
      Function<@Nullable String, String> redact)
      throws IOException {
    byte[] bytes = redact.apply(body).getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    boolean head = "HEAD".equals(ex.getRequestMethod());
    ex.sendResponseHeaders(status, head ? -1 : bytes.length == 0 ? -1 : bytes.length);
    if (!head && bytes.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
    ex.close();
  }

  /** {@code {"error": message}} with a status. */
  static void error(
      HttpExchange ex, int status, String message, Function<@Nullable String, String> redact)
      throws IOException {
    ObjectNode n = JSON.createObjectNode();
    n.put("error", message);
    send(ex, status, JSON_TYPE, n.toString(), redact);
  }

  /**
   * The request body, at most {@link AdminServer#MAX_BODY_BYTES}: a larger declared length is
   * refused before reading, a longer chunked body once the bound is passed.
   */
  static byte[] body(HttpExchange ex) throws IOException, TooLarge {
    String length = ex.getRequestHeaders().getFirst("Content-Length");
    if (length != null) {
      try {
        if (Long.parseLong(length.strip()) > AdminServer.MAX_BODY_BYTES) throw new TooLarge();
      } catch (NumberFormatException e) {
        // the server itself rejects a malformed length before we see it
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    try (InputStream in = ex.getRequestBody()) {
      int n;
      while ((n = in.read(buf)) > 0) {
        if (out.size() + n > AdminServer.MAX_BODY_BYTES) throw new TooLarge();
        out.write(buf, 0, n);
      }
    }
    return out.toByteArray();
  }

  /** What {@link #discard} reads at most of a refused body before the answer. */
  static final int MAX_DISCARD_BYTES = 1 << 20;

  /**
   * Reads and drops what is left of a refused request body, up to {@link #MAX_DISCARD_BYTES}, so
   * that the client, still sending, reads the 413 instead of a reset connection; a longer body gets
   * the answer and then the connection closes under it.
   */
  static void discard(HttpExchange ex) {
    byte[] buf = new byte[8192];
    long left = MAX_DISCARD_BYTES;
    try {
      InputStream in = ex.getRequestBody();
      int n;
      while (left > 0 && (n = in.read(buf, 0, (int) Math.min(buf.length, left))) > 0) left -= n;
    } catch (IOException e) {
      // the client gave up; the answer that follows fails the same way and is dropped
    }
  }

  /** The query parameters, decoded; a repeated name keeps its first value. */
  static Map<String, String> query(HttpExchange ex) {
    Map<String, String> params = new LinkedHashMap<>();
    String raw = ex.getRequestURI().getRawQuery();
    if (raw == null || raw.isEmpty()) return params;
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) continue;
      int eq = pair.indexOf('=');
      String name =
          URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value =
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      params.putIfAbsent(name, value);
    }
    return params;
  }
}
