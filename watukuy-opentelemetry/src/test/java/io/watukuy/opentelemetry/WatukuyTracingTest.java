package io.watukuy.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The spans of {@link WatukuyTracing} in the SDK's in-memory exporter, after scripted runs against
 * a real HTTP server on 127.0.0.1 on a virtual clock that the server and the handlers advance while
 * they work: exact span counts, names, kinds, parents, links, attributes and times.
 */
class WatukuyTracingTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  static final Schedule FIXED =
      Schedule.every(Duration.ofSeconds(30)).withAdaptive(false).withJitter(0);

  final VirtualClock clock = VirtualClock.at(T0.toString());
  final MemoryStore store = new MemoryStore();
  final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  final OpenTelemetrySdk otel =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                  .build())
          .build();

  /** What the server answers to the request with the given page number (from 1). */
  Function<Integer, Answer> answers;

  HttpServer server;
  String base;

  record Answer(int status, Duration takes, String body) {}

  @BeforeEach
  void server() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/orders",
        (HttpExchange ex) -> {
          String query = ex.getRequestURI().getQuery();
          int page = Integer.parseInt(query.substring(query.indexOf("page=") + 5));
          Answer a = answers.apply(page);
          clock.advance(a.takes);
          byte[] body = a.body.getBytes(StandardCharsets.UTF_8);
          if (a.status == 429) ex.getResponseHeaders().add("Retry-After", "60");
          ex.sendResponseHeaders(a.status, body.length == 0 ? -1 : body.length);
          if (body.length > 0) ex.getResponseBody().write(body);
          ex.close();
        });
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    server.stop(0);
    otel.close();
  }

  /** A snapshot poller whose page N asks {@code /orders?token=s3cr3t&page=N}. */
  Poller<JsonNode> orders(int pages) {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff())
        .fetch(
            ctx -> {
              JsonNode items = ctx.http().get(url(ctx.page())).json().get("items");
              List<JsonNode> list = new ArrayList<>();
              items.forEach(list::add);
              return Page.of(list).withHasMore(ctx.page() < pages);
            })
        .schedule(FIXED)
        .build();
  }

  String url(int page) {
    return base + "/orders?token=s3cr3t&page=" + page;
  }

  WatukuyTracing tracing() {
    return WatukuyTracing.builder(otel).time(clock).build();
  }

  Watukuy.Builder engine(String instance) {
    return Watukuy.builder()
        .store(store)
        .time(clock)
        .random(SeededRandom.of(7))
        .instanceId(instance)
        .executor(Runnable::run)
        .handlerExecutor(Runnable::run)
        .delivery(new DeliveryOptions(1, DeliveryOptions.DEFAULT_DISPATCH_BATCH_SIZE));
  }

  static Answer item(String id, long millis) {
    return new Answer(200, Duration.ofMillis(millis), "{\"items\":[{\"id\":\"" + id + "\"}]}");
  }

  /** Finished spans in start order (ties: the span that ends first). */
  List<SpanData> spans() {
    List<SpanData> spans = new ArrayList<>(exporter.getFinishedSpanItems());
    spans.sort(
        Comparator.comparingLong(SpanData::getStartEpochNanos)
            .thenComparing(s -> s.getKind() == SpanKind.INTERNAL ? 0 : 1)
            .thenComparingLong(SpanData::getEndEpochNanos));
    return spans;
  }

  static long nanos(Instant at) {
    return at.getEpochSecond() * 1_000_000_000L + at.getNano();
  }

  static Instant at(long millis) {
    return T0.plusMillis(millis);
  }

  static <T> T attr(SpanData s, AttributeKey<T> key) {
    return s.getAttributes().get(key);
  }

  /**
   * One cycle over two pages, each of one new item, each event handled in 10 ms: a cycle span, and
   * for each page a GET client span (its child) and a delivery span (a trace of its own, linked to
   * the cycle). Five spans in all, with the times the server and the handler took.
   */
  @Test
  void aCycleOfTwoPagesIsOneCycleSpanTwoClientSpansAndTwoDeliverySpans() {
    answers = page -> page == 1 ? item("a", 50) : item("b", 30);
    Poller<JsonNode> p = orders(2);
    Watukuy w =
        engine("a")
            .poller(p)
            .listener(tracing())
            .build()
            .on(p, e -> clock.advance(Duration.ofMillis(10)));

    w.tick();

    List<SpanData> spans = spans();
    assertThat(spans)
        .extracting(SpanData::getName)
        .containsExactly(
            "watukuy.poll orders",
            "GET",
            "watukuy.deliver orders",
            "GET",
            "watukuy.deliver orders");
    SpanData cycle = spans.get(0);
    SpanData get1 = spans.get(1);
    SpanData deliver1 = spans.get(2);
    SpanData get2 = spans.get(3);
    SpanData deliver2 = spans.get(4);

    // The cycle: 50 ms + 10 ms + 30 ms + 10 ms.
    assertThat(cycle.getKind()).isEqualTo(SpanKind.INTERNAL);
    assertThat(cycle.getParentSpanContext().isValid()).isFalse();
    assertThat(cycle.getStartEpochNanos()).isEqualTo(nanos(at(0)));
    assertThat(cycle.getEndEpochNanos()).isEqualTo(nanos(at(100)));
    assertThat(cycle.getAttributes().asMap())
        .isEqualTo(
            Attributes.builder()
                .put("watukuy.poller", "orders")
                .put("watukuy.lane", "live")
                .put("watukuy.cycle.id", 1L)
                .put("watukuy.pages", 2L)
                .put("watukuy.events", 2L)
                .put("watukuy.delivered", 2L)
                .put("watukuy.parked", 0L)
                .put("watukuy.outcome", "success")
                .build()
                .asMap());
    assertThat(cycle.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

    int port = server.getAddress().getPort();
    for (SpanData get : List.of(get1, get2)) {
      assertThat(get.getKind()).isEqualTo(SpanKind.CLIENT);
      assertThat(get.getTraceId()).isEqualTo(cycle.getTraceId());
      assertThat(get.getParentSpanId()).isEqualTo(cycle.getSpanId());
      assertThat(get.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    }
    assertThat(get1.getAttributes().asMap())
        .isEqualTo(
            Attributes.builder()
                .put("http.request.method", "GET")
                .put("url.full", base + "/orders?token=[redacted]&page=1")
                .put("server.address", "127.0.0.1")
                .put("server.port", (long) port)
                .put("http.response.status_code", 200L)
                .build()
                .asMap());
    assertThat(attr(get2, WatukuyTracing.URL)).isEqualTo(base + "/orders?token=[redacted]&page=2");
    assertThat(get1.getStartEpochNanos()).isEqualTo(nanos(at(0)));
    assertThat(get1.getEndEpochNanos()).isEqualTo(nanos(at(50)));
    assertThat(get2.getStartEpochNanos()).isEqualTo(nanos(at(60)));
    assertThat(get2.getEndEpochNanos()).isEqualTo(nanos(at(90)));

    for (SpanData d : List.of(deliver1, deliver2)) {
      assertThat(d.getKind()).isEqualTo(SpanKind.PRODUCER);
      assertThat(d.getParentSpanContext().isValid()).isFalse();
      assertThat(d.getTraceId()).isNotEqualTo(cycle.getTraceId());
      assertThat(d.getLinks())
          .extracting(LinkData::getSpanContext)
          .containsExactly(cycle.getSpanContext());
      assertThat(d.getAttributes().asMap())
          .isEqualTo(
              Attributes.builder()
                  .put("watukuy.poller", "orders")
                  .put("watukuy.events", 1L)
                  .put("watukuy.delivery.attempt", 1L)
                  .put("watukuy.delivery.failed", 0L)
                  .build()
                  .asMap());
    }
    assertThat(deliver1.getStartEpochNanos()).isEqualTo(nanos(at(50)));
    assertThat(deliver1.getEndEpochNanos()).isEqualTo(nanos(at(60)));
    assertThat(deliver2.getStartEpochNanos()).isEqualTo(nanos(at(90)));
    assertThat(deliver2.getEndEpochNanos()).isEqualTo(nanos(at(100)));
  }

  /**
   * A 429 (Retry-After: 60) throttles the first cycle: its span has outcome throttled and no error
   * status (the vendor said when to come back), its GET span status ERROR and error.type 429. The
   * same request 60 s later is the second attempt: http.request.resend_count 1, status code 200, no
   * error. No span shows the token.
   */
  @Test
  void a429ThrottlesTheCycleAndTheRetriedRequestHasResendCount1() {
    AtomicInteger served = new AtomicInteger();
    answers =
        page ->
            served.incrementAndGet() == 1
                ? new Answer(429, Duration.ofMillis(120), "")
                : item("a", 80);
    Poller<JsonNode> p = orders(1);
    Watukuy w = engine("a").poller(p).listener(tracing()).build().on(p, e -> {});

    w.tick();
    clock.advance(Duration.ofSeconds(60));
    w.tick();

    List<SpanData> spans = spans();
    assertThat(spans)
        .extracting(SpanData::getName)
        .containsExactly(
            "watukuy.poll orders", "GET", "watukuy.poll orders", "GET", "watukuy.deliver orders");
    SpanData failed = spans.get(0);
    SpanData throttled = spans.get(1);
    SpanData second = spans.get(2);
    SpanData retried = spans.get(3);

    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(attr(failed, WatukuyTracing.OUTCOME)).isEqualTo("throttled");
    assertThat(attr(failed, WatukuyTracing.ERROR_TYPE)).isNull();
    assertThat(attr(failed, WatukuyTracing.PAGES)).isZero();
    assertThat(failed.getEndEpochNanos()).isEqualTo(nanos(at(120)));

    assertThat(throttled.getParentSpanId()).isEqualTo(failed.getSpanId());
    assertThat(throttled.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(attr(throttled, WatukuyTracing.STATUS)).isEqualTo(429L);
    assertThat(attr(throttled, WatukuyTracing.ERROR_TYPE)).isEqualTo("429");
    assertThat(attr(throttled, WatukuyTracing.RESEND_COUNT)).isNull();

    assertThat(second.getTraceId()).isNotEqualTo(failed.getTraceId());
    assertThat(attr(second, WatukuyTracing.OUTCOME)).isEqualTo("success");
    assertThat(retried.getParentSpanId()).isEqualTo(second.getSpanId());
    assertThat(attr(retried, WatukuyTracing.RESEND_COUNT)).isEqualTo(1L);
    assertThat(attr(retried, WatukuyTracing.STATUS)).isEqualTo(200L);
    assertThat(attr(retried, WatukuyTracing.ERROR_TYPE)).isNull();
    assertThat(retried.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(retried.getStartEpochNanos()).isEqualTo(nanos(at(60_120)));
    assertThat(retried.getEndEpochNanos()).isEqualTo(nanos(at(60_200)));

    for (SpanData s : spans) assertThat(s.toString()).doesNotContain("s3cr3t");
  }

  /**
   * The destination is down when the event is committed: the delivery span fails (one event failed,
   * error.type the exception). Retried by the same process in its next cycle, the delivery still
   * links to the cycle that committed the event. After a restart (a new engine and instrumentation
   * on the same store) the delivery of a pending event starts a trace of its own with no link.
   */
  @Test
  void aDeliveryLinksToItsCommittingCycleUntilARestart() {
    answers = page -> item("a", 20);
    AtomicBoolean down = new AtomicBoolean(true);
    Poller<JsonNode> p = orders(1);
    Watukuy first =
        engine("a")
            .poller(p)
            .listener(tracing())
            .build()
            .on(
                p,
                e -> {
                  if (down.get()) throw new HandlerUnavailableException("receiver down", null);
                });

    first.tick(); // commits "a", whose delivery fails: the destination is down
    clock.advance(Duration.ofSeconds(30));
    down.set(false);
    first.tick(); // polls again (no change) and delivers "a"

    List<SpanData> spans = spans();
    assertThat(spans)
        .extracting(SpanData::getName)
        .containsExactly(
            "watukuy.poll orders",
            "GET",
            "watukuy.deliver orders",
            "watukuy.poll orders",
            "watukuy.deliver orders",
            "GET");
    SpanData committing = spans.get(0);
    SpanData failedDelivery = spans.get(2);
    SpanData redelivery = spans.get(4);
    assertThat(failedDelivery.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(attr(failedDelivery, WatukuyTracing.FAILED)).isEqualTo(1L);
    assertThat(attr(failedDelivery, WatukuyTracing.ERROR_TYPE))
        .isEqualTo(HandlerUnavailableException.class.getName());
    for (SpanData d : List.of(failedDelivery, redelivery))
      assertThat(d.getLinks())
          .extracting(LinkData::getSpanContext)
          .containsExactly(committing.getSpanContext());
    assertThat(redelivery.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);

    // The same again, then a restart before the destination is back.
    answers = page -> item("b", 20);
    down.set(true);
    clock.advance(Duration.ofSeconds(30));
    first.tick(); // commits "b" created and "a" deleted, neither delivered
    exporter.reset();
    down.set(false);
    Watukuy restarted = engine("b").poller(p).listener(tracing()).build().on(p, e -> {});
    clock.advance(Duration.ofSeconds(1));

    restarted.tick(); // drains "b" before it polls

    List<SpanData> afterRestart =
        spans().stream().filter(s -> s.getKind() == SpanKind.PRODUCER).toList();
    List<String> cycleTraces =
        spans().stream()
            .filter(s -> s.getKind() == SpanKind.INTERNAL)
            .map(SpanData::getTraceId)
            .toList();
    assertThat(afterRestart).hasSize(2);
    for (SpanData d : afterRestart) {
      assertThat(d.getLinks()).isEmpty();
      assertThat(d.getParentSpanContext().isValid()).isFalse();
      assertThat(cycleTraces).doesNotContain(d.getTraceId());
      assertThat(attr(d, WatukuyTracing.FAILED)).isZero();
    }
  }
}
