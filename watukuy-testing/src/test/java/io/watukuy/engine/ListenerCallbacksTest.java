package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.DeliveryPolicy;
import io.watukuy.FetchException;
import io.watukuy.HttpStatusException;
import io.watukuy.KeyReport;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which {@link WatukuyListener} callbacks a key's runs make, in which order, and the state they
 * leave: a poison event that halts the key (docs/architecture.md, "Poison halt"), the trigger that
 * probes it, and a 429 without Retry-After (docs/architecture.md, "Circuit": one growing backoff
 * step, no failure counted).
 */
class ListenerCallbacksTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  final Fixture f = new Fixture();
  final Recorder r = new Recorder();
  final List<String> heard = new ArrayList<>();
  final List<Throwable> errors = new ArrayList<>();
  final WatukuyListener listener =
      new WatukuyListener() {
        @Override
        public void onThrottled(PollerKey key, Instant until) {
          heard.add("throttled " + key + " until " + until);
        }

        @Override
        public void onCircuitOpen(PollerKey key, Instant probeAt) {
          heard.add("open " + key + " probe at " + probeAt);
        }

        @Override
        public void onCircuitClose(PollerKey key) {
          heard.add("close " + key);
        }

        @Override
        public void onParked(PollerKey key, ParkedRow row) {
          heard.add("parked " + key + " " + row.kind() + " " + row.orderingKey());
        }

        @Override
        public void onCycle(KeyReport report) {
          heard.add("cycle " + report.key() + " " + report.outcome());
        }

        @Override
        public void onError(PollerKey key, Throwable error) {
          heard.add("error " + key + " " + error.getClass().getSimpleName());
          errors.add(error);
        }
      };

  /** One attempt per event, and a poison event halts the key. */
  final Poller<JsonNode> orders =
      f.timestamp("orders", 10)
          .delivery(
              new DeliveryPolicy(
                  RetryPolicy.attempts(1), new PoisonPolicy(PoisonPolicy.Action.HALT, false)))
          .build();

  Watukuy w;

  ScheduleState state() {
    return f.store.loadState(ORDERS).orElseThrow().schedule();
  }

  @BeforeEach
  void haltOnTheSecondItem() {
    w = f.engine("a").poller(orders).listener(listener).build().on(orders, r);
    r.failWhen(e -> e.identity().equals("o002"));
    f.seed(3);
  }

  /** The circuit opens for {@code probeEvery}, which defaults to {@code schedule.max}. */
  @Test
  void aPoisonHaltCallsOnParkedThenOnCircuitOpenAndNoOnError() {
    Instant now = f.clock.now();

    w.tick();

    assertThat(heard)
        .containsExactly(
            "parked orders POISON o002",
            "open orders probe at " + now.plus(Fixture.FIXED.max()),
            "cycle orders POLLED");
    assertThat(state().state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    assertThat(state().circuit().probeAt()).isEqualTo(now.plus(Fixture.FIXED.max()));
    assertThat(state().lastError().name()).isEqualTo("PoisonHalt");
    assertThat(state().consecutiveFailures()).isZero();
    assertThat(r.changes()).contains("o001:created").doesNotContain("o002:created");
    assertThat(f.store.listParked(ORDERS, ParkedKind.POISON, 10)).hasSize(1);
  }

  /**
   * {@code trigger} on an open circuit makes the next run the probe; its success closes the
   * circuit. The halted event holds its ordering key until an operator retries or discards it.
   */
  @Test
  void aTriggerAfterAPoisonHaltProbesAtOnceAndTheSuccessfulProbeCallsOnCircuitClose() {
    w.tick();
    heard.clear();
    r.failWhen(e -> false);

    w.trigger("orders");
    w.tick();

    assertThat(heard).containsExactly("close orders", "cycle orders POLLED");
    assertThat(state().state()).isEqualTo(ScheduleState.Status.IDLE);
    assertThat(state().circuit()).isNull();
    assertThat(r.changes()).containsExactlyInAnyOrder("o001:created", "o003:created");
    assertThat(f.store.listParked(ORDERS, ParkedKind.POISON, 10)).hasSize(1);
  }

  /**
   * A 429 without Retry-After (nor rate-limit fields) fails the cycle, so {@code onError} hears it,
   * but it is a throttle, not a failure: {@code onThrottled} with the first backoff step, no
   * failure counted, the circuit left alone.
   */
  @Test
  void a429WithoutRetryAfterCallsOnErrorThenOnThrottledForOneBackoffStep() {
    w.tick();
    r.failWhen(e -> false);
    w.trigger("orders");
    w.tick();
    heard.clear();
    f.nextCycle();
    f.api.failNext(
        1, () -> new HttpStatusException(429, "GET", "http://vendor/orders", Map.of(), null));
    Instant until = f.clock.now().plus(Fixture.FIXED.backoff().base());

    w.tick();

    assertThat(heard)
        .containsExactly(
            "error orders FetchException",
            "throttled orders until " + until,
            "cycle orders POLLED");
    assertThat(errors)
        .singleElement()
        .isInstanceOf(FetchException.class)
        .extracting(Throwable::getCause)
        .isInstanceOfSatisfying(
            HttpStatusException.class, e -> assertThat(e.status()).isEqualTo(429));
    assertThat(state().state()).isEqualTo(ScheduleState.Status.THROTTLED);
    assertThat(state().throttledUntil()).isEqualTo(until);
    assertThat(state().consecutiveFailures()).isZero();
    assertThat(state().circuit()).isNull();
  }
}
