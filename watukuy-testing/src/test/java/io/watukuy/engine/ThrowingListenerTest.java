package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.CycleInfo;
import io.watukuy.DeliveryOutcome;
import io.watukuy.HttpStatusException;
import io.watukuy.KeyReport;
import io.watukuy.LeaseLostException;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.ParkedRow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A listener that throws from every callback changes nothing the engine does: its exceptions are
 * logged and dropped, every callback is still made, and cycles, delivery and the schedule go on.
 */
class ThrowingListenerTest {
  static final PollerKey ORDERS = PollerKey.of("orders");

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();
  final List<String> calls = new CopyOnWriteArrayList<>();

  final WatukuyListener throwing =
      new WatukuyListener() {
        @Override
        public void onLeaseLost(PollerKey key, LeaseLostException error) {
          fail("onLeaseLost");
        }

        @Override
        public void onBudgetWait(PollerKey key, String budget, Duration wait) {
          fail("onBudgetWait");
        }

        @Override
        public void onParked(PollerKey key, ParkedRow row) {
          fail("onParked");
        }

        @Override
        public void onThrottled(PollerKey key, Instant until) {
          fail("onThrottled");
        }

        @Override
        public void onCircuitOpen(PollerKey key, Instant probeAt) {
          fail("onCircuitOpen");
        }

        @Override
        public void onCircuitClose(PollerKey key) {
          fail("onCircuitClose");
        }

        @Override
        public void onCycle(KeyReport report) {
          fail("onCycle");
        }

        @Override
        public void onError(PollerKey key, Throwable error) {
          fail("onError");
        }

        @Override
        public void onNoHandler(PollerKey key, long pending) {
          fail("onNoHandler");
        }

        @Override
        public void onDelivery(PollerKey key, DeliveryOutcome outcome) {
          fail("onDelivery");
        }

        @Override
        public void onCycleStart(CycleInfo cycle) {
          fail("onCycleStart");
        }

        @Override
        public void onCycleEnd(CycleInfo cycle, KeyReport report, Duration elapsed) {
          fail("onCycleEnd");
        }

        private void fail(String callback) {
          calls.add(callback);
          throw new IllegalStateException(callback + " failed in the listener");
        }
      };

  @Test
  void cyclesDeliveryAndTheScheduleGoOnWhenEveryCallbackThrows() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).listener(throwing).build().on(orders, handler);
    f.api.put("a", Map.of("price", 1));

    KeyReport first = w.tick().poller("orders").orElseThrow();

    assertThat(first.error()).isNull();
    assertThat(handler.changes()).containsExactly("a:created");
    assertThat(calls).containsExactly("onCycleStart", "onDelivery", "onCycleEnd", "onCycle");

    f.api.failNext(
        1,
        () ->
            new HttpStatusException(
                429, "GET", "http://v/x", Map.of("retry-after", List.of("60")), null));
    f.nextCycle();
    KeyReport throttled = w.tick().poller("orders").orElseThrow();

    assertThat(throttled.error()).hasCauseInstanceOf(HttpStatusException.class);
    assertThat(calls)
        .containsExactly(
            "onCycleStart",
            "onDelivery",
            "onCycleEnd",
            "onCycle",
            "onCycleStart",
            "onError",
            "onThrottled",
            "onCycleEnd",
            "onCycle");
    assertThat(w.inspect().pollers().get(0).throttledUntil())
        .isEqualTo(f.clock.now().plusSeconds(60));

    f.clock.advance(Duration.ofSeconds(60));
    f.api.put("b", Map.of("price", 2));
    KeyReport after = w.tick().poller("orders").orElseThrow();

    assertThat(after.error()).isNull();
    assertThat(handler.changes()).containsExactly("a:created", "b:created");
  }

  @Test
  void everyRegisteredListenerIsCalledInOrderEvenAfterOneThrows() {
    List<String> second = new CopyOnWriteArrayList<>();
    WatukuyListener recording =
        new WatukuyListener() {
          @Override
          public void onCycleStart(CycleInfo cycle) {
            second.add("onCycleStart");
          }

          @Override
          public void onDelivery(PollerKey key, DeliveryOutcome outcome) {
            second.add("onDelivery");
          }

          @Override
          public void onCycleEnd(CycleInfo cycle, KeyReport report, Duration elapsed) {
            second.add("onCycleEnd");
          }

          @Override
          public void onCycle(KeyReport report) {
            second.add("onCycle");
          }
        };
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w =
        f.engine("a")
            .poller(orders)
            .listener(throwing)
            .listener(recording)
            .build()
            .on(orders, handler);
    f.api.put("a", Map.of("price", 1));

    assertThat(w.tick().poller("orders").orElseThrow().error()).isNull();

    assertThat(calls).containsExactly("onCycleStart", "onDelivery", "onCycleEnd", "onCycle");
    assertThat(second).containsExactly("onCycleStart", "onDelivery", "onCycleEnd", "onCycle");
    assertThat(handler.changes()).containsExactly("a:created");
  }
}
