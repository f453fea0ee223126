package io.watukuy.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.BatchHandler.BatchResult;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.DeliveryPolicy;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.KeyReport;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.Watukuy;
import io.watukuy.sink.EventFormat;
import io.watukuy.spi.OutboxRow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the Kafka sink does when the brokers are out of reach or refuse a record (docs/sinks.md,
 * "Kafka"): an outage leaves the batch pending with no attempt counted and nothing parked (G1); a
 * record too large parks that event only and holds its ordering key per the poison policy (G7); a
 * topic that does not exist is a config error naming the sink and the topic.
 */
@ExtendWith(KafkaBroker.class)
class KafkaSinkFailureTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final PollerKey ORDERS = PollerKey.of("orders");

  /** Short bounds, so that a closed port is found out in about a second. */
  private static final Map<String, String> SHORT_WAITS =
      Map.of("max.block.ms", "1000", "request.timeout.ms", "1000", "delivery.timeout.ms", "2000");

  private final SinkEngine f = new SinkEngine();

  @Test
  void aBrokerThatCannotBeReachedLeavesTheBatchPendingWithNoAttemptCountedAndNothingParked()
      throws Exception {
    String closed = "127.0.0.1:" + KafkaBroker.freePort();
    for (int i = 1; i <= 3; i++) f.api.put("o" + i, Map.of("n", i));
    Poller<JsonNode> orders = f.timestamp("orders").build();
    KafkaSink sink = SinkEngine.sink(closed, "orders", EventFormat.ENVELOPE, SHORT_WAITS);
    Watukuy w = f.engine(Runnable::run, 1, 10).poller(orders).sink(orders, sink).build();
    try {
      KeyReport down = w.tick().key(ORDERS).orElseThrow();
      assertThat(down.error())
          .isInstanceOf(HandlerUnavailableException.class)
          .hasMessageContaining("kafka topic orders")
          .hasMessageContaining(closed);
      f.nextCycle();
      w.tick();
      assertThat(f.store.countPending(ORDERS)).isEqualTo(3);
      assertThat(f.store.loadPending(ORDERS, 0, 10))
          .extracting(OutboxRow::attempts)
          .containsOnly(0);
      assertThat(f.store.countParked(ORDERS)).isZero();
    } finally {
      w.close();
    }
  }

  @Test
  void aBatchSentToAClosedPortThrowsHandlerUnavailableWithinTheProducersTimeouts()
      throws Exception {
    List<ChangeEvent<Object>> batch = new ArrayList<>();
    for (int i = 1; i <= 8; i++) f.api.put("o" + i, Map.of("n", i));
    Poller<JsonNode> orders = f.timestamp("orders").build();
    Watukuy w =
        f.engine(Runnable::run, 1, 10)
            .poller(orders)
            .build()
            .onBatch(
                orders,
                events -> {
                  events.forEach(e -> batch.add(eventOf(e)));
                  return BatchResult.ok();
                });
    w.tick();
    w.close();
    assertThat(batch).hasSize(8);

    KafkaSink sink =
        SinkEngine.sink(
            "127.0.0.1:" + KafkaBroker.freePort(), "orders", EventFormat.ENVELOPE, SHORT_WAITS);
    long start = System.nanoTime();
    try {
      assertThatThrownBy(() -> sink.handle(batch))
          .isInstanceOf(HandlerUnavailableException.class)
          .hasMessageStartingWith("kafka topic orders: the brokers did not take the batch");
    } finally {
      sink.close();
    }
    // One send waits max.block.ms (1 s) for metadata, and the sink stops there: waiting again for
    // each of the 8 events would take 8 s. The margin is for making the producer on a busy host.
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void aRecordTooLargeParksThatEventOnlyAndHoldsItsOrderingKey(KafkaBroker broker)
      throws Exception {
    broker.createTopic("sized", 1, Map.of());
    for (int i = 1; i <= 6; i++)
      f.api.put("o" + i, Map.of("n", i, "text", i == 3 ? "x".repeat(5000) : "small"));
    Poller<JsonNode> orders =
        f.timestamp("orders")
            .orderingKey(n -> n.get("n").asInt() % 2 == 0 ? "even" : "odd")
            .delivery(new DeliveryPolicy(RetryPolicy.attempts(1), PoisonPolicy.parkAndHoldKey()))
            .build();
    KafkaSink sink =
        SinkEngine.sink(
            broker.bootstrap(), "sized", EventFormat.ENVELOPE, Map.of("max.request.size", "2048"));
    Watukuy w = f.engine(Runnable::run, 1, 10).poller(orders).sink(orders, sink).build();
    try {
      w.tick();
      assertThat(f.store.countParked(ORDERS)).isEqualTo(1);
      assertThat(f.store.listParked(ORDERS, null, 10).get(0).event()).contains("\"o3\"");
      assertThat(f.store.listParked(ORDERS, null, 10).get(0).error())
          .contains(RecordTooLargeException.class.getSimpleName());
      assertThat(f.store.loadPending(ORDERS, 0, 10))
          .as("o5 waits behind the parked o3 (hold key)")
          .extracting(r -> JSON.readTree(r.event()).get("identity").asText())
          .containsExactly("o5");
    } finally {
      w.close();
    }

    List<String> written = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r :
        TopicReader.readAll(broker.bootstrap(), "sized", Duration.ofSeconds(30)))
      written.add(JSON.readTree(r.value()).get("identity").asText());
    assertThat(written).containsExactly("o1", "o2", "o4", "o6");
  }

  @Test
  void aTopicThatThePollersNameMakesInvalidParksEachKeysFirstEventNamingTheTopic(KafkaBroker broker)
      throws Exception {
    // ':' is fine in a poller name and refused in a Kafka topic name; the template is only
    // rendered, and checked, per key.
    PollerKey key = PollerKey.of("vendor:orders");
    f.api.put("o1", Map.of("n", 1));
    f.api.put("o2", Map.of("n", 2));
    Poller<JsonNode> orders =
        f.timestamp("vendor:orders")
            .delivery(DeliveryPolicy.DEFAULT.withRetry(RetryPolicy.attempts(1)))
            .build();
    KafkaSink sink =
        SinkEngine.sink(broker.bootstrap(), "{{source}}", EventFormat.ENVELOPE, Map.of());
    Watukuy w = f.engine(Runnable::run, 1, 10).poller(orders).sink(orders, sink).build();
    try {
      w.tick();
      assertThat(f.store.countParked(key)).isEqualTo(2);
      assertThat(f.store.listParked(key, null, 10).get(0).error())
          .contains("kafka topic {{source}}: topic name 'vendor:orders' may only hold letters");
    } finally {
      w.close();
    }
  }

  @Test
  void openNamesTheSinkAndTheTopicWhenTheTopicDoesNotExistAndTheBrokerDoesNotCreateTopics(
      KafkaBroker broker) throws Exception {
    KafkaSink sink = SinkEngine.sink(broker.bootstrap(), "absent", EventFormat.ENVELOPE, Map.of());
    try {
      assertThatThrownBy(sink::open)
          .isInstanceOf(ConfigException.class)
          .hasMessageStartingWith("kafka topic absent: topic 'absent' does not exist")
          .hasMessageContaining("auto.create.topics.enable=false");
    } finally {
      sink.close();
    }
  }

  @SuppressWarnings("unchecked")
  private static ChangeEvent<Object> eventOf(ChangeEvent<?> e) {
    return (ChangeEvent<Object>) e;
  }
}
