package io.watukuy.sink.nats;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.watukuy.BatchHandler.BatchResult;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.DeliveryCall;
import io.watukuy.DeliveryOptions;
import io.watukuy.DeliveryPolicy;
import io.watukuy.EventType;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.KeyReport;
import io.watukuy.Lane;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.Schedule;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.sink.EventFormat;
import io.watukuy.spi.OutboxRow;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The NATS JetStream sink against the machine's server (docs/sinks.md, "NATS JetStream"): the
 * engine polls a mutating in-JVM API under a virtual clock and the test reads the stream back.
 */
class NatsSinkTest {
  @RegisterExtension static final TestNats nats = TestNats.local();

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration INTERVAL = Duration.ofSeconds(30);
  private static final PollerKey ORDERS = PollerKey.of("orders");

  private final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  private final FakeApi api = new FakeApi(clock);
  private final MemoryStore store = new MemoryStore();
  private final List<Watukuy> engines = new ArrayList<>();
  private ExecutorService pool;

  @AfterEach
  void closeEngines() {
    engines.forEach(Watukuy::close);
    if (pool != null) pool.shutdownNow();
  }

  private Poller.Builder<JsonNode, Watermark> orders() {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id"))
        .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
        .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
        .fetch(api.timestampFetcher(50))
        .schedule(Schedule.every(INTERVAL).withAdaptive(false).withJitter(0));
  }

  private Watukuy engine(Poller<JsonNode> poller, NatsSink sink, DeliveryOptions delivery) {
    Watukuy.Builder b =
        Watukuy.builder()
            .store(store)
            .time(clock)
            .random(SeededRandom.of(7))
            .instanceId("test")
            .executor(Runnable::run)
            .delivery(delivery)
            .poller(poller)
            .sink(poller, sink);
    b = pool == null ? b.handlerExecutor(Runnable::run) : b.handlerExecutor(pool);
    Watukuy w = b.build();
    engines.add(w);
    return w;
  }

  private Watukuy engine(Poller<JsonNode> poller, NatsSink sink) {
    return engine(poller, sink, new DeliveryOptions(1, 100));
  }

  private static NatsSink sink(String stream) {
    return new NatsSink(
        NatsSinkSettings.of(TestNats.URL)
            .withStream(stream, true)
            .withSubject(TestNats.prefix(stream) + ".{{source}}.{{partition}}"));
  }

  private void tick(Watukuy w) {
    KeyReport r = w.tick().key(ORDERS).orElseThrow();
    assertThat(r.error()).as("cycle error").isNull();
    clock.advance(INTERVAL);
  }

  @Test
  void everyChangeOfAMutatingApiArrivesInTheStreamWithItsDeliveryKeyAndEventId() throws Exception {
    String stream = nats.newStream("every");
    Watukuy w = engine(orders().build(), sink(stream));
    for (int i = 1; i <= 5; i++) api.put("o" + i, Map.of("n", i));
    tick(w);
    api.put("o2", Map.of("n", 20));
    api.put("o4", Map.of("n", 40));
    api.put("o6", Map.of("n", 6));
    tick(w);
    api.put("o2", Map.of("n", 200));
    tick(w);

    List<MessageInfo> messages = nats.read(stream);
    // 5 creates, then 2 updates and 1 create, then 1 update.
    assertThat(messages).hasSize(9);
    List<String> seen = new ArrayList<>();
    for (MessageInfo m : messages) {
      JsonNode event = JSON.readTree(TestNats.body(m));
      assertThat(m.getSubject()).isEqualTo(TestNats.prefix(stream) + ".orders");
      assertThat(TestNats.header(m, "Nats-Msg-Id"))
          .isEqualTo(event.get("id").asText() + "-" + event.get("sequence").asLong());
      assertThat(TestNats.header(m, "watukuy-event-id")).isEqualTo(event.get("id").asText());
      seen.add(
          event.get("identity").asText()
              + " "
              + event.get("type").asText()
              + " "
              + event.get("data").get("n").asInt());
    }
    assertThat(seen)
        .containsExactly(
            "o1 created 1",
            "o2 created 2",
            "o3 created 3",
            "o4 created 4",
            "o5 created 5",
            "o2 updated 20",
            "o4 updated 40",
            "o6 created 6",
            "o2 updated 200");
    assertThat(store.countPending(ORDERS)).isZero();
  }

