package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.BudgetLimit;
import io.watukuy.BudgetTimeoutException;
import io.watukuy.CircuitPolicy;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.FetchException;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Reconcile;
import io.watukuy.ScheduleState;
import io.watukuy.TickOptions;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.store.memory.MemoryBudgetStore;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Guarantee G6 through the engine, against a real HTTP server on 127.0.0.1: every request of {@code
 * ctx.http()} takes a token first, so in any interval of length T the requests of one budget are at
 * most {@code burst + requests × T / per}; requests wait on the engine's clock (the virtual clock
 * jumps, no real sleep), up to maxWait and never past the tick deadline, and a request that gets no
 * token defers its cycle without counting as a failure.
 *
 * <p>The server serves {@code /NAME?page=N} with one item per page and {@code hasMore} until the
 * poller's page count, and records each request with the virtual time it arrived.
 */
class BudgetTest {
  static final ObjectMapper JSON = new ObjectMapper();
  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();

  /** Pages per listing, by poller name. */
  final Map<String, Integer> pages = new ConcurrentHashMap<>();

  /** "name/page@ms" per request, ms since the test started on the virtual clock. */
  final List<String> calls = new CopyOnWriteArrayList<>();

  final List<Long> callTimes = new CopyOnWriteArrayList<>();
  final List<String> waits = new CopyOnWriteArrayList<>();
  final List<String> errors = new CopyOnWriteArrayList<>();
  final Instant start = f.clock.now();
  HttpServer server;

  final WatukuyListener listener =
      new WatukuyListener() {
        @Override
        public void onBudgetWait(PollerKey key, String budget, Duration wait) {
          waits.add(key.poller() + "/" + budget + "/" + wait.toMillis());
        }

        @Override
        public void onError(PollerKey key, Throwable error) {
          errors.add(key + ": " + error);
        }
      };

  @BeforeEach
  void startServer() throws IOException {
    // Without TCP_NODELAY the body written after the headers waits for a delayed ACK (about 40 ms
    // a request). Read once, when the server classes load: effective if this class loads them.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::serve);
    server.start();
  }

  @AfterEach
  void stopServer() {
    server.stop(0);
  }

  private void serve(HttpExchange ex) throws IOException {
    long ms = Duration.between(start, f.clock.now()).toMillis();
    String name = ex.getRequestURI().getPath().substring(1);
    int page = Integer.parseInt(ex.getRequestURI().getQuery().replace("page=", ""));
    synchronized (calls) {
      calls.add(name + "/" + page + "@" + ms);
      callTimes.add(ms);
    }
    int total = pages.getOrDefault(name, 1);
    ObjectNode body = JSON.createObjectNode();
    if (page <= total) body.putArray("items").addObject().put("id", name + "-" + page);
    else body.putArray("items");
    body.put("hasMore", page < total);
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(200, bytes.length);
    ex.getResponseBody().write(bytes);
    ex.close();
  }

