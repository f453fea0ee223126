package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Backoff;
import io.watukuy.CircuitPolicy;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Schedule;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The state machine as the engine runs it: AIMD, backoff, circuit, probe, trigger, listeners. */
class SchedulerEngineTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  final Fixture f = new Fixture();
  final Recorder r = new Recorder();
  final List<String> heard = new ArrayList<>();
  final WatukuyListener listener =
      new WatukuyListener() {
        @Override
        public void onCircuitOpen(PollerKey key, Instant probeAt) {
          heard.add("open " + probeAt);
        }

        @Override
        public void onCircuitClose(PollerKey key) {
          heard.add("close");
        }
      };

  ScheduleState state() {
    return f.store.loadState(ORDERS).orElseThrow().schedule();
  }

  @Test
  void aimdHalvesAfterEventsAndGrowsByHalfWhenIdleWithinMinAndMax() {
    Schedule s =
        Schedule.every(Duration.ofSeconds(10)).withMax(Duration.ofSeconds(40)).withJitter(0);
    Poller<JsonNode> orders = f.timestamp("orders", 10).schedule(s).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    List<Long> intervals = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      w.tick();
      intervals.add(state().intervalMs());
      assertThat(state().nextDueAt()).isEqualTo(f.clock.now().plusMillis(state().intervalMs()));
      f.clock.advance(Duration.ofMillis(state().intervalMs()));
    }
    f.api.put("x", Map.of("n", 1));
    w.tick();
    intervals.add(state().intervalMs());
    // idle: 10 -> 15 -> 22.5 -> 33.75 -> 40 (cap) -> 40; events: 40 / 2 = 20
    assertThat(intervals).containsExactly(15_000L, 22_500L, 33_750L, 40_000L, 40_000L, 20_000L);
  }

  @Test
  void failuresBackOffThenOpenTheCircuitAndASuccessfulProbeClosesIt() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .schedule(
                Fixture.FIXED.withBackoff(
                    new Backoff(Duration.ofSeconds(1), 2, Duration.ofSeconds(8))))
            .circuit(new CircuitPolicy(3, Duration.ofMinutes(5)))
            .build();
    Watukuy w = f.engine("a").poller(orders).listener(listener).build().on(orders, r);
    f.api.failNext(3, () -> new IllegalStateException("vendor down"));

    w.tick();
    assertThat(state().state()).isEqualTo(ScheduleState.Status.BACKING_OFF);
    assertThat(state().consecutiveFailures()).isEqualTo(1);
    assertThat(Duration.between(f.clock.now(), state().nextDueAt()))
        .isBetween(Duration.ZERO, Duration.ofSeconds(1));
    f.clock.advance(Duration.ofSeconds(1));
    w.tick();
    assertThat(state().consecutiveFailures()).isEqualTo(2);
    assertThat(Duration.between(f.clock.now(), state().nextDueAt()))
        .isBetween(Duration.ZERO, Duration.ofSeconds(2));
    f.clock.advance(Duration.ofSeconds(2));
    w.tick();
    assertThat(state().state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    Instant probeAt = f.clock.now().plus(Duration.ofMinutes(5));
    assertThat(state().circuit().probeAt()).isEqualTo(probeAt);
    assertThat(heard).containsExactly("open " + probeAt);

    f.clock.advance(Duration.ofMinutes(4));
    assertThat(w.tick().key(ORDERS).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_CIRCUIT_OPEN);
    f.clock.advance(Duration.ofMinutes(1));
    assertThat(w.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(state().circuit()).isNull();
    assertThat(state().consecutiveFailures()).isZero();
    assertThat(state().state()).isEqualTo(ScheduleState.Status.IDLE);
    assertThat(heard).endsWith("close");
  }

  @Test
  void aFailedProbeKeepsTheCircuitOpenAndTriggerForcesTheNextProbe() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10).circuit(new CircuitPolicy(1, Duration.ofMinutes(5))).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.api.failNext(2, () -> new IllegalStateException("vendor down"));
    w.tick();
    assertThat(state().state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    f.clock.advance(Duration.ofMinutes(5));
    w.tick(); // the probe fails
    assertThat(state().state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    assertThat(state().circuit().probeAt()).isEqualTo(f.clock.now().plus(Duration.ofMinutes(5)));

    f.seed(1);
    w.trigger("orders");
    assertThat(w.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(state().circuit()).isNull();
    assertThat(r.changes()).containsExactly("o001:created");
  }
}