  /**
   * A listener's trace context ({@code WatukuyListener.onDeliveryStart}, what watukuy-opentelemetry
   * returns) is a header of every message of the batch.
   */
  @Test
  void theDeliverysTraceContextIsAHeaderOfEachMessage() throws Exception {
    String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    String stream = nats.newStream("trace");
    Poller<JsonNode> poller = orders().build();
    Watukuy w =
        Watukuy.builder()
            .store(store)
            .time(clock)
            .random(SeededRandom.of(7))
            .instanceId("test")
            .executor(Runnable::run)
            .handlerExecutor(Runnable::run)
            .delivery(new DeliveryOptions(1, 100))
            .poller(poller)
            .sink(poller, sink(stream))
            .listener(
                new WatukuyListener() {
                  @Override
                  public Map<String, String> onDeliveryStart(DeliveryCall call) {
                    return Map.of("traceparent", traceparent);
                  }
                })
            .build();
    engines.add(w);
    api.put("o1", Map.of("n", 1));
    api.put("o2", Map.of("n", 2));
    tick(w);

    List<MessageInfo> messages = nats.read(stream);
    assertThat(messages).hasSize(2);
    for (MessageInfo m : messages)
      assertThat(TestNats.header(m, "traceparent")).isEqualTo(traceparent);
  }

  @Test
  void eachOrderingKeyArrivesInOrderWithFourBatchesInFlight() throws Exception {
    String stream = nats.newStream("order");
    pool = Executors.newFixedThreadPool(4);
    Watukuy w = engine(orders().build(), sink(stream), new DeliveryOptions(4, 100, 3));
    int items = 12;
    int revisions = 5;
    for (int rev = 1; rev <= revisions; rev++) {
      for (int i = 1; i <= items; i++) api.put(String.format("o%02d", i), Map.of("n", rev));
      clock.advance(Duration.ofSeconds(1));
    }
    // The fetch sees each item once (its last state); change them between cycles instead.
    tick(w);
    for (int rev = revisions + 1; rev <= 2 * revisions; rev++) {
      for (int i = 1; i <= items; i++) api.put(String.format("o%02d", i), Map.of("n", rev));
      tick(w);
    }

    Map<String, List<Integer>> perItem = new LinkedHashMap<>();
    for (MessageInfo m : nats.read(stream)) {
      JsonNode event = JSON.readTree(TestNats.body(m));
      perItem
          .computeIfAbsent(event.get("identity").asText(), k -> new ArrayList<>())
          .add(event.get("data").get("n").asInt());
    }
    assertThat(perItem).hasSize(items);
    // Created at its 5th revision (one fetch saw revisions 1..5), then 6..10 in order.
    for (List<Integer> revs : perItem.values()) assertThat(revs).containsExactly(5, 6, 7, 8, 9, 10);
  }

  @Test
  void anItemGoingAToBToAInsideTheDuplicateWindowArrivesThreeTimes() throws Exception {
    String stream = nats.newStream("aba");
    // Tracked by the hash of "v": A and the later A are one observation, and share an event id.
    Poller<JsonNode> poller = orders().version(n -> null).fingerprint(n -> n.get("v")).build();
    Watukuy w = engine(poller, sink(stream));
    api.put("x", Map.of("v", "A"));
    tick(w);
    api.put("x", Map.of("v", "B"));
    tick(w);
    api.put("x", Map.of("v", "A"));
    tick(w);

    List<MessageInfo> messages = nats.read(stream);
    assertThat(messages).hasSize(3);
    Set<String> msgIds = new HashSet<>();
    List<String> values = new ArrayList<>();
    for (MessageInfo m : messages) {
      msgIds.add(TestNats.header(m, "Nats-Msg-Id"));
      values.add(JSON.readTree(TestNats.body(m)).get("data").get("v").asText());
    }
    assertThat(values).containsExactly("A", "B", "A");
    assertThat(msgIds).as("three distinct delivery keys").hasSize(3);
  }

