package io.watukuy.sink.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.GetResponse;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.watukuy.Cursors;
import io.watukuy.DeliveryCall;
import io.watukuy.DeliveryOptions;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.net.URI;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code format: cloudevents} on RabbitMQ: binary mode, every attribute of the mapping in
 * docs/sinks.md ("CloudEvents") under the AMQP binding's {@code cloudEvents:} prefix, read back
 * with the CloudEvents Java SDK.
 */
class RabbitMqCloudEventsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void everyCloudEventsAttributeParsesBackWithTheSdk() throws Exception {
    VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
    FakeApi api = new FakeApi(clock);
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id").asText())
            .orderingKey(n -> "customer-" + n.get("customer").asText())
            .cursor(Cursors.token())
            .fetch(api.tokenFetcher(50))
            .schedule(Schedule.every(Duration.ofSeconds(30)).withAdaptive(false).withJitter(0))
            .build();
    try (TestRabbit rabbit = TestRabbit.fresh("cloudevents");
        Watukuy w =
            Watukuy.builder()
                .store(new MemoryStore())
                .time(clock)
                .random(SeededRandom.of(7))
                .instanceId("test")
                .executor(Runnable::run)
                .handlerExecutor(Runnable::run)
                .delivery(new DeliveryOptions(1, 100, 10))
                .poller(feed)
                .sink(feed, rabbit.sink(Map.of("format", "cloudevents")))
                .build()) {
      api.put("order 1", Map.of("customer", 7, "total", 12));
      w.tick();

      List<GetResponse> got = rabbit.read(1, Duration.ofSeconds(20));
      assertThat(got).hasSize(1);
      GetResponse message = got.get(0);
      CloudEvent event = AmqpCloudEventReader.read(message);

      // Expected values: the mapping table of docs/sinks.md, for the change made above.
      assertThat(event.getSpecVersion()).isEqualTo(SpecVersion.V1);
      assertThat(event.getId()).isEqualTo(message.getProps().getMessageId());
      assertThat(event.getSource()).isEqualTo(URI.create("/watukuy/feed"));
      assertThat(event.getType()).isEqualTo("io.watukuy.item.created");
      assertThat(event.getSubject()).isEqualTo("order 1");
      assertThat(event.getTime()).isEqualTo(OffsetDateTime.parse("2026-03-01T10:00:00Z"));
      assertThat(event.getDataContentType()).isEqualTo("application/json");
      assertThat(event.getExtension("eventid"))
          .isEqualTo(message.getProps().getHeaders().get("watukuy-event-id").toString());
      assertThat(event.getExtension("partitionkey")).isEqualTo("customer-7");
      assertThat((String) event.getExtension("sequence")).matches("\\d{19}");
      assertThat(event.getId())
          .isEqualTo(
              event.getExtension("eventid")
                  + "-"
                  + Long.parseLong((String) event.getExtension("sequence")));
      assertThat(event.getExtension("lane")).isEqualTo("live");
      JsonNode data = JSON.readTree(event.getData().toBytes());
      assertThat(data.get("item").get("id").asText()).isEqualTo("order 1");
      assertThat(data.get("item").get("total").asInt()).isEqualTo(12);
      assertThat(data.get("previous").isNull()).isTrue();
      // datacontenttype travels as the content_type property only (the binding's §3.1.1).
      assertThat(message.getProps().getHeaders()).doesNotContainKey("cloudEvents:datacontenttype");
      assertThat(message.getProps().getDeliveryMode()).isEqualTo(2);
    }
  }

  /**
   * A listener's trace context ({@code WatukuyListener.onDeliveryStart}, what watukuy-opentelemetry
   * returns) travels as the message's {@code traceparent} and {@code tracestate} headers and as the
   * CloudEvents distributed tracing extension, which the SDK reads back.
   */
  @Test
  void theDeliverysTraceContextIsAHeaderAndTheTracingExtension() throws Exception {
    String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
    FakeApi api = new FakeApi(clock);
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id").asText())
            .cursor(Cursors.token())
            .fetch(api.tokenFetcher(50))
            .schedule(Schedule.every(Duration.ofSeconds(30)).withAdaptive(false).withJitter(0))
            .build();
    WatukuyListener tracing =
        new WatukuyListener() {
          @Override
          public Map<String, String> onDeliveryStart(DeliveryCall call) {
            return Map.of("traceparent", traceparent, "tracestate", "vendor=x");
          }
        };
    try (TestRabbit rabbit = TestRabbit.fresh("cloudevents-trace");
        Watukuy w =
            Watukuy.builder()
                .store(new MemoryStore())
                .time(clock)
                .random(SeededRandom.of(7))
                .instanceId("test")
                .executor(Runnable::run)
                .handlerExecutor(Runnable::run)
                .delivery(new DeliveryOptions(1, 100, 10))
                .poller(feed)
                .sink(feed, rabbit.sink(Map.of("format", "cloudevents")))
                .listener(tracing)
                .build()) {
      api.put("order 1", Map.of("customer", 7, "total", 12));
      w.tick();

      List<GetResponse> got = rabbit.read(1, Duration.ofSeconds(20));
      assertThat(got).hasSize(1);
      Map<String, Object> headers = got.get(0).getProps().getHeaders();
      assertThat(headers.get("traceparent")).hasToString(traceparent);
      assertThat(headers.get("tracestate")).hasToString("vendor=x");
      CloudEvent event = AmqpCloudEventReader.read(got.get(0));
      assertThat(event.getExtension("traceparent")).isEqualTo(traceparent);
      assertThat(event.getExtension("tracestate")).isEqualTo("vendor=x");
    }
  }
}
