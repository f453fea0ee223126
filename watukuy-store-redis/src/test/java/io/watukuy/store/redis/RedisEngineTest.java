package io.watukuy.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Schedule;
import io.watukuy.StoreException;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine on RedisStore: restarts, two instances on one store, G2 across stores, a server
 * outage.
 */
class RedisEngineTest {
  static final Duration MIN = Duration.ofSeconds(30);

  private static LocalRedis redis;
  private final List<String> prefixes = new ArrayList<>();

  final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  final FakeApi api = new FakeApi(clock);

  @BeforeAll
  static void connect() {
    redis = LocalRedis.open();
  }

  @AfterAll
  static void disconnect() {
    redis.close();
  }

  @AfterEach
  void deleteKeys() {
    prefixes.forEach(redis::deleteKeys);
  }

  String prefix() {
    String p = LocalRedis.newPrefix("engine");
    prefixes.add(p);
    return p;
  }

  Poller<JsonNode> orders() {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
        .fetch(api.timestampFetcher(3))
        .schedule(Schedule.every(MIN).withAdaptive(false).withJitter(0))
        .build();
  }

  Watukuy engine(StateStore store, String id, Poller<?>... pollers) {
    Watukuy.Builder b =
        Watukuy.builder()
            .store(store)
            .time(clock)
            .random(SeededRandom.of(7))
            .instanceId(id)
            .executor(Runnable::run)
            .handlerExecutor(Runnable::run)
            .delivery(new DeliveryOptions(1, 100));
    for (Poller<?> p : pollers) b.poller(p);
    return b.build();
  }

  @Test
  void memoryAndRedisWorldsProduceIdenticalIdLists() {
    List<String> memory = world(new MemoryStore(), new VirtualClock(), "memory");
    List<String> onRedis = world(redis.store(prefix()), new VirtualClock(), "redis");

    assertThat(memory).hasSize(7 + 7 + 1 + 1 + 1).doesNotHaveDuplicates();
    assertThat(onRedis).isEqualTo(memory);
  }

