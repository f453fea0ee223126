package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.BudgetLimit;
import io.watukuy.Cursors;
import io.watukuy.Fetcher;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.engine.PrefetchTest.GatedStore;
import io.watukuy.store.memory.MemoryStore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A page fetched ahead through {@code ctx.http()} against a real HTTP server on 127.0.0.1 is a
 * request like any other (docs/architecture.md, "A page ahead"): it takes its rate-budget token and
 * waits for it (G6), and a Retry-After holds the next page back exactly as in a cycle without
 * prefetch. Each poller lists three pages of one item; requests are logged as {@code name/page@ms
 * status} on the virtual clock.
 */
class PrefetchHttpTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Duration WAIT = PrefetchTest.WAIT;

  final GatedStore store = new GatedStore(new MemoryStore());
  final Fixture f = new Fixture(store);
  final Recorder handler = new Recorder();
  final Instant start = f.clock.now();
  final ExecutorService pool = Executors.newFixedThreadPool(2);
  final AtomicInteger handedOut = new AtomicInteger();
  final Executor counting =
      task -> {
        handedOut.incrementAndGet();
        pool.execute(task);
      };

  /** "name/page@ms status" per request. */
  final List<String> calls = new CopyOnWriteArrayList<>();

  final List<String> waits = new CopyOnWriteArrayList<>();

  /** "name/page" answered once with 429 and Retry-After: 60. */
  final Set<String> throttleOnce = ConcurrentHashMap.newKeySet();

  /** "name/page" whose 200 carries Retry-After: 5. */
  final Set<String> retryAfterOn200 = ConcurrentHashMap.newKeySet();

  HttpServer server;

  @BeforeEach
  void startServer() throws IOException {
    System.setProperty("sun.net.httpserver.nodelay", "true");
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::serve);
    server.start();
  }

  @AfterEach
  void stopServer() {
    server.stop(0);
    pool.shutdownNow();
  }

  private void serve(HttpExchange ex) throws IOException {
    long ms = Duration.between(start, f.clock.now()).toMillis();
    String name = ex.getRequestURI().getPath().substring(1);
    int page = Integer.parseInt(ex.getRequestURI().getQuery().replace("page=", ""));
    String at = name + "/" + page;
    if (throttleOnce.remove(at)) {
      calls.add(at + "@" + ms + " 429");
      ex.getResponseHeaders().add("Retry-After", "60");
      ex.sendResponseHeaders(429, -1);
      ex.close();
      return;
    }
    calls.add(at + "@" + ms + " 200");
    if (retryAfterOn200.contains(at)) ex.getResponseHeaders().add("Retry-After", "5");
    ObjectNode body = JSON.createObjectNode();
    body.putArray("items").addObject().put("id", name + "-" + page);
    body.put("hasMore", page < 3);
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(200, bytes.length);
    ex.getResponseBody().write(bytes);
    ex.close();
  }

  private Page<JsonNode> page(JsonNode body) {
    List<JsonNode> items = new ArrayList<>();
    body.get("items").forEach(items::add);
    return Page.of(items).withHasMore(body.get("hasMore").asBoolean());
  }

  /** A page poller of three pages, each request through ctx.http(). */
  private Poller.Builder<JsonNode, Integer> poller(String name, boolean ahead) {
    String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/" + name + "?page=";
    Fetcher<JsonNode, Integer> fetch = ctx -> page(ctx.http().get(base + ctx.cursor()).json());
    return Poller.builder(name, JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.page())
        .fetch(ahead ? fetch : Fetcher.sequential(fetch))
        .schedule(Fixture.FIXED);
  }

  private Watukuy.Builder engine() {
    return f.engine("a")
        .executor(counting)
        .listener(
            new WatukuyListener() {
              @Override
              public void onBudgetWait(PollerKey key, String budget, Duration wait) {
                waits.add(key.poller() + "/" + budget + "/" + wait.toMillis());
              }
            });
  }

  @Test
  void thePageFetchedAheadIsChargedAndWaitsForItsTokenAsASequentialCycleWould() {
    BudgetLimit limit = BudgetLimit.of(1, Duration.ofSeconds(10));
    Poller<JsonNode> a = poller("a", true).budget("erp").build();
    Watukuy w = engine().budget("erp", limit).poller(a).build().on(a, handler);
    List<String> duringFirstCommit = new CopyOnWriteArrayList<>();
    store.gate =
        (n, key, lease) -> {
          if (n != 1) return;
          // Page 2's request waits for its token on the clock while page 1 commits, unsent.
          duringFirstCommit.add("sleeping " + f.clock.awaitSleepers(1, WAIT));
          duringFirstCommit.addAll(calls);
          f.clock.setTimeSkipping(true); // lets the waiting request move the clock to its token
        };
    f.clock.setTimeSkipping(false);

    KeyReport report = w.tick().poller("a").orElseThrow();

    assertThat(report.error()).isNull();
    assertThat(duringFirstCommit).containsExactly("sleeping true", "a/1@0 200");
    // One token every 10 s: the times of a sequential cycle (BudgetTest), each page charged.
    assertThat(calls).containsExactly("a/1@0 200", "a/2@10000 200", "a/3@20000 200");
    assertThat(waits).containsExactly("a/erp/10000", "a/erp/10000");
    BudgetTest.assertRule(
        calls.stream().map(c -> Long.parseLong(c.replaceAll(".*@| .*", ""))).toList(), limit);
    assertThat(handler.changes()).containsExactly("a-1:created", "a-2:created", "a-3:created");
  }

  @Test
  void aRetryAfterOnPageTwoHoldsPageThreeBackExactlyAsASequentialCycleDoes() {
    Poller<JsonNode> a = poller("a", true).build();
    Poller<JsonNode> s = poller("s", false).build();
    Watukuy w = engine().poller(a).poller(s).build().on(a, handler).on(s, handler);
    throttleOnce.addAll(List.of("a/2", "s/2"));

    TickReport first = w.tick();
    f.clock.advance(Duration.ofSeconds(59));
    TickReport early = w.tick();
    f.clock.advance(Duration.ofSeconds(1));
    TickReport after = w.tick();

    assertThat(first.keys()).allSatisfy(k -> assertThat(k.pages()).isEqualTo(1));
    assertThat(early.keys())
        .allSatisfy(k -> assertThat(k.outcome()).isEqualTo(KeyReport.Outcome.SKIPPED_THROTTLED));
    assertThat(after.keys()).allSatisfy(k -> assertThat(k.error()).isNull());
    List<String> expected = List.of("x/1@0 200", "x/2@0 429", "x/2@60000 200", "x/3@60000 200");
    assertThat(of("a")).isEqualTo(expected);
    assertThat(of("s")).isEqualTo(expected);
    assertThat(handler.changes())
        .containsExactly(
            "a-1:created",
            "s-1:created",
            "a-2:created",
            "a-3:created",
            "s-2:created",
            "s-3:created");
  }

  @Test
  void noPageIsFetchedAheadOfAResponseThatCarriesRetryAfter() {
    Poller<JsonNode> a = poller("a", true).build();
    Watukuy w = engine().poller(a).build().on(a, handler);
    retryAfterOn200.add("a/1");
    Map<Integer, Integer> handedOutAtCommit = new ConcurrentHashMap<>();
    store.gate = (n, key, lease) -> handedOutAtCommit.put(n, handedOut.get());

    KeyReport report = w.tick().poller("a").orElseThrow();

    assertThat(report.error()).isNull();
    // Page 1 said Retry-After: page 2 went out after its commit. Page 2 did not: page 3 went
    // ahead while page 2 committed.
    assertThat(handedOutAtCommit).containsEntry(1, 0).containsEntry(2, 1);
    assertThat(calls).containsExactly("a/1@0 200", "a/2@0 200", "a/3@0 200");
    assertThat(handler.changes()).containsExactly("a-1:created", "a-2:created", "a-3:created");
  }

  /** The requests of poller {@code name}, with the name replaced by x. */
  private List<String> of(String name) {
    return calls.stream()
        .filter(c -> c.startsWith(name + "/"))
        .map(c -> "x" + c.substring(1))
        .toList();
  }
}
