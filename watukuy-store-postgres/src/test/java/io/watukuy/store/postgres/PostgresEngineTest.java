package io.watukuy.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
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
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The engine end to end on PostgresStore under a virtual clock: G2 across stores, a restart that
 * continues from the stored cursor, and two instances on one schema that never poll a key at once.
 */
class PostgresEngineTest {
  static final Duration MIN = Duration.ofSeconds(30);

  private static HikariDataSource pool;
  private static String schema;
  private static int prefixes;

  final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  final FakeApi api = new FakeApi(clock);

  @BeforeAll
  static void openPool() {
    pool = PgTest.pool(PgTest.unique("watukuy-engine"), 4);
    schema = PgTest.unique("wk_engine");
  }

  @AfterAll
  static void dropSchema() {
    try {
      PgTest.dropSchema(pool, schema);
    } finally {
      pool.close();
    }
  }

  /** A store on fresh tables of this class's schema; same prefix, same tables. */
  private static PostgresStore store(String prefix) {
    return PostgresStore.builder(pool).schema(schema).tablePrefix(prefix).build();
  }

  private static String freshPrefix() {
    return "e" + ++prefixes + "_";
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
  void memoryAndPostgresWorldsProduceIdenticalIdLists() {
    List<String> memory = world(new MemoryStore(), new VirtualClock(), "memory");
    List<String> postgres;
    try (PostgresStore store = store(freshPrefix())) {
      postgres = world(store, new VirtualClock(), "postgres");
    }
    assertThat(memory).hasSize(7 + 7 + 1 + 1 + 1).doesNotHaveDuplicates();
    assertThat(postgres).isEqualTo(memory);
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
    String prefix = freshPrefix();
    for (int i = 1; i <= 4; i++) api.put("o" + i, Map.of("n", i));
    List<ChangeEvent<JsonNode>> first = new ArrayList<>();
    try (PostgresStore store = store(prefix)) {
      Poller<JsonNode> p = orders();
      engine(store, "first", p).on(p, first::add).tick();
    }
    clock.advance(MIN);
    api.put("o2", Map.of("n", 20));
    api.put("o5", Map.of("n", 5));
    int before = api.requests();
    List<ChangeEvent<JsonNode>> second = new ArrayList<>();
    try (PostgresStore store = store(prefix)) {
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
  void twoInstancesOnOneSchemaNeverPollTheSameKeyAtOnce() {
    String prefix = freshPrefix();
    for (int i = 1; i <= 2; i++) api.put("o" + i, Map.of("n", i));
    try (PostgresStore a = store(prefix);
        PostgresStore b = store(prefix)) {
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

      // Once a has released the lease, b takes over where a stopped: no event twice.
      clock.advance(MIN);
      api.put("o3", Map.of("n", 3));
      wb.tick();
      assertThat(seenByB).hasSize(1);
      assertThat(seenByA).doesNotContainAnyElementsOf(seenByB);
      assertThat(b.getLease(PollerKey.of("orders"))).isEmpty();
    }
  }

  @Test
  void aBackendTerminatedMidCycleFailsThatCycleAndTheNextTicksDeliverEverything() throws Exception {
    String application = PgTest.unique("watukuy-engine-terminated");
    String prefix = freshPrefix();
    for (int i = 1; i <= 4; i++) api.put("o" + i, Map.of("n", i));
    List<String> delivered = new ArrayList<>();
    List<CompletableFuture<Void>> killers = new ArrayList<>();
    try (HikariDataSource single = PgTest.pool(application, 1);
        PostgresStore store =
            PostgresStore.builder(single).schema(schema).tablePrefix(prefix).build()) {
      Poller<JsonNode> p = orders();
      Watukuy w =
          engine(store, "a", p)
              .on(
                  p,
                  e -> {
                    delivered.add(e.identity());
                    if (killers.isEmpty()) {
                      // Another session holds the key's row, so the engine's ack waits for it; the
                      // backend
                      // waiting there is terminated, as an administrator or a failover would.
                      killers.add(terminateWhileWaiting(prefix, application));
                    }
                  });

      TickReport first = w.tick();
      killers.get(0).get(30, TimeUnit.SECONDS);

      Throwable error = first.key(PollerKey.of("orders")).orElseThrow().error();
      assertThat(error)
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("postgres store 127.0.0.1:5432/test")
          .hasMessageContaining("ackEvents orders failed")
          .hasMessageContaining("57P01");
      assertThat(delivered).containsExactly("o1");
      // The failed cycle backs off; at most ten more ticks, 30 s apart, finish the work.
      for (int i = 0; i < 10; i++) {
        clock.advance(MIN);
        if (w.tick().failed()) {
          throw new AssertionError("tick " + i + " after the failure failed");
        }
        if (delivered.containsAll(List.of("o1", "o2", "o3", "o4"))
            && store.countPending(PollerKey.of("orders")) == 0) {
          break;
        }
      }
      // o1 was delivered but not acknowledged: it comes again (at-least-once), then the rest.
      assertThat(delivered).containsExactly("o1", "o1", "o2", "o3", "o4");
      assertThat(store.countPending(PollerKey.of("orders"))).isZero();
    }
  }

  /**
   * Locks the pollers row of {@code orders} from a session of its own, then, on another thread,
   * waits until a backend of {@code application} waits for that lock, terminates it, and lets the
   * row go.
   */
  private CompletableFuture<Void> terminateWhileWaiting(String prefix, String application) {
    Connection blocker;
    try {
      blocker = PgTest.connect();
      blocker.setAutoCommit(false);
      try (Statement s = blocker.createStatement()) {
        s.executeQuery("SELECT 1 FROM \"" + schema + "\"." + prefix + "pollers FOR UPDATE").close();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return CompletableFuture.runAsync(
        () -> {
          try (blocker;
              Connection admin = PgTest.connect();
              Statement s = admin.createStatement()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
              try (ResultSet rs =
                  s.executeQuery(
                      "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                          + " WHERE datname = 'test' AND application_name = '"
                          + application
                          + "'"
                          + " AND wait_event_type = 'Lock') t")) {
                rs.next();
                if (rs.getLong(1) > 0) break;
              }
              if (System.nanoTime() > deadline)
                throw new AssertionError("the engine never waited for the row lock");
              Thread.sleep(20);
            }
            blocker.rollback();
          } catch (SQLException | InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }
}