  private String url(String name, int page) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/" + name + "?page=" + page;
  }

  private Page<JsonNode> page(JsonNode body) {
    List<JsonNode> items = new ArrayList<>();
    body.get("items").forEach(items::add);
    return Page.of(items).withHasMore(body.get("hasMore").asBoolean());
  }

  /** A snapshotDiff poller of {@code pageCount} pages, each request through ctx.http(). */
  private Poller.Builder<JsonNode, Void> poller(String name, int pageCount) {
    pages.put(name, pageCount);
    return Poller.builder(name, JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff())
        .fetch(ctx -> page(ctx.http().get(url(name, ctx.page())).json()))
        .schedule(Fixture.FIXED)
        .budget("erp");
  }

  private Watukuy.Builder engine() {
    return f.engine("a").listener(listener);
  }

  private static boolean listingCut(KeyReport r) {
    return r.error() instanceof FetchException e && e.kind().equals("ListingTruncated");
  }

  /** Every interval [t_i, t_j] holds at most burst + requests × (t_j − t_i) / per requests. */
  static void assertRule(List<Long> times, BudgetLimit limit) {
    List<Long> sorted = times.stream().sorted().toList();
    long perMs = limit.per().toMillis();
    for (int i = 0; i < sorted.size(); i++)
      for (int j = i; j < sorted.size(); j++) {
        long count = j - i + 1;
        long t = sorted.get(j) - sorted.get(i);
        if (count * perMs > (long) limit.burst() * perMs + limit.requests() * t)
          assertThat(count)
              .as(
                  "%d requests in [%d ms, %d ms] under %s: %s",
                  count, sorted.get(i), sorted.get(j), limit, sorted)
              .isLessThanOrEqualTo(limit.burst() + limit.requests() * t / perMs);
      }
  }

  // ---- the first test G6 lists (docs/guarantees.md, G6)

  @Test
  void twoPollersSharingTwoPerTenSecondsMakeExactlySixCallsAsVirtualTimeReleasesTokens() {
    Poller<JsonNode> a = poller("a", 3).build();
    Poller<JsonNode> b = poller("b", 3).build();
    Watukuy w =
        engine()
            .budget("erp", 2, Duration.ofSeconds(10))
            .poller(a)
            .poller(b)
            .build()
            .on(a, handler)
            .on(b, handler);

    TickReport report = w.tick();

    // Two tokens at once, then one every 5 s; the tick blocked on the virtual clock meanwhile.
    assertThat(calls)
        .containsExactly("a/1@0", "a/2@0", "a/3@5000", "b/1@10000", "b/2@15000", "b/3@20000");
    assertThat(Duration.between(start, f.clock.now())).isEqualTo(Duration.ofSeconds(20));
    assertThat(waits).containsExactly("a/erp/5000", "b/erp/5000", "b/erp/5000", "b/erp/5000");
    assertRule(callTimes, BudgetLimit.of(2, Duration.ofSeconds(10)));
    assertThat(report.keys())
        .allSatisfy(
            k -> {
              assertThat(k.outcome()).isEqualTo(KeyReport.Outcome.POLLED);
              assertThat(k.error()).isNull();
              assertThat(k.pages()).isEqualTo(3);
            });
    assertThat(handler.changes())
        .containsExactly(
            "a-1:created",
            "a-2:created",
            "a-3:created",
            "b-1:created",
            "b-2:created",
            "b-3:created");
  }

  // ---- burst and refill

  @Test
  void theBurstGoesOutAtOnceAndTheRestAtTheRefillRate() {
    BudgetLimit limit = new BudgetLimit(1, Duration.ofSeconds(6), 3);
    Poller<JsonNode> a = poller("a", 5).build();
    Watukuy w = engine().budget("erp", limit).poller(a).build().on(a, handler);

    w.tick();

    assertThat(calls).containsExactly("a/1@0", "a/2@0", "a/3@0", "a/4@6000", "a/5@12000");
    assertThat(waits).containsExactly("a/erp/6000", "a/erp/6000");
    assertRule(callTimes, limit);
  }

  @Test
  void tokensRefillBetweenCyclesAtTheDeclaredRateUpToTheBurst() {
    Poller<JsonNode> a = poller("a", 2).build();
    Watukuy w = engine().budget("erp", 2, Duration.ofSeconds(10)).poller(a).build().on(a, handler);
    w.tick();
    f.nextCycle(); // 30 s idle: the bucket is full again, not fuller
    w.tick();
    f.clock.advance(Duration.ofSeconds(5)); // one token back
    w.trigger("a");
    w.tick();

    assertThat(calls)
        .containsExactly("a/1@0", "a/2@0", "a/1@30000", "a/2@30000", "a/1@35000", "a/2@40000");
    assertThat(waits).containsExactly("a/erp/5000");
    assertRule(callTimes, BudgetLimit.of(2, Duration.ofSeconds(10)));
  }

  @Test
  void everyLaneAndPartitionOfEveryPollerNamingTheBudgetIsCharged() {
    // Partitions eu and us of a, and a's reconcile lane, and poller b: one bucket of 4 per 4 s.
    pages.put("a", 1);
    pages.put("r", 2);
    pages.put("b", 1);
    Poller<JsonNode> a =
        Poller.builder("a", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.page())
            .fetch(ctx -> page(ctx.http().get(url("a", ctx.page())).json()))
            .reconcile(
                Reconcile.every(
                    Duration.ofHours(1),
                    ctx -> page(ctx.http().get(url("r", ctx.cursor())).json())))
            .partitions(List.of("eu", "us"))
            .schedule(Fixture.FIXED)
            .budget("erp")
            .build();
    Poller<JsonNode> b = poller("b", 1).build();
    Watukuy w =
        engine()
            .budget("erp", 4, Duration.ofSeconds(4))
            .poller(a)
            .poller(b)
            .build()
            .on(a, handler)
            .on(b, handler);

    w.tick();

    // eu: live page 1, reconcile pages 1 and 2; us: the same; b: one page. Four at once, then one
    // a second.
    assertThat(calls)
        .containsExactly("a/1@0", "r/1@0", "r/2@0", "a/1@0", "r/1@1000", "r/2@2000", "b/1@3000");
    assertRule(callTimes, BudgetLimit.of(4, Duration.ofSeconds(4)));
  }

  // ---- maxWait, deadline: a deferral, not a failure

  @Test
  void aRequestThatWaitsLongerThanMaxWaitDefersTheCycleWithoutCountingAFailure() {
    Poller<JsonNode> a =
        poller("a", 2)
            .maxWait(Duration.ofSeconds(10))
            .circuit(new CircuitPolicy(1, Duration.ofMinutes(5))) // one failure would open it
            .build();
    List<KeyReport> cycles = new CopyOnWriteArrayList<>();
    WatukuyListener l =
        new WatukuyListener() {
          @Override
          public void onBudgetWait(PollerKey key, String budget, Duration wait) {
            listener.onBudgetWait(key, budget, wait);
          }

          @Override
          public void onError(PollerKey key, Throwable error) {
            listener.onError(key, error);
          }

          @Override
          public void onCycle(KeyReport report) {
            cycles.add(report);
          }
        };
    Watukuy w =
        f.engine("a")
            .listener(l)
            .budget("erp", 1, Duration.ofMinutes(1))
            .poller(a)
            .build()
            .on(a, handler);

    KeyReport first = w.tick().poller("a").orElseThrow();

    // Page 1 took the only token; page 2 was told 60 s, waited maxWait 10 s and was not sent.
    assertThat(calls).containsExactly("a/1@0");
    assertThat(waits).containsExactly("a/erp/60000");
    assertThat(Duration.between(start, f.clock.now())).isEqualTo(Duration.ofSeconds(10));
    assertThat(first.outcome()).isEqualTo(KeyReport.Outcome.DEFERRED);
    assertThat(first.failed()).isFalse();
    assertThat(first.pages()).isEqualTo(1);
    assertThat(first.error())
        .isInstanceOfSatisfying(
            BudgetTimeoutException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(BudgetTimeoutException.Reason.MAX_WAIT);
              assertThat(e.waited()).isEqualTo(Duration.ofSeconds(10));
              assertThat(e.budget()).isEqualTo("erp");
              assertThat(e.key()).isEqualTo(PollerKey.of("a"));
            })
        .hasMessage(
            "poller a: budget erp: no token within maxWait 10 s (waited 10 s); the request was not sent"
                + " and the cycle is deferred");
    assertThat(cycles).extracting(KeyReport::outcome).containsExactly(KeyReport.Outcome.DEFERRED);
    assertThat(errors).isEmpty();
    // What page 1 committed stays and is delivered.
    assertThat(handler.changes()).containsExactly("a-1:created");
    ScheduleState s = f.store.loadState(PollerKey.of("a")).orElseThrow().schedule();
    assertThat(s.state()).isEqualTo(ScheduleState.Status.IDLE);
    assertThat(s.consecutiveFailures()).isZero();
    assertThat(s.circuit()).isNull();
    assertThat(s.nextDueAt()).isEqualTo(f.clock.now()); // due again at once
    assertThat(s.dueReason()).isEqualTo(ScheduleState.DueReason.CATCH_UP);
    assertThat(s.lastError().name()).isEqualTo("BudgetTimeoutException");

    // Deferred again and again: still no failure, no circuit, no backoff.
    for (int i = 0; i < 3; i++)
      assertThat(w.tick().poller("a").orElseThrow().outcome())
          .isEqualTo(KeyReport.Outcome.DEFERRED);
    s = f.store.loadState(PollerKey.of("a")).orElseThrow().schedule();
    assertThat(s.circuit()).isNull();
    assertThat(s.consecutiveFailures()).isZero();
    assertThat(errors).isEmpty();
  }

  @Test
  void aReconcileListingCutByTheBudgetWaitsForItsNextTurnWhileTheLiveLaneKeepsItsSchedule() {
    pages.put("a", 1);
    pages.put("r", 2);
    Poller<JsonNode> a =
        Poller.builder("a", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.page())
            .fetch(ctx -> page(ctx.http().get(url("a", ctx.page())).json()))
            .reconcile(
                Reconcile.every(
                    Duration.ofHours(1),
                    ctx -> page(ctx.http().get(url("r", ctx.cursor())).json())))
            .schedule(Fixture.FIXED)
            .budget("erp")
            .maxWait(Duration.ofSeconds(5))
            .build();
    Watukuy w = engine().budget("erp", 2, Duration.ofMinutes(1)).poller(a).build().on(a, handler);

    KeyReport r = w.tick().poller("a").orElseThrow();

    // Live page 1 and reconcile page 1 took the burst; reconcile page 2 waited 5 s for nothing.
    assertThat(calls).containsExactly("a/1@0", "r/1@0");
    assertThat(r.outcome()).isEqualTo(KeyReport.Outcome.DEFERRED);
    ScheduleState s = f.store.loadState(PollerKey.of("a")).orElseThrow().schedule();
    Instant now = f.clock.now();
    assertThat(Duration.between(start, now)).isEqualTo(Duration.ofSeconds(5));
    // The live lane completed: its next cycle is one interval away, and the listing waits for
    // reconcile.every, as a listing cut short by the page cap does.
    assertThat(s.state()).isEqualTo(ScheduleState.Status.IDLE);
    assertThat(s.nextDueAt()).isEqualTo(now.plus(Fixture.MIN));
    assertThat(s.dueReason()).isEqualTo(ScheduleState.DueReason.SCHEDULE);
    assertThat(s.lastReconcileAt()).isEqualTo(now);
    assertThat(s.consecutiveFailures()).isZero();
  }

  @Test
  void theTickDeadlineCutsABudgetWait() {
    Poller<JsonNode> a = poller("a", 2).build(); // maxWait: schedule.max, 10 min
    Watukuy w = engine().budget("erp", 1, Duration.ofMinutes(1)).poller(a).build().on(a, handler);

    KeyReport r = w.tick(TickOptions.deadline(Duration.ofMillis(2_500))).poller("a").orElseThrow();

    assertThat(calls).containsExactly("a/1@0");
    assertThat(Duration.between(start, f.clock.now())).isEqualTo(Duration.ofMillis(2_500));
    assertThat(r.outcome()).isEqualTo(KeyReport.Outcome.DEFERRED);
    assertThat(r.error())
        .isInstanceOfSatisfying(
            BudgetTimeoutException.class,
            e -> assertThat(e.reason()).isEqualTo(BudgetTimeoutException.Reason.TICK_DEADLINE))
        .hasMessage(
            "poller a: budget erp: the tick deadline ended the wait for a token (waited 2.5 s, maxWait"
                + " 10 min); the request was not sent and the cycle is deferred");
  }

  @Test
  void aPollerNamingAnUndeclaredBudgetFailsTheBuild() {
    Poller<JsonNode> a = poller("a", 1).build();
    assertThatThrownBy(() -> engine().poller(a).build())
        .isInstanceOf(ConfigException.class)
        .hasMessage("poller a: budget 'erp' is not declared (the engine declares no budget)");
    assertThatThrownBy(() -> engine().budget("crm", 1, Duration.ofSeconds(1)).poller(a).build())
        .isInstanceOf(ConfigException.class)
        .hasMessage("poller a: budget 'erp' is not declared; declared: crm");
    assertThatThrownBy(
            () ->
                engine()
                    .budget("erp", 1, Duration.ofSeconds(1))
                    .budget("erp", 2, Duration.ofSeconds(1)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("budget erp is declared twice");
  }

  @Test
  void aPollerWithoutBudgetIsNotCharged() {
    pages.put("free", 5);
    Poller<JsonNode> free =
        Poller.builder("free", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(ctx -> page(ctx.http().get(url("free", ctx.page())).json()))
            .schedule(Fixture.FIXED)
            .build();
    Poller<JsonNode> a = poller("a", 1).build();
    Watukuy w =
        engine()
            .budget("erp", 1, Duration.ofMinutes(1))
            .poller(free)
            .poller(a)
            .build()
            .on(free, handler)
            .on(a, handler);

    w.tick();

    assertThat(calls)
        .containsExactly("free/1@0", "free/2@0", "free/3@0", "free/4@0", "free/5@0", "a/1@0");
  }

  @Test
  void stoppingTheDaemonEndsABudgetWaitAsADeferral() throws Exception {
    VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z").withoutTimeSkipping();
    BudgetLimit limit = BudgetLimit.of(1, Duration.ofMinutes(1));
    MemoryBudgetStore budgets = new MemoryBudgetStore();
    assertThat(budgets.tryTake("erp", limit, 1, clock.now())).isZero(); // empty at the start
    Semaphore waiting = new Semaphore(0);
    List<KeyReport> ran = new CopyOnWriteArrayList<>();
    Poller<JsonNode> a = poller("a", 1).build();
    try (Watukuy w =
        Watukuy.builder()
            .store(new MemoryStore())
            .time(clock)
            .random(SeededRandom.of(7))
            .instanceId("a")
            .handlerExecutor(Runnable::run)
            .budget("erp", limit)
            .budgetStore(budgets)
            .poller(a)
            .listener(
                new WatukuyListener() {
                  @Override
                  public void onBudgetWait(PollerKey key, String budget, Duration wait) {
                    waiting.release();
                  }

                  @Override
                  public void onCycle(KeyReport report) {
                    if (report.outcome() != KeyReport.Outcome.SKIPPED_NOT_DUE) ran.add(report);
                  }
                })
            .build()) {
      w.start();
      clock.runDue();
      assertThat(waiting.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
      Thread stopper = new Thread(w::stop, "stopper"); // stop with drain
      stopper.start();
      // The wait looks at the stop once a second of the engine's clock.
      for (int i = 0; i < 100 && ran.isEmpty(); i++) {
        clock.advance(Duration.ofSeconds(1));
        stopper.join(100);
      }
      stopper.join(10_000);
      assertThat(stopper.isAlive()).isFalse();
    }
    assertThat(calls).isEmpty();
    assertThat(ran)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.outcome()).isEqualTo(KeyReport.Outcome.DEFERRED);
              assertThat(r.error())
                  .isInstanceOfSatisfying(
                      BudgetTimeoutException.class,
                      e -> assertThat(e.reason()).isEqualTo(BudgetTimeoutException.Reason.STOPPED));
            });
    assertThat(clock.pendingTimers()).isZero();
  }

  // ---- the rule over random request patterns

  /**
   * Seeded random budgets, pollers (pages, weights, partitions) and cycles, including ticks with
   * deadlines and forced triggers: in every interval the requests stay within burst + requests × T
   * / per, and no cycle fails. {@code -Dwatukuy.budget.seeds=N} runs N seeds (default 10).
   */
  @Test
  void noIntervalEverHoldsMoreRequestsThanTheRuleAllowsOverRandomPatterns() {
    long seeds = Long.getLong("watukuy.budget.seeds", 10);
    for (long seed = 1; seed <= seeds; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      calls.clear();
      callTimes.clear();
      BudgetLimit limit =
          new BudgetLimit(
              1 + random.nextInt(4),
              Duration.ofMillis(1_000 + random.nextInt(9_000)),
              1 + random.nextInt(4));
      Watukuy.Builder b =
          Watukuy.builder()
              .store(new MemoryStore())
              .time(f.clock)
              .random(SeededRandom.of(seed))
              .instanceId("i")
              .executor(Runnable::run)
              .handlerExecutor(Runnable::run)
              .budget("erp", limit);
      int pollers = 1 + random.nextInt(3);
      for (int p = 0; p < pollers; p++) {
        Poller.Builder<JsonNode, Void> pb =
            poller("p" + seed + "x" + p, 1 + random.nextInt(5)).weight(1 + random.nextInt(3));
        if (random.nextBoolean()) pb.maxWait(Duration.ofMillis(random.nextInt(8_000)));
        if (random.nextBoolean()) pb.partitions(List.of("eu", "us"));
        b.poller(pb.build());
      }
      Watukuy w = b.build();
      for (int cycle = 0; cycle < 5; cycle++) {
        for (String name : pages.keySet()) if (name.startsWith("p" + seed + "x")) w.trigger(name);
        TickOptions options =
            random.nextInt(3) == 0
                ? TickOptions.deadline(Duration.ofMillis(random.nextInt(20_000)))
                : TickOptions.DEFAULT;
        // A listing that a random deadline cut is reported (ListingTruncated), not failed.
        for (KeyReport r : w.tick(options).keys())
          assertThat(!r.failed() || listingCut(r)).as("seed %d: %s", seed, r.error()).isTrue();
        f.clock.advance(Duration.ofMillis(random.nextInt(15_000)));
      }
      assertThat(callTimes).as("seed %d", seed).isNotEmpty();
      assertRule(callTimes, limit);
    }
  }

  // ---- fairness among concurrent cycles (daemon mode)

  /**
   * Runs the pollers in daemon mode on real threads with the clock stepping only when the test
   * moves it: the budget (1 per 2 s) starts empty, every key lines up at the gate, then each 2 s
   * step frees one token. Returns the requests' pollers in the order they were sent.
   */
  private List<String> daemonOrder(List<Poller<JsonNode>> pollers, int requests) throws Exception {
    VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z").withoutTimeSkipping();
    Instant t0 = clock.now();
    BudgetLimit limit = BudgetLimit.of(1, Duration.ofSeconds(2));
    MemoryBudgetStore budgets = new MemoryBudgetStore();
    assertThat(budgets.tryTake("erp", limit, 1, clock.now())).isZero(); // empty at the start
    Semaphore progress = new Semaphore(0);
    List<String> order = new CopyOnWriteArrayList<>();
    List<Long> times = new CopyOnWriteArrayList<>();
    server.removeContext("/");
    server.createContext(
        "/",
        ex -> {
          String name = ex.getRequestURI().getPath().substring(1);
          order.add(name);
          times.add(Duration.between(t0, clock.now()).toMillis());
          serve(ex);
        });
    Watukuy.Builder b =
        Watukuy.builder()
            .store(new MemoryStore())
            .time(clock)
            .random(SeededRandom.of(7))
            .instanceId("a")
            .handlerExecutor(Runnable::run)
            .budget("erp", limit)
            .budgetStore(budgets)
            .listener(
                new WatukuyListener() {
                  @Override
                  public void onBudgetWait(PollerKey key, String budget, Duration wait) {
                    progress.release();
                  }

                  @Override
                  public void onCycle(KeyReport report) {
                    // A pass also reports the keys it skipped as not due; only a cycle that ran
                    // counts.
                    if (report.outcome() == KeyReport.Outcome.POLLED) progress.release();
                  }
                });
    pollers.forEach(b::poller);
    try (Watukuy w = b.build()) {
      w.start();
      clock.runDue(); // the first pass hands every key to its own thread
      assertThat(progress.tryAcquire(pollers.size(), 10, TimeUnit.SECONDS))
          .as("every key waits")
          .isTrue();
      for (int token = 1; token <= requests; token++) {
        // A waiting cycle reads the clock, then sleeps for the difference: move the clock only
        // once it sleeps, or its wake-up moves one step later too.
        assertThat(clock.awaitSleepers(1, Duration.ofSeconds(10))).isTrue();
        clock.advance(limit.per());
        // The key that got the token sent its request and waits again, or ended its cycle.
        assertThat(progress.tryAcquire(10, TimeUnit.SECONDS)).as("token %d used", token).isTrue();
        assertThat(order).hasSize(token);
      }
      w.stop();
      assertThat(clock.pendingTimers()).isZero();
    }
    // One request every 2 s, each at the instant its token came.
    List<Long> expected = new ArrayList<>();
    for (int i = 1; i <= requests; i++) expected.add(2_000L * i);
    assertThat(times).isEqualTo(expected);
    return order;
  }

  private static Map<String, Long> counts(List<String> names) {
    return names.stream()
        .collect(Collectors.groupingBy(n -> n, HashMap::new, Collectors.counting()));
  }

  @Test
  void concurrentKeysGetTokensRoundRobinWeightedByTheirPollers() throws Exception {
    // a and c have weight 1, b weight 2; each needs enough pages for two rounds.
    List<String> order =
        daemonOrder(
            List.of(
                poller("a", 2).build(), poller("b", 4).weight(2).build(), poller("c", 2).build()),
            8);
    // Whatever order the three threads reached the gate in, each round of four tokens gives a and
    // c one and b two.
    assertThat(counts(order.subList(0, 4))).isEqualTo(Map.of("a", 1L, "b", 2L, "c", 1L));
    assertThat(counts(order.subList(4, 8))).isEqualTo(Map.of("a", 1L, "b", 2L, "c", 1L));
  }

  @Test
  void liveRequestsGetTokensBeforeTheReconcileRequestsOfTheSameBudget() throws Exception {
    // r's live lane needs no request; its reconcile lane needs two. a and b poll live.
    pages.put("r", 2);
    Poller<JsonNode> r =
        Poller.builder("r", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.page())
            .fetch(ctx -> Page.<JsonNode>of(List.of()))
            .reconcile(
                Reconcile.every(
                    Duration.ofHours(1),
                    ctx -> page(ctx.http().get(url("r", ctx.cursor())).json())))
            .schedule(Fixture.FIXED)
            .budget("erp")
            .build();
    List<String> order = daemonOrder(List.of(r, poller("a", 2).build(), poller("b", 2).build()), 6);
    // r waited from the start, but reconcile is second in priority.
    assertThat(counts(order.subList(0, 4))).isEqualTo(Map.of("a", 2L, "b", 2L));
    assertThat(order.subList(4, 6)).containsExactly("r", "r");
  }
}