  @Test
  void aRedeliveredBatchWithinTheWindowIsStoredOnce() throws Exception {
    String stream = nats.newStream("redeliver");
    NatsSink sink = sink(stream);
    sink.open();
    try {
      List<ChangeEvent<Object>> batch = new ArrayList<>();
      for (int s = 1; s <= 4; s++) batch.add(event("e" + s, s, "k" + (s % 2), Map.of("n", s)));
      assertThat(sink.handle(batch).allHandled()).isTrue();
      // The same outbox rows again, as after a crash between the acks and the store's ack.
      assertThat(sink.handle(batch).allHandled()).isTrue();
      assertThat(sink.handle(batch.subList(2, 4)).allHandled()).isTrue();
    } finally {
      sink.close();
    }
    List<MessageInfo> messages = nats.read(stream);
    assertThat(messages)
        .extracting(m -> TestNats.header(m, "Nats-Msg-Id"))
        .containsExactly("e1-1", "e2-2", "e3-3", "e4-4");
  }

  @Test
  void anUnreachableServerLeavesTheBatchPendingWithNoAttemptAndNothingParked() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    NatsSink sink =
        new NatsSink(
            NatsSinkSettings.of("nats://watukuy:s3cret-pw@127.0.0.1:" + closedPort)
                .withTimes(Duration.ofMinutes(2), Duration.ofSeconds(2)));
    Watukuy w = engine(orders().build(), sink);
    for (int i = 1; i <= 3; i++) api.put("o" + i, Map.of("n", i));

    KeyReport down = w.tick().key(ORDERS).orElseThrow();

