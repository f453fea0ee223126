package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BatchHandler.BatchResult;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.sink.Sink;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code Watukuy.builder().sink(poller, sink)} (docs/sinks.md): a sink is a batch handler opened
 * once before its first batch, however many pollers share it, retried at the next cycle when it
 * cannot open (the events pending, nothing counted), and closed once with the engine.
 */
class SinkLifecycleTest {
  private final Fixture f = new Fixture();

  /** Records what it was asked to do; fails to open while {@code refuse} is set. */
  private static final class Recording implements Sink {
    final AtomicInteger opens = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();
    final List<String> written = new ArrayList<>();
    volatile Exception refuse;

    @Override
    public String name() {
      return "recording";
    }

    @Override
    public void open() throws Exception {
      opens.incrementAndGet();
      if (refuse != null) throw refuse;
    }

    @Override
    public synchronized BatchResult handle(List<ChangeEvent<Object>> events) {
      for (ChangeEvent<Object> e : events) written.add(e.source() + ":" + e.deliveryKey());
      return BatchResult.ok();
    }

    @Override
    public void close() {
      closes.incrementAndGet();
    }
  }

  @Test
  void oneSinkServingTwoPollersOpensOnceDeliversBothAndClosesOnce() {
    f.seed(3);
    Poller<JsonNode> a = f.timestamp("a", 50).build();
    Poller<JsonNode> b = f.timestamp("b", 50).build();
    Recording sink = new Recording();
    Watukuy w = f.engine("i").poller(a).poller(b).sink(a, sink).sink(b, sink).build();

    assertThat(w.tick().delivered()).isEqualTo(6);
    w.close();
    w.close();

    assertThat(sink.opens.get()).isEqualTo(1);
    assertThat(sink.closes.get()).isEqualTo(1);
    assertThat(sink.written).hasSize(6);
    assertThat(sink.written.get(0)).matches("a:[0-9a-f]{64}-1");
  }

  @Test
  void aSinkThatCannotOpenLeavesTheEventsPendingUncountedAndOpensAtTheNextCycle() {
    f.seed(2);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Recording sink = new Recording();
    sink.refuse = new java.net.ConnectException("Connection refused");
    Watukuy w = f.engine("i").poller(orders).sink(orders, sink).build();

    KeyReport down = w.tick().key(PollerKey.of("orders")).orElseThrow();

    assertThat(down.error())
        .isInstanceOf(HandlerUnavailableException.class)
        .hasMessage("sink recording cannot start: Connection refused");
    assertThat(f.store.countPending(PollerKey.of("orders"))).isEqualTo(2);
    assertThat(f.store.countParked(PollerKey.of("orders"))).isZero();

    sink.refuse = null;
    f.nextCycle();
    assertThat(w.tick().delivered()).isEqualTo(2);
    assertThat(sink.opens.get()).isEqualTo(2);
  }

  @Test
  void openSinksFindsASinkThatCanNeverWorkAtStartNamingIt() {
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Recording sink = new Recording();
    sink.refuse = new ConfigException("topic 'orders' does not exist and auto-create is off");
    Watukuy w = f.engine("i").poller(orders).sink(orders, sink).build();

    assertThatThrownBy(w::openSinks)
        .isInstanceOf(ConfigException.class)
        .hasMessage("sink recording: topic 'orders' does not exist and auto-create is off");
    w.close();
    assertThat(sink.closes.get()).as("never opened, so not closed").isZero();
  }

  @Test
  void aSinkForAPollerThatIsNotRegisteredIsAConfigError() {
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Poller<JsonNode> other = f.timestamp("other", 50).build();
    assertThatThrownBy(() -> f.engine("i").poller(orders).sink(other, new Recording()).build())
        .isInstanceOf(ConfigException.class)
        .hasMessage("sink set for poller other, which is not registered");
  }
}
