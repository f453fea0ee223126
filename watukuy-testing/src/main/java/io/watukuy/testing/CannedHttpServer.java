package io.watukuy.testing;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real HTTP/1.1 server on 127.0.0.1 and an ephemeral port that answers every request with one
 * canned response: its status, its headers exactly as given (a {@code Date} included, which the
 * JDK's {@code com.sun.net.httpserver} always overwrites with the real time) and an empty body.
 * Each connection serves one request and is closed.
 *
 * <p>It exists so that a test of a time-bearing header ({@code Retry-After} read against {@code
 * Date}, {@code RateLimit-Reset}) can give every value explicitly and assert the same wait on any
 * day it runs.
 *
 * <pre>{@code
 * try (CannedHttpServer vendor = CannedHttpServer.start(429, Map.of(
 *     "Date", "Tue, 1 Dec 2026 10:00:00 GMT",
 *     "Retry-After", "Tue, 1 Dec 2026 10:02:00 GMT"))) {
 *   String url = vendor.url("/orders"); // http://127.0.0.1:<port>/orders
 * }
 * }</pre>
 *
 * <p>Each connection has its own daemon thread, reads at most 64 KiB of request head (lines may end
 * in CRLF or a bare LF) and at most 16 MiB of body, and gives up on a client silent for 5 s. {@link
 * #close()} stops accepting and cuts off every exchange in progress.
 */
public final class CannedHttpServer implements AutoCloseable {

  // A request head longer than this is not one of our clients' GETs: the connection is dropped.
  private static final int MAX_HEAD_BYTES = 64 * 1024;
  // A body is read (and dropped) before the answer, so the client never sees a reset.
  private static final long MAX_BODY_BYTES = 16L * 1024 * 1024;
  private static final int READ_TIMEOUT_MS = 5_000;
  private static final Pattern CONTENT_LENGTH =
      Pattern.compile("(?im)^content-length:[ \\t]*(\\d{1,18})[ \\t]*\\r?$");

  private final ServerSocket socket;
  private final byte[] response;
  private final AtomicInteger requests = new AtomicInteger();
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;

  private CannedHttpServer(ServerSocket socket, byte[] response) {
    this.socket = socket;
    this.response = response;
    this.acceptor = new Thread(this::accept, "canned-http-" + socket.getLocalPort());
    acceptor.setDaemon(true);
  }

  /**
   * Starts a server that answers every request with {@code status}, {@code headers} (in the map's
   * iteration order) and no body.
   *
   * @param status the status code, 100–599
   * @param headers field name to value, sent byte for byte; {@code Content-Length: 0} and {@code
   *     Connection: close} are added
   * @return the running server; close it to stop it
   * @throws IllegalArgumentException when the status is out of range, or a name or value holds a CR
   *     or LF (which would inject header lines)
   * @throws UncheckedIOException when no loopback port can be bound
   */
  public static CannedHttpServer start(int status, Map<String, String> headers) {
    if (status < 100 || status > 599) throw new IllegalArgumentException("status " + status);
    StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append(" Canned\r\n");
    Map<String, String> all = new LinkedHashMap<>(headers);
    all.put("Content-Length", "0");
    all.put("Connection", "close");
    all.forEach(
        (name, value) -> {
          if (name.isEmpty() || (name + value).chars().anyMatch(c -> c == '\r' || c == '\n')) {
            throw new IllegalArgumentException(
                "header " + name + ": a name must be non-empty and neither may hold CR or LF");
          }
          head.append(name).append(": ").append(value).append("\r\n");
        });
    head.append("\r\n");
    try {
      ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      CannedHttpServer server =
          new CannedHttpServer(socket, head.toString().getBytes(StandardCharsets.ISO_8859_1));
      server.acceptor.start();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot bind a loopback port for the canned server", e);
    }
  }

  /**
   * The absolute URL of {@code path} on this server.
   *
   * @param path starting with {@code /}
   * @return {@code http://127.0.0.1:<port><path>}
   */
  public String url(String path) {
    return "http://127.0.0.1:" + socket.getLocalPort() + path;
  }

  /**
   * How many requests were answered so far; counted before the answer is written, so a client that
   * has its response sees it counted.
   */
  public int requests() {
    return requests.get();
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket connection = socket.accept();
        open.add(connection);
        Thread exchange = new Thread(() -> answer(connection), acceptor.getName() + "-exchange");
        exchange.setDaemon(true);
        exchange.start();
      } catch (IOException e) {
        // After close() accept() fails and the loop ends.
      }
    }
  }

  private void answer(Socket connection) {
    try (connection) {
      connection.setSoTimeout(READ_TIMEOUT_MS);
      InputStream in = new BufferedInputStream(connection.getInputStream());
      String head = readHead(in);
      if (head == null) return;
      Matcher length = CONTENT_LENGTH.matcher(head);
      if (length.find()) in.skipNBytes(Math.min(Long.parseLong(length.group(1)), MAX_BODY_BYTES));
      requests.incrementAndGet();
      OutputStream out = connection.getOutputStream();
      out.write(response);
      out.flush();
    } catch (IOException e) {
      // A client that went away, stayed silent or was cut off by close(): nothing to answer, and
      // the test sees its own client's error.
    } finally {
      open.remove(connection);
    }
  }

  // The request head up to its blank line (CRLF CRLF, or bare LFs); null when the client closed
  // first or the head is too long.
  private static String readHead(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    int newlines = 0;
    for (int read = 0; read < MAX_HEAD_BYTES; read++) {
      int b = in.read();
      if (b < 0) return null;
      head.append((char) b);
      if (b == '\n') {
        if (++newlines == 2) return head.toString().toLowerCase(Locale.ROOT);
      } else if (b != '\r') {
        newlines = 0;
      }
    }
    return null;
  }

  /** Stops accepting, and cuts off every exchange in progress. */
  @Override
  public void close() {
    try {
      socket.close();
      for (Socket connection : open) connection.close();
      acceptor.join(READ_TIMEOUT_MS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
