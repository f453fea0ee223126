package io.watukuy.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A server on 127.0.0.1 that answers every request with the JSON its supplier gives, or with the
 * status set; for command-line tests that need a vendor but not a scenario.
 */
final class JsonServer implements AutoCloseable {
  private final HttpServer server;
  private volatile Supplier<String> body = () -> "[]";
  private volatile int status = 200;
  private volatile String retryAfter;
  final AtomicInteger requests = new AtomicInteger();

  JsonServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        ex -> {
          requests.incrementAndGet();
          byte[] bytes = body.get().getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          String wait = retryAfter;
          if (wait != null) ex.getResponseHeaders().set("Retry-After", wait);
          ex.sendResponseHeaders(status, bytes.length);
          ex.getResponseBody().write(bytes);
          ex.close();
        });
    server.start();
  }

  JsonServer answer(String json) {
    this.body = () -> json;
    this.status = 200;
    return this;
  }

  JsonServer fail(int status) {
    this.status = status;
    this.body = () -> "{\"error\":\"down\"}";
    return this;
  }

  /** Answers 429 with this Retry-After from now on. */
  JsonServer throttle(String retryAfter) {
    this.status = 429;
    this.retryAfter = retryAfter;
    this.body = () -> "{\"error\":\"slow down\"}";
    return this;
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
