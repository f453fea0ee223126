package io.watukuy.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.watukuy.BudgetTimeoutException;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.DeliveryPolicy;
import io.watukuy.LeaseLostException;
import io.watukuy.Page;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RequestInfo;
import io.watukuy.RequestStart;
import io.watukuy.RetryPolicy;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.Lease;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.ForwardingStore;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every meter of {@link WatukuyMetrics} after a scripted run against a real HTTP server on
 * 127.0.0.1, on a virtual clock: a 429 then a 200, an event retried then acked, an event retried
 * then parked, and a key whose last success ages. Names, tags and values are asserted exactly.
 */
class WatukuyMetricsTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  static final Schedule FIXED =
      Schedule.every(Duration.ofSeconds(30)).withAdaptive(false).withJitter(0);

  final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  final MemoryStore store = new MemoryStore();
  // Observations are timed by the registry's clock: the engine's, so timers are exact.
  final SimpleMeterRegistry registry =
      new SimpleMeterRegistry(SimpleConfig.DEFAULT, new EngineClock(clock));
  final AtomicInteger served = new AtomicInteger();
  HttpServer server;
  String url;

  @BeforeEach
  void server() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/orders",
        (HttpExchange ex) -> {
          if (served.incrementAndGet() == 1) {
            clock.advance(Duration.ofMillis(120));
            ex.getResponseHeaders().add("Retry-After", "60");
            ex.sendResponseHeaders(429, -1);
          } else {
            clock.advance(Duration.ofMillis(80));
            byte[] body =
                "{\"items\":[{\"id\":\"a\"},{\"id\":\"p\"}]}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
          }
          ex.close();
        });
    server.createContext(
        "/ok",
        (HttpExchange ex) -> {
          byte[] body = "{\"items\":[{\"id\":\"a\"}]}".getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.start();
    url = "http://127.0.0.1:" + server.getAddress().getPort() + "/orders?token=s3cr3t";
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  Poller<JsonNode> orders() {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff())
        .fetch(
            ctx -> {
              JsonNode items = ctx.http().get(url).json().get("items");
              return Page.of(List.<JsonNode>of(items.get(0), items.get(1)));
            })
        .schedule(FIXED)
        .staleAfter(Duration.ofMinutes(5))
        .delivery(
            new DeliveryPolicy(
                RetryPolicy.attempts(2), new PoisonPolicy(PoisonPolicy.Action.PARK, false)))
        .build();
  }

  Watukuy.Builder engine() {
    return Watukuy.builder()
        .store(store)
        .time(clock)
        .random(SeededRandom.of(7))
        .instanceId("a")
        .executor(Runnable::run)
        .handlerExecutor(Runnable::run)
        .delivery(new DeliveryOptions(1, DeliveryOptions.DEFAULT_DISPATCH_BATCH_SIZE));
  }

  @Test
  void aScriptedRunGivesEveryMeterItsTagsAndValues() {
    Poller<JsonNode> p = orders();
    WatukuyMetrics metrics = new WatukuyMetrics(registry, Duration.ZERO);
    Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    Watukuy w =
        engine()
            .poller(p)
            .listener(metrics)
            .build()
            .on(
                p,
                e -> {
                  clock.advance(Duration.ofMillis(10));
                  int n =
                      calls
                          .computeIfAbsent(e.identity(), k -> new AtomicInteger())
                          .incrementAndGet();
                  // "a" fails once, then is handled; "p" fails every time and is parked.
                  if (e.identity().equals("p") || n == 1)
                    throw new IllegalStateException("refused " + e.identity());
                });
    metrics.watch(w);

    w.tick(); // 429 with Retry-After: 60
    clock.advance(Duration.ofSeconds(60));
    w.tick(); // 200: two created events, both fail their first attempt
    Instant retryAt =
        store.loadPending(ORDERS, 0, 10).stream()
            .map(r -> r.nextAttemptAt())
            .max(Instant::compareTo)
            .orElseThrow();
    clock.advanceTo(retryAt);
    w.tick(); // "a" acked, "p" parked

    // The last success was the 200's cycle, which ended 80 ms (the fetch) + 2 x 10 ms (the two
    // handler calls) after it started, 60.12 s into the run.
    assertThat(w.inspect().poller("orders").orElseThrow().lastSuccessAt())
        .isEqualTo(Instant.parse("2026-03-01T10:01:00.220Z"));
    clock.advanceTo(Instant.parse("2026-03-01T10:07:00.220Z")); // 6 min later, past staleAfter
    assertThat(w.inspect().poller("orders").orElseThrow().stale()).isTrue();

    assertThat(dump())
        .isEqualTo(
            """
            watukuy.deliveries[tag(outcome=acked), tag(partition=), tag(poller=orders)] 1.0
            watukuy.deliveries[tag(outcome=parked), tag(partition=), tag(poller=orders)] 1.0
            watukuy.deliveries[tag(outcome=retried), tag(partition=), tag(poller=orders)] 2.0
            watukuy.events[tag(lane=live), tag(partition=), tag(poller=orders), tag(type=created)] 2.0
            watukuy.freshness[tag(partition=), tag(poller=orders)] 360.0
            watukuy.http.client.requests[tag(error=none), tag(method=GET), tag(outcome=CLIENT_ERROR), \
            tag(server.address=127.0.0.1), tag(status=429)] count=1 total=120.0ms
            watukuy.http.client.requests[tag(error=none), tag(method=GET), tag(outcome=SUCCESS), \
            tag(server.address=127.0.0.1), tag(status=200)] count=1 total=80.0ms
            watukuy.lag[tag(partition=), tag(poller=orders)] NaN
            watukuy.leases.lost[tag(poller=orders)] 0.0
            watukuy.outbox.pending[tag(partition=), tag(poller=orders)] 0.0
            watukuy.parked[tag(partition=), tag(poller=orders)] 1.0
            watukuy.poll[tag(error=FetchException), tag(lane=live), tag(outcome=throttled), \
            tag(partition=), tag(poller=orders)] count=1 total=120.0ms
            watukuy.poll[tag(error=none), tag(lane=live), tag(outcome=success), tag(partition=), \
            tag(poller=orders)] count=1 total=100.0ms
            watukuy.poll[tag(error=none), tag(lane=none), tag(outcome=success), tag(partition=), \
            tag(poller=orders)] count=1 total=20.0ms
            """);
  }

  /**
   * Three requests under a budget of 2 per 10 s: the third waits 5 s (a budget-wait timer, started
   * when the wait starts and stopped when the token comes, on the engine's clock), and the commit
   * is refused with a lost lease (a counter, and a cycle whose outcome says so). The gauges of one
   * scrape share one inspection until the registry's clock passes the refresh interval.
   */
  @Test
  void aBudgetWaitAndALostLeaseAreMeteredAndGaugesShareAnInspection() {
    ForwardingStore losing =
        new ForwardingStore(store) {
          @Override
          public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
            throw new LeaseLostException(key, lease.epoch(), lease.epoch() + 1);
          }
        };
    String ok = url.replace("/orders?token=s3cr3t", "/ok");
    Poller<JsonNode> p =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(
                ctx -> {
                  ctx.http().get(ok);
                  ctx.http().get(ok);
                  return Page.of(List.<JsonNode>of(ctx.http().get(ok).json().get("items").get(0)));
                })
            .schedule(FIXED)
            .budget("erp")
            .build();
    WatukuyMetrics metrics = new WatukuyMetrics(registry);
    Watukuy w =
        engine()
            .store(losing)
            .budget("erp", 2, Duration.ofSeconds(10))
            .poller(p)
            .listener(metrics)
            .build()
            .on(p, e -> {});
    AtomicInteger inspections = new AtomicInteger();
    metrics.watch(
        () -> {
          inspections.incrementAndGet();
          return w.inspect();
        });

    w.tick();

    assertThat(registry.get(WatukuyMetrics.BUDGET_WAIT).tag("budget", "erp").timer())
        .satisfies(
            t -> {
              assertThat(t.count()).isEqualTo(1);
              assertThat(t.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(5000.0);
            });
    assertThat(registry.get(WatukuyMetrics.LEASES_LOST).tag("poller", "orders").counter().count())
        .isEqualTo(1.0);
    assertThat(
            registry
                .get(WatukuyMetrics.POLL)
                .tags("poller", "orders", "lane", "live", "outcome", "lease_lost")
                .timer()
                .count())
        .isEqualTo(1);
    // No event reached the outbox: the commit was refused.
    assertThat(registry.find(WatukuyMetrics.EVENTS).meters()).isEmpty();

    int before = inspections.get();
    registry.get(WatukuyMetrics.OUTBOX_PENDING).gauge().value();
    registry.get(WatukuyMetrics.PARKED).gauge().value();
    registry.get(WatukuyMetrics.FRESHNESS).gauge().value();
    registry.get(WatukuyMetrics.LAG).gauge().value();
    assertThat(inspections.get()).isEqualTo(before + 1);
    clock.advance(WatukuyMetrics.DEFAULT_REFRESH);
    registry.get(WatukuyMetrics.PARKED).gauge().value();
    assertThat(inspections.get()).isEqualTo(before + 2);
  }

  /**
   * Tag values are bounded: no answer gives status {@code UNKNOWN}, a method outside GET, POST, PUT
   * gives {@code OTHER}; the origin's host is the address and the port is left out.
   */
  @Test
  void unknownStatusesAndMethodsCollapse() {
    WatukuyMetrics metrics = new WatukuyMetrics(registry);

    request(metrics, "GET", 0, RequestInfo.Failure.TIMEOUT, Duration.ofSeconds(30));
    request(metrics, "PATCH", 204, null, Duration.ofMillis(5));
    request(metrics, "GET", 999, null, Duration.ofMillis(5));

    assertThat(dump())
        .isEqualTo(
            """
            watukuy.http.client.requests[tag(error=none), tag(method=GET), tag(outcome=UNKNOWN), \
            tag(server.address=api.example.com), tag(status=UNKNOWN)] count=2 total=30005.0ms
            watukuy.http.client.requests[tag(error=none), tag(method=OTHER), tag(outcome=SUCCESS), \
            tag(server.address=api.example.com), tag(status=204)] count=1 total=5.0ms
            """);
  }

  /**
   * A timestamp poller's lag is now minus its live watermark (the newest {@code updatedAt} seen),
   * in seconds, and grows with the clock until the next poll; freshness counts from the last
   * successful cycle.
   */
  @Test
  void aTimestampPollersLagIsSecondsBehindItsWatermark() {
    FakeApi api = new FakeApi(clock);
    api.put("o001", Map.of("n", 1));
    clock.advance(Duration.ofSeconds(5));
    api.put("o002", Map.of("n", 2)); // the watermark: 10:00:05
    Poller<JsonNode> p =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
            .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
            .fetch(api.timestampFetcher(50))
            .schedule(FIXED)
            .build();
    WatukuyMetrics metrics = new WatukuyMetrics(registry, Duration.ZERO);
    Watukuy w = engine().poller(p).listener(metrics).build().on(p, e -> {});
    metrics.watch(w);

    clock.advance(Duration.ofSeconds(10));
    w.tick(); // at 10:00:15
    clock.advance(Duration.ofSeconds(20)); // 10:00:35, not polled again

    assertThat(registry.get(WatukuyMetrics.LAG).tag("poller", "orders").gauge().value())
        .isEqualTo(30.0);
    assertThat(registry.get(WatukuyMetrics.FRESHNESS).tag("poller", "orders").gauge().value())
        .isEqualTo(20.0);
    assertThat(registry.get(WatukuyMetrics.EVENTS).tags("type", "created").counter().count())
        .isEqualTo(2.0);
  }

  /**
   * A store that cannot be read makes the gauges NaN, and is asked again only after the refresh
   * interval; the scrape itself does not fail.
   */
  @Test
  void aFailingInspectionGivesNaNGauges() {
    Poller<JsonNode> p = orders();
    WatukuyMetrics metrics = new WatukuyMetrics(registry);
    Watukuy w = engine().poller(p).listener(metrics).build().on(p, e -> {});
    AtomicInteger calls = new AtomicInteger();
    metrics.watch(
        () -> {
          if (calls.incrementAndGet() > 1) throw new IllegalStateException("store down");
          return w.inspect();
        });
    w.tick(); // the first cycle registers the poller's gauges

    assertThat(registry.get(WatukuyMetrics.OUTBOX_PENDING).gauge().value()).isNaN();
    assertThat(registry.get(WatukuyMetrics.PARKED).gauge().value()).isNaN();
    assertThat(calls.get()).isEqualTo(2);
    clock.advance(WatukuyMetrics.DEFAULT_REFRESH);
    assertThat(registry.get(WatukuyMetrics.FRESHNESS).gauge().value()).isNaN();
    assertThat(calls.get()).isEqualTo(3);
  }

  /**
   * A budget wait's timer runs from the wait's start to its end on the engine's clock, and one that
   * ends without a token is tagged with the timeout; each leaves no wait running.
   */
  @Test
  void aBudgetWaitIsTimedFromItsStartToItsEnd() {
    WatukuyMetrics metrics = new WatukuyMetrics(registry);

    metrics.onBudgetWait(ORDERS, "erp", Duration.ofSeconds(5));
    clock.advance(Duration.ofSeconds(5));
    metrics.onBudgetWaitEnd(ORDERS, "erp", Duration.ofSeconds(5), null);
    metrics.onBudgetWait(ORDERS, "erp", Duration.ofSeconds(10));
    clock.advance(Duration.ofSeconds(4));
    metrics.onBudgetWaitEnd(
        ORDERS,
        "erp",
        Duration.ofSeconds(4),
        new BudgetTimeoutException(
            "erp",
            ORDERS,
            Duration.ofSeconds(4),
            Duration.ofSeconds(4),
            BudgetTimeoutException.Reason.MAX_WAIT));

    assertThat(dump())
        .isEqualTo(
            """
            watukuy.budget.wait[tag(budget=erp), tag(error=BudgetTimeoutException)] \
            count=1 total=4000.0ms
            watukuy.budget.wait[tag(budget=erp), tag(error=none)] count=1 total=5000.0ms
            """);
    assertThat(registry.get(WatukuyMetrics.BUDGET_WAIT + ".active").longTaskTimer().activeTasks())
        .isZero();
  }

  /** One attempt told as the engine tells it, taking {@code took} on the virtual clock. */
  void request(
      WatukuyMetrics metrics,
      String method,
      int status,
      RequestInfo.Failure failure,
      Duration took) {
    String origin = "https://api.example.com:443";
    metrics.onRequestStart(ORDERS, new RequestStart(method, origin, origin + "/orders", 1));
    clock.advance(took);
    metrics.onRequest(ORDERS, new RequestInfo(method, origin, status, failure, took, 1));
  }

  /**
   * Every meter as "name{tags} value" lines, sorted, for exact comparison; the long task timers
   * ({@code .active}) left out, see {@link ObservationsTest#noObservationIsLeftRunning}.
   */
  String dump() {
    TreeMap<String, String> lines = new TreeMap<>();
    for (Meter m : registry.getMeters()) {
      if (m.getId().getName().endsWith(".active")) continue;
      String id = m.getId().getName() + m.getId().getTags();
      String value;
      if (m instanceof Timer t)
        value = "count=" + t.count() + " total=" + t.totalTime(TimeUnit.MILLISECONDS) + "ms";
      else {
        StringBuilder b = new StringBuilder();
        m.measure().forEach(s -> b.append(s.getValue()));
        value = b.toString();
      }
      lines.put(id, value);
    }
    StringBuilder out = new StringBuilder();
    lines.forEach((k, v) -> out.append(k).append(' ').append(v).append('\n'));
    return out.toString();
  }

  /**
   * A scrape during a new key's first cycle caches an inspection without a success; the cycle's
   * success drops it, so freshness reads 0 right after, not NaN for up to a second.
   */
  @Test
  void freshnessIsANumberRightAfterTheFirstCycleEvenWhenScrapedDuringIt() {
    FakeApi api = new FakeApi(clock);
    api.put("o001", Map.of("n", 1));
    WatukuyMetrics metrics = new WatukuyMetrics(registry);
    AtomicInteger pages = new AtomicInteger();
    Poller<JsonNode> p =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
            .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
            .fetch(
                ctx -> {
                  // A scrape while the first cycle runs: no success yet.
                  if (pages.incrementAndGet() == 1)
                    assertThat(registry.get(WatukuyMetrics.FRESHNESS).gauge().value()).isNaN();
                  return api.timestampFetcher(50).fetch(ctx);
                })
            .schedule(FIXED)
            .build();
    Watukuy w = engine().poller(p).listener(metrics).build().on(p, e -> {});
    metrics.watch(w);

    w.tick();

    assertThat(pages.get()).isEqualTo(1);
    assertThat(registry.get(WatukuyMetrics.FRESHNESS).tag("poller", "orders").gauge().value())
        .isEqualTo(0.0);
  }

  /** Lost leases and budget waits are series at 0 from the start, before any occurrence. */
  @Test
  void declaredPollersHaveLeaseAndBudgetSeriesAtZero() {
    Poller<JsonNode> p =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(ctx -> Page.of(List.<JsonNode>of()))
            .budget("erp")
            .build();

    new WatukuyMetrics(registry).declare(List.of(p));

    assertThat(registry.get(WatukuyMetrics.LEASES_LOST).tag("poller", "orders").counter().count())
        .isZero();
    Timer wait =
        registry.get(WatukuyMetrics.BUDGET_WAIT).tags("budget", "erp", "error", "none").timer();
    assertThat(wait.count()).isZero();
  }
}
