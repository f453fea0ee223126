package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.DeliveryOptions;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.spi.Lease;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.ForwardingStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Acks are written together, but never more than {@code delivery.concurrency} handled events wait
 * for theirs (G9: a crash costs at most one duplicate per in-flight event), and the next event of
 * an ordering key starts only once the earlier one is acked (docs/architecture.md, "Kill points",
 * K4).
 */
class AckBatchingTest {
  private static final PollerKey ORDERS = PollerKey.of("orders");

  /** Records every ackEvents call. */
  private static final class AckLog extends ForwardingStore {
    final List<List<Long>> calls = new ArrayList<>();

    AckLog() {
      super(new MemoryStore());
    }

    @Override
    public synchronized void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
      super.ackEvents(key, lease, sequences);
      calls.add(List.copyOf(sequences));
    }
  }

  @Test
  void twentyEventsUnderConcurrencyEightAreAckedInFewerCallsNeverMoreThanEightAtOnce() {
    AckLog store = new AckLog();
    Fixture f = new Fixture(store);
    f.seed(20);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Recorder r = new Recorder();
    Watukuy w =
        f.engine("a").delivery(new DeliveryOptions(8, 100)).poller(orders).build().on(orders, r);

    w.tick();

    assertThat(r.changes()).hasSize(20);
    assertThat(store.countPending(ORDERS)).isZero();
    List<Long> acked = store.calls.stream().flatMap(List::stream).toList();
    List<Long> handled = r.events().stream().map(e -> e.sequence()).toList();
    assertThat(acked).as("every handled event acked once, in the order handled").isEqualTo(handled);
    assertThat(store.calls).allSatisfy(call -> assertThat(call).hasSizeLessThanOrEqualTo(8));
    // Permits run out with eight in flight; once half of them are handled their acks are written
    // (events 1-4, 5-8, 9-12); events 17-20 find free permits, and the last eight are acked when
    // the batch ends.
    assertThat(store.calls).extracting(List::size).containsExactly(4, 4, 4, 8);
  }

  @Test
  void withConcurrencyOneEveryEventIsAckedBeforeTheNextStarts() {
    AckLog store = new AckLog();
    Fixture f = new Fixture(store);
    f.seed(5);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Recorder r = new Recorder();
    f.engine("a").poller(orders).build().on(orders, r).tick();

    assertThat(store.calls).hasSize(5).allSatisfy(call -> assertThat(call).hasSize(1));
  }

  @Test
  void theNextEventOfAnOrderingKeyStartsOnlyOnceTheEarlierOneIsAcked() {
    AckLog store = new AckLog();
    Fixture f = new Fixture(store);
    f.seed(12);
    // One ordering key for every item: each event must find every earlier one acked.
    Poller<JsonNode> orders = f.timestamp("orders", 50).orderingKey(item -> "all").build();
    List<String> violations = new ArrayList<>();
    Watukuy w = f.engine("a").delivery(new DeliveryOptions(8, 100)).poller(orders).build();
    w.on(
        orders,
        event -> {
          long oldestPending = store.loadPending(ORDERS, 0, 1).get(0).sequence();
          if (oldestPending != event.sequence())
            violations.add(event.sequence() + " ran while " + oldestPending + " was unacked");
        });

    w.tick();

    assertThat(violations).isEmpty();
    assertThat(store.countPending(ORDERS)).isZero();
    assertThat(store.calls).hasSize(12);
  }
}
