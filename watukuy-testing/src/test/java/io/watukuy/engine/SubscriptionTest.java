package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cancellable;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.DeliveryOptions;
import io.watukuy.LeaseLostException;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Subscription;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.ForwardingStore;
import io.watukuy.testing.SeededRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * G10: subscribe() pulls one slice at a time and acks an event when the next is asked for, under
 * the key's lease; an open subscription is the poller's consumer.
 */
class SubscriptionTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  static final Duration TTL = Watukuy.DEFAULT_LEASE_TTL;
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

  /**
   * Events committed while a subscription is open have a consumer: no handler is missing (G1,
   * "Delivery without a handler": neither {@code on(...)} nor {@code subscribe(...)}).
   */
  @Test
  void anOpenSubscriptionCountsAsAHandlerSoOnNoHandlerIsNotCalled() {
    List<Long> noHandler = new ArrayList<>();
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w =
        f.engine("a")
            .poller(orders)
            .listener(
                new WatukuyListener() {
                  @Override
                  public void onNoHandler(PollerKey key, long pending) {
                    noHandler.add(pending);
                  }
                })
            .build();
    try (Subscription<JsonNode> sub = w.subscribe(orders)) {
      f.seed(2);
      w.tick();

      assertThat(sub.next().identity()).isEqualTo("o001");
      assertThat(noHandler).isEmpty();
    }
  }

  /**
   * An ack is a write under the key's lease (G5; {@link Subscription}: "Each acknowledgement takes
   * the key's lease briefly"). While another instance holds it, the ack waits for that lease to
   * expire, up to one TTL, and is then written under a lease of its own: the other instance's lease
   * is fenced out, and the acked event is not delivered again.
   */
  @Test
  void anAckWhileAnotherInstanceHoldsTheLeaseWaitsForThatLeaseToExpireAndFencesItOut() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = engine(orders);
    f.seed(2);
    w.tick();
    String firstEventId = f.store.loadPending(ORDERS, 0, 1).get(0).eventId();
    try (Subscription<JsonNode> sub = w.subscribe(orders)) {
      assertThat(sub.next().identity()).isEqualTo("o001");
      Lease other = f.store.acquireLease(ORDERS, "b", TTL, f.clock.now()).orElseThrow();

      assertThat(sub.next().identity()).isEqualTo("o002"); // acks o001

      assertThat(f.clock.now()).isAfter(other.expiresAt());
      assertThat(f.store.loadPending(ORDERS, 0, 10))
          .extracting(OutboxRow::eventId)
          .hasSize(1)
          .doesNotContain(firstEventId);
      assertThatThrownBy(() -> f.store.ackEvents(ORDERS, other, List.of(2L)))
          .isInstanceOf(LeaseLostException.class);
    }
    try (Subscription<JsonNode> again = w.subscribe(orders)) {
      assertThat(again.next().identity()).isEqualTo("o002");
    }
  }

  /**
   * When the other instance is alive and keeps renewing its lease, the ack still gets no lease
   * after one TTL: {@code next()} fails with {@link IllegalStateException} naming the holder,
   * nothing is acked, and the event is delivered again once the lease is free (G1).
   */
  @Test
  void anAckWhileAnotherInstanceKeepsRenewingItsLeaseFailsAndLeavesTheEventPending() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = engine(orders);
    f.seed(2);
    w.tick();
    Subscription<JsonNode> sub = w.subscribe(orders);
    assertThat(sub.next().identity()).isEqualTo("o001");
    AtomicReference<Lease> other =
        new AtomicReference<>(f.store.acquireLease(ORDERS, "b", TTL, f.clock.now()).orElseThrow());
    AtomicReference<Cancellable> renewal = new AtomicReference<>();
    Runnable renew =
        new Runnable() {
          @Override
          public void run() { // every TTL / 3, as a live instance's LeaseKeeper does
            other.set(f.store.renewLease(ORDERS, other.get(), TTL, f.clock.now()).orElseThrow());
            renewal.set(f.clock.schedule(TTL.dividedBy(3), this));
          }
        };
    renewal.set(f.clock.schedule(TTL.dividedBy(3), renew));

    assertThatThrownBy(sub::next)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("leased by b");

    renewal.get().cancel();
    sub.close();
    assertThat(f.store.countPending(ORDERS)).isEqualTo(2);
    f.clock.advanceTo(other.get().expiresAt());
    try (Subscription<JsonNode> again = w.subscribe(orders)) {
      assertThat(again.next().identity()).isEqualTo("o001");
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
