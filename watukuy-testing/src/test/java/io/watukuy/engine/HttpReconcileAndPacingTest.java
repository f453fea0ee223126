package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.KeyReport;
import io.watukuy.Lane;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Reconcile;
import io.watukuy.ScheduleState;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.testing.ReadsWallClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Lanes through {@code ctx.http()} against a real HTTP server on 127.0.0.1: a reconcile lane runs
 * while the live listing answers 304 (docs/architecture.md, "304 Not Modified" and "Reconcile:
 * deletes for incremental strategies"), and {@code X-RateLimit-Reset} in epoch seconds paces the
 * key, backfill included (docs/architecture.md, "Pacing").
 */
class HttpReconcileAndPacingTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final PollerKey ORDERS = PollerKey.of("orders");
  final Fixture f = new Fixture();
  final Recorder r = new Recorder();
  final List<String> log = new CopyOnWriteArrayList<>();
  volatile String rateLimit; // "remaining,resetEpochOffsetSeconds"
  HttpServer server;
  String base;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/orders", this::serve);
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort() + "/orders";
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @ReadsWallClock(
      "X-RateLimit-Reset is read against the Date the JDK's HTTP server stamps from the real clock")
  private synchronized void serve(HttpExchange ex) throws IOException {
    Map<String, String> q = new HashMap<>();
    String query = ex.getRequestURI().getRawQuery();
    if (query != null)
      for (String kv : query.split("&")) {
        String[] p = kv.split("=", 2);
        q.put(p[0], URLDecoder.decode(p[1], StandardCharsets.UTF_8));
      }
    Page<JsonNode> page;
    if (q.containsKey("page")) page = f.api.page(Integer.parseInt(q.get("page")), 10);
    else page = f.api.updatedSince(new Watermark(q.get("since"), q.get("after")), 10);
    ObjectNode body = JSON.createObjectNode();
    body.putArray("items").addAll(page.items());
    body.put("hasMore", Boolean.TRUE.equals(page.hasMore()));
    String etag = "\"" + Integer.toHexString(body.toString().hashCode()) + "\"";
    if (rateLimit != null) {
      long resetEpoch = System.currentTimeMillis() / 1000 + Long.parseLong(rateLimit.split(",")[1]);
      ex.getResponseHeaders().add("X-RateLimit-Remaining", rateLimit.split(",")[0]);
      ex.getResponseHeaders().add("X-RateLimit-Reset", Long.toString(resetEpoch));
    }
    if (etag.equals(ex.getRequestHeaders().getFirst("If-None-Match"))) {
      log.add(ex.getRequestURI().getQuery() + " 304");
      ex.getResponseHeaders().add("ETag", etag);
      ex.sendResponseHeaders(304, -1);
      ex.close();
      return;
    }
    log.add(ex.getRequestURI().getQuery() + " 200");
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("ETag", etag);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(200, bytes.length);
    ex.getResponseBody().write(bytes);
    ex.close();
  }

  static Page<JsonNode> toPage(JsonNode body) {
    List<JsonNode> items = new ArrayList<>();
    body.get("items").forEach(items::add);
    return Page.of(items).withHasMore(body.get("hasMore").asBoolean());
  }

  Poller.Builder<JsonNode, Watermark> orders() {
    return f.timestamp("orders", 10)
        .fetch(
            ctx -> {
              Watermark c = ctx.cursor();
              String url =
                  base
                      + "?since="
                      + (c.value() == null ? "" : c.value())
                      + (c.tieBreak() == null ? "" : "&after=" + c.tieBreak());
              if (c.value() == null) url = base + "?since=1970-01-01T00:00:00Z";
              return toPage(ctx.http().get(url).json());
            });
  }

  /**
   * Reconcile exists to find deletes an updated_since listing cannot see, and that listing is then
   * unchanged: 304. The reconcile lane still runs every 6 h and emits the delete.
   */
  @Test
  void reconcileRunsAndEmitsTheDeleteWhileTheLiveListingAnswers304() {
    Poller<JsonNode> p =
        orders()
            .reconcile(
                Reconcile.every(
                    Duration.ofHours(6),
                    ctx -> toPage(ctx.http().get(base + "?page=" + ctx.page()).json())))
            .build();
    Watukuy w = f.engine("a").poller(p).build().on(p, r);
    f.seed(3);
    w.tick();
    Instant start = f.clock.now();
    f.api.delete("o002");
    for (int i = 0; i < 30; i++) { // 15 hours
      f.clock.advance(Duration.ofMinutes(30));
      assertThat(w.tick().key(ORDERS).orElseThrow().error()).isNull();
    }

    assertThat(r.changes())
        .containsExactly("o001:created", "o002:created", "o003:created", "o002:deleted");
    assertThat(r.events().get(3).lane()).isEqualTo(Lane.RECONCILE);
    assertThat(log.stream().filter(l -> l.startsWith("since=") && l.endsWith(" 304")).count())
        .isEqualTo(29); // every live cycle after the second
    assertThat(log.stream().filter(l -> l.startsWith("page=1 ")).count())
        .isEqualTo(3); // at the start, after 6 h and after 12 h
    assertThat(w.inspect().poller("orders").orElseThrow().lastReconcileAt())
        .isEqualTo(start.plus(Duration.ofHours(12)));
  }

  /**
   * No request left and a reset in 120 s (epoch seconds, read against the response's Date): the key
   * waits until the reset. A backfill starts with the key's next due cycle, so the pacing holds for
   * it too (Watukuy.backfill: "so pacing and throttles hold").
   */
  @Test
  void anEpochXRateLimitResetPacesTheKeyAndABackfillWaitsForItToo() {
    Poller<JsonNode> p = orders().build();
    Watukuy w = f.engine("a").poller(p).build().on(p, r);
    f.seed(3);
    rateLimit = "0,120"; // nothing left, resets in 120 s (epoch seconds)
    w.tick();
    ScheduleState s = f.store.loadState(ORDERS).orElseThrow().schedule();
    Duration wait = Duration.between(f.clock.now(), s.nextDueAt());
    assertThat(wait).isBetween(Duration.ofSeconds(118), Duration.ofSeconds(121));
    w.backfill("orders", null, null, true);
    int before = log.size();
    f.clock.advance(Duration.ofSeconds(1));

    KeyReport early = w.tick().key(ORDERS).orElseThrow();

    assertThat(early.outcome()).isEqualTo(KeyReport.Outcome.SKIPPED_NOT_DUE);
    assertThat(log.size() - before).isZero();
    rateLimit = null;
    f.clock.advanceTo(s.nextDueAt());
    assertThat(w.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(r.changes())
        .containsExactly(
            "o001:created",
            "o002:created",
            "o003:created",
            "o001:updated",
            "o002:updated",
            "o003:updated");
    assertThat(w.inspect().poller("orders").orElseThrow().backfill()).isNull();
  }
}
