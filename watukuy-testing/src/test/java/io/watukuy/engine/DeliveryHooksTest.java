package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BatchHandler.BatchResult;
import io.watukuy.CycleInfo;
import io.watukuy.DeliveryCall;
import io.watukuy.DeliveryOptions;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.sink.CloudEvents;
import io.watukuy.sink.Sink;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The delivery hooks of {@link WatukuyListener}: one {@code onCommit} per commit with its sequence
 * range and cycle, one {@code onDeliveryStart} and one {@code onDeliveryEnd} (the same {@link
 * DeliveryCall}) per handler call, and the headers a listener returns reaching the handler through
 * {@link Sink#headers()} and the CloudEvents {@code traceparent} extension.
 */
class DeliveryHooksTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  final Fixture f = new Fixture();
  final List<String> heard = new CopyOnWriteArrayList<>();
  final List<DeliveryCall> startedCalls = new CopyOnWriteArrayList<>();
  final List<DeliveryCall> endedCalls = new CopyOnWriteArrayList<>();
  final List<Duration> took = new CopyOnWriteArrayList<>();
  final List<@Nullable Throwable> errors = new CopyOnWriteArrayList<>();

  /** Records every hook and gives each call a trace context, as watukuy-opentelemetry does. */
  final WatukuyListener tracing =
      new WatukuyListener() {
        @Override
        public void onCycleStart(CycleInfo cycle) {
          heard.add("start " + cycle.id());
        }

        @Override
        public void onCommit(CycleInfo cycle, long firstSequence, long lastSequence) {
          heard.add("commit " + cycle.id() + " " + firstSequence + ".." + lastSequence);
        }

        @Override
        public Map<String, String> onDeliveryStart(DeliveryCall call) {
          heard.add("call " + call.sequences() + " attempt " + call.attempt());
          startedCalls.add(call);
          Map<String, String> headers = new LinkedHashMap<>();
          headers.put("traceparent", TRACEPARENT);
          headers.put("tracestate", "vendor=x");
          return headers;
        }

        @Override
        public void onDeliveryEnd(
            DeliveryCall call, int failed, @Nullable Throwable error, Duration elapsed) {
          heard.add("end " + call.sequences() + " failed " + failed);
          endedCalls.add(call);
          took.add(elapsed);
          errors.add(error);
        }
      };

  /**
   * Two events of one commit, one handler call each: the commit's range is told once, with the
   * cycle, before the first call; each call starts and ends once with the same instance; inside the
   * handler the headers are the listener's and the CloudEvents attributes carry them; outside a
   * handler there are none.
   */
  @Test
  void eachCallStartsAndEndsOnceAndItsHandlerSeesTheHeaders() {
    f.seed(2);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    List<Map<String, String>> attributes = new CopyOnWriteArrayList<>();
    Instant at = f.clock.now();
    Watukuy w =
        f.engine("a")
            .poller(orders)
            .listener(tracing)
            .build()
            .on(
                orders,
                e -> {
                  f.clock.advance(Duration.ofMillis(15));
                  seen.add(Sink.headers());
                  attributes.add(CloudEvents.attributes(e));
                });

    w.tick();

    assertThat(heard)
        .containsExactly(
            "start 1",
            "commit 1 1..2",
            "call [1] attempt 1",
            "end [1] failed 0",
            "call [2] attempt 1",
            "end [2] failed 0");
    assertThat(endedCalls).containsExactlyElementsOf(startedCalls);
    assertThat(endedCalls.get(0)).isSameAs(startedCalls.get(0));
    assertThat(startedCalls.get(0))
        .isEqualTo(new DeliveryCall(ORDERS, at, List.of(1L), 1))
        .extracting(DeliveryCall::events)
        .isEqualTo(1);
    assertThat(startedCalls.get(1).startedAt()).isEqualTo(at.plusMillis(15));
    assertThat(took).containsExactly(Duration.ofMillis(15), Duration.ofMillis(15));
    assertThat(seen)
        .containsOnly(Map.of("traceparent", TRACEPARENT, "tracestate", "vendor=x"))
        .hasSize(2);
    assertThat(attributes.get(0))
        .containsEntry("traceparent", TRACEPARENT)
        .containsEntry("tracestate", "vendor=x");
    assertThat(List.copyOf(attributes.get(0).keySet()).subList(11, 13))
        .containsExactly("traceparent", "tracestate");
    assertThat(Sink.headers()).isEmpty();
  }

  /**
   * A batch of three whose handler reports one failure: one call with the three sequences, ended
   * with one failed (the other two are acked); its retry in the next cycle is a call of its own at
   * attempt 2, and the cycle that commits nothing tells no commit.
   */
  @Test
  void aBatchIsOneCallAndItsRetryAnother() {
    f.seed(3);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Watukuy w =
        f.engine("a")
            .delivery(new DeliveryOptions(1, 100, 10))
            .poller(orders)
            .listener(tracing)
            .build()
            .onBatch(
                orders,
                events ->
                    events.size() == 3
                        ? BatchResult.failed(events.get(1), new IllegalStateException("refused"))
                        : BatchResult.ok());

    w.tick();
    f.clock.advanceTo(f.store.loadPending(ORDERS, 0, 10).get(0).nextAttemptAt());
    w.tick();

    assertThat(heard)
        .containsExactly(
            "start 1",
            "commit 1 1..3",
            "call [1, 2, 3] attempt 1",
            "end [1, 2, 3] failed 1",
            "start 2",
            "call [2] attempt 2",
            "end [2] failed 0");
    assertThat(errors).containsExactly(null, null);
  }

  /** A batch handler that throws: every event failed, and the error is the one it threw. */
  @Test
  void aThrowingCallEndsWithEveryEventFailedAndItsError() {
    f.seed(2);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    IllegalStateException refused = new IllegalStateException("refused");
    Watukuy w =
        f.engine("a")
            .delivery(new DeliveryOptions(1, 100, 10))
            .poller(orders)
            .listener(tracing)
            .build()
            .onBatch(
                orders,
                events -> {
                  throw refused;
                });

    w.tick();

    assertThat(heard).contains("end [1, 2] failed 2");
    assertThat(errors).containsExactly(refused);
  }

  /**
   * Two listeners: a name both give keeps the first one's value, a name in upper case is written
   * lower case, a value with a line break and a name that is no token are dropped, and a listener
   * that throws gives nothing while the handler still runs.
   */
  @Test
  void headersOfSeveralListenersAreMergedAndChecked() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    WatukuyListener second =
        new WatukuyListener() {
          @Override
          public Map<String, String> onDeliveryStart(DeliveryCall call) {
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("traceparent", "00-ffffffffffffffffffffffffffffffff-ffffffffffffffff-01");
            headers.put("X-Tenant", "eu");
            headers.put("x-injected", "a\r\nauthorization: Bearer x");
            headers.put("bad name", "v");
            return headers;
          }
        };
    WatukuyListener throwing =
        new WatukuyListener() {
          @Override
          public Map<String, String> onDeliveryStart(DeliveryCall call) {
            throw new IllegalStateException("listener bug");
          }
        };
    Watukuy w =
        f.engine("a")
            .poller(orders)
            .listener(tracing)
            .listener(throwing)
            .listener(second)
            .build()
            .on(orders, e -> seen.add(Sink.headers()));

    w.tick();

    assertThat(seen)
        .containsExactly(
            Map.of("traceparent", TRACEPARENT, "tracestate", "vendor=x", "x-tenant", "eu"));
    assertThat(f.store.countPending(ORDERS)).isZero();
  }

  /**
   * A single listener's headers are checked as a chain's are: a null value and a value with a line
   * break are dropped, the rest kept.
   */
  @Test
  void aSingleListenersHeadersAreCheckedToo() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    WatukuyListener only =
        new WatukuyListener() {
          @Override
          public Map<String, String> onDeliveryStart(DeliveryCall call) {
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("traceparent", TRACEPARENT);
            headers.put("x-null", null);
            headers.put("x-injected", "a\nb");
            return headers;
          }
        };
    Watukuy w =
        f.engine("a")
            .poller(orders)
            .listener(only)
            .build()
            .on(orders, e -> seen.add(Sink.headers()));

    w.tick();

    assertThat(seen).containsExactly(Map.of("traceparent", TRACEPARENT));
  }
}
