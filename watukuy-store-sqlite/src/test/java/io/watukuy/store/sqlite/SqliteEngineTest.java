package io.watukuy.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Schedule;
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
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine on SqliteStore: restarts, two processes on one file, and G2 across stores. */
class SqliteEngineTest {
  static final Duration MIN = Duration.ofSeconds(30);
  @TempDir Path dir;

  final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  final FakeApi api = new FakeApi(clock);

  Poller<JsonNode> orders() {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
        .fetch(api.timestampFetcher(3))
        .schedule(Schedule.every(MIN).withAdaptive(false).withJitter(0))
        .build();
  }

  Poller<JsonNode> catalog() {
    return Poller.builder("catalog", JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff())
        .fetch(api.snapshotFetcher(3))
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
  void memoryAndSqliteWorldsProduceIdenticalIdLists() {
    List<String> memory = world(new MemoryStore(), new VirtualClock(), "memory");
    List<String> sqlite;
    try (SqliteStore store = SqliteStore.open(dir.resolve("g2.db"))) {
      sqlite = world(store, new VirtualClock(), "sqlite");
    }
    assertThat(memory).hasSize(7 + 7 + 1 + 1 + 1).doesNotHaveDuplicates();
    assertThat(sqlite).isEqualTo(memory);
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
    Path file = dir.resolve("restart.db");
    for (int i = 1; i <= 4; i++) api.put("o" + i, Map.of("n", i));
    List<ChangeEvent<JsonNode>> first = new ArrayList<>();
    try (SqliteStore store = SqliteStore.open(file)) {
      Poller<JsonNode> p = orders();
      engine(store, "first", p).on(p, first::add).tick();
    }
    clock.advance(MIN);
    api.put("o2", Map.of("n", 20));
    api.put("o5", Map.of("n", 5));
    int before = api.requests();
    List<ChangeEvent<JsonNode>> second = new ArrayList<>();
    try (SqliteStore store = SqliteStore.open(file)) {
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
  void twoProcessesOnOneFileNeverPollTheSameKeyAtOnce() {
    Path file = dir.resolve("shared.db");
    for (int i = 1; i <= 2; i++) api.put("o" + i, Map.of("n", i));
    try (SqliteStore a = SqliteStore.open(file);
        SqliteStore b = SqliteStore.open(file)) {
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
}
