package io.watukuy.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cycles, HTTP attempts and budget waits go through the Observation API: an application's own
 * {@link io.micrometer.observation.ObservationRegistry} sees each one started and stopped, with its
 * key values, the requests as children of their cycle, and the URL (secrets hidden) as a
 * high-cardinality value only. Against a real HTTP server on 127.0.0.1 that answers 429, then 200.
 */
class ObservationsTest {
  static final Schedule FIXED =
      Schedule.every(Duration.ofSeconds(30)).withAdaptive(false).withJitter(0);

  final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  final SimpleMeterRegistry registry =
      new SimpleMeterRegistry(SimpleConfig.DEFAULT, new EngineClock(clock));
  final AtomicInteger served = new AtomicInteger();
  HttpServer server;
  String origin;

  @BeforeEach
  void server() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/orders",
        (HttpExchange ex) -> {
          if (served.incrementAndGet() == 1) {
            ex.getResponseHeaders().add("Retry-After", "60");
            ex.sendResponseHeaders(429, -1);
          } else {
            byte[] body = "{\"items\":[{\"id\":\"a\"}]}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
          }
          ex.close();
        });
    server.start();
    origin = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  Watukuy engine(WatukuyMetrics metrics) {
    String url = origin + "/orders?api_key=s3cr3t";
    Poller<JsonNode> p =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(
                ctx -> Page.of(List.<JsonNode>of(ctx.http().get(url).json().get("items").get(0))))
            .schedule(FIXED)
            .build();
    return Watukuy.builder()
        .store(new MemoryStore())
        .time(clock)
        .random(SeededRandom.of(7))
        .instanceId("a")
        .executor(Runnable::run)
        .handlerExecutor(Runnable::run)
        .delivery(new DeliveryOptions(1, DeliveryOptions.DEFAULT_DISPATCH_BATCH_SIZE))
        .poller(p)
        .listener(metrics)
        .build()
        .on(p, e -> {});
  }

  void run(Watukuy w) {
    w.tick(); // 429
    clock.advance(Duration.ofSeconds(60));
    w.tick(); // 200, one event delivered
  }

  @Test
  void theApplicationsObservationRegistrySeesCyclesAndRequestsWithTheirParent() {
    TestObservationRegistry observations = TestObservationRegistry.create();
    run(engine(new WatukuyMetrics(registry, observations)));

    TestObservationRegistryAssert.assertThat(observations)
        .hasNumberOfObservationsWithNameEqualTo(WatukuyMetrics.POLL, 2)
        .hasNumberOfObservationsWithNameEqualTo(WatukuyMetrics.HTTP, 2)
        .forAllObservationsWithNameEqualTo(
            WatukuyMetrics.POLL,
            o ->
                o.hasLowCardinalityKeyValue("poller", "orders")
                    .hasLowCardinalityKeyValue("partition", "")
                    .hasLowCardinalityKeyValue("lane", "live")
                    .doesNotHaveHighCardinalityKeyValueWithKey("partition"))
        .forAllObservationsWithNameEqualTo(
            WatukuyMetrics.HTTP,
            o ->
                o.hasLowCardinalityKeyValue("method", "GET")
                    .hasLowCardinalityKeyValue("server.address", "127.0.0.1")
                    .hasHighCardinalityKeyValue("url.full", origin + "/orders?api_key=[redacted]")
                    .doesNotHaveLowCardinalityKeyValueWithKey("url.full"));
    TestObservationRegistryAssert.assertThat(observations)
        .hasObservationWithNameEqualTo(WatukuyMetrics.HTTP)
        .that()
        .hasBeenStarted()
        .hasBeenStopped();
    TestObservationRegistryAssert.assertThat(observations)
        .hasHandledContextsThatSatisfy(
            contexts -> {
              List<Observation.Context> polls =
                  contexts.stream().filter(c -> c.getName().equals(WatukuyMetrics.POLL)).toList();
              List<Observation.Context> requests =
                  contexts.stream().filter(c -> c.getName().equals(WatukuyMetrics.HTTP)).toList();
              // The 429's cycle failed, the 200's succeeded; each request is its cycle's child.
              assertThat(polls)
                  .extracting(c -> c.getLowCardinalityKeyValue("outcome").getValue())
                  .containsExactly("throttled", "success");
              assertThat(polls.get(0).getError()).isNotNull();
              assertThat(requests)
                  .extracting(c -> c.getLowCardinalityKeyValue("status").getValue())
                  .containsExactly("429", "200");
              for (int i = 0; i < 2; i++)
                assertThat(requests.get(i).getParentObservation().getContextView())
                    .isSameAs(polls.get(i));
            });
    // The application's registry has no meter handler: no timers here, the counters still are.
    assertThat(registry.find(WatukuyMetrics.POLL).timers()).isEmpty();
    assertThat(registry.find(WatukuyMetrics.HTTP).timers()).isEmpty();
    assertThat(registry.get(WatukuyMetrics.EVENTS).counter().count()).isEqualTo(1.0);
  }

  /** With its own observation registry every timing has a long task timer, idle after the run. */
  @Test
  void noObservationIsLeftRunning() {
    run(engine(new WatukuyMetrics(registry)));

    List<LongTaskTimer> active =
        List.copyOf(registry.find(WatukuyMetrics.POLL + ".active").longTaskTimers());
    assertThat(active).isNotEmpty();
    assertThat(registry.find(WatukuyMetrics.HTTP + ".active").longTaskTimers()).isNotEmpty();
    for (String name : List.of(WatukuyMetrics.POLL, WatukuyMetrics.HTTP))
      assertThat(registry.find(name + ".active").longTaskTimers())
          .allSatisfy(t -> assertThat(t.activeTasks()).isZero());
    assertThat(registry.get(WatukuyMetrics.POLL).tag("outcome", "success").timer().count())
        .isEqualTo(1);
  }
}
