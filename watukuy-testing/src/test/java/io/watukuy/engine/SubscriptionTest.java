package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.DeliveryOptions;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Subscription;
import io.watukuy.Watukuy;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.ForwardingStore;
import io.watukuy.testing.SeededRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** G10: subscribe() pulls one slice at a time and acks an event when the next is asked for. */
class SubscriptionTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  final Fixture f = new Fixture();
  final List<Integer> loads = new CopyOnWriteArrayList<>();
  final StateStore counting =
      new ForwardingStore(f.store) {
        @Override
        public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
          loads.add(limit);
          return super.loadPending(key, afterSequence, limit);
        }
      };

  Watukuy engine(Poller<JsonNode> p) {
    return Watukuy.builder()
        .store(counting)
        .time(f.clock)
        .random(SeededRandom.of(1))
        .instanceId("a")
        .executor(Runnable::run)
        .handlerExecutor(Runnable::run)
        .delivery(new DeliveryOptions(1, 2))
        .poller(p)
        .build();
  }

  @Test
  void subscribeAcksOnNextAndEmptiesTheOutboxOnlyAfterEverythingWasPulled() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = engine(orders);
    f.seed(5);
    w.tick();
    assertThat(f.store.countPending(ORDERS)).isEqualTo(5);

    List<String> got = new ArrayList<>();
    try (Subscription<JsonNode> sub = w.subscribe(orders)) {
      loads.clear();
      for (int i = 0; i < 5; i++) {
        ChangeEvent<JsonNode> e = sub.next();
        got.add(e.identity());
        assertThat(f.store.countPending(ORDERS)).isEqualTo(5 - i); // this one is not acked yet
      }
      assertThat(loads).containsExactly(2, 2, 2); // slices of dispatchBatchSize, loaded on demand
      assertThat(sub.hasNext()).isFalse();
      assertThat(f.store.countPending(ORDERS)).isZero();
    }
    assertThat(got).containsExactly("o001", "o002", "o003", "o004", "o005");
  }

  @Test
  void closingLeavesTheUnackedEventsInTheOutbox() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = engine(orders);
    f.seed(3);
    w.tick();
    try (Subscription<JsonNode> sub = w.subscribe(orders)) {
      assertThat(sub.next().identity()).isEqualTo("o001");
      assertThat(sub.next().identity()).isEqualTo("o002"); // acks o001
    }
    assertThat(f.store.countPending(ORDERS)).isEqualTo(2);
    try (Subscription<JsonNode> again = w.subscribe(orders)) {
      assertThat(again.next().identity()).isEqualTo("o002"); // redelivered: it was never acked
    }
  }

  @Test
  void aPollerWithAHandlerCannotAlsoBeSubscribed() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = engine(orders);
    w.on(orders, e -> {});
    assertThatThrownBy(() -> w.subscribe(orders))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("handler");
  }
}
