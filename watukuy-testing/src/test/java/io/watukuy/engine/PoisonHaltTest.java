package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.DeliveryPolicy;
import io.watukuy.KeyReport;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import org.junit.jupiter.api.Test;

/**
 * A poison event with action halt opens the circuit directly (docs/architecture.md, "Poison halt").
 */
class PoisonHaltTest {
  @Test
  void aHaltingPoisonOpensTheCircuitAndRecordsPoisonHalt() {
    Fixture f = new Fixture();
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .delivery(
                new DeliveryPolicy(
                    RetryPolicy.attempts(1), new PoisonPolicy(PoisonPolicy.Action.HALT, false)))
            .build();
    Recorder r = new Recorder();
    r.failWhen(e -> e.identity().equals("o002"));
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(3);

    w.tick();

    ScheduleState s = f.store.loadState(PollerKey.of("orders")).orElseThrow().schedule();
    assertThat(s.state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    assertThat(s.lastError().name()).isEqualTo("PoisonHalt");
    assertThat(s.circuit().probeAt()).isEqualTo(f.clock.now().plus(orders.schedule().max()));
    assertThat(f.store.heldKeys(PollerKey.of("orders"))).containsExactly("o002");
    f.nextCycle();
    assertThat(w.tick().poller("orders").orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_CIRCUIT_OPEN);
  }
}
