package io.watukuy.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.sink.EventFormat;
import io.watukuy.sink.webhook.SigningSecret;
import io.watukuy.sink.webhook.WebhookSettings;
import io.watukuy.sink.webhook.WebhookSink;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The trace context of a delivery span on the webhook sink's real HTTP requests, received by a
 * server on 127.0.0.1: the W3C {@code traceparent} header, and in CloudEvents format the {@code
 * traceparent} extension of each event, both naming the delivery span.
 */
class WebhookTraceContextTest {
  static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  static final ObjectMapper JSON = new ObjectMapper();

  record Received(String traceparent, String tracestate, String body) {}

  final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  final OpenTelemetrySdk otel =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                  .build())
          .build();
  final List<Received> received = new CopyOnWriteArrayList<>();
  HttpServer receiver;

  @BeforeEach
  void receiver() throws IOException {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/hook",
        ex -> {
          received.add(
              new Received(
                  ex.getRequestHeaders().getFirst("traceparent"),
                  ex.getRequestHeaders().getFirst("tracestate"),
                  new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
          ex.sendResponseHeaders(204, -1);
          ex.close();
        });
    receiver.start();
  }

  @AfterEach
  void stop() {
    receiver.stop(0);
    otel.close();
  }

  Watukuy engine(WebhookSettings settings, int batchSize) {
    Poller<JsonNode> orders =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(
                ctx ->
                    Page.of(
                        List.of(
                            JSON.createObjectNode().put("id", "a"),
                            JSON.createObjectNode().put("id", "b"))))
            .schedule(Schedule.every(Duration.ofSeconds(30)).withAdaptive(false).withJitter(0))
            .build();
    return Watukuy.builder()
        .store(new MemoryStore())
        .time(clock)
        .random(SeededRandom.of(7))
        .instanceId("a")
        .executor(Runnable::run)
        .handlerExecutor(Runnable::run)
        .delivery(new DeliveryOptions(1, 100, batchSize))
        .poller(orders)
        .sink(orders, new WebhookSink(settings, clock))
        .listener(WatukuyTracing.builder(otel).time(clock).build())
        .build();
  }

  WebhookSettings settings() {
    return WebhookSettings.of(
        "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook",
        SigningSecret.parse(SECRET));
  }

  SpanData delivery() {
    return exporter.getFinishedSpanItems().stream()
        .filter(s -> s.getKind() == SpanKind.PRODUCER)
        .reduce(
            (a, b) -> {
              throw new AssertionError("more than one delivery span: " + a + ", " + b);
            })
        .orElseThrow();
  }

  /** The header as the W3C propagator writes it: version, trace id, span id, flags. */
  static String traceparent(SpanContext c) {
    return "00-" + c.getTraceId() + "-" + c.getSpanId() + "-" + c.getTraceFlags().asHex();
  }

  /**
   * CloudEvents, one request per event: both requests of the one batch carry the delivery span's
   * traceparent as a header and as the extension of the structured event; no tracestate (the trace
   * has none).
   */
  @Test
  void cloudEventsCarryTheDeliverySpanAsHeaderAndExtension() throws IOException {
    Watukuy w = engine(settings().withFormat(EventFormat.CLOUDEVENTS), 10);

    w.tick();

    String expected = traceparent(delivery().getSpanContext());
    assertThat(received).hasSize(2);
    for (Received r : received) {
      assertThat(r.traceparent).isEqualTo(expected);
      assertThat(r.tracestate).isNull();
      JsonNode event = JSON.readTree(r.body);
      assertThat(event.get("specversion").asText()).isEqualTo("1.0");
      assertThat(event.get("traceparent").asText()).isEqualTo(expected);
      assertThat(event.has("tracestate")).isFalse();
    }
  }

  /**
   * The envelope format in one request per batch: the header names the batch's delivery span, and
   * the envelope, which is the event's own record, is unchanged.
   */
  @Test
  void anEnvelopeBatchCarriesTheDeliverySpanAsHeader() throws IOException {
    Watukuy w = engine(settings().withBatch(true), 10);

    w.tick();

    assertThat(received)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.traceparent).isEqualTo(traceparent(delivery().getSpanContext()));
              JsonNode batch = JSON.readTree(r.body);
              assertThat(batch).hasSize(2);
              assertThat(batch.get(0).has("traceparent")).isFalse();
            });
  }
}
