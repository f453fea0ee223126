package io.watukuy.sink.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.DeliveryPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedRow;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * An engine on a virtual clock, a seeded random, an in-JVM mutating API and a memory store, with a
 * {@link WebhookSink} on the same clock: time moves only when the test says so, the HTTP requests
 * are real.
 */
final class EngineSetup {
  static final PollerKey ORDERS = PollerKey.of("orders");
  static final Duration INTERVAL = Duration.ofSeconds(30);
  static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  final FakeApi api = new FakeApi(clock);
  final MemoryStore store = new MemoryStore();

  /** A snapshot poller (creates, updates and deletes; version = the item's hash). */
  Poller.Builder<JsonNode, Void> snapshot(int attempts) {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff())
        .fetch(api.snapshotFetcher(50))
        .schedule(Schedule.every(INTERVAL).withAdaptive(false).withJitter(0))
        .delivery(DeliveryPolicy.DEFAULT.withRetry(RetryPolicy.attempts(attempts)));
  }

  WebhookSink sink(WebhookSettings settings) {
    return new WebhookSink(settings, clock);
  }

  /** An engine delivering {@code poller} to {@code sink}; handlers run on {@code handlers}. */
  Watukuy engine(
      Poller<JsonNode> poller,
      WebhookSink sink,
      int concurrency,
      int batchSize,
      Executor handlers) {
    return Watukuy.builder()
        .store(store)
        .time(clock)
        .random(SeededRandom.of(7))
        .instanceId("test")
        .executor(Runnable::run)
        .handlerExecutor(handlers)
        .delivery(new DeliveryOptions(concurrency, 100, batchSize))
        .poller(poller)
        .sink(poller, sink)
        .build();
  }

  Watukuy engine(Poller<JsonNode> poller, WebhookSink sink) {
    return engine(poller, sink, 1, 10, Runnable::run);
  }

  List<OutboxRow> pending() {
    return store.loadPending(ORDERS, 0, 100);
  }

  List<ParkedRow> parked() {
    return store.listParked(ORDERS, null, 100);
  }

  void nextCycle() {
    clock.advance(INTERVAL);
  }
}
