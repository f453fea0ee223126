package io.watukuy.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.DeliveryPolicy;
import io.watukuy.EventLog;
import io.watukuy.EventType;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.RetryAfterException;
import io.watukuy.RetryPolicy;
import io.watukuy.Schedule;
import io.watukuy.StoreException;
import io.watukuy.Watukuy;
import io.watukuy.effects.Effect;
import io.watukuy.effects.EffectState;
import io.watukuy.effects.EffectStatus;
import io.watukuy.effects.Effects;
import io.watukuy.effects.Key;
import io.watukuy.micrometer.WatukuyMetrics;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.ForwardingStore;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin server on 127.0.0.1 (a free port) over an engine on a virtual clock, driven by {@code
 * tick()}, asked with the JDK's HTTP client (raw sockets where a header the client refuses to set,
 * such as {@code Host}, is the point).
 */
class AdminServerTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Duration STALE_AFTER = Duration.ofMinutes(5);
  static final String SECRET = "s3cr3t-api-key-4242";

  final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  final FakeApi api = new FakeApi(clock);
  final MemoryStore store = new MemoryStore();
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final AtomicBoolean destinationUp = new AtomicBoolean(true);
  final List<String> delivered = new CopyOnWriteArrayList<>();
  final Poller<JsonNode> orders =
      Poller.builder("orders", JsonNode.class)
          .identity(n -> n.get("id"))
          .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
          .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
          .fetch(api.timestampFetcher(100))
          .schedule(Schedule.every(Duration.ofSeconds(30)).withAdaptive(false).withJitter(0))
          .staleAfter(STALE_AFTER)
          // the event log the effects of the effects tests read
          .log(EventLog.keep(Duration.ofDays(7)))
          .delivery(
              new DeliveryPolicy(
                  RetryPolicy.attempts(1), new PoisonPolicy(PoisonPolicy.Action.PARK, false)))
          .build();
  Watukuy engine;
  AdminServer admin;
  Effects effects;

  Watukuy engine(Watukuy.Builder b) {
    engine =
        b.store(store)
            .poller(orders)
            .time(clock)
            .random(SeededRandom.of(7))
            .instanceId("a")
            .executor(Runnable::run)
            .handlerExecutor(Runnable::run)
            .delivery(new DeliveryOptions(1, DeliveryOptions.DEFAULT_DISPATCH_BATCH_SIZE))
            .secrets(List.of(SECRET))
            .build();
    engine.on(
        orders,
        e -> {
          if (!destinationUp.get()) throw new IllegalStateException("destination down");
          delivered.add(e.id());
        });
    return engine;
  }

  AdminServer start(AdminServer.Builder b) {
    admin = b.bind("127.0.0.1", 0).build();
    admin.start();
    return admin;
  }

  AdminServer start() {
    if (engine == null) engine(Watukuy.builder());
    return start(AdminServer.builder(engine).store(store));
  }

  @AfterEach
  void close() {
    if (admin != null) admin.close();
    if (effects != null) effects.close();
    if (engine != null) engine.close();
  }

  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + admin.port() + path);
  }

  HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10));
    if (headers.length > 0) r.headers(headers);
    return http.send(r.GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> post(String path, String body, String... headers) throws Exception {
    HttpRequest.Builder r = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10));
    if (headers.length > 0) r.headers(headers);
    return http.send(
        r.POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> adminPost(String path, String body) throws Exception {
    return post(path, body, "X-Watukuy-Admin", "1", "Content-Type", "application/json");
  }

  static JsonNode json(HttpResponse<String> r) throws IOException {
    return JSON.readTree(r.body());
  }

  /** One request over a plain socket, so that Host is whatever the test says; the status line. */
  String raw(String request) throws IOException {
    try (Socket s = new Socket("127.0.0.1", admin.port())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = s.getInputStream();
      String answer = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
      return answer.substring(0, answer.indexOf("\r\n"));
    }
  }

  // ---- health

  @Test
  void liveAnswersUpAndReadyNeedsARunningEngineAndAStoreThatAnswers() throws Exception {
    engine(Watukuy.builder());
    AtomicBoolean storeDown = new AtomicBoolean(false);
    ForwardingStore probed =
        new ForwardingStore(store) {
          @Override
          protected void beforeCall(String method) {
            if (storeDown.get()) throw new StoreException("connection refused", null);
          }
        };
    start(AdminServer.builder(engine).store(probed));

    HttpResponse<String> live = get("/health/live");
    assertThat(live.statusCode()).isEqualTo(200);
    assertThat(json(live).path("status").asText()).isEqualTo("up");

    HttpResponse<String> notStarted = get("/health/ready");
    assertThat(notStarted.statusCode()).isEqualTo(503);
    assertThat(json(notStarted).path("error").asText()).isEqualTo("engine not running");

    engine.start();
    assertThat(get("/health/ready").statusCode()).isEqualTo(200);
    engine.stop();
    assertThat(json(get("/health/ready")).path("error").asText()).isEqualTo("engine not running");
    engine.start();

    storeDown.set(true);
    HttpResponse<String> down = get("/health/ready");
    assertThat(down.statusCode()).isEqualTo(503);
    assertThat(json(down).path("error").asText())
        .startsWith("store unreachable: StoreException: connection refused");
    // The process is alive all the same.
    assertThat(get("/health/live").statusCode()).isEqualTo(200);
  }

  @Test
  void readyAnswers503WhenTheStoreHangsLongerThanTheTimeout() throws Exception {
    engine(Watukuy.builder());
    CountDownLatch release = new CountDownLatch(1);
    ForwardingStore hanging =
        new ForwardingStore(store) {
          @Override
          protected void beforeCall(String method) {
            try {
              release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    try {
      engine.start();
      start(AdminServer.builder(engine).store(hanging).readyTimeout(Duration.ofMillis(200)));
      HttpResponse<String> r = get("/health/ready");
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(json(r).path("error").asText()).isEqualTo("store did not answer within 200 ms");
    } finally {
      release.countDown();
    }
  }

  /**
   * Done when (issue 20): a 503 from /health/pollers within one staleAfter of the vendor going
   * down. The vendor answers every request from 10:00:30 on with a 429 and an hour's Retry-After:
   * the key is throttled, which is not a failure (docs/operations.md, "Health"), so it stays 200
   * while the vendor only asks us to wait; {@code stale} makes it 503 one second after staleAfter
   * has passed since the last success, not one second before.
   */
  @Test
  void aThrottledKeyStays200AndTurns503StaleWithinOneStaleAfter() throws Exception {
    start();
    api.put("a", Map.of("total", 1));
    engine.tick(); // the last success, at 10:00:00
    HttpResponse<String> healthy = get("/health/pollers");
    assertThat(healthy.statusCode()).isEqualTo(200);
    assertThat(json(healthy).path("healthy").asBoolean()).isTrue();

    api.failNext(
        100,
        () -> new RetryAfterException("GET /orders returned HTTP 429", Duration.ofHours(1), null));
    clock.advance(Duration.ofSeconds(30));
    engine.tick(); // 10:00:30, throttled for an hour
    HttpResponse<String> throttled = get("/health/pollers");
    assertThat(throttled.statusCode()).as(throttled.body()).isEqualTo(200);
    assertThat(reasons(throttled)).isEqualTo("[]");
    JsonNode key = json(get("/admin/pollers")).path("pollers").get(0);
    assertThat(key.path("state").asText()).isEqualTo("throttled");
    assertThat(key.path("consecutiveFailures").asInt()).isZero();
    assertThat(key.path("lastError").path("message").asText())
        .endsWith("RetryAfterException: GET /orders returned HTTP 429");

    clock.advance(STALE_AFTER.minusSeconds(30).minusSeconds(1)); // 10:04:59
    engine.tick(); // still throttled: nothing sent
    assertThat(get("/health/pollers").statusCode()).isEqualTo(200);

    clock.advance(Duration.ofSeconds(2)); // 10:05:01
    HttpResponse<String> after = get("/health/pollers");
    assertThat(after.statusCode()).isEqualTo(503);
    assertThat(reasons(after)).isEqualTo("[\"stale\"]");
  }

  /**
   * The silent stall: nothing fails, nothing polls (the vendor hangs every connection, a wedged
   * process). Only staleness can tell: 200 one second before staleAfter has passed since the last
   * success, 503 {@code stale} one second after.
   */
  @Test
  void aKeyThatStopsPollingTurns503StaleJustAfterStaleAfter() throws Exception {
    start();
    api.put("a", Map.of("total", 1));
    engine.tick(); // the last success, at 10:00:00
    clock.advance(STALE_AFTER.minusSeconds(1)); // 10:04:59, no cycle since
    HttpResponse<String> before = get("/health/pollers");
    assertThat(before.statusCode()).as(before.body()).isEqualTo(200);

    clock.advance(Duration.ofSeconds(2)); // 10:05:01
    HttpResponse<String> after = get("/health/pollers");
    assertThat(after.statusCode()).isEqualTo(503);
    JsonNode key = json(after).path("keys").get(0);
    assertThat(key.path("poller").asText()).isEqualTo("orders");
    assertThat(key.path("reasons").toString()).isEqualTo("[\"stale\"]");
    assertThat(key.path("problem").asText())
        .isEqualTo(
            "stale: no successful poll since 2026-03-01T10:00:00Z, longer than staleAfter (5m)");
  }

  static String reasons(HttpResponse<String> r) throws IOException {
    return json(r).path("keys").get(0).path("reasons").toString();
  }

  @Test
  void aVendorAnsweringErrorsTurnsHealthPollers503AtTheFirstFailedCycle() throws Exception {
    start();
    engine.tick();
    api.failNext(100, () -> new IllegalStateException("GET /orders returned HTTP 500"));
    clock.advance(Duration.ofSeconds(30));
    engine.tick();
    HttpResponse<String> r = get("/health/pollers");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(reasons(r)).isEqualTo("[\"failing\"]");
  }

  // ---- metrics and inspection

  @Test
  void metricsServesThePrometheusTextOfTheEngineMeters() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WatukuyMetrics metrics = new WatukuyMetrics(registry, Duration.ZERO);
    engine(Watukuy.builder().listener(metrics));
    metrics.watch(engine);
    start(AdminServer.builder(engine).store(store).metrics(registry));
    api.put("a", Map.of());
    api.put("b", Map.of());
    engine.tick();

    HttpResponse<String> r = get("/metrics");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/plain");
    assertThat(r.body())
        .contains(
            "watukuy_events_total{lane=\"live\",partition=\"\",poller=\"orders\",type=\"created\"}"
                + " 2.0")
        .contains(
            "watukuy_deliveries_total{outcome=\"acked\",partition=\"\",poller=\"orders\"} 2.0")
        .contains(
            "watukuy_poll_seconds_count{error=\"none\",lane=\"live\",outcome=\"success\","
                + "partition=\"\",poller=\"orders\"} 1")
        .contains("watukuy_outbox_pending{partition=\"\",poller=\"orders\"} 0.0");
  }

  @Test
  void metricsWithoutARegistryIs404WithAClearBody() throws Exception {
    start();
    HttpResponse<String> r = get("/metrics");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(json(r).path("error").asText())
        .isEqualTo("no metrics registry: this server was built without metrics(registry)");
  }

  /** {@code //admin/pollers} is not some other file ("/pollers"): a 404 naming it as requested. */
  @Test
  void aPathWithADoubleSlashIs404NamingThePathAsRequested() throws Exception {
    start();
    for (String path : List.of("//admin/pollers", "/admin//pollers")) {
      HttpResponse<String> r = get(path, "X-Watukuy-Admin", "1");
      assertThat(r.statusCode()).as(path).isEqualTo(404);
      assertThat(json(r).path("error").asText())
          .isEqualTo("no such endpoint: " + path + " (an empty segment: write each / once)");
    }
  }

  /** The start line's address: the host as given, an IPv6 one in brackets, the bound port. */
  @Test
  void urlNamesTheHostAsGivenAndTheIpv6WildcardInBrackets() {
    engine(Watukuy.builder());
    String token = "0123456789abcdef0123456789abcdef";
    assertThat(AdminServer.builder(engine).bind("::", 8080).token(token).build().url())
        .isEqualTo("http://[::]:8080");
    assertThat(AdminServer.builder(engine).bind("0.0.0.0", 9090).token(token).build().url())
        .isEqualTo("http://0.0.0.0:9090");
    assertThat(AdminServer.builder(engine).bind("localhost", 8080).build().url())
        .isEqualTo("http://localhost:8080");
    assertThat(start().url()).isEqualTo("http://127.0.0.1:" + admin.port());
  }

  @Test
  void adminPollersIsTheInspectDocument() throws Exception {
    start();
    api.put("a", Map.of());
    engine.tick();
    HttpResponse<String> r = get("/admin/pollers");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElseThrow())
        .isEqualTo("application/json; charset=utf-8");
    JsonNode key = json(r).path("pollers").get(0);
    assertThat(key.path("poller").asText()).isEqualTo("orders");
    assertThat(key.path("items").asInt()).isEqualTo(1);
    assertThat(json(r).path("at").asText()).isEqualTo("2026-03-01T10:00:00Z");
  }

  // ---- operations

  @Test
  void pauseResumeAndTriggerAPoller() throws Exception {
    start();
    engine.tick();
    HttpResponse<String> paused = adminPost("/admin/pollers/orders/pause", "");
    assertThat(paused.statusCode()).isEqualTo(200);
    assertThat(json(paused).path("action").asText()).isEqualTo("pause");
    assertThat(engine.inspect().poller("orders").orElseThrow().paused()).isNotNull();

    assertThat(adminPost("/admin/pollers/orders/resume", "").statusCode()).isEqualTo(200);
    assertThat(engine.inspect().poller("orders").orElseThrow().paused()).isNull();

    // Just polled: due in 30 s. A trigger makes it due now, so a tick at once polls.
    api.put("b", Map.of());
    assertThat(engine.tick().keys().get(0).outcome().name()).isNotEqualTo("SUCCESS");
    HttpResponse<String> triggered = adminPost("/admin/pollers/orders/trigger?partition=", "");
    assertThat(triggered.statusCode()).as(triggered.body()).isEqualTo(200);
    engine.tick();
    assertThat(delivered).hasSize(1);
  }

  @Test
  void anUnknownPollerIs400NamingItAndAWrongMethodIs405() throws Exception {
    start();
    HttpResponse<String> r = adminPost("/admin/pollers/invoices/pause", "");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(json(r).path("error").asText()).contains("invoices");

    HttpResponse<String> wrong = get("/admin/pollers/orders/pause");
    assertThat(wrong.statusCode()).isEqualTo(405);
    assertThat(wrong.headers().firstValue("Allow")).hasValue("POST");
    assertThat(json(wrong).path("error").asText())
        .isEqualTo("GET is not allowed on /admin/pollers/orders/pause; use POST");

    HttpResponse<String> none = get("/admin/nothing");
    assertThat(none.statusCode()).isEqualTo(404);
    assertThat(json(none).path("error").asText()).isEqualTo("no such endpoint: /admin/nothing");
  }

  @Test
  void aParkedEventRetriedIsDeliveredAndTheCountFallsToZero() throws Exception {
    start();
    destinationUp.set(false);
    api.put("a", Map.of());
    engine.tick(); // one attempt, then parked
    HttpResponse<String> listed = get("/admin/parked?poller=orders");
    assertThat(listed.statusCode()).isEqualTo(200);
    assertThat(json(listed).path("total").asInt()).isEqualTo(1);
    JsonNode row = json(listed).path("parked").get(0);
    assertThat(row.path("kind").asText()).isEqualTo("poison");
    assertThat(row.path("error").asText()).contains("destination down");
    assertThat(delivered).isEmpty();

    destinationUp.set(true);
    HttpResponse<String> retried =
        adminPost(
            "/admin/parked/retry",
            "{\"poller\":\"orders\",\"ids\":[\"" + row.path("id").asText() + "\"]}");
    assertThat(retried.statusCode()).as(retried.body()).isEqualTo(200);
    assertThat(json(retried).path("changed").asInt()).isEqualTo(1);
    engine.tick();
    assertThat(delivered).containsExactly(row.path("eventId").asText());
    assertThat(json(get("/admin/parked")).path("total").asInt()).isZero();
  }

  @Test
  void discardAllDropsEveryParkedRowOfThePoller() throws Exception {
    start();
    destinationUp.set(false);
    api.put("a", Map.of());
    api.put("b", Map.of());
    engine.tick();
    engine.tick();
    assertThat(json(get("/admin/parked?limit=1")).path("parked").size()).isEqualTo(1);
    int before = json(get("/admin/parked")).path("total").asInt();
    assertThat(before).isPositive();
    HttpResponse<String> r =
        adminPost("/admin/parked/discard", "{\"poller\":\"orders\",\"all\":true}");
    assertThat(json(r).path("changed").asInt()).isEqualTo(before);
    assertThat(json(get("/admin/parked")).path("total").asInt()).isZero();
  }

  @Test
  void aParkedChangeWithABadBodyIs400SayingWhat() throws Exception {
    start();
    assertThat(json(adminPost("/admin/parked/retry", "nope")).path("error").asText())
        .startsWith("the body is not JSON");
    assertThat(
            json(adminPost("/admin/parked/retry", "{\"poller\":\"orders\"}"))
                .path("error")
                .asText())
        .isEqualTo("give exactly one of ids (a non-empty array) and \"all\": true");
    HttpResponse<String> unknown =
        adminPost("/admin/parked/retry", "{\"poller\":\"invoices\",\"all\":true}");
    assertThat(unknown.statusCode()).isEqualTo(400);
    assertThat(json(unknown).path("error").asText()).contains("invoices");
    assertThat(get("/admin/parked?limit=0").statusCode()).isEqualTo(400);
  }

  // ---- the dashboard's files

  @Test
  void rootServesTheDashboardWithTheSecurityHeaders() throws Exception {
    start();
    HttpResponse<String> r = get("/");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
    assertThat(r.headers().firstValue("Content-Security-Policy").orElseThrow())
        .startsWith("default-src 'self'");
    assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
    assertThat(r.body()).contains("<html");
    assertThat(get("/missing.js").statusCode()).isEqualTo(404);
    assertThat(get("/%2e%2e/AdminServer.class").statusCode()).isEqualTo(404);

    HttpResponse<String> apiAnswer = get("/health/live");
    assertThat(apiAnswer.headers().firstValue("Cache-Control")).hasValue("no-store");
    assertThat(apiAnswer.headers().firstValue("Content-Security-Policy").orElseThrow())
        .startsWith("default-src 'self'");
    assertThat(apiAnswer.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
  }

  // ---- security

  @Test
  void aForeignHostOrOriginIs403() throws Exception {
    start();
    int port = admin.port();
    assertThat(
            raw(
                "GET /health/pollers HTTP/1.1\r\nHost: 127.0.0.1:"
                    + port
                    + "\r\nConnection: close\r\n\r\n"))
        .isEqualTo("HTTP/1.1 200 OK");
    assertThat(
            raw(
                "GET /health/pollers HTTP/1.1\r\nHost: localhost:"
                    + port
                    + "\r\nConnection: close\r\n\r\n"))
        .isEqualTo("HTTP/1.1 200 OK");
    // DNS rebinding: the attacker's name resolves to 127.0.0.1, but the browser still sends it.
    assertThat(
            raw(
                "GET /admin/pollers HTTP/1.1\r\nHost: evil.example:"
                    + port
                    + "\r\nConnection: close\r\n\r\n"))
        .startsWith("HTTP/1.1 403");
    assertThat(raw("GET /admin/pollers HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
        .startsWith("HTTP/1.1 403");
    assertThat(raw("GET /admin/pollers HTTP/1.1\r\nHost: 127.0.0.1:1\r\nConnection: close\r\n\r\n"))
        .startsWith("HTTP/1.1 403");

    HttpResponse<String> crossSite = get("/admin/pollers", "Origin", "http://evil.example");
    assertThat(crossSite.statusCode()).isEqualTo(403);
    assertThat(json(crossSite).path("error").asText())
        .isEqualTo("cross-origin request from http://evil.example refused");
    assertThat(get("/admin/pollers", "Origin", "http://127.0.0.1:" + port).statusCode())
        .isEqualTo(200);
    HttpResponse<String> crossPost =
        post("/admin/pollers/orders/pause", "", "X-Watukuy-Admin", "1", "Origin", "null");
    assertThat(crossPost.statusCode()).isEqualTo(403);
  }

  @Test
  void aPostWithoutTheAdminHeaderIs403() throws Exception {
    start();
    // What a cross-site form could send: a plain POST with a form body, no custom header.
    HttpResponse<String> r =
        post(
            "/admin/pollers/orders/pause",
            "x=1",
            "Content-Type",
            "application/x-www-form-urlencoded");
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(json(r).path("error").asText())
        .isEqualTo("a POST needs the header X-Watukuy-Admin: 1 (or the bearer token)");
    assertThat(engine.inspect().poller("orders").orElseThrow().paused()).isNull();
  }

  @Test
  void withATokenEveryEndpointButLiveAndReadyNeedsIt() throws Exception {
    engine(Watukuy.builder());
    String token = "0123456789abcdef0123456789abcdef";
    engine.start();
    start(AdminServer.builder(engine).store(store).token(token));
    assertThat(get("/health/live").statusCode()).isEqualTo(200);
    assertThat(get("/health/ready").statusCode()).isEqualTo(200);
    HttpResponse<String> none = get("/admin/pollers");
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    assertThat(get("/health/pollers").statusCode()).isEqualTo(401);
    assertThat(get("/admin/pollers", "Authorization", "Bearer " + token).statusCode())
        .isEqualTo(200);
    assertThat(get("/admin/pollers", "Authorization", "Bearer " + token + "0").statusCode())
        .isEqualTo(401);
    assertThat(get("/admin/pollers", "Authorization", "Bearer " + token.substring(1)).statusCode())
        .isEqualTo(401);
    // The header alone is not enough once a token is set; the token alone is.
    assertThat(adminPost("/admin/pollers/orders/pause", "").statusCode()).isEqualTo(401);
    assertThat(
            post("/admin/pollers/orders/pause", "", "Authorization", "Bearer " + token)
                .statusCode())
        .isEqualTo(200);
  }

  @Test
  void aNonLoopbackAddressWithoutATokenIsRefused() {
    engine(Watukuy.builder());
    assertThatThrownBy(() -> AdminServer.builder(engine).bind("0.0.0.0", 0).build())
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "admin bind address 0.0.0.0:0 is not loopback: set a bearer token"
                + " (--admin-token-file), or bind 127.0.0.1");
    // With a token it builds (it is not started: tests talk to 127.0.0.1 only).
    AdminServer.builder(engine).bind("0.0.0.0", 0).token("0123456789abcdef").build().close();
    assertThatThrownBy(() -> AdminServer.builder(engine).token("short"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "admin token is 5 characters long; at least 16 are needed (e.g. openssl rand -hex 32)");
  }

  @Test
  void anOversizedBodyIs413() throws Exception {
    start();
    String big = "{\"poller\":\"orders\",\"ids\":[\"" + "9".repeat(70_000) + "\"]}";
    HttpResponse<String> r = adminPost("/admin/parked/retry", big);
    assertThat(r.statusCode()).isEqualTo(413);
    assertThat(json(r).path("error").asText()).isEqualTo("request body over 65536 bytes");
    // Without a length (chunked), cut once the bound is passed.
    HttpResponse<String> chunked =
        http.send(
            HttpRequest.newBuilder(uri("/admin/parked/retry"))
                .header("X-Watukuy-Admin", "1")
                .POST(
                    HttpRequest.BodyPublishers.ofInputStream(
                        () -> new ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8))))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(chunked.statusCode()).isEqualTo(413);
  }

  @Test
  void noResponseCarriesASecret() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WatukuyMetrics metrics = new WatukuyMetrics(registry, Duration.ZERO);
    engine(Watukuy.builder().listener(metrics));
    metrics.watch(engine);
    // The server gets no secrets here: what the engine stores must already be redacted.
    start(AdminServer.builder(engine).store(store).metrics(registry));
    api.put("a", Map.of());
    destinationUp.set(false);
    engine.on(
        orders,
        e -> {
          throw new IllegalStateException("POST https://hooks.example/x?key=" + SECRET + " 500");
        });
    engine.tick(); // parked with the secret in its error
    api.failNext(
        100,
        () ->
            new IllegalStateException("GET https://erp.example/orders?api_key=" + SECRET + " 500"));
    clock.advance(Duration.ofSeconds(30));
    engine.tick(); // a failed cycle with the secret in its error
    for (String path :
        List.of("/health/pollers", "/admin/pollers", "/admin/parked", "/metrics", "/")) {
      HttpResponse<String> r = get(path);
      assertThat(r.body()).as(path).doesNotContain(SECRET);
    }
    assertThat(get("/admin/pollers").body()).contains("[redacted]");
  }

  @Test
  void aSecretGivenToTheServerIsRedactedFromEveryAnswer() throws Exception {
    engine(Watukuy.builder());
    start(AdminServer.builder(engine).store(store).secrets(List.of(SECRET)));
    HttpResponse<String> r = adminPost("/admin/pollers/" + SECRET + "/pause", "");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).doesNotContain(SECRET).contains("[redacted]");
  }

  @Test
  void theTokenFileIsReadWithoutItsLineBreakAndNeverEchoed(@TempDir Path dir) throws Exception {
    engine(Watukuy.builder());
    Path file = dir.resolve("token");
    Files.writeString(file, "0123456789abcdef0123\n");
    start(AdminServer.builder(engine).store(store).tokenFile(file));
    assertThat(get("/admin/pollers", "Authorization", "Bearer 0123456789abcdef0123").statusCode())
        .isEqualTo(200);

    Files.writeString(file, "tooshort\n");
    assertThatThrownBy(() -> AdminServer.builder(engine).tokenFile(file))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "admin token file "
                + file
                + ": admin token is 8 characters long; at least 16 are needed (e.g. openssl rand"
                + " -hex 32)");
    Files.writeString(file, "\n");
    assertThatThrownBy(() -> AdminServer.builder(engine).tokenFile(file))
        .hasMessage("admin token file " + file + " is empty");
  }

  @Test
  void aNameGivenToAllowHostsIsAcceptedInHost() throws Exception {
    engine(Watukuy.builder());
    start(AdminServer.builder(engine).store(store).allowHosts(List.of("watukuy.internal")));
    int port = admin.port();
    assertThat(
            raw(
                "GET /health/live HTTP/1.1\r\nHost: watukuy.internal:"
                    + port
                    + "\r\nConnection: close\r\n\r\n"))
        .isEqualTo("HTTP/1.1 200 OK");
  }

  @Test
  void parseAddressNamesTheOptionAndValue() {
    assertThat(AdminServer.parseAddress("--admin", "127.0.0.1:8080").getPort()).isEqualTo(8080);
    assertThat(AdminServer.parseAddress("--admin", "[::1]:0").getHostString()).isEqualTo("::1");
    assertThatThrownBy(() -> AdminServer.parseAddress("--admin", "8080"))
        .hasMessage("--admin '8080': expected HOST:PORT such as 127.0.0.1:8080 or [::1]:8080");
    assertThatThrownBy(() -> AdminServer.parseAddress("--admin", "localhost:99999"))
        .hasMessage("--admin 'localhost:99999': port 99999 is out of range 0..65535");
    assertThatThrownBy(() -> AdminServer.parseAddress("--admin", "localhost:http"))
        .hasMessage(
            "--admin 'localhost:http': the port is not a number; expected HOST:PORT such as"
                + " 127.0.0.1:8080 or [::1]:8080");
  }

  @Test
  void theTokenIsComparedByDigestSoLengthAndPrefixDoNotMatter() {
    RequestGuard guard = new RequestGuard(Set.of("127.0.0.1"), false, "0123456789abcdef");
    assertThat(guard.tokenMatches("Bearer 0123456789abcdef")).isTrue();
    assertThat(guard.tokenMatches("bearer 0123456789abcdef")).isTrue();
    assertThat(guard.tokenMatches("Bearer 0123456789abcde")).isFalse();
    assertThat(guard.tokenMatches("Bearer 0123456789abcdef0")).isFalse();
    assertThat(guard.tokenMatches("Bearer ")).isFalse();
    assertThat(guard.tokenMatches("Basic 0123456789abcdef")).isFalse();
    assertThat(guard.tokenMatches(null)).isFalse();
    assertThat(new RequestGuard(Set.of(), false, null).tokenMatches("Bearer x")).isFalse();
  }

  static com.sun.net.httpserver.Headers headers(String... pairs) {
    com.sun.net.httpserver.Headers h = new com.sun.net.httpserver.Headers();
    for (int i = 0; i < pairs.length; i += 2) h.add(pairs[i], pairs[i + 1]);
    return h;
  }

  @Test
  void onAWildcardBindAnyHostReachesTheProbesAndTheTokenGuardsTheRest() {
    // Bound to 0.0.0.0 (a container): clients name the machine however they reach it.
    RequestGuard guard = new RequestGuard(Set.of("0.0.0.0"), true, "0123456789abcdef");
    guard.bound(8080);
    for (String host : List.of("127.0.0.1:8080", "10.0.0.7:8080", "orders-sync.internal:8080"))
      assertThat(guard.check(headers("Host", host), false, true)).as(host).isNull();
    assertThat(guard.check(headers("Host", "10.0.0.7:8080"), false, false))
        .isEqualTo(
            new RequestGuard.Refusal(
                401, "missing or wrong bearer token (Authorization: Bearer TOKEN)"));
    assertThat(
            guard.check(
                headers("Host", "10.0.0.7:8080", "Authorization", "Bearer 0123456789abcdeX"),
                true,
                false))
        .extracting(RequestGuard.Refusal::status)
        .isEqualTo(401);
    assertThat(
            guard.check(
                headers("Host", "10.0.0.7:8080", "Authorization", "Bearer 0123456789abcdef"),
                true,
                false))
        .isNull();
    // Another site's page is still refused, token or not.
    assertThat(
            guard.check(
                headers(
                    "Host",
                    "10.0.0.7:8080",
                    "Origin",
                    "http://evil.example",
                    "Authorization",
                    "Bearer 0123456789abcdef"),
                true,
                false))
        .extracting(RequestGuard.Refusal::status)
        .isEqualTo(403);
  }

  @Test
  void aSpecificBindStillRefusesAForeignHostAndAcceptsItsOwnOriginOverHttps() {
    RequestGuard guard = new RequestGuard(Set.of("127.0.0.1", "localhost"), false, null);
    guard.bound(8080);
    assertThat(guard.check(headers("Host", "rebound.example:8080"), false, true))
        .extracting(RequestGuard.Refusal::status)
        .isEqualTo(403);
    // A TLS proxy in front: the page's origin is https://HOST.
    assertThat(
            guard.check(
                headers(
                    "Host",
                    "localhost:8080",
                    "Origin",
                    "https://localhost:8080",
                    "X-Watukuy-Admin",
                    "1"),
                true,
                false))
        .isNull();
  }

  @Test
  void aBodyWithAMisspeltFieldOrTrailingTextIsRefusedAndChangesNothing() throws Exception {
    start();
    HttpResponse<String> misspelt =
        adminPost(
            "/admin/parked/discard", "{\"poller\":\"orders\",\"partiton\":\"eu\",\"all\":true}");
    assertThat(misspelt.statusCode()).isEqualTo(400);
    assertThat(json(misspelt).path("error").asText())
        .isEqualTo(
            "unknown field 'partiton' in the body; the fields are [poller, partition, ids, all]");
    HttpResponse<String> trailing =
        adminPost("/admin/parked/discard", "{\"poller\":\"orders\",\"all\":true} trailing");
    assertThat(trailing.statusCode()).isEqualTo(400);
    assertThat(json(trailing).path("error").asText()).startsWith("the body is not JSON");
  }

  // ---- effects (docs/effects.md, "Admin HTTP")

  /**
   * Effect Notify over orders, one lane per item: on created, two journaled calls whose results
   * hold a person's data, then item b fails (retrying) and item t fails for good; on updated, the
   * latest only. Its reader runs on its own thread on the virtual clock, invocations inline;
   * started once the log holds a, b, t created (1 to 3) and a updated three times (4 to 6).
   */
  void startEffects(java.util.function.UnaryOperator<AdminServer.Builder> server) throws Exception {
    Effect<JsonNode> notify =
        Effect.builder("Notify")
            .source(orders)
            .on(
                EventType.CREATED,
                (ctx, e) -> {
                  String id = e.data().get("id").asText();
                  ctx.call("find-customer", id, String.class, () -> "Ada Lovelace ada@example.com");
                  ctx.call("send-welcome", id, String.class, () -> "sent to ada@example.com");
                  if (id.equals("b")) throw new IllegalStateException("crm down, key " + SECRET);
                  if (id.equals("t")) throw ctx.fail("no customer for t");
                },
                Key.identity())
            .onLatest(EventType.UPDATED, (ctx, e) -> {}, Key.identity())
            .build();
    engine(Watukuy.builder());
    api.put("a", Map.of());
    api.put("b", Map.of());
    api.put("t", Map.of());
    engine.tick(); // positions 1, 2, 3 in the log: a, b, t
    for (int n = 1; n <= 3; n++) {
      clock.advance(Duration.ofSeconds(30));
      api.put("a", Map.of("n", n));
      engine.tick(); // positions 4, 5, 6: a updated
    }
    effects =
        Effects.builder(store)
            .time(clock)
            .workers(Runnable::run)
            .instanceId("a")
            .secrets(List.of(SECRET))
            .add(notify)
            .build();
    effects.start();
    // a done, b wedged, t terminal, 4 and 5 folded into 6: the watermark at 1 (docs/effects.md,
    // "Position")
    awaitEffect(
        st ->
            st.state() == EffectState.WEDGED
                && st.position() == 1
                && st.lag() == 5
                && st.terminalSkips() == 1);
    start(server.apply(AdminServer.builder(engine).store(store)).effects(effects));
  }

  void awaitEffect(java.util.function.Predicate<EffectStatus> done) throws InterruptedException {
    awaitEffect("Notify", done);
  }

  /** Waits in real time (the reader has a thread of its own) until the status says so. */
  void awaitEffect(String name, java.util.function.Predicate<EffectStatus> done)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!done.test(effects.status(name))) {
      assertThat(System.nanoTime())
          .as("effect " + name + ": " + effects.status(name))
          .isLessThan(deadline);
      Thread.sleep(2);
    }
  }

  @Test
  void withoutEffectsTheEffectPathsAre404SayingHowToServeThem() throws Exception {
    start();
    for (String path : List.of("/admin/effects", "/admin/effects/Notify")) {
      HttpResponse<String> r = get(path);
      assertThat(r.statusCode()).as(path).isEqualTo(404);
      assertThat(json(r).path("error").asText())
          .isEqualTo("no effects here: this server was built without effects(Effects)");
    }
  }

  @Test
  void theEffectsListingShowsStatePositionLagAndCountersAndNeverTheStuckLanes() throws Exception {
    startEffects(b -> b);
    HttpResponse<String> r = get("/admin/effects");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode e = json(r).path("effects").get(0);
    assertThat(e.path("name").asText()).isEqualTo("Notify");
    assertThat(e.path("state").asText()).isEqualTo("wedged");
    // wedged at 2 with 3 to 6 done: position 1, lag 5 (docs/effects.md, "Position")
    assertThat(e.path("position").asLong()).isEqualTo(1);
    assertThat(e.path("lag").asLong()).isEqualTo(5);
    JsonNode source = e.path("sources").get(0);
    assertThat(source.path("poller").asText()).isEqualTo("orders");
    assertThat(source.path("partition").asText()).isEmpty();
    assertThat(source.path("head").asLong()).isEqualTo(6);
    assertThat(e.path("terminal_skips").asLong()).isEqualTo(1);
    assertThat(e.path("last_terminal_error").asText()).isEqualTo("no customer for t");
    assertThat(e.path("latest_collapsed").asLong()).isEqualTo(2); // 4 and 5 folded into 6
    assertThat(e.has("stuck_lanes")).isFalse();
    assertThat(e.has("wedged_lanes")).isFalse();
    assertThat(r.body()).doesNotContain("crm down");

    effects.quarantine("Notify", "CRM migration tonight");
    JsonNode q = json(get("/admin/effects")).path("effects").get(0);
    assertThat(q.path("state").asText()).isEqualTo("quarantined");
    assertThat(q.path("quarantine_reason").asText()).isEqualTo("CRM migration tonight");
  }

  @Test
  void oneEffectAddsItsStuckLanesPinningKeyAndLastErrorWithTheSecretsRedacted() throws Exception {
    startEffects(b -> b);
    HttpResponse<String> r = get("/admin/effects/Notify");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode e = json(r);
    assertThat(e.path("state").asText()).isEqualTo("wedged");
    assertThat(e.path("wedged_lanes").asInt()).isEqualTo(1);
    assertThat(e.path("latest_collapsed").asLong()).isEqualTo(2); // 4 and 5 folded into 6
    assertThat(e.path("pinning_key").asText()).isEqualTo("identity:b");
    assertThat(e.path("pinning_position").asLong()).isEqualTo(2);
    String error = "IllegalStateException: crm down, key [redacted]";
    assertThat(e.path("last_error").asText()).isEqualTo(error);
    assertThat(e.path("stuck_lanes")).hasSize(1);
    JsonNode lane = e.path("stuck_lanes").get(0);
    assertThat(lane.path("lane").asText()).isEqualTo("identity:b");
    assertThat(lane.path("position").asLong()).isEqualTo(2);
    assertThat(lane.path("attempt").asInt()).isEqualTo(1);
    assertThat(lane.path("error").asText()).isEqualTo(error);
    assertThat(lane.path("retry_in_ms").asLong()).isEqualTo(200); // the first backoff
    assertThat(r.body()).doesNotContain(SECRET);

    HttpResponse<String> unknown = get("/admin/effects/Nope");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(json(unknown).path("error").asText())
        .isEqualTo("no effect named 'Nope'; effects here: [Notify]");
  }

  @Test
  void anInvocationListsItsJournaledCallsByLabelPagedAndNeverTheirResults() throws Exception {
    startEffects(b -> b);
    HttpResponse<String> r = get("/admin/effects/Notify/invocations/2");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode inv = json(r);
    assertThat(inv.path("status").asText()).isEqualTo("failed");
    assertThat(inv.path("lane").asText()).isEqualTo("identity:b");
    assertThat(inv.path("event_type").asText()).isEqualTo("created");
    assertThat(inv.path("attempt").asInt()).isEqualTo(1);
    assertThat(inv.path("calls")).hasSize(2);
    assertThat(inv.path("calls").get(0).path("label").asText()).isEqualTo("find-customer");
    assertThat(inv.path("calls").get(1).path("label").asText()).isEqualTo("send-welcome");
    assertThat(inv.path("calls").get(1).path("ordinal").asInt()).isEqualTo(1);
    assertThat(inv.path("calls").get(0).path("created_at").asText())
        .isEqualTo(clock.now().toString());
    assertThat(inv.path("more").asBoolean()).isFalse();
    assertThat(r.body()).doesNotContain("Ada").doesNotContain("ada@example.com");

    JsonNode first = json(get("/admin/effects/Notify/invocations/2?limit=1"));
    assertThat(first.path("calls")).hasSize(1);
    assertThat(first.path("more").asBoolean()).isTrue();
    JsonNode second = json(get("/admin/effects/Notify/invocations/2?partition=&offset=1&limit=1"));
    assertThat(second.path("calls").get(0).path("label").asText()).isEqualTo("send-welcome");
    assertThat(second.path("more").asBoolean()).isFalse();

    HttpResponse<String> none = get("/admin/effects/Notify/invocations/9");
    assertThat(none.statusCode()).isEqualTo(404);
    assertThat(json(none).path("error").asText())
        .isEqualTo(
            "effect Notify has no invocation at position 9 of orders (never read, or removed by"
                + " the journal retention)");
    assertThat(json(get("/admin/effects/Notify/invocations/x")).path("error").asText())
        .isEqualTo("position 'x' is not a log position (a whole number >= 1)");
    assertThat(get("/admin/effects/Notify/invocations/2?limit=0").statusCode()).isEqualTo(400);
    HttpResponse<String> partition = get("/admin/effects/Notify/invocations/2?partition=eu");
    assertThat(partition.statusCode()).isEqualTo(400);
    assertThat(json(partition).path("error").asText())
        .isEqualTo("effect Notify has no partition 'eu' (known: [''])");
  }

  @Test
  void aSkipIsRefusedForAPositionThatHasNotFailedAndReleasesTheWedgeForOneThatHas()
      throws Exception {
    startEffects(b -> b);
    HttpResponse<String> done = adminPost("/admin/effects/Notify/skip/1", "");
    assertThat(done.statusCode()).isEqualTo(409);
    assertThat(json(done).path("error").asText())
        .isEqualTo(
            "effect Notify: position 1 of orders is done; only a failed position can be skipped");
    HttpResponse<String> terminal = adminPost("/admin/effects/Notify/skip/3", "");
    assertThat(json(terminal).path("error").asText())
        .isEqualTo(
            "effect Notify: position 3 of orders is completed by a terminal failure; only a failed"
                + " position can be skipped");
    HttpResponse<String> never = adminPost("/admin/effects/Notify/skip/9", "");
    assertThat(never.statusCode()).isEqualTo(409);
    assertThat(json(never).path("error").asText())
        .contains("position 9 of orders has no invocation");
    assertThat(adminPost("/admin/effects/Nope/skip/2", "").statusCode()).isEqualTo(404);
    assertThat(get("/admin/effects/Notify/skip/2").statusCode()).isEqualTo(405);
    // The admin server's rules for a POST hold: no header, a foreign Origin.
    assertThat(post("/admin/effects/Notify/skip/2", "").statusCode()).isEqualTo(403);
    assertThat(
            post("/admin/effects/Notify/skip/2", "", "X-Watukuy-Admin", "1", "Origin", "null")
                .statusCode())
        .isEqualTo(403);
    assertThat(effects.status("Notify").state()).isEqualTo(EffectState.WEDGED);

    HttpResponse<String> skipped = adminPost("/admin/effects/Notify/skip/2", "");
    assertThat(skipped.statusCode()).as(skipped.body()).isEqualTo(200);
    assertThat(json(skipped).path("requested").asBoolean()).isTrue();
    awaitEffect(st -> st.state() == EffectState.OK && st.position() == 6);
    JsonNode e = json(get("/admin/effects/Notify"));
    assertThat(e.path("position").asLong()).isEqualTo(6);
    assertThat(e.path("stuck_lanes")).isEmpty();
    assertThat(e.path("pinning_key").isNull()).isTrue();
    assertThat(json(get("/admin/effects/Notify/invocations/2")).path("status").asText())
        .isEqualTo("skipped");
  }

  @Test
  void withATokenTheEffectPathsNeedIt() throws Exception {
    String token = "0123456789abcdef0123456789abcdef";
    startEffects(b -> b.token(token));
    assertThat(get("/admin/effects").statusCode()).isEqualTo(401);
    assertThat(adminPost("/admin/effects/Notify/skip/2", "").statusCode()).isEqualTo(401);
    assertThat(get("/admin/effects", "Authorization", "Bearer " + token).statusCode())
        .isEqualTo(200);
  }

  @Test
  void retryNowRunsAParkedLaneAgainAtOnceAndRefusesAPositionThatHasNotFailed() throws Exception {
    startEffects(b -> b);
    HttpResponse<String> done = adminPost("/admin/effects/Notify/retry/1", "");
    assertThat(done.statusCode()).isEqualTo(409);
    assertThat(json(done).path("error").asText())
        .isEqualTo(
            "effect Notify: position 1 of orders is done; only a failed position waiting for its"
                + " retry can be retried now");
    HttpResponse<String> terminal = adminPost("/admin/effects/Notify/retry/3", "");
    assertThat(terminal.statusCode()).isEqualTo(409);
    assertThat(json(terminal).path("error").asText())
        .contains("position 3 of orders is completed by a terminal failure");
    HttpResponse<String> never = adminPost("/admin/effects/Notify/retry/9", "");
    assertThat(never.statusCode()).isEqualTo(409);
    assertThat(json(never).path("error").asText())
        .contains("position 9 of orders has no invocation");
    for (String path : List.of("/admin/effects/Nope/retry", "/admin/effects/Nope/retry/2")) {
      HttpResponse<String> unknown = adminPost(path, "");
      assertThat(unknown.statusCode()).as(path).isEqualTo(404);
      assertThat(json(unknown).path("error").asText())
          .isEqualTo("no effect named 'Nope'; effects here: [Notify]");
    }
    assertThat(get("/admin/effects/Notify/retry").statusCode()).isEqualTo(405);
    // The admin server's rules for a POST hold, as for skip: no header, a foreign Origin.
    assertThat(post("/admin/effects/Notify/retry/2", "").statusCode()).isEqualTo(403);
    assertThat(
            post("/admin/effects/Notify/retry", "", "X-Watukuy-Admin", "1", "Origin", "null")
                .statusCode())
        .isEqualTo(403);

    // b waits 200 ms after its first attempt; the clock never moves, so only a retry runs it
    HttpResponse<String> one = adminPost("/admin/effects/Notify/retry/2", "");
    assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
    assertThat(json(one))
        .isEqualTo(
            JSON.readTree(
                "{\"action\":\"retry\",\"effect\":\"Notify\",\"poller\":\"orders\","
                    + "\"partition\":\"\",\"position\":2,\"lanes\":1}"));
    awaitEffect(st -> attempt(st) == 2);
    // the attempt count goes on, so the backoff after the second failure is 400 ms, not 200
    assertThat(
            json(get("/admin/effects/Notify"))
                .path("stuck_lanes")
                .get(0)
                .path("retry_in_ms")
                .asLong())
        .isEqualTo(400);

    HttpResponse<String> all = adminPost("/admin/effects/Notify/retry", "");
    assertThat(all.statusCode()).as(all.body()).isEqualTo(200);
    assertThat(json(all))
        .isEqualTo(JSON.readTree("{\"action\":\"retry\",\"effect\":\"Notify\",\"lanes\":1}"));
    awaitEffect(st -> attempt(st) == 3);
  }

  /** The attempt of the one stuck lane, or 0 while it runs (or none is stuck). */
  private static int attempt(EffectStatus st) {
    var lanes = st.sources().get(0).stuckLanes();
    return lanes.isEmpty() ? 0 : lanes.get(0).attempt();
  }

  @Test
  void withATokenRetryNowNeedsIt() throws Exception {
    String token = "0123456789abcdef0123456789abcdef";
    startEffects(b -> b.token(token));
    assertThat(adminPost("/admin/effects/Notify/retry", "").statusCode()).isEqualTo(401);
    assertThat(adminPost("/admin/effects/Notify/retry/2", "").statusCode()).isEqualTo(401);
    HttpResponse<String> with =
        post("/admin/effects/Notify/retry/2", "", "Authorization", "Bearer " + token);
    assertThat(with.statusCode()).as(with.body()).isEqualTo(200);
  }

  @Test
  void overAPartitionedPollerAPositionNeedsItsPartitionAndASkipReleasesOnlyThatOne()
      throws Exception {
    Poller<JsonNode> regions =
        Poller.builder("regions", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
            .fetch(api.partitionedTimestampFetcher(100))
            .partitions(List.of("eu", "us"))
            .log(EventLog.keep(Duration.ofDays(7)))
            .build();
    engine(Watukuy.builder().poller(regions)).on(regions, e -> {});
    for (String region : List.of("eu", "us")) {
      api.put(region + "-1", Map.of("partition", region));
      api.put(region + "-2", Map.of("partition", region)); // position 2 of its key fails
    }
    engine.tick();
    Effect<JsonNode> regional =
        Effect.builder("Regional")
            .source(regions)
            .on(
                EventType.CREATED,
                (ctx, e) -> {
                  if (e.identity().endsWith("-2")) throw new IllegalStateException("no route");
                },
                Key.identity())
            .build();
    effects = Effects.builder(store).time(clock).workers(Runnable::run).add(regional).build();
    effects.start();
    awaitEffect("Regional", st -> st.sources().size() == 2 && st.position() == 1 && st.lag() == 2);
    start(AdminServer.builder(engine).store(store).effects(effects));

    JsonNode e = json(get("/admin/effects/Regional"));
    assertThat(e.path("wedged_lanes").asInt()).isEqualTo(2);
    assertThat(e.path("stuck_lanes").findValuesAsText("partition")).containsExactly("eu", "us");
    assertThat(e.path("sources").findValuesAsText("partition")).containsExactly("eu", "us");

    HttpResponse<String> which = adminPost("/admin/effects/Regional/skip/2", "");
    assertThat(which.statusCode()).isEqualTo(400);
    assertThat(json(which).path("error").asText())
        .isEqualTo(
            "effect Regional reads 2 partitions; name one with ?partition= (known: ['eu', 'us'])");
    assertThat(adminPost("/admin/effects/Regional/skip/2?partition=eu", "").statusCode())
        .isEqualTo(200);
    awaitEffect("Regional", st -> st.sources().get(0).lag() == 0);
    JsonNode after = json(get("/admin/effects/Regional"));
    assertThat(after.path("stuck_lanes").findValuesAsText("partition")).containsExactly("us");
    assertThat(after.path("state").asText()).isEqualTo("wedged");
    assertThat(
            json(get("/admin/effects/Regional/invocations/2?partition=us")).path("status").asText())
        .isEqualTo("failed");
  }

  @Test
  void anInvocationRunningForThirtySecondsIsAnInFlightLaneNotBefore() throws Exception {
    try (HeldCall call = new HeldCall()) {
      Effect<JsonNode> held = call.effect("Held", orders);
      engine(Watukuy.builder());
      api.put("a", Map.of());
      engine.tick(); // position 1: a created
      effects = Effects.builder(store).time(clock).workers(call.worker).add(held).build();
      effects.start();
      assertThat(call.started(Duration.ofSeconds(10))).isTrue();
      start(AdminServer.builder(engine).store(store).effects(effects));

      clock.advance(Duration.ofSeconds(29));
      JsonNode early = json(get("/admin/effects/Held"));
      assertThat(early.path("in_flight_lanes")).isEmpty();
      assertThat(early.path("stuck_lanes")).isEmpty();

      clock.advance(Duration.ofSeconds(2));
      JsonNode late = json(get("/admin/effects/Held"));
      assertThat(late.path("in_flight_lanes")).hasSize(1);
      JsonNode lane = late.path("in_flight_lanes").get(0);
      assertThat(lane.path("lane").asText()).isEqualTo("identity:a");
      assertThat(lane.path("partition").asText()).isEmpty();
      assertThat(lane.path("position").asLong()).isEqualTo(1);
      assertThat(lane.path("attempt").asInt()).isEqualTo(1);
      assertThat(lane.path("running_ms").asLong()).isEqualTo(31_000);
      assertThat(lane.path("error").isNull()).isTrue();
      // Running is not wedged: the lane is no stuck lane, the effect lags behind it.
      assertThat(late.path("stuck_lanes")).isEmpty();
      assertThat(late.path("state").asText()).isEqualTo("lagging");
    }
  }

  @Test
  void aStuckLaneWhoseRetryRunsIsOneStuckLaneWithRunningMsNotAnInFlightLane() throws Exception {
    java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch proceed = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicInteger calls =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.ExecutorService worker =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      Effect<JsonNode> held =
          Effect.builder("Held")
              .source(orders)
              .on(
                  EventType.CREATED,
                  (ctx, e) -> {
                    if (calls.incrementAndGet() == 1)
                      throw new IllegalStateException("CRM answered 503");
                    started.countDown();
                    proceed.await();
                  },
                  Key.identity())
              .build();
      engine(Watukuy.builder());
      api.put("a", Map.of());
      engine.tick(); // position 1: a created
      effects = Effects.builder(store).time(clock).workers(worker).add(held).build();
      effects.start();
      awaitEffect("Held", st -> st.state() == EffectState.WEDGED);
      start(AdminServer.builder(engine).store(store).effects(effects));
      JsonNode waiting = json(get("/admin/effects/Held")).path("stuck_lanes").get(0);
      assertThat(waiting.path("running_ms").isNull()).isTrue();
      assertThat(waiting.path("attempt").asInt()).isEqualTo(1);
      // The retry (attempt 2) runs and holds: the lane is still stuck (docs/effects.md, "States").
      assertThat(effects.retryNow("Held")).isEqualTo(1);
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

      clock.advance(Duration.ofSeconds(43));
      JsonNode e = json(get("/admin/effects/Held"));
      assertThat(e.path("state").asText()).isEqualTo("wedged");
      assertThat(e.path("wedged_lanes").asInt()).isEqualTo(1);
      assertThat(e.path("stuck_lanes")).hasSize(1);
      JsonNode lane = e.path("stuck_lanes").get(0);
      assertThat(lane.path("lane").asText()).isEqualTo("identity:a");
      assertThat(lane.path("position").asLong()).isEqualTo(1);
      assertThat(lane.path("attempt").asInt()).isEqualTo(2);
      assertThat(lane.path("retry_in_ms").asLong()).isZero();
      assertThat(lane.path("running_ms").asLong()).isEqualTo(43_000);
      assertThat(lane.path("error").asText()).isEqualTo("IllegalStateException: CRM answered 503");
      // One list per lane: the running retry is not also an in-flight lane.
      assertThat(e.path("in_flight_lanes")).isEmpty();
    } finally {
      proceed.countDown();
      worker.shutdown();
    }
  }
}
