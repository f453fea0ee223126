package io.watukuy.sink.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.sink.Destination;
import io.watukuy.sink.EventFormat;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * An engine on a virtual clock and a memory store, polling an in-JVM mutating API ({@link FakeApi})
 * into a {@link KafkaSink} on the test broker. Polling runs on the calling thread; handlers on the
 * executor given (a pool for {@code concurrency} &gt; 1).
 */
final class SinkEngine {
  static final Duration INTERVAL = Duration.ofSeconds(30);
  static final Schedule FIXED = Schedule.every(INTERVAL).withAdaptive(false).withJitter(0);

  final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  final FakeApi api = new FakeApi(clock);
  final MemoryStore store = new MemoryStore();

  /** An engine builder with the clock, a seeded random and the store set. */
  Watukuy.Builder engine(Executor handlers, int concurrency, int batchSize) {
    return Watukuy.builder()
        .store(store)
        .time(clock)
        .random(SeededRandom.of(7))
        .instanceId("kafka-test")
        .executor(Runnable::run)
        .handlerExecutor(handlers)
        .delivery(new DeliveryOptions(concurrency, 100, batchSize));
  }

  /** A poller of the API's timestamp listing; the identity is the item's id. */
  Poller.Builder<JsonNode, Watermark> timestamp(String name) {
    return Poller.builder(name, JsonNode.class)
        .identity(n -> n.get("id"))
        .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
        .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
        .fetch(api.timestampFetcher(50))
        .schedule(FIXED);
  }

  /** Moves past the poll interval so the live lane is due again. */
  void nextCycle() {
    clock.advance(INTERVAL);
  }

  static KafkaSink sink(String bootstrap, String topic, EventFormat format, Map<String, String> p) {
    return new KafkaSink(new KafkaSettings(bootstrap, Destination.parse(topic), p, format));
  }
}
