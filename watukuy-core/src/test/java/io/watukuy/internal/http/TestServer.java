package io.watukuy.internal.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import org.jspecify.annotations.Nullable;

/**
 * A real HTTP server on 127.0.0.1 and an ephemeral port that answers with scripted replies, in
 * order, and records every request it receives.
 */
final class TestServer implements AutoCloseable {

  record Reply(
      int status, List<String[]> headers, byte[] body, Duration delay, Duration bodyDelay) {}

  record Recorded(
      String method,
      String path,
      @Nullable String rawQuery,
      Map<String, List<String>> headers,
      String body) {
    @Nullable String header(String name) {
      List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
      return v == null || v.isEmpty() ? null : v.get(0);
    }
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final BlockingQueue<Reply> replies = new LinkedBlockingQueue<>();
  final List<Recorded> requests = new CopyOnWriteArrayList<>();

  private TestServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(executor);
    server.start();
  }

  static TestServer start() {
    try {
      return new TestServer();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the local test server", e);
    }
  }

  /** An absolute URL on this server. */
  String url(String pathAndQuery) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + pathAndQuery;
  }

  /** Scripts the next reply; headers are name, value pairs. */
  TestServer reply(int status, String body, String... headers) {
    return replyAfter(Duration.ZERO, status, body, headers);
  }

  TestServer replyAfter(Duration delay, int status, String body, String... headers) {
    List<String[]> pairs = new ArrayList<>();
    for (int i = 0; i < headers.length; i += 2)
      pairs.add(new String[] {headers[i], headers[i + 1]});
    replies.add(
        new Reply(status, pairs, body.getBytes(StandardCharsets.UTF_8), delay, Duration.ZERO));
    return this;
  }

  /** Scripts the next reply with a body of bytes (compressed, or in a charset other than UTF-8). */
  TestServer replyBytes(int status, byte[] body, String... headers) {
    List<String[]> pairs = new ArrayList<>();
    for (int i = 0; i < headers.length; i += 2)
      pairs.add(new String[] {headers[i], headers[i + 1]});
    replies.add(new Reply(status, pairs, body.clone(), Duration.ZERO, Duration.ZERO));
    return this;
  }

  /** Sends the status and headers at once and the body after {@code bodyDelay}. */
  TestServer replyWithSlowBody(Duration bodyDelay, int status, String body) {
    replies.add(
        new Reply(
            status, List.of(), body.getBytes(StandardCharsets.UTF_8), Duration.ZERO, bodyDelay));
    return this;
  }

  Recorded request(int index) {
    return requests.get(index);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      Map<String, List<String>> headers = new LinkedHashMap<>();
      exchange
          .getRequestHeaders()
          .forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      requests.add(
          new Recorded(
              exchange.getRequestMethod(),
              exchange.getRequestURI().getRawPath(),
              exchange.getRequestURI().getRawQuery(),
              headers,
              body));
      Reply reply = replies.poll();
      if (reply == null) {
        reply =
            new Reply(
                500,
                List.of(),
                "no reply scripted".getBytes(StandardCharsets.UTF_8),
                Duration.ZERO,
                Duration.ZERO);
      }
      if (!pause(reply.delay())) return;
      for (String[] h : reply.headers()) exchange.getResponseHeaders().add(h[0], h[1]);
      boolean noBody = reply.body().length == 0 || reply.status() == 304 || reply.status() == 204;
      exchange.sendResponseHeaders(reply.status(), noBody ? -1 : reply.body().length);
      if (!noBody) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.flush();
          if (!pause(reply.bodyDelay())) return;
          out.write(reply.body());
        }
      }
    }
  }

  // A real delay of the real server, the one place a test may wait on the wall clock.
  private static boolean pause(Duration delay) {
    if (delay.isZero()) return true;
    try {
      Thread.sleep(delay.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
