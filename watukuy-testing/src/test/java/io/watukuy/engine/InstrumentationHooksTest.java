package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.BatchHandler.BatchResult;
import io.watukuy.BudgetTimeoutException;
import io.watukuy.Cursors;
import io.watukuy.CycleInfo;
import io.watukuy.DeliveryOptions;
import io.watukuy.DeliveryOutcome;
import io.watukuy.DeliveryPolicy;
import io.watukuy.EventType;
import io.watukuy.KeyReport;
import io.watukuy.Lane;
import io.watukuy.LeaseLostException;
import io.watukuy.Page;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RequestInfo;
import io.watukuy.RequestStart;
import io.watukuy.RetryPolicy;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.Lease;
import io.watukuy.spi.ParkedRow;
import io.watukuy.testing.ForwardingStore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The instrumentation hooks of {@link WatukuyListener} fire exactly once per occurrence: one {@code
 * onRequest} per HTTP attempt, one {@code onDelivery} per outcome of a handler call, one {@code
 * onCycleStart} and one {@code onCycleEnd} (the same {@link CycleInfo}) per cycle however it ends.
 * Durations come from the virtual clock, which the server or handler advances while it works.
 */
class InstrumentationHooksTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  static final ObjectMapper JSON = new ObjectMapper();

  final Fixture f = new Fixture();
  final List<String> heard = new CopyOnWriteArrayList<>();
  final List<RequestInfo> requests = new CopyOnWriteArrayList<>();
  final List<RequestStart> requestStarts = new CopyOnWriteArrayList<>();
  final List<Throwable> budgetFailures = new CopyOnWriteArrayList<>();
  final List<DeliveryOutcome> deliveries = new CopyOnWriteArrayList<>();
  final List<CycleInfo> started = new CopyOnWriteArrayList<>();
  final List<CycleInfo> ended = new CopyOnWriteArrayList<>();
  final List<Duration> elapsed = new CopyOnWriteArrayList<>();
  final List<KeyReport> endReports = new CopyOnWriteArrayList<>();

  final WatukuyListener listener =
      new WatukuyListener() {
        @Override
        public void onRequestStart(PollerKey key, RequestStart request) {
          heard.add("send " + key + " " + Thread.currentThread().getName());
          requestStarts.add(request);
        }

        @Override
        public void onRequest(PollerKey key, RequestInfo request) {
          heard.add("request " + key + " " + Thread.currentThread().getName());
          requests.add(request);
        }

        @Override
        public void onBudgetWait(PollerKey key, String budget, Duration wait) {
          heard.add("wait " + budget + " " + wait);
        }

        @Override
        public void onBudgetWaitEnd(
            PollerKey key, String budget, Duration waited, Throwable failure) {
          heard.add("waited " + budget + " " + waited + " " + (failure != null));
          if (failure != null) budgetFailures.add(failure);
        }

        @Override
        public void onDelivery(PollerKey key, DeliveryOutcome outcome) {
          heard.add("delivery " + key + " " + outcome.result());
          deliveries.add(outcome);
        }

        @Override
        public void onParked(PollerKey key, ParkedRow row) {
          heard.add("parked " + key);
        }

        @Override
        public void onCycleStart(CycleInfo cycle) {
          heard.add("start " + cycle.id());
          started.add(cycle);
        }

        @Override
        public void onCycleEnd(CycleInfo cycle, KeyReport report, Duration took) {
          heard.add("end " + cycle.id());
          ended.add(cycle);
          endReports.add(report);
          elapsed.add(took);
        }

        @Override
        public void onEvents(PollerKey key, Lane lane, EventType type, int count) {
          heard.add("events " + key + " " + lane.wire() + " " + type + " " + count);
        }

        @Override
        public void onCycle(KeyReport report) {
          heard.add("cycle " + report.outcome());
        }
      };

  /**
   * A 429 with Retry-After, then a 200 for the same URL on the next cycle: two calls, attempts 1
   * and 2, each with the time the server took on the engine's clock, and an origin without the path
   * or the query (which carries a token here).
   */
  @Test
  void a429ThenA200AreTwoRequestsWithAttempts1And2() throws IOException {
    AtomicInteger served = new AtomicInteger();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/orders",
        (HttpExchange ex) -> {
          if (served.incrementAndGet() == 1) {
            f.clock.advance(Duration.ofMillis(120));
            ex.getResponseHeaders().add("Retry-After", "60");
            ex.sendResponseHeaders(429, -1);
          } else {
            f.clock.advance(Duration.ofMillis(80));
            byte[] body = "{\"items\":[{\"id\":\"a\"}]}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
          }
          ex.close();
        });
    server.start();
    try {
      int port = server.getAddress().getPort();
      String url = "http://127.0.0.1:" + port + "/orders?token=s3cr3t";
      Poller<JsonNode> p =
          Poller.builder("orders", JsonNode.class)
              .identity(n -> n.get("id"))
              .cursor(Cursors.snapshotDiff())
              .fetch(
                  ctx -> {
                    JsonNode body = ctx.http().get(url).json();
                    return Page.of(List.<JsonNode>of(body.get("items").get(0)));
                  })
              .schedule(Fixture.FIXED)
              .build();
      Watukuy w = f.engine("a").poller(p).listener(listener).build().on(p, e -> {});

      w.tick();
      f.clock.advance(Duration.ofSeconds(60));
      w.tick();

      String origin = "http://127.0.0.1:" + port;
      assertThat(requests)
          .containsExactly(
              new RequestInfo("GET", origin, 429, null, Duration.ofMillis(120), 1),
              new RequestInfo("GET", origin, 200, null, Duration.ofMillis(80), 2));
      // One start per attempt, before its report, on the same thread; the token in the query is
      // hidden in the URL.
      RequestStart start = new RequestStart("GET", origin, origin + "/orders?token=[redacted]", 1);
      assertThat(requestStarts)
          .containsExactly(start, new RequestStart("GET", origin, start.url(), 2));
      String thread = Thread.currentThread().getName();
      assertThat(heard.stream().filter(h -> h.startsWith("send ") || h.startsWith("request ")))
          .containsExactly(
              "send orders " + thread,
              "request orders " + thread,
              "send orders " + thread,
              "request orders " + thread);
      assertThat(requests.get(0).outcome()).isEqualTo("CLIENT_ERROR");
      assertThat(requests.get(1).serverAddress()).isEqualTo("127.0.0.1");
      assertThat(requests.get(1).serverPort()).isEqualTo(port);
      assertThat(served.get()).isEqualTo(2);

      // A success forgets: the next poll of the same URL is a first attempt again.
      f.nextCycle();
      w.tick();
      assertThat(requests).hasSize(3);
      assertThat(requests.get(2).attempt()).isEqualTo(1);
    } finally {
      server.stop(0);
    }
  }

  /** A request that gets no answer is reported with its failure kind and no status. */
  @Test
  void aRefusedConnectionIsOneRequestWithAnIoFailure() throws IOException {
    int port;
    try (var closed = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = closed.getLocalPort();
    }
    String url = "http://127.0.0.1:" + port + "/orders";
    Poller<JsonNode> p =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(ctx -> Page.of(List.<JsonNode>of(ctx.http().get(url).json())))
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(p).listener(listener).build().on(p, e -> {});

    w.tick();

    assertThat(requests)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.status()).isZero();
              assertThat(r.failure()).isEqualTo(RequestInfo.Failure.IO);
              assertThat(r.attempt()).isEqualTo(1);
              assertThat(r.outcome()).isEqualTo("UNKNOWN");
            });
    assertThat(requestStarts)
        .containsExactly(new RequestStart("GET", "http://127.0.0.1:" + port, url, 1));
  }

  /**
   * A page whose fetch sends three requests under a budget of one per 10 s: the second and third
   * each announce a wait of 10 s and end it once, with the 10 s they waited on the engine's clock,
   * between the previous request's report and their own start.
   */
  @Test
  void aBudgetWaitStartsAndEndsOnceBeforeItsRequest() throws IOException {
    HttpServer server = itemServer();
    try {
      String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/orders";
      Poller<JsonNode> p = threeRequests(url).budget("erp").build();
      Watukuy w =
          f.engine("a")
              .budget("erp", 1, Duration.ofSeconds(10))
              .poller(p)
              .listener(listener)
              .build()
              .on(p, e -> {});

      w.tick();

      assertThat(requestStarts).hasSize(3);
      assertThat(requests).hasSize(3);
      assertThat(
              heard.stream()
                  .filter(h -> h.matches("(send|request|wait|waited) .*"))
                  .map(h -> h.replaceAll(" orders .*", "")))
          .containsExactly(
              "send",
              "request",
              "wait erp PT10S",
              "waited erp PT10S false",
              "send",
              "request",
              "wait erp PT10S",
              "waited erp PT10S false",
              "send",
              "request");
    } finally {
      server.stop(0);
    }
  }

  /**
   * A wait longer than the poller's maxWait ends once, with the BudgetTimeoutException, after the
   * maxWait on the engine's clock; its request is never started.
   */
  @Test
  void aBudgetWaitThatTimesOutEndsOnceWithTheTimeout() throws IOException {
    HttpServer server = itemServer();
    try {
      String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/orders";
      Poller<JsonNode> p = threeRequests(url).budget("erp").maxWait(Duration.ofSeconds(4)).build();
      Watukuy w =
          f.engine("a")
              .budget("erp", 1, Duration.ofSeconds(10))
              .poller(p)
              .listener(listener)
              .build()
              .on(p, e -> {});

      w.tick();

      assertThat(requestStarts).hasSize(1);
      assertThat(requests).hasSize(1);
      assertThat(heard.stream().filter(h -> h.matches("(wait|waited) .*")))
          .containsExactly("wait erp PT10S", "waited erp PT4S true");
      assertThat(budgetFailures).singleElement().isInstanceOf(BudgetTimeoutException.class);
    } finally {
      server.stop(0);
    }
  }

  private static HttpServer itemServer() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/orders",
        (HttpExchange ex) -> {
          byte[] body = "{\"items\":[{\"id\":\"a\"}]}".getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.start();
    return server;
  }

  /** A poller whose one page sends three GETs of {@code url} through the helper. */
  private static Poller.Builder<JsonNode, Void> threeRequests(String url) {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff())
        .fetch(
            ctx -> {
              ctx.http().get(url + "?n=1");
              ctx.http().get(url + "?n=2");
              JsonNode body = ctx.http().get(url + "?n=3").json();
              return Page.of(List.<JsonNode>of(body.get("items").get(0)));
            })
        .schedule(Fixture.FIXED);
  }

  /**
   * A batch handler that fails once and then handles the event: retried (attempt 1), then acked
   * (attempt 2), each once, with the handler's time on the engine's clock.
   */
  @Test
  void aBatchHandlerThatFailsOnceThenAcksIsRetriedThenAcked() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    AtomicInteger calls = new AtomicInteger();
    Watukuy w =
        f.engine("a")
            .delivery(new DeliveryOptions(1, 100, 10))
            .poller(orders)
            .listener(listener)
            .build()
            .onBatch(
                orders,
                events -> {
                  f.clock.advance(Duration.ofMillis(50));
                  return calls.incrementAndGet() == 1
                      ? BatchResult.failed(events.get(0), new IllegalStateException("500"))
                      : BatchResult.ok();
                });

    w.tick();
    f.clock.advanceTo(f.store.loadPending(ORDERS, 0, 10).get(0).nextAttemptAt());
    w.tick();

    assertThat(deliveries)
        .containsExactly(
            new DeliveryOutcome(DeliveryOutcome.Result.RETRIED, 1, Duration.ofMillis(50), 1),
            new DeliveryOutcome(DeliveryOutcome.Result.ACKED, 1, Duration.ofMillis(50), 2));
    assertThat(f.store.countPending(ORDERS)).isZero();
  }

  /**
   * A batch of three where one event fails: one acked outcome for two events and one retried
   * outcome for one, not one call per event.
   */
  @Test
  void aBatchWithOneFailedEventGivesOneOutcomePerKind() {
    f.seed(3);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Watukuy w =
        f.engine("a")
            .delivery(new DeliveryOptions(1, 100, 10))
            .poller(orders)
            .listener(listener)
            .build()
            .onBatch(
                orders,
                events ->
                    BatchResult.failed(
                        events.stream()
                            .filter(e -> e.identity().equals("o002"))
                            .findFirst()
                            .orElseThrow(),
                        new IllegalStateException("refused")));

    w.tick();

    assertThat(deliveries)
        .containsExactly(
            new DeliveryOutcome(DeliveryOutcome.Result.ACKED, 2, Duration.ZERO, 1),
            new DeliveryOutcome(DeliveryOutcome.Result.RETRIED, 1, Duration.ZERO, 1));
  }

  /** A poison event (one attempt allowed) is parked: one parked outcome, after onParked. */
  @Test
  void aPoisonEventIsOneParkedOutcome() {
    f.seed(2);
    Poller<JsonNode> orders =
        f.timestamp("orders", 50)
            .delivery(
                new DeliveryPolicy(
                    RetryPolicy.attempts(1), new PoisonPolicy(PoisonPolicy.Action.PARK, false)))
            .build();
    Watukuy w =
        f.engine("a")
            .poller(orders)
            .listener(listener)
            .build()
            .on(
                orders,
                e -> {
                  f.clock.advance(Duration.ofMillis(7));
                  if (e.identity().equals("o001")) throw new IllegalStateException("poison");
                });

    w.tick();

    assertThat(deliveries)
        .containsExactly(
            new DeliveryOutcome(DeliveryOutcome.Result.PARKED, 1, Duration.ofMillis(7), 1),
            new DeliveryOutcome(DeliveryOutcome.Result.ACKED, 1, Duration.ofMillis(7), 1));
    assertThat(heard)
        .containsSubsequence("parked orders", "delivery orders PARKED", "delivery orders ACKED");
  }

  /** A cycle: one start, one end with the same object, the lanes due, and its elapsed time. */
  @Test
  void aCycleStartsAndEndsOnceWithTheSameInfo() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Watukuy w =
        f.engine("a")
            .poller(orders)
            .listener(listener)
            .build()
            .on(orders, e -> f.clock.advance(Duration.ofMillis(30)));
    Instant at = f.clock.now();

    w.tick();
    w.tick(); // not due: no cycle starts

    assertThat(started).containsExactly(new CycleInfo(ORDERS, 1, at, Set.of(Lane.LIVE)));
    assertThat(ended).hasSize(1);
    assertThat(ended.get(0)).isSameAs(started.get(0));
    assertThat(elapsed).containsExactly(Duration.ofMillis(30));
    assertThat(heard)
        .containsSubsequence("start 1", "delivery orders ACKED", "end 1", "cycle POLLED")
        .containsSubsequence("end 1", "cycle SKIPPED_NOT_DUE");
  }

  /** A failed cycle still ends once, with the failure in its report. */
  @Test
  void aFailedCycleEndsOnce() {
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Watukuy w = f.engine("a").poller(orders).listener(listener).build().on(orders, e -> {});
    f.api.failNext(1, () -> new IllegalStateException("vendor down"));

    w.tick();

    assertThat(started).hasSize(1);
    assertThat(ended).containsExactlyElementsOf(started);
    assertThat(endReports).singleElement().satisfies(r -> assertThat(r.failed()).isTrue());
  }

  /** A cycle whose lease is lost at its commit ends once, with the lost lease in its report. */
  @Test
  void aCycleThatLosesItsLeaseEndsOnce() {
    f.seed(1);
    ForwardingStore losing =
        new ForwardingStore(f.store) {
          @Override
          public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
            throw new LeaseLostException(key, lease.epoch(), lease.epoch() + 1);
          }
        };
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Watukuy w =
        f.engine("a").store(losing).poller(orders).listener(listener).build().on(orders, e -> {});

    w.tick();

    assertThat(started).hasSize(1);
    assertThat(ended).containsExactlyElementsOf(started);
    assertThat(endReports)
        .singleElement()
        .satisfies(r -> assertThat(r.error()).isInstanceOf(LeaseLostException.class));
  }

  /**
   * Events committed are told once per type per commit, with their lane, after the commit and
   * before their delivery: two created, then one updated.
   */
  @Test
  void committedEventsAreToldByTypeAndLane() {
    f.seed(2);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Watukuy w = f.engine("a").poller(orders).listener(listener).build().on(orders, e -> {});

    w.tick();
    f.nextCycle();
    f.api.put("o001", java.util.Map.of("n", 10));
    w.tick();

    assertThat(heard.stream().filter(h -> h.startsWith("events ")))
        .containsExactly("events orders live CREATED 2", "events orders live UPDATED 1");
    assertThat(heard)
        .containsSubsequence("start 1", "events orders live CREATED 2", "delivery orders ACKED");
  }
}
