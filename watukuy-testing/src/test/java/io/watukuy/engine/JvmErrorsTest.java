package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.DeliveryPolicy;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An {@link Error} (out of memory, stack overflow) is the JVM's trouble, not the event's nor the
 * vendor's (issue 16, §2): it is never a handler failure and never parks an event, and one key's
 * cycle that meets it does not stop the others.
 */
class JvmErrorsTest {

  @Test
  void anErrorFromTheHandlerCountsNoAttemptParksNothingAndLeavesTheEventsPending() {
    Fixture f = new Fixture();
    f.seed(3);
    // One attempt allowed: a handler failure would park the first event at once.
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .delivery(DeliveryPolicy.DEFAULT.withRetry(RetryPolicy.attempts(1)))
            .build();
    boolean[] starved = {true};
    List<ChangeEvent<JsonNode>> got = new ArrayList<>();
    Watukuy w =
        f.engine("a")
            .poller(orders)
            .build()
            .on(
                orders,
                (ChangeEvent<JsonNode> e) -> {
                  if (starved[0]) throw new OutOfMemoryError("Java heap space");
                  got.add(e);
                });

    KeyReport first = w.tick().key(PollerKey.of("orders")).orElseThrow();

    assertThat(first.error()).hasMessageContaining("java.lang.OutOfMemoryError: Java heap space");
    assertThat(f.store.countPending(PollerKey.of("orders"))).isEqualTo(3);
    assertThat(f.store.countParked(PollerKey.of("orders"))).isZero();

    starved[0] = false;
    w.tick();
    assertThat(got).extracting(ChangeEvent::identity).containsExactly("o001", "o002", "o003");
    assertThat(got).extracting(ChangeEvent::attempt).containsOnly(1);
    assertThat(f.store.countParked(PollerKey.of("orders"))).isZero();
  }

  @Test
  void anErrorInOneKeysFetchEndsThatCycleAloneAndTheOtherPollersDeliver() {
    Fixture f = new Fixture();
    f.seed(2);
    Poller<JsonNode> broken =
        Poller.builder("broken", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(io.watukuy.Cursors.snapshotDiff())
            .fetch(
                ctx -> {
                  throw new StackOverflowError();
                })
            .schedule(Fixture.FIXED)
            .build();
    Poller<JsonNode> orders = f.snapshot("orders", 10).build();
    Recorder handler = new Recorder();
    Watukuy w =
        f.engine("a").poller(broken).poller(orders).build().on(orders, handler).on(broken, e -> {});

    TickReport tick = w.tick();

    assertThat(tick.poller("broken").orElseThrow().error())
        .hasMessageContaining("java.lang.StackOverflowError");
    assertThat(tick.poller("orders").orElseThrow().error()).isNull();
    assertThat(handler.changes()).containsExactly("o001:created", "o002:created");
  }
}
