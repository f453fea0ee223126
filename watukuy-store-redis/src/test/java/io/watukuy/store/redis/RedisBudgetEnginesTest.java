package io.watukuy.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.BudgetLimit;
import io.watukuy.Cursors;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.spi.RateBudgetStore;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.ReadsWallClock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One budget across instances through the engine (guarantee G6, issue "Rate budgets", test "Across
 * instances"): three engines, each with its own state store and its own Redis connection to one
 * {@link RedisBudgetStore} prefix, run as daemons for a few seconds of real time against a local
 * HTTP server, every request of their pollers charged to the budget {@code api}. The server counts
 * arrivals in every window: never above {@code burst + requests × (T + D) / per}, where D bounds
 * the delay from a token's take to its request's arrival (measured by pairing the sorted takes with
 * the sorted arrivals; see {@link RedisBudgetCrossInstanceTest}).
 */
@ReadsWallClock("a budget shared through Redis, whose TIME is the real clock")
class RedisBudgetEnginesTest {
  @RegisterExtension static final TestRedis redis = TestRedis.local();

  /** A token every 200 ms, up to 3 at once: per at most 2 s, as the issue asks. */
  static final BudgetLimit LIMIT = new BudgetLimit(5, Duration.ofSeconds(1), 3);

  // Five seconds give about 28 requests (burst 3, then one per 200 ms), more than twice the 13
  // asserted, and every window of up to 5 s is checked against the rule; eight seconds checked
  // the same rule on longer windows only.
  static final Duration RUN = Duration.ofSeconds(5);

  @Test
  void threeEnginesOnOneRedisBudgetNeverSendAboveTheRuleInAnyWindow() throws Exception {
    String prefix = redis.newPrefix("budget-engines");
    List<Instant> arrivals = Collections.synchronizedList(new ArrayList<>());
    List<Instant> takes = Collections.synchronizedList(new ArrayList<>());
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 32);
    ExecutorService serverThreads = Executors.newFixedThreadPool(4);
    server.setExecutor(serverThreads);
    server.createContext(
        "/items",
        exchange -> {
          arrivals.add(Instant.now());
          byte[] body =
              ("[{\"id\":\"" + exchange.getRequestURI().getQuery() + "\"}]")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/items";
    List<Watukuy> engines = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        // A connection each, closed after the test.
        RedisLike connection = redis.connect().redis;
        RedisBudgetStore shared = RedisBudgetStore.builder(connection).prefix(prefix).build();
        RateBudgetStore recording =
            (name, limit, permits, now) -> {
              Duration wait = shared.tryTake(name, limit, permits, now);
              if (wait.isZero()) takes.add(now);
              return wait;
            };
        Poller<JsonNode> listing =
            Poller.builder("listing", JsonNode.class)
                .identity(n -> n.get("id"))
                .cursor(Cursors.snapshotDiff())
                .partitions(List.of("a", "b"))
                .budget("api")
                .maxWait(Duration.ofSeconds(2))
                .fetch(
                    ctx -> {
                      JsonNode items =
                          ctx.http().get(url + "?" + ctx.partition() + "-" + ctx.page()).json();
                      List<JsonNode> list = new ArrayList<>();
                      items.forEach(list::add);
                      return Page.of(list).withHasMore(ctx.page() < 10);
                    })
                .schedule(Schedule.every(Duration.ofMillis(100)).withAdaptive(false).withJitter(0))
                .build();
        Watukuy engine =
            Watukuy.builder()
                .store(new MemoryStore())
                .instanceId("engine-" + i)
                .budget("api", LIMIT)
                .budgetStore(recording)
                .poller(listing)
                .build();
        engine.on(listing, event -> {});
        engines.add(engine);
      }
      engines.forEach(Watukuy::start);
      TimeUnit.MILLISECONDS.sleep(RUN.toMillis());
    } finally {
      for (Watukuy engine : engines) {
        engine.stop(false);
        engine.close();
      }
      server.stop(0);
      serverThreads.shutdownNow();
    }

    List<Instant> seen = new ArrayList<>(arrivals);
    List<Instant> taken = new ArrayList<>(takes);
    Collections.sort(seen);
    Collections.sort(taken);
    assertThat(seen).as("requests").hasSizeGreaterThan(LIMIT.burst() + 10);
    // A token can be taken and its request not sent when the daemon stops in between.
    assertThat(taken.size()).isGreaterThanOrEqualTo(seen.size());
    long delayNanos = 0;
    for (int i = 0; i < seen.size(); i++) {
      delayNanos = Math.max(delayNanos, Duration.between(taken.get(i), seen.get(i)).toNanos());
    }
    assertThat(delayNanos).as("D in ns").isLessThan(Duration.ofSeconds(1).toNanos());
    long perNanos = LIMIT.per().toNanos();
    for (int i = 0; i < seen.size(); i++) {
      for (int j = i; j < seen.size(); j++) {
        long windowNanos = Duration.between(seen.get(i), seen.get(j)).toNanos();
        long count = j - i + 1;
        assertThat((count - LIMIT.burst()) * perNanos)
            .as(
                "%d requests within %.1f ms from %s, D = %.1f ms",
                count, windowNanos / 1e6, seen.get(i), delayNanos / 1e6)
            .isLessThanOrEqualTo(LIMIT.requests() * (windowNanos + delayNanos));
      }
    }
    // The budget, not the engines, set the pace: about what the rule allows was sent.
    long spanMs = Duration.between(seen.get(0), seen.get(seen.size() - 1)).toMillis();
    assertThat((long) seen.size())
        .isGreaterThanOrEqualTo((LIMIT.burst() + LIMIT.requests() * spanMs / 1000) * 7 / 10);
  }
}
