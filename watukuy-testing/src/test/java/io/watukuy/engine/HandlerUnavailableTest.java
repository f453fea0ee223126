package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.DeliveryPolicy;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.Watukuy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A destination that is down stops delivery without counting attempts or parking anything. */
class HandlerUnavailableTest {
  @Test
  void aDownDestinationLeavesEventsPendingUncountedAndNeverParked() {
    Fixture f = new Fixture();
    f.seed(3);
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .delivery(DeliveryPolicy.DEFAULT.withRetry(RetryPolicy.attempts(1)))
            .build();
    boolean[] down = {true};
    List<ChangeEvent<JsonNode>> got = new ArrayList<>();
    Watukuy w =
        f.engine("a")
            .poller(orders)
            .build()
            .on(
                orders,
                (ChangeEvent<JsonNode> e) -> {
                  if (down[0]) throw new HandlerUnavailableException("sink is down", null);
                  got.add(e);
                });

    KeyReport first = w.tick().key(PollerKey.of("orders")).orElseThrow();

    assertThat(first.error()).isInstanceOf(HandlerUnavailableException.class);
    assertThat(f.store.countPending(PollerKey.of("orders"))).isEqualTo(3);
    assertThat(f.store.countParked(PollerKey.of("orders"))).isZero();

    down[0] = false;
    w.tick();
    assertThat(got).extracting(ChangeEvent::identity).containsExactly("o001", "o002", "o003");
    assertThat(got).extracting(ChangeEvent::attempt).containsOnly(1);
  }

  @Test
  void aDownDestinationEndsTheLaneAfterThePageWhoseDeliveryFailed() {
    // The outbox is drained before any new fetch: once the destination is down, fetching the rest
    // of the listing would only pile its events up in the outbox (and spend the vendor's quota).
    Fixture f = new Fixture();
    f.seed(9);
    Poller<JsonNode> orders = f.timestamp("orders", 3).build();
    boolean[] down = {true};
    List<ChangeEvent<JsonNode>> got = new ArrayList<>();
    Watukuy w =
        f.engine("a")
            .poller(orders)
            .build()
            .on(
                orders,
                (ChangeEvent<JsonNode> e) -> {
                  if (down[0]) throw new HandlerUnavailableException("sink is down", null);
                  got.add(e);
                });

    KeyReport first = w.tick().key(PollerKey.of("orders")).orElseThrow();

    assertThat(first.error()).isInstanceOf(HandlerUnavailableException.class);
    assertThat(first.pages()).isEqualTo(1);
    assertThat(first.eventsCommitted()).isEqualTo(3);
    assertThat(f.store.countPending(PollerKey.of("orders"))).isEqualTo(3);

    f.nextCycle();
    KeyReport stillDown = w.tick().key(PollerKey.of("orders")).orElseThrow();

    assertThat(stillDown.error()).isInstanceOf(HandlerUnavailableException.class);
    assertThat(stillDown.eventsCommitted()).isZero();
    assertThat(f.store.countPending(PollerKey.of("orders"))).isEqualTo(3);

    down[0] = false;
    for (int i = 0; i < 20 && got.size() < 9; i++) {
      f.nextCycle(); // past the destination's backoff
      w.tick();
    }
    assertThat(got)
        .extracting(ChangeEvent::identity)
        .containsExactly("o001", "o002", "o003", "o004", "o005", "o006", "o007", "o008", "o009");
  }
}