    assertThat(down.error())
        .isInstanceOf(HandlerUnavailableException.class)
        .hasMessageStartingWith(
            "sink nats nats://***@127.0.0.1:" + closedPort + " stream WATUKUY subject")
        .hasMessageContaining("cannot start")
        .hasMessageNotContaining("s3cret-pw");
    assertThat(store.countPending(ORDERS)).isEqualTo(3);
    assertThat(store.countParked(ORDERS)).isZero();
    assertThat(store.loadPending(ORDERS, 0, 10)).extracting(OutboxRow::attempts).containsOnly(0);
    assertThat(sink.name()).doesNotContain("s3cret-pw").doesNotContain("watukuy:");
  }

  @Test
  void aMessageOverTheStreamsMaximumSizeParksThatEventOnly() throws Exception {
    String stream = nats.newStream("oversize");
    String prefix = TestNats.prefix(stream);
    nats.jsm()
        .addStream(
            StreamConfiguration.builder()
                .name(stream)
                .subjects(prefix + ".>")
                .storageType(StorageType.Memory)
                .maximumMessageSize(1024)
                .build());
    Poller<JsonNode> poller =
        orders().delivery(DeliveryPolicy.DEFAULT.withRetry(RetryPolicy.attempts(1))).build();
    Watukuy w = engine(poller, sink(stream));
    api.put("small1", Map.of("n", 1));
    api.put("big", Map.of("n", 2, "blob", "x".repeat(4000)));
    api.put("small2", Map.of("n", 3));

    w.tick();

    assertThat(store.countParked(ORDERS)).isEqualTo(1);
    assertThat(w.parked().list("orders"))
        .singleElement()
        .satisfies(p -> assertThat(p.toString()).contains("big"));
    assertThat(store.countPending(ORDERS)).isZero();
    List<String> identities = new ArrayList<>();
    for (MessageInfo m : nats.read(stream))
      identities.add(JSON.readTree(TestNats.body(m)).get("identity").asText());
    assertThat(identities).containsExactly("small1", "small2");
  }

  @Test
  void aRefusedEventStopsItsOrderingKeyForTheRestOfTheBatchAndOnlyThat() throws Exception {
    String stream = nats.newStream("stopkey");
    nats.jsm()
        .addStream(
            StreamConfiguration.builder()
                .name(stream)
                .subjects(TestNats.prefix(stream) + ".>")
                .storageType(StorageType.Memory)
                .maximumMessageSize(1024)
                .build());
    NatsSink sink = sink(stream);
    sink.open();
    ChangeEvent<Object> big = event("e1", 1, "k1", Map.of("blob", "x".repeat(4000)));
    List<ChangeEvent<Object>> batch =
        List.of(
            big,
            event("e2", 2, "k2", Map.of("n", 2)),
            event("e3", 3, "k1", Map.of("n", 3)),
            event("e4", 4, "k2", Map.of("n", 4)));
    BatchResult result;
    try {
      result = sink.handle(batch);
    } finally {
      sink.close();
    }

    assertThat(result.failures())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.event()).isSameAs(big);
              assertThat(f.cause()).hasMessageContaining("refused e1-1");
            });
    // e3 comes after e1 in ordering key k1: not published while e1 waits for its retry.
    assertThat(nats.read(stream))
        .extracting(m -> TestNats.header(m, "Nats-Msg-Id"))
        .containsExactly("e2-2", "e4-4");
  }

  @Test
  void cloudEventsMessagesAreInBinaryModeAndParseBackWithTheSdk() throws Exception {
    String stream = nats.newStream("ce");
    NatsSink sink =
        new NatsSink(
            NatsSinkSettings.of(TestNats.URL)
                .withStream(stream, true)
                .withSubject(TestNats.prefix(stream) + ".{{source}}")
                .withFormat(EventFormat.CLOUDEVENTS));
    Watukuy w = engine(orders().build(), sink);
    api.put("ü 1", Map.of("n", 1));
    api.put("o2", Map.of("n", 2));
    tick(w);
    api.put("o2", Map.of("n", 22));
    tick(w);

    List<MessageInfo> messages = nats.read(stream);
    assertThat(messages).hasSize(3);
    Map<String, String> types = new HashMap<>();
    for (MessageInfo m : messages) {
      io.cloudevents.CloudEvent ce = NatsBinaryReader.read(m.getHeaders(), m.getData());
      assertThat(ce.getId()).isEqualTo(TestNats.header(m, "Nats-Msg-Id"));
      assertThat(ce.getSpecVersion().toString()).isEqualTo("1.0");
      assertThat(ce.getSource().toString()).isEqualTo("/watukuy/orders");
      assertThat(ce.getDataContentType()).isEqualTo("application/json");
      assertThat(ce.getExtension("eventid")).isEqualTo(TestNats.header(m, "watukuy-event-id"));
      assertThat(ce.getId()).startsWith(ce.getExtension("eventid") + "-");
      assertThat((String) ce.getExtension("sequence")).hasSize(19);
      assertThat(ce.getExtension("lane")).isEqualTo("live");
      assertThat(TestNats.header(m, "Content-Type")).as("binary mode: no content type").isNull();
      JsonNode data = JSON.readTree(ce.getData().toBytes());
      assertThat(data.get("item").get("id").asText()).isEqualTo(ce.getSubject());
      types.merge(ce.getSubject(), ce.getType(), (a, b) -> a + "," + b);
    }
    assertThat(types)
        .containsEntry("ü 1", "io.watukuy.item.created")
        .containsEntry("o2", "io.watukuy.item.created,io.watukuy.item.updated");
  }

  static ChangeEvent<Object> event(String id, long sequence, String orderingKey, Object data) {
    return new ChangeEvent<>(
        id,
        EventType.CREATED,
        "orders",
        "",
        "item-" + id,
        orderingKey,
        "1",
        null,
        1,
        Lane.LIVE,
        sequence,
        Instant.parse("2026-03-01T10:00:00Z"),
        data,
        null,
        1);
  }
}
