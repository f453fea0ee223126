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
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

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
 */
public final class CannedHttpServer implements AutoCloseable {

  // A request head longer than this is not one of our clients' GETs: the connection is dropped.
  private static final int MAX_HEAD_BYTES = 64 * 1024;

  private final ServerSocket socket;
  private final byte[] response;
  private final AtomicInteger requests = new AtomicInteger();
  private final Thread acceptor;

  private CannedHttpServer(ServerSocket socket, byte[] response) {
    this.socket = socket;
    this.response = response;
    this.acceptor = new Thread(this::serve, "canned-http-" + socket.getLocalPort());
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
   * @throws UncheckedIOException when no loopback port can be bound
   */
  public static CannedHttpServer start(int status, Map<String, String> headers) {
    if (status < 100 || status > 599) throw new IllegalArgumentException("status " + status);
    StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append(" Canned\r\n");
    Map<String, String> all = new LinkedHashMap<>(headers);
    all.put("Content-Length", "0");
    all.put("Connection", "close");
    all.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
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

  /** How many requests were answered so far. */
  public int requests() {
    return requests.get();
  }

  private void serve() {
    while (!socket.isClosed()) {
      try (Socket connection = socket.accept()) {
        if (!readHead(new BufferedInputStream(connection.getInputStream()))) continue;
        OutputStream out = connection.getOutputStream();
        out.write(response);
        out.flush();
        requests.incrementAndGet();
      } catch (IOException e) {
        // After close() accept() fails and the loop ends; any other broken exchange must not stop
        // the server: the test sees the client's error.
      }
    }
  }

  // Reads up to the blank line that ends the request head; false when the client closed first.
  private static boolean readHead(InputStream in) throws IOException {
    int matched = 0;
    for (int read = 0; read < MAX_HEAD_BYTES; read++) {
      int b = in.read();
      if (b < 0) return false;
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
      if (matched == 4) return true;
    }
    return false;
  }

  /** Stops accepting; an exchange in progress is cut off. */
  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
