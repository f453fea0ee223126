package io.watukuy.engine;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.time.Duration;
import java.util.Map;

/** Shared set-up of engine tests: virtual clock, seeded random, fake API, memory store. */
final class Fixture {
  static final Duration MIN = Duration.ofSeconds(30);

  /** Every 30 s exactly: no AIMD, no jitter, so tests step the clock by one interval. */
  static final Schedule FIXED = Schedule.every(MIN).withAdaptive(false).withJitter(0);

  final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  final FakeApi api = new FakeApi(clock);
  final StateStore store;

  Fixture() {
    this(new MemoryStore());
  }

  Fixture(StateStore store) {
    this.store = store;
  }

  /** An engine on this fixture's store; handlers run on the calling thread, in order. */
  Watukuy.Builder engine(String instanceId) {
    return Watukuy.builder()
        .store(store)
        .time(clock)
        .random(SeededRandom.of(7))
        .instanceId(instanceId)
        .executor(Runnable::run)
        .handlerExecutor(Runnable::run)
        .delivery(new DeliveryOptions(1, DeliveryOptions.DEFAULT_DISPATCH_BATCH_SIZE));
  }

  Poller.Builder<JsonNode, Watermark> timestamp(String name, int pageSize) {
    return Poller.builder(name, JsonNode.class)
        .identity(n -> n.get("id"))
        .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
        .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
        .fetch(api.timestampFetcher(pageSize))
        .schedule(FIXED);
  }

  Poller.Builder<JsonNode, Void> snapshot(String name, int pageSize) {
    return Poller.builder(name, JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff())
        .fetch(api.snapshotFetcher(pageSize))
        .schedule(FIXED);
  }

  void seed(int count) {
    for (int i = 1; i <= count; i++) api.put(String.format("o%03d", i), Map.of("n", i));
  }

  /** Moves past the poll interval so the live lane is due again. */
  void nextCycle() {
    clock.advance(MIN);
  }
}
