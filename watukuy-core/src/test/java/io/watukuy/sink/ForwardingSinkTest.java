package io.watukuy.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.ChangeEvent;
import io.watukuy.HandlerUnavailableException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ForwardingSink} hands every method of {@link Sink} to the wrapped sink, including the ones
 * with a default ({@code inSequenceOrder}, {@code health}), whose loss would silently change the
 * engine's delivery order or hide an outage from {@code inspect}.
 */
class ForwardingSinkTest {
  /** A sink that answers every method with something other than the interface's default. */
  private static final class Recording implements Sink {
    final List<String> calls = new ArrayList<>();

    @Override
    public String name() {
      calls.add("name");
      return "recording sink";
    }

    @Override
    public void open() {
      calls.add("open");
    }

    @Override
    public Health health() {
      calls.add("health");
      return Health.down("broker gone");
    }

    @Override
    public BatchResult handle(List<ChangeEvent<Object>> events) {
      calls.add("handle " + events.size());
      throw new HandlerUnavailableException(
          "broker gone", new java.net.ConnectException("refused"));
    }

    @Override
    public boolean inSequenceOrder() {
      calls.add("inSequenceOrder");
      return true;
    }

    @Override
    public void close() {
      calls.add("close");
    }
  }

  @Test
  void everyMethodReachesTheWrappedSinkUnchanged() throws Exception {
    Recording wrapped = new Recording();
    Sink sink = new ForwardingSink(wrapped) {};

    assertThat(sink.name()).isEqualTo("recording sink");
    sink.open();
    assertThat(sink.health()).isEqualTo(Sink.Health.down("broker gone"));
    assertThat(sink.inSequenceOrder()).isTrue();
    assertThatThrownBy(() -> sink.handle(List.of()))
        .isInstanceOf(HandlerUnavailableException.class)
        .hasMessage("broker gone");
    sink.close();

    assertThat(wrapped.calls)
        .containsExactly("name", "open", "health", "inSequenceOrder", "handle 0", "close");
    assertThat(((ForwardingSink) sink).delegate()).isSameAs(wrapped);
  }

  @Test
  void aNullSinkIsRefusedAtOnce() {
    assertThatThrownBy(() -> new ForwardingSink(null) {})
        .isInstanceOf(NullPointerException.class)
        .hasMessage("delegate");
  }
}
