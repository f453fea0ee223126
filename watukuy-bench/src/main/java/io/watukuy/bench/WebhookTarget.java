package io.watukuy.bench;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The webhook sink ({@code type: webhook}, one event per request, signed) into a receiver on
 * 127.0.0.1 (the JDK's HTTP server, 4 threads, answering 204 once it read the body), beside the
 * JDK's {@link HttpClient} POSTing the same envelopes one request per event, each answered before
 * the next.
 */
final class WebhookTarget implements SinkTarget {
  /** A Standard Webhooks secret: {@code whsec_} and Base64 of 32 bytes (a bench-only value). */
  static final String SECRET =
      "whsec_"
          + Base64.getEncoder()
              .encodeToString(
                  "watukuy-bench-webhook-secret-32b"
                      .getBytes(java.nio.charset.StandardCharsets.US_ASCII));

  private final ExecutorService threads = Executors.newFixedThreadPool(4);
  private final HttpServer server;
  private final Map<String, AtomicLong> received = new ConcurrentHashMap<>();
  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  WebhookTarget() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(threads);
    server.createContext(
        "/",
        exchange -> {
          try (InputStream body = exchange.getRequestBody()) {
            body.readAllBytes();
          }
          received
              .computeIfAbsent(exchange.getRequestURI().getPath(), k -> new AtomicLong())
              .incrementAndGet();
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    server.start();
  }

  @Override
  public String name() {
    return "webhook";
  }

  @Override
  public String store() {
    return "memory";
  }

  @Override
  public String rawWhat() {
    return "java.net.http.HttpClient: one POST per event (the envelope, webhook-id header), each"
        + " answered 2xx before the next";
  }

  @Override
  public Map<String, Object> sink(int round, BenchStore store) {
    return Map.of("type", "webhook", "url", url("sink", round), "secret", SECRET);
  }

  @Override
  public Raw raw(int round, BenchStore store) {
    URI uri = URI.create(url("raw", round));
    return new Raw() {
      @Override
      public void write(List<SinkRecord> batch) throws IOException, InterruptedException {
        for (SinkRecord r : batch) {
          HttpRequest request =
              HttpRequest.newBuilder(uri)
                  .timeout(Duration.ofSeconds(10))
                  .header("content-type", "application/json")
                  .header("webhook-id", r.deliveryKey())
                  .POST(HttpRequest.BodyPublishers.ofByteArray(r.envelope()))
                  .build();
          int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
          if (status / 100 != 2)
            throw new IOException("the receiver answered " + status + " to " + r.deliveryKey());
        }
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public Long delivered(int round) {
    AtomicLong n = received.get(path("sink", round));
    return n == null ? 0L : n.get();
  }

  private String url(String pass, int round) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path(pass, round);
  }

  private static String path(String pass, int round) {
    return "/" + pass + "/" + round;
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
