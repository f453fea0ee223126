package io.watukuy.effects;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A real HTTP server on 127.0.0.1 (a free port) that the effect tests' calls reach, with a handler
 * per path; {@link #close()} stops it at once.
 */
final class LocalReceiver implements AutoCloseable {
  private final HttpServer server;

  private LocalReceiver(HttpServer server) {
    this.server = server;
  }

  /**
   * Starts a server with no paths yet; {@link #route} adds them, before or after requests. A test
   * keeps it in an {@code @AutoClose} field.
   *
   * @throws UncheckedIOException when no port on 127.0.0.1 can be bound
   */
  static LocalReceiver start() {
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.start();
      return new LocalReceiver(server);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A receiver answering every request 204 with no body, after {@code onRequest} runs. */
  static LocalReceiver noContent(Runnable onRequest) {
    return start()
        .reading(
            "/",
            (x, body) -> {
              onRequest.run();
              reply(x, 204, new byte[0]);
            });
  }

  /** Answers requests under {@code path} with {@code handler}; returns this receiver. */
  LocalReceiver route(String path, HttpHandler handler) {
    server.createContext(path, handler);
    return this;
  }

  /** A handler given the request's body, read in full as UTF-8 before it runs. */
  @FunctionalInterface
  interface BodyHandler {
    void handle(HttpExchange exchange, String body) throws IOException;
  }

  /** {@link #route} with the request's body read first and handed to {@code handler}. */
  LocalReceiver reading(String path, BodyHandler handler) {
    return route(
        path,
        x ->
            handler.handle(
                x, new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
  }

  /** {@code http://127.0.0.1:PORT}, without a trailing slash. */
  String base() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Sends {@code status} with {@code body} (its length declared) and ends the exchange. */
  static void reply(HttpExchange x, int status, byte[] body) throws IOException {
    x.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) x.getResponseBody().write(body);
    x.close();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
