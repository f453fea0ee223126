package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.Cursors;
import io.watukuy.HttpStatusException;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import io.watukuy.testing.CannedHttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The engine with {@code ctx.http()} against a real HTTP server on 127.0.0.1: ETag validators and
 * the 304 rules (docs/architecture.md, "304 Not Modified"), and a 429 with Retry-After.
 */
class HttpEngineTest {
  static final ObjectMapper JSON = new ObjectMapper();
  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();
  final TreeMap<String, Integer> catalog = new TreeMap<>();
  final List<String> log = new CopyOnWriteArrayList<>();
  volatile int pageSize = 10;
  volatile String throttle;
  volatile String rateLimit; // "remaining,resetSeconds" or null
  HttpServer server;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/items", this::serve);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private synchronized void serve(HttpExchange ex) throws IOException {
    String query = ex.getRequestURI().getQuery();
    int page = Integer.parseInt(query.replace("page=", ""));
    String inm = ex.getRequestHeaders().getFirst("If-None-Match");
    if (throttle != null) {
      log.add("page " + page + " 429");
      ex.getResponseHeaders().add("Retry-After", throttle);
      ex.sendResponseHeaders(429, -1);
      ex.close();
      return;
    }
    List<String> ids = List.copyOf(catalog.keySet());
    int from = Math.min(ids.size(), (page - 1) * pageSize);
    int to = Math.min(ids.size(), from + pageSize);
    ObjectNode body = JSON.createObjectNode();
    ArrayNode items = body.putArray("items");
    for (String id : ids.subList(from, to))
      items.addObject().put("id", id).put("price", catalog.get(id));
    body.put("hasMore", to < ids.size());
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    String etag = "W/\"" + Integer.toHexString(body.toString().hashCode()) + "\"";
    if (etag.equals(inm)) {
      log.add("page " + page + " 304");
      ex.getResponseHeaders().add("ETag", etag);
      ex.sendResponseHeaders(304, -1);
      ex.close();
      return;
    }
    log.add("page " + page + " 200" + (inm == null ? "" : " (stale validator)"));
    if (rateLimit != null) {
      ex.getResponseHeaders().add("RateLimit-Remaining", rateLimit.split(",")[0]);
      ex.getResponseHeaders().add("RateLimit-Reset", rateLimit.split(",")[1]);
    }
    ex.getResponseHeaders().add("ETag", etag);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(200, bytes.length);
    ex.getResponseBody().write(bytes);
    ex.close();
  }

  private Poller<JsonNode> poller() {
    return poller("http://127.0.0.1:" + server.getAddress().getPort() + "/items");
  }

  private Poller<JsonNode> poller(String base) {
    return Poller.builder("catalog", JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff())
        .fetch(
            ctx -> {
              JsonNode body = ctx.http().get(base + "?page=" + ctx.page()).json();
              return Page.<JsonNode>of(
                      List.copyOf(
                          JSON.convertValue(body.get("items"), List.class).stream()
                              .map(o -> (JsonNode) JSON.valueToTree(o))
                              .toList()))
                  .withHasMore(body.get("hasMore").asBoolean());
            })
        .schedule(Fixture.FIXED)
        .build();
  }

  @Test
  void a304OnAOnePageListingIsAnIdleCycleWithoutDeletes() {
    catalog.putAll(Map.of("a", 1, "b", 2));
    Poller<JsonNode> p = poller();
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);
    w.tick();
    f.nextCycle();

    KeyReport second = w.tick().poller("catalog").orElseThrow();

    assertThat(log).containsExactly("page 1 200", "page 1 304");
    assertThat(second.notModified()).isTrue();
    assertThat(second.eventsCommitted()).isZero();
    assertThat(handler.changes()).containsExactly("a:created", "b:created");
    assertThat(f.store.countItems(PollerKey.of("catalog"))).isEqualTo(2);

    catalog.put("b", 20);
    catalog.remove("a");
    f.nextCycle();
    w.tick();
    assertThat(handler.changes())
        .containsExactly("a:created", "b:created", "b:updated", "a:deleted");
  }

  @Test
  void aMultiPageListingIsNeverAskedConditionallySoNo304CostsASecondRequest() {
    pageSize = 2;
    catalog.putAll(Map.of("a", 1, "b", 2, "c", 3, "d", 4));
    Poller<JsonNode> p = poller();
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);
    w.tick();
    catalog.put("d", 40); // page 2 changes, page 1 does not
    f.nextCycle();

    w.tick();

    assertThat(log)
        .containsExactly(
            "page 1 200", "page 2 200",
            "page 1 200", "page 2 200");
    assertThat(handler.changes())
        .containsExactly("a:created", "b:created", "c:created", "d:created", "d:updated");
  }

  @Test
  void rateLimitHeadersStretchTheNextWaitBeforeAny429() {
    catalog.put("a", 1);
    rateLimit = "2,100"; // 2 requests left, window resets in 100 s: one request every 50 s
    Poller<JsonNode> p = poller();
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);

    w.tick();

    ScheduleState s = f.store.loadState(PollerKey.of("catalog")).orElseThrow().schedule();
    // max(interval 30 s, (reset - now) / max(remaining, 1) = 100 s / 2 = 50 s)
    assertThat(s.nextDueAt()).isEqualTo(f.clock.now().plusSeconds(50));
    f.clock.advance(Duration.ofSeconds(30));
    assertThat(w.tick().poller("catalog").orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_NOT_DUE);
    assertThat(log).hasSize(1);
  }

  @Test
  void aRetryAfterHttpDateIsReadAgainstTheServersDateHeader() {
    // A vendor whose clock is far from ours (and from the virtual clock) asks for 120 s after its
    // own Date, with one-digit days as DateTimeFormatter.RFC_1123_DATE_TIME writes them on days
    // 1-9. Read against that Date, the wait is exactly 120 s on our clock, whatever day it is.
    try (CannedHttpServer vendor =
        CannedHttpServer.start(
            429,
            Map.of(
                "Date", "Tue, 1 Dec 2026 10:00:00 GMT",
                "Retry-After", "Tue, 1 Dec 2026 10:02:00 GMT"))) {
      Poller<JsonNode> p = poller(vendor.url("/items"));
      Watukuy w = f.engine("a").poller(p).build().on(p, handler);

      KeyReport report = w.tick().poller("catalog").orElseThrow();

      assertThat(report.error()).hasRootCauseInstanceOf(HttpStatusException.class);
      ScheduleState s = f.store.loadState(PollerKey.of("catalog")).orElseThrow().schedule();
      assertThat(s.state()).isEqualTo(ScheduleState.Status.THROTTLED);
      assertThat(s.throttledUntil()).isEqualTo(f.clock.now().plusSeconds(120));
      assertThat(vendor.requests()).isEqualTo(1);
    }
  }

  @Test
  void a429WithRetryAfterThrottlesTheKeyExactlyAsLongAsTold() {
    catalog.put("a", 1);
    throttle = "120";
    Poller<JsonNode> p = poller();
    Watukuy w = f.engine("a").poller(p).build().on(p, handler);

    KeyReport first = w.tick().poller("catalog").orElseThrow();
    assertThat(first.error()).hasRootCauseInstanceOf(HttpStatusException.class);
    ScheduleState s = f.store.loadState(PollerKey.of("catalog")).orElseThrow().schedule();
    assertThat(s.state()).isEqualTo(ScheduleState.Status.THROTTLED);
    assertThat(s.throttledUntil()).isEqualTo(f.clock.now().plusSeconds(120));
    assertThat(s.consecutiveFailures()).isZero();

    throttle = null;
    f.clock.advance(Duration.ofSeconds(119));
    assertThat(w.tick().poller("catalog").orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_THROTTLED);
    f.clock.advance(Duration.ofSeconds(1));
    assertThat(w.tick().poller("catalog").orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(handler.changes()).containsExactly("a:created");
  }

  @Test
  void secretsGivenToTheEngineAreRedactedFromErrorsAndTheStoredLastError() {
    catalog.put("a", 1);
    throttle = "5";
    String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/items";
    Poller<JsonNode> p =
        Poller.builder("catalog", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(
                ctx -> {
                  ctx.http().get(base + "?page=" + ctx.page() + "&tenant=s3cr3t-tenant").json();
                  return Page.empty();
                })
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").secrets(List.of("s3cr3t-tenant")).poller(p).build().on(p, handler);

    KeyReport report = w.tick().poller("catalog").orElseThrow();

    assertThat(report.error().getMessage()).contains("[redacted]").doesNotContain("s3cr3t-tenant");
    assertThat(
            f.store
                .loadState(PollerKey.of("catalog"))
                .orElseThrow()
                .schedule()
                .lastError()
                .message())
        .doesNotContain("s3cr3t-tenant");
  }
}