  private static List<String> world(StateStore store, VirtualClock clock, String id) {
    FakeApi api = new FakeApi(clock);
    Poller<JsonNode> orders =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
            .fetch(api.timestampFetcher(3))
            .schedule(Schedule.every(MIN).withAdaptive(false).withJitter(0))
            .build();
    Poller<JsonNode> catalog =
        Poller.builder("catalog", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(api.snapshotFetcher(3))
            .schedule(Schedule.every(MIN).withAdaptive(false).withJitter(0))
            .build();
    List<String> ids = new ArrayList<>();
    Watukuy w =
        Watukuy.builder()
            .store(store)
            .time(clock)
            .random(SeededRandom.of(7))
            .instanceId(id)
            .executor(Runnable::run)
            .handlerExecutor(Runnable::run)
            .delivery(new DeliveryOptions(1, 100))
            .poller(orders)
            .poller(catalog)
            .build();
    w.on(orders, e -> ids.add(e.id())).on(catalog, e -> ids.add(e.id()));
    for (int i = 1; i <= 7; i++) api.put("o" + i, Map.of("n", i));
    w.tick();
    clock.advance(MIN);
    api.put("o2", Map.of("n", 22));
    api.delete("o5");
    w.tick();
    return ids;
  }

  @Test
  void aRestartedProcessContinuesFromTheStoredCursorAndSequence() {
    String prefix = prefix();
    for (int i = 1; i <= 4; i++) api.put("o" + i, Map.of("n", i));
    List<ChangeEvent<JsonNode>> first = new ArrayList<>();
    try (RedisStore store = redis.store(prefix)) {
      Poller<JsonNode> p = orders();
      engine(store, "first", p).on(p, first::add).tick();
    }
    clock.advance(MIN);
    api.put("o2", Map.of("n", 20));
    api.put("o5", Map.of("n", 5));
    int before = api.requests();
    List<ChangeEvent<JsonNode>> second = new ArrayList<>();
    try (RedisStore store = redis.store(prefix)) {
      Poller<JsonNode> p = orders();
      engine(store, "second", p).on(p, second::add).tick();
    }

    assertThat(first)
        .extracting(e -> e.identity() + ":" + e.type().wire())
        .containsExactly("o1:created", "o2:created", "o3:created", "o4:created");
    assertThat(second)
        .extracting(e -> e.identity() + ":" + e.type().wire())
        .containsExactly("o2:updated", "o5:created");
    assertThat(second).extracting(ChangeEvent::sequence).containsExactly(5L, 6L);
    assertThat(api.requests() - before)
        .isEqualTo(1); // resumed from the watermark, not from the start
  }

  @Test
  void twoInstancesOnOneStoreNeverPollTheSameKeyAtOnce() {
    String prefix = prefix();
    for (int i = 1; i <= 2; i++) api.put("o" + i, Map.of("n", i));
    try (LocalRedis other = LocalRedis.open();
        RedisStore a = redis.store(prefix);
        RedisStore b = other.store(prefix)) {
      Poller<JsonNode> pa = orders();
      Poller<JsonNode> pb = orders();
      List<String> seenByB = new ArrayList<>();
      Watukuy wb = engine(b, "b", pb).on(pb, e -> seenByB.add(e.id()));
      AtomicReference<TickReport> duringA = new AtomicReference<>();
      List<String> seenByA = new ArrayList<>();
      Watukuy wa =
          engine(a, "a", pa)
              .on(
                  pa,
                  e -> {
                    seenByA.add(e.id());
                    if (duringA.get() == null) duringA.set(wb.tick());
                  });

      wa.tick();

      assertThat(duringA.get().key(PollerKey.of("orders")).orElseThrow().outcome())
          .isEqualTo(KeyReport.Outcome.SKIPPED_LEASED);
      assertThat(seenByA).hasSize(2);
      assertThat(seenByB).isEmpty();
    }
  }

  @Test
  void aServerOutageFailsTheCycleWithAStoreErrorAndTheEngineRecoversWhenItReturns(@TempDir Path dir)
      throws Exception {
    try (PrivateRedis server = PrivateRedis.start(dir, true)) {
      RedisURI uri =
          RedisURI.builder()
              .withHost("127.0.0.1")
              .withPort(server.port)
              .withTimeout(Duration.ofSeconds(2))
              .build();
      ClientResources resources =
          ClientResources.builder().reconnectDelay(Delay.constant(Duration.ofMillis(50))).build();
      RedisClient client = RedisClient.create(resources, uri);
      client.setOptions(
          ClientOptions.builder()
              .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
              .build());
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        RedisStore store = RedisStore.open(LettuceRedis.of(connection, uri));
        Poller<JsonNode> p = orders();
        List<String> delivered = new ArrayList<>();
        Watukuy w =
            engine(store, "only", p)
                .on(p, e -> delivered.add(e.identity() + ":" + e.type().wire()));
        for (int i = 1; i <= 3; i++) api.put("o" + i, Map.of("n", i));
        w.tick();
        assertThat(delivered).containsExactly("o1:created", "o2:created", "o3:created");

        server.stop();
        clock.advance(MIN);
        api.put("o2", Map.of("n", 20));
        api.put("o4", Map.of("n", 4));
        TickReport down = w.tick();

        KeyReport failed = down.key(PollerKey.of("orders")).orElseThrow();
        assertThat(failed.error())
            .isInstanceOf(StoreException.class)
            .hasMessageContaining("redis store " + server.endpoint());
        assertThat(delivered).hasSize(3);

        server.start();
        // The backoff and the lease both run on the virtual clock; the reconnect takes real time.
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (!delivered.contains("o4:created")) {
          clock.advance(Duration.ofMinutes(1));
          TickReport report = w.tick();
          if (System.nanoTime() > deadline) {
            throw new AssertionError("no recovery within 15 s; last report " + report);
          }
          if (report.failed()) Thread.sleep(50);
        }

        assertThat(delivered)
            .containsExactly("o1:created", "o2:created", "o3:created", "o2:updated", "o4:created");
        assertThat(store.countPending(PollerKey.of("orders"))).isZero();
      } finally {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
      }
    }
  }
}
