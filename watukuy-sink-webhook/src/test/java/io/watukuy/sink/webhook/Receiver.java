package io.watukuy.sink.webhook;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A webhook receiver on 127.0.0.1 (a real HTTP server on port 0): records every request it gets,
 * headers and body, before it answers, and answers with a function the test sets.
 */
final class Receiver implements AutoCloseable {
  /** One request as received; {@code run} is the test's run counter when it arrived. */
  record Request(
      String path,
      String id,
      String timestamp,
      String signature,
      String contentType,
      String authorization,
      byte[] body,
      int run) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /** An answer: a status, headers, a body, and how long to wait before sending it. */
  record Answer(int status, Map<String, String> headers, String body, Duration delay) {
    static Answer status(int status) {
      return new Answer(status, Map.of(), "", Duration.ZERO);
    }

    static Answer ok() {
      return status(204);
    }

    Answer withHeader(String name, String value) {
      Map<String, String> all = new java.util.LinkedHashMap<>(headers);
      all.put(name, value);
      return new Answer(status, all, body, delay);
    }

    Answer withBody(String body) {
      return new Answer(status, headers, body, delay);
    }

    Answer after(Duration delay) {
      return new Answer(status, headers, body, delay);
    }
  }

  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<Request> requests = new ArrayList<>();
  final AtomicInteger run = new AtomicInteger();
  volatile Function<Request, Answer> answer = r -> Answer.ok();

  private Receiver(HttpServer server) {
    this.server = server;
  }

  static Receiver start() throws IOException {
    System.setProperty("sun.net.httpserver.nodelay", "true");
    Receiver r = new Receiver(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
    r.server.createContext("/", r::handle);
    r.server.setExecutor(r.threads);
    r.server.start();
    return r;
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  int port() {
    return server.getAddress().getPort();
  }

  synchronized int countInRun(int run) {
    return (int) requests.stream().filter(r -> r.run() == run).count();
  }

  synchronized List<Request> requests() {
    return List.copyOf(requests);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange;
        InputStream in = exchange.getRequestBody()) {
      byte[] body = in.readAllBytes();
      var h = exchange.getRequestHeaders();
      Request request =
          new Request(
              exchange.getRequestURI().getRawPath()
                  + (exchange.getRequestURI().getRawQuery() == null
                      ? ""
                      : "?" + exchange.getRequestURI().getRawQuery()),
              String.valueOf(h.getFirst("webhook-id")),
              String.valueOf(h.getFirst("webhook-timestamp")),
              String.valueOf(h.getFirst("webhook-signature")),
              String.valueOf(h.getFirst("content-type")),
              String.valueOf(h.getFirst("authorization")),
              body,
              run.get());
      synchronized (this) {
        requests.add(request);
      }
      Answer a = answer.apply(request);
      if (!a.delay().isZero()) Thread.sleep(a.delay().toMillis());
      a.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
      byte[] out = a.body().getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(a.status(), out.length == 0 ? -1 : out.length);
      if (out.length > 0) exchange.getResponseBody().write(out);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    // Interrupt answers still waiting first: stop() waits for exchanges in progress.
    threads.shutdownNow();
    server.stop(0);
  }
}
