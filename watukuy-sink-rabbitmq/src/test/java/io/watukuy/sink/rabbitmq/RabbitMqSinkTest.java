package io.watukuy.sink.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.GetResponse;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.DeliveryPolicy;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.spi.OutboxRow;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The RabbitMQ sink against the machine's broker (docs/sinks.md, "RabbitMQ"): what arrives, in what
 * order, with which {@code message_id}; what stays pending and what is parked.
 */
class RabbitMqSinkTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration READ = Duration.ofSeconds(20);
  private static final Duration INTERVAL = Duration.ofSeconds(30);
  private static final PollerKey FEED = PollerKey.of("feed");

  private final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  private final FakeApi api = new FakeApi(clock);
  private final MemoryStore store = new MemoryStore();
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void cleanUp() throws Exception {
    for (AutoCloseable c : cleanup) c.close();
  }

  private TestRabbit rabbit(String label) throws Exception {
    TestRabbit r = TestRabbit.fresh(label);
    cleanup.add(0, r);
    return r;
  }

  /** A change feed (creates, updates and deletes) with the item id as ordering key. */
  private Poller.Builder<JsonNode, String> feed() {
    return Poller.builder("feed", JsonNode.class)
        .identity(n -> n.get("id").asText())
        .tombstone(n -> n.path("deleted").asBoolean())
        .cursor(Cursors.token())
        .fetch(api.tokenFetcher(50))
        .schedule(Schedule.every(INTERVAL).withAdaptive(false).withJitter(0));
  }

  private Watukuy.Builder engine(DeliveryOptions delivery) {
    return Watukuy.builder()
        .store(store)
        .time(clock)
        .random(SeededRandom.of(7))
        .instanceId("test")
        .executor(Runnable::run)
        .handlerExecutor(Runnable::run)
        .delivery(delivery);
  }

  private static JsonNode body(GetResponse r) throws Exception {
    return JSON.readTree(new String(r.getBody(), StandardCharsets.UTF_8));
  }

  private static String header(GetResponse r, String name) {
    Object v = r.getProps().getHeaders().get(name);
    return v == null ? null : v.toString();
  }

  @Test
  void everyChangeOfAMutatingApiArrivesAsAPersistentMessageKeyedByItsDeliveryKey()
      throws Exception {
    TestRabbit rabbit = rabbit("every");
    Poller<JsonNode> feed = feed().build();
    RabbitMqSink sink = rabbit.sink(Map.of("routingKey", "changes.{{source}}"));
    Watukuy w = engine(new DeliveryOptions(1, 100, 3)).poller(feed).sink(feed, sink).build();
    cleanup.add(0, w);

    api.put("a", Map.of("v", 1));
    api.put("b", Map.of("v", 1));
    w.tick();
    clock.advance(INTERVAL);
    api.put("a", Map.of("v", 2));
    api.delete("b");
    api.put("c", Map.of("v", 1));
    w.tick();

    // The changes made above, in feed order: a created, b created, a updated, b deleted, c created.
    List<GetResponse> got = rabbit.read(5, READ);
    assertThat(got).hasSize(5);
    List<String> seen = new ArrayList<>();
    for (GetResponse r : got) {
      JsonNode env = body(r);
      seen.add(env.get("identity").asText() + " " + env.get("type").asText());
      assertThat(r.getProps().getDeliveryMode()).isEqualTo(2);
      assertThat(r.getProps().getContentType()).isEqualTo("application/json");
      assertThat(r.getProps().getMessageId())
          .isEqualTo(env.get("id").asText() + "-" + env.get("sequence").asLong());
      assertThat(header(r, "watukuy-event-id")).isEqualTo(env.get("id").asText());
      assertThat(r.getEnvelope().getRoutingKey()).isEqualTo("changes.feed");
    }
    assertThat(seen)
        .containsExactly("a created", "b created", "a updated", "b deleted", "c created");
    assertThat(store.countPending(FEED)).isZero();
    assertThat(store.countParked(FEED)).isZero();
  }

  @Test
  void eachItemsChangesArriveInOrderWithConcurrencyFourAndBatchesOfThree() throws Exception {
    TestRabbit rabbit = rabbit("order");
    Poller<JsonNode> feed = feed().build();
    ExecutorService handlers = Executors.newFixedThreadPool(4);
    cleanup.add(handlers::shutdownNow);
    Watukuy w =
        engine(new DeliveryOptions(4, 100, 3))
            .handlerExecutor(handlers)
            .poller(feed)
            .sink(feed, rabbit.sink(Map.of()))
            .build();
    cleanup.add(0, w);

    int items = 12;
    int rounds = 5;
    for (int round = 1; round <= rounds; round++) {
      for (int i = 0; i < items; i++) api.put("i" + i, Map.of("round", round));
      w.tick();
      clock.advance(INTERVAL);
    }

    List<GetResponse> got = rabbit.read(items * rounds, READ);
    Map<String, List<Integer>> rounds0 = new LinkedHashMap<>();
    for (GetResponse r : got) {
      JsonNode data = body(r).get("data");
      rounds0
          .computeIfAbsent(data.get("id").asText(), k -> new ArrayList<>())
          .add(data.get("round").asInt());
    }
    assertThat(rounds0).hasSize(items);
    for (Map.Entry<String, List<Integer>> e : rounds0.entrySet())
      assertThat(e.getValue()).as(e.getKey()).containsExactly(1, 2, 3, 4, 5);
  }

  @Test
  void anItemGoingAToBToAArrivesThreeTimesWithThreeDistinctMessageIds() throws Exception {
    TestRabbit rabbit = rabbit("aba");
    // No version function: the item is tracked by hash, so A again is the observation A again.
    Poller<JsonNode> feed = feed().build();
    Watukuy w =
        engine(new DeliveryOptions(1, 100, 10))
            .poller(feed)
            .sink(feed, rabbit.sink(Map.of()))
            .build();
    cleanup.add(0, w);

    for (String state : List.of("A", "B", "A")) {
      api.put("x", Map.of("state", state));
      w.tick();
      clock.advance(INTERVAL);
    }

    List<GetResponse> got = rabbit.read(3, READ);
    assertThat(got).hasSize(3);
    List<String> states = new ArrayList<>();
    for (GetResponse r : got) states.add(body(r).get("data").get("state").asText());
    assertThat(states).containsExactly("A", "B", "A");
    assertThat(new HashSet<>(got.stream().map(r -> r.getProps().getMessageId()).toList()))
        .hasSize(3);
  }

  @Test
  void aBrokerOnAClosedPortLeavesTheBatchPendingWithNoAttemptCounted() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Poller<JsonNode> feed = feed().build();
    RabbitMqSink sink =
        (RabbitMqSink)
            new RabbitMqSinkProvider()
                .create(
                    io.watukuy.sink.SinkConfig.of(
                        Map.of(
                            "type",
                            "rabbitmq",
                            "uri",
                            "amqp://guest:s3cret-pw@127.0.0.1:" + port + "/%2F",
                            "exchange",
                            "nowhere"),
                        java.nio.file.Path.of(".")));
    Watukuy w = engine(new DeliveryOptions(1, 100, 10)).poller(feed).sink(feed, sink).build();
    cleanup.add(0, w);
    api.put("a", Map.of("v", 1));
    api.put("b", Map.of("v", 1));

    KeyReport report = w.tick().key(FEED).orElseThrow();

    assertThat(report.delivered()).isZero();
    assertThat(report.error()).isNotNull();
    assertThat(report.error().getMessage())
        .contains("sink rabbitmq amqp://guest:[redacted]@127.0.0.1:" + port)
        .contains("cannot connect")
        .doesNotContain("s3cret-pw");
    List<OutboxRow> pending = store.loadPending(FEED, 0, 10);
    assertThat(pending).hasSize(2);
    assertThat(pending).extracting(OutboxRow::attempts).containsOnly(0);
    assertThat(store.countParked(FEED)).isZero();
    assertThat(sink.health().healthy()).isFalse();
    assertThat(sink.health().detail()).doesNotContain("s3cret-pw");
  }

  @Test
  void anEventTooLargeForTheBrokersFrameIsParkedAndTheOtherItemsArrive() throws Exception {
    TestRabbit rabbit = rabbit("large");
    // CloudEvents puts the identity in two headers (subject, partitionkey); 100 000 characters
    // twice is more than the broker's frame (131 072 bytes by default), which must hold every
    // header of a message.
    String huge = "h".repeat(100_000);
    Poller<JsonNode> feed =
        feed()
            .maxItemSize(1_000_000)
            .delivery(DeliveryPolicy.DEFAULT.withRetry(RetryPolicy.attempts(1)))
            .build();
    Watukuy w =
        engine(new DeliveryOptions(1, 100, 10))
            .poller(feed)
            .sink(feed, rabbit.sink(Map.of("format", "cloudevents")))
            .build();
    cleanup.add(0, w);
    api.put("a", Map.of("v", 1));
    api.put(huge, Map.of("v", 1));
    api.put("c", Map.of("v", 1));

    KeyReport report = w.tick().key(FEED).orElseThrow();

    assertThat(report.parked()).isEqualTo(1);
    // "a" may come twice (published again after the refusal, unconfirmed): same message_id.
    Map<String, String> byMessageId = new LinkedHashMap<>();
    for (GetResponse r : rabbit.read(2, READ))
      byMessageId.putIfAbsent(r.getProps().getMessageId(), header(r, "cloudEvents:subject"));
    assertThat(byMessageId.values()).containsExactly("a", "c");
    assertThat(store.countParked(FEED)).isEqualTo(1);
    assertThat(store.countPending(FEED)).isZero();
  }

  @Test
  void aMessageThatReachesNoQueueLeavesTheBatchPendingAndIsPublishedOnceAQueueIsBound()
      throws Exception {
    TestRabbit rabbit = rabbit("unroutable");
    Poller<JsonNode> feed = feed().build();
    Watukuy w =
        engine(new DeliveryOptions(1, 100, 10))
            .poller(feed)
            .sink(feed, rabbit.sink(Map.of("routingKey", "nobody.listens")))
            .build();
    cleanup.add(0, w);
    rabbit.channel().queueUnbind(rabbit.queue, rabbit.exchange, "#");
    api.put("a", Map.of("v", 1));

    KeyReport first = w.tick().key(FEED).orElseThrow();

    assertThat(first.delivered()).isZero();
    assertThat(first.error()).hasMessageContaining("no queue is bound");
    assertThat(store.loadPending(FEED, 0, 10)).extracting(OutboxRow::attempts).containsExactly(0);

    rabbit.channel().queueBind(rabbit.queue, rabbit.exchange, "nobody.#");
    clock.advance(Duration.ofMinutes(10)); // past the backoff
    w.tick();

    assertThat(rabbit.read(1, READ)).hasSize(1);
    assertThat(store.countPending(FEED)).isZero();
  }

  private String viaProxy(TcpProxy proxy) {
    return "amqp://guest:guest@127.0.0.1:" + proxy.port() + "/%2F";
  }

  @Test
  void aLostConnectionLeavesTheBatchPendingAndTheNextBatchConnectsAgain() throws Exception {
    TestRabbit rabbit = rabbit("lost");
    TcpProxy proxy = new TcpProxy(5672);
    cleanup.add(0, proxy);
    Poller<JsonNode> feed = feed().build();
    Watukuy w =
        engine(new DeliveryOptions(1, 100, 10))
            .poller(feed)
            .sink(feed, rabbit.sink(Map.of("uri", viaProxy(proxy))))
            .build();
    cleanup.add(0, w);
    api.put("a", Map.of("v", 1));
    w.tick();
    assertThat(rabbit.read(1, READ)).hasSize(1);

    proxy.cut();
    clock.advance(INTERVAL);
    api.put("b", Map.of("v", 1));
    KeyReport lost = w.tick().key(FEED).orElseThrow();

    assertThat(lost.delivered()).isZero();
    assertThat(lost.error()).hasMessageContaining("sink rabbitmq amqp://guest:[redacted]@");
    assertThat(store.loadPending(FEED, 0, 10)).extracting(OutboxRow::attempts).containsExactly(0);
    assertThat(store.countParked(FEED)).isZero();

    proxy.reopen();
    clock.advance(Duration.ofMinutes(10)); // past the backoff
    w.tick();

    List<GetResponse> got = rabbit.read(1, READ);
    assertThat(got).extracting(r -> body(r).get("identity").asText()).containsExactly("b");
    assertThat(store.countPending(FEED)).isZero();
  }

  @Test
  void noConfirmWithinTheTimeoutLeavesTheBatchPendingAndItIsPublishedAgainWithTheSameMessageId()
      throws Exception {
    TestRabbit rabbit = rabbit("confirm");
    TcpProxy proxy = new TcpProxy(5672);
    cleanup.add(0, proxy);
    Poller<JsonNode> feed = feed().build();
    Watukuy w =
        engine(new DeliveryOptions(1, 100, 10))
            .poller(feed)
            .sink(feed, rabbit.sink(Map.of("uri", viaProxy(proxy), "confirmTimeout", "1s")))
            .build();
    cleanup.add(0, w);
    api.put("a", Map.of("v", 1));
    w.tick();
    assertThat(rabbit.read(1, READ)).hasSize(1);

    // The message reaches the broker; its confirm does not reach the sink.
    proxy.mute(true);
    clock.advance(INTERVAL);
    api.put("b", Map.of("v", 1));
    KeyReport silent = w.tick().key(FEED).orElseThrow();

    assertThat(silent.delivered()).isZero();
    assertThat(silent.error()).hasMessageContaining("no publisher confirm");
    assertThat(store.loadPending(FEED, 0, 10)).extracting(OutboxRow::attempts).containsExactly(0);

    proxy.mute(false);
    clock.advance(Duration.ofMinutes(10)); // past the backoff
    w.tick();

    List<GetResponse> got = rabbit.read(2, READ);
    assertThat(got).hasSize(2);
    assertThat(got).extracting(r -> body(r).get("identity").asText()).containsOnly("b");
    assertThat(got.get(1).getProps().getMessageId())
        .isEqualTo(got.get(0).getProps().getMessageId());
    assertThat(store.countPending(FEED)).isZero();
  }
}
