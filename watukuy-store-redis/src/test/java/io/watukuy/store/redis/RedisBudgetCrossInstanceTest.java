package io.watukuy.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.watukuy.BudgetLimit;
import io.watukuy.testing.ReadsWallClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One budget across instances (guarantee G6, issue "Rate budgets", test "Across instances"): three
 * instances, each with its own Redis client, connection and {@link RedisBudgetStore} on one prefix,
 * send requests to a local HTTP server for a few seconds of real time, each request after a token
 * from the shared bucket. The server records when each request arrives, and in every window of
 * length T starting at an arrival the count stays within burst + requests * T / per.
 *
 * <p>The store grants a token at an instant between the {@code now} the instance passed (its clock
 * truncated to the millisecond) and the moment the script ran, and the request arrives after both.
 * So a request arriving at {@code a} holds a token granted in {@code [a - D, a]}, where {@code D}
 * is the largest delay between a request's {@code now} and its arrival (measured, a few
 * milliseconds here), and the arrivals in a window of length T hold tokens granted within T + D:
 * the check widens each window by that measured D and nothing else. Instances that did not share
 * the bucket would send about three times the rule, far beyond it.
 */
@ReadsWallClock("a budget shared through Redis, whose TIME is the real clock")
class RedisBudgetCrossInstanceTest {
  @RegisterExtension static final TestRedis redis = TestRedis.local();

  /** A token every 100 ms, and up to 5 at once. */
  static final BudgetLimit LIMIT = new BudgetLimit(10, Duration.ofSeconds(1), 5);

  static final int INSTANCES = 3;
  // Five seconds give about 55 requests (burst 5, then one per 100 ms) from three instances, every
  // window of up to 5 s checked against the rule; eight seconds checked the same rule on longer
  // windows only. Unshared buckets would still send about three times the rule.
  static final Duration RUN = Duration.ofSeconds(5);

  /** Longest single sleep on a refused take; the loop then asks again. */
  static final Duration MAX_SLEEP = Duration.ofSeconds(1);

  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

  /**
   * One request as the server saw it: when it arrived, and the {@code now} its token was taken at.
   */
  record Arrival(Instant at, Instant takenAt, int instance) {}

  @Test
  void threeInstancesOnOneRedisBudgetNeverSendAboveTheRuleInAnyWindow() throws Exception {
    String prefix = redis.newPrefix("budget-instances");
    List<Arrival> arrivals = new ArrayList<>();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.createContext(
        "/",
        exchange -> {
          Instant at = Instant.now();
          String path = exchange.getRequestURI().getPath();
          if (path.startsWith("/take/")) {
            String[] parts = path.split("/"); // /take/<instance>/<epoch ms of now>
            synchronized (arrivals) {
              arrivals.add(
                  new Arrival(
                      at,
                      Instant.ofEpochMilli(Long.parseLong(parts[3])),
                      Integer.parseInt(parts[2])));
            }
          }
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    ExecutorService serverThreads = Executors.newFixedThreadPool(4);
    server.setExecutor(serverThreads);
    server.start();
    ExecutorService instances = Executors.newFixedThreadPool(INSTANCES);
    try {
      URI base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
      CountDownLatch ready = new CountDownLatch(INSTANCES);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Integer>> sent = new ArrayList<>();
      for (int i = 0; i < INSTANCES; i++) {
        // A connection each, closed after the test.
        RedisLike connection = redis.connect().redis;
        RedisBudgetStore store = RedisBudgetStore.builder(connection).prefix(prefix).build();
        int instance = i;
        sent.add(instances.submit(() -> runInstance(instance, store, base, ready, start)));
      }
      assertThat(ready.await(30, TimeUnit.SECONDS)).as("instances warmed up").isTrue();
      start.countDown();
      int total = 0;
      for (Future<Integer> f : sent) {
        int n = f.get(RUN.plus(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(n).as("requests of one instance").isPositive();
        total += n;
      }

      List<Arrival> seen;
      synchronized (arrivals) {
        seen = new ArrayList<>(arrivals);
      }
      seen.sort(Comparator.comparing(Arrival::at));
      assertThat(seen).hasSize(total);

      long delayNanos = 0; // D: the longest delay from a request's now to its arrival
      for (Arrival a : seen) {
        assertThat(a.at()).as("arrival after its token's now").isAfterOrEqualTo(a.takenAt());
        delayNanos = Math.max(delayNanos, Duration.between(a.takenAt(), a.at()).toNanos());
      }
      long perNanos = LIMIT.per().toNanos();
      for (int i = 0; i < seen.size(); i++) {
        for (int j = i; j < seen.size(); j++) {
          long windowNanos = Duration.between(seen.get(i).at(), seen.get(j).at()).toNanos();
          int count = j - i + 1;
          // count <= burst + requests * (T + D) / per, compared in integers
          double allowed =
              LIMIT.burst() + LIMIT.requests() * (double) (windowNanos + delayNanos) / perNanos;
          assertThat((long) (count - LIMIT.burst()) * perNanos)
              .as(
                  "%d requests arrived within %.3f ms from %s; with D = %.3f ms the rule allows %.2f",
                  count, windowNanos / 1e6, seen.get(i).at(), delayNanos / 1e6, allowed)
              .isLessThanOrEqualTo(LIMIT.requests() * (windowNanos + delayNanos));
        }
      }
      // The budget, not the server, held the instances back: they sent about what the rule allows.
      long span = Duration.between(seen.get(0).at(), seen.get(seen.size() - 1).at()).toMillis();
      long allowed = LIMIT.burst() + LIMIT.requests() * span / LIMIT.per().toMillis();
      assertThat((long) total).isGreaterThanOrEqualTo(allowed * 8 / 10);
      assertThat(delayNanos).as("D in ns").isLessThan(Duration.ofSeconds(1).toNanos());
    } finally {
      instances.shutdownNow();
      instances.awaitTermination(10, TimeUnit.SECONDS);
      server.stop(0);
      serverThreads.shutdownNow();
    }
  }

  /** One instance: a token from the shared bucket before every request, until the run ends. */
  private static int runInstance(
      int instance, RedisBudgetStore store, URI base, CountDownLatch ready, CountDownLatch start)
      throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(REQUEST_TIMEOUT).build();
    // A first request opens the connection and a first take loads the script, so the measured
    // ones pay for neither.
    send(http, base.resolve("/warm-up"));
    store.tryTake("warm-up-" + instance, LIMIT, 1, Instant.now());
    ready.countDown();
    start.await();
    long end = System.nanoTime() + RUN.toNanos();
    int sent = 0;
    while (System.nanoTime() < end) {
      Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
      Duration wait = store.tryTake("api", LIMIT, 1, now);
      if (wait.isZero()) {
        send(http, base.resolve("/take/" + instance + "/" + now.toEpochMilli()));
        sent++;
      } else {
        long sleepNanos =
            Math.min(Math.min(wait.toNanos(), MAX_SLEEP.toNanos()), end - System.nanoTime());
        if (sleepNanos > 0) TimeUnit.NANOSECONDS.sleep(sleepNanos);
      }
    }
    return sent;
  }

  private static void send(HttpClient http, URI uri) throws IOException, InterruptedException {
    HttpResponse<Void> response =
        http.send(
            HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).GET().build(),
            HttpResponse.BodyHandlers.discarding());
    assertThat(response.statusCode()).isEqualTo(204);
  }
}
