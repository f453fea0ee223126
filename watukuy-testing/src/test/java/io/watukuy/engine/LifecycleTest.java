package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.EventType;
import io.watukuy.KeyReport;
import io.watukuy.Lane;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Retain;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LifecycleTest {
  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();

  @Test
  void snapshotDiffEmitsCreatedUpdatedAndDeletedInOrder() {
    Poller<JsonNode> catalog = f.snapshot("catalog", 2).retain(Retain.PAYLOAD).build();
    Watukuy w = f.engine("a").poller(catalog).build().on(catalog, handler);
    f.api.put("a", Map.of("price", 1));
    f.api.put("b", Map.of("price", 2));
    f.api.put("c", Map.of("price", 3));

    TickReport first = w.tick();
    assertThat(first.poller("catalog").orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(handler.changes()).containsExactly("a:created", "b:created", "c:created");

    f.api.put("b", Map.of("price", 20));
    f.api.delete("c");
    f.nextCycle();
    w.tick();

    assertThat(handler.changes())
        .containsExactly("a:created", "b:created", "c:created", "b:updated", "c:deleted");
    ChangeEvent<JsonNode> updated = handler.events().get(3);
    assertThat(updated.data().get("price").asInt()).isEqualTo(20);
    assertThat(updated.previous().get("price").asInt()).isEqualTo(2);
    ChangeEvent<JsonNode> deleted = handler.events().get(4);
    assertThat(deleted.data().get("price").asInt()).isEqualTo(3);
    assertThat(deleted.version()).isEqualTo(handler.events().get(2).version());
    assertThat(deleted.lane()).isEqualTo(Lane.LIVE);
    assertThat(f.store.countPending(PollerKey.of("catalog"))).isZero();
  }

  @Test
  void unchangedItemsProduceNoEventsOnTheNextCycle() {
    Poller<JsonNode> catalog = f.snapshot("catalog", 10).build();
    Watukuy w = f.engine("a").poller(catalog).build().on(catalog, handler);
    f.seed(5);
    w.tick();
    f.nextCycle();
    TickReport second = w.tick();

    assertThat(handler.events()).hasSize(5);
    assertThat(second.eventsCommitted()).isZero();
  }

  @Test
  void keyIsNotPolledBeforeItsIntervalElapses() {
    Poller<JsonNode> catalog = f.snapshot("catalog", 10).build();
    Watukuy w = f.engine("a").poller(catalog).build().on(catalog, handler);
    w.tick();
    int requests = f.api.requests();

    TickReport early = w.tick();

    assertThat(early.poller("catalog").orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_NOT_DUE);
    assertThat(f.api.requests()).isEqualTo(requests);
  }

  @Test
  void eventEnvelopeCarriesEveryFieldOfTheDesign() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, handler);
    f.api.put("o1", Map.of("status", "new"));
    w.tick();

    ChangeEvent<JsonNode> e = handler.events().get(0);
    assertThat(e.type()).isEqualTo(EventType.CREATED);
    assertThat(e.source()).isEqualTo("orders");
    assertThat(e.partition()).isEmpty();
    assertThat(e.identity()).isEqualTo("o1");
    assertThat(e.orderingKey()).isEqualTo("o1");
    assertThat(e.version()).isEqualTo("2026-03-01T10:00:00.000Z#1");
    assertThat(e.hash()).hasSize(64);
    assertThat(e.schemaVersion()).isEqualTo(1);
    assertThat(e.sequence()).isEqualTo(1);
    assertThat(e.observedAt()).isEqualTo(f.clock.now());
    assertThat(e.attempt()).isEqualTo(1);
    assertThat(e.previous()).isNull();
    assertThat(e.data().get("status").asText()).isEqualTo("new");
  }

  @Test
  void eventsCommittedWithoutAHandlerWaitInTheOutboxUntilOneIsAttached() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build();
    f.seed(3);
    TickReport report = w.tick();

    assertThat(report.eventsCommitted()).isEqualTo(3);
    assertThat(f.store.countPending(PollerKey.of("orders"))).isEqualTo(3);

    w.on(orders, handler);
    w.tick(); // not due for polling, but the outbox is drained
    assertThat(handler.changes()).containsExactly("o001:created", "o002:created", "o003:created");
    assertThat(f.store.countPending(PollerKey.of("orders"))).isZero();
  }

  /** {@link Watukuy#running()}: true from start() to stop() or close(), never for tick() alone. */
  @Test
  void runningIsTrueFromStartUntilStopOrClose() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build();
    w.tick();
    assertThat(w.running()).as("ticked, not started").isFalse();

    w.start();
    assertThat(w.running()).isTrue();
    w.stop();
    assertThat(w.running()).isFalse();

    w.start();
    assertThat(w.running()).as("a stopped engine started again").isTrue();
    w.close();
    assertThat(w.running()).isFalse();
  }
}
