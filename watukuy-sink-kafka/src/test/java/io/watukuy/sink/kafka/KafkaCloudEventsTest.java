package io.watukuy.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.kafka.KafkaMessageFactory;
import io.watukuy.DeliveryCall;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.sink.EventFormat;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code format: cloudevents} on Kafka is the binary content mode of the CloudEvents Kafka protocol
 * binding (docs/sinks.md, "CloudEvents" and "Kafka"): every record parses back with the CloudEvents
 * Java SDK into the mapping's attributes, and its data is {@code {"item", "previous"}}.
 */
@ExtendWith(KafkaBroker.class)
class KafkaCloudEventsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final SinkEngine f = new SinkEngine();

  @Test
  void everyRecordParsesBackWithTheCloudEventsSdkAsTheMappingSays(KafkaBroker broker)
      throws Exception {
    broker.createTopic("ce-orders", 2, Map.of());
    f.api.put("o1", Map.of("n", 1));
    f.api.put("o2", Map.of("n", 2));
    Poller<JsonNode> orders = f.timestamp("orders").build();
    KafkaSink sink =
        SinkEngine.sink(broker.bootstrap(), "ce-{{source}}", EventFormat.CLOUDEVENTS, Map.of());
    Watukuy w = f.engine(Runnable::run, 1, 10).poller(orders).sink(orders, sink).build();
    try {
      w.tick();
      f.nextCycle();
      f.api.put("o1", Map.of("n", 10));
      w.tick();
      assertThat(f.store.countPending(PollerKey.of("orders"))).isZero();
    } finally {
      w.close();
    }

    List<ConsumerRecord<byte[], byte[]>> records =
        TopicReader.readAll(broker.bootstrap(), "ce-orders", Duration.ofSeconds(30));
    assertThat(records).hasSize(3);
    List<String> seen = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      assertThat(TopicReader.header(r, "content-type")).isEqualTo("application/json");
      CloudEvent ce = KafkaMessageFactory.createReader(r).toEvent();
      assertThat(ce.getSpecVersion()).isEqualTo(SpecVersion.V1);
      String eventId = String.valueOf(ce.getExtension("eventid"));
      long sequence = Long.parseLong(String.valueOf(ce.getExtension("sequence")));
      assertThat(ce.getId()).as("id = the delivery key").isEqualTo(eventId + "-" + sequence);
      assertThat(String.valueOf(ce.getExtension("sequence"))).hasSize(19);
      assertThat(ce.getSource()).isEqualTo(URI.create("/watukuy/orders"));
      assertThat(ce.getDataContentType()).isEqualTo("application/json");
      assertThat(ce.getTime()).isNotNull();
      assertThat(ce.getExtension("partitionkey")).isEqualTo(KafkaBroker.utf8(r.key()));
      assertThat(ce.getExtension("lane")).isEqualTo("live");
      JsonNode data = JSON.readTree(ce.getData().toBytes());
      assertThat(data.get("item").get("id").asText()).isEqualTo(ce.getSubject());
      assertThat(data.has("previous")).isTrue();
      seen.add(ce.getSubject() + " " + ce.getType() + " n=" + data.get("item").get("n").asInt());
    }
    assertThat(seen)
        .containsExactlyInAnyOrder(
            "o1 io.watukuy.item.created n=1",
            "o2 io.watukuy.item.created n=2",
            "o1 io.watukuy.item.updated n=10");
  }

  /**
   * A listener's trace context ({@code WatukuyListener.onDeliveryStart}, what watukuy-opentelemetry
   * returns) is a record header and the CloudEvents distributed tracing extension ({@code
   * ce_traceparent}), which the SDK reads back.
   */
  @Test
  void theDeliverysTraceContextIsAHeaderAndTheTracingExtension(KafkaBroker broker)
      throws Exception {
    String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    broker.createTopic("ce-traced", 1, Map.of());
    f.api.put("o1", Map.of("n", 1));
    Poller<JsonNode> orders = f.timestamp("traced").build();
    KafkaSink sink =
        SinkEngine.sink(broker.bootstrap(), "ce-{{source}}", EventFormat.CLOUDEVENTS, Map.of());
    Watukuy w =
        f.engine(Runnable::run, 1, 10)
            .poller(orders)
            .sink(orders, sink)
            .listener(
                new WatukuyListener() {
                  @Override
                  public Map<String, String> onDeliveryStart(DeliveryCall call) {
                    return Map.of("traceparent", traceparent);
                  }
                })
            .build();
    try {
      w.tick();
    } finally {
      w.close();
    }

    List<ConsumerRecord<byte[], byte[]>> records =
        TopicReader.readAll(broker.bootstrap(), "ce-traced", Duration.ofSeconds(30));
    assertThat(records).hasSize(1);
    ConsumerRecord<byte[], byte[]> r = records.get(0);
    assertThat(TopicReader.header(r, "traceparent")).isEqualTo(traceparent);
    assertThat(TopicReader.header(r, "ce_traceparent")).isEqualTo(traceparent);
    CloudEvent ce = KafkaMessageFactory.createReader(r).toEvent();
    assertThat(ce.getExtension("traceparent")).isEqualTo(traceparent);
  }
}
