package io.watukuy.sink.webhook;

import static io.watukuy.sink.webhook.EngineSetup.ORDERS;
import static io.watukuy.sink.webhook.EngineSetup.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.Watukuy;
import io.watukuy.sink.EventFormat;
import io.watukuy.sink.webhook.Receiver.Answer;
import io.watukuy.sink.webhook.Receiver.Request;
import io.watukuy.spi.ParkedRow;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WebhookSink} driven by the engine on a virtual clock against a real HTTP receiver on
 * 127.0.0.1 (docs/sinks.md, "Webhooks"): what arrives, how it is signed and identified, and what
 * each kind of refusal does (retry, park, pending).
 */
class WebhookSinkTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final EngineSetup f = new EngineSetup();
  private final StandardWebhooksVerifier verifier = new StandardWebhooksVerifier(SECRET);
  private Receiver receiver;

  @BeforeEach
  void start() throws Exception {
    receiver = Receiver.start();
  }

  @AfterEach
  void stop() {
    receiver.close();
  }

  private WebhookSettings settings(String path) {
    return WebhookSettings.of(receiver.url(path), SigningSecret.parse(SECRET));
  }

  private static JsonNode json(Request r) throws Exception {
    return JSON.readTree(r.body());
  }

  private static List<String> deliveryKeys(Request batch) throws Exception {
    List<String> keys = new ArrayList<>();
    for (JsonNode e : json(batch))
      keys.add(e.get("id").asText() + "-" + e.get("sequence").asLong());
    return keys;
  }

  /** Every request's signature verifies, and its timestamp is the virtual clock's second. */
  private void assertSigned(Request r, Instant at) throws Exception {
    assertThat(r.timestamp()).isEqualTo(Long.toString(at.getEpochSecond()));
    assertThat(verifier.verify(r.id(), r.timestamp(), r.signature(), r.body()))
        .as("signature of %s", r.id())
        .isTrue();
  }

  @Test
  void everyChangeOfTheApiArrivesSignedWithItsDeliveryKeyAsWebhookId() throws Exception {
    Poller<JsonNode> orders = f.snapshot(3).build();
    Watukuy w = f.engine(orders, f.sink(settings("/hooks/orders")));
    f.api.put("o1", Map.of("n", 1));
    f.api.put("o2", Map.of("n", 2));
    f.api.put("o3", Map.of("n", 3));
    Instant first = f.clock.now();
    w.tick();
    f.nextCycle();
    f.api.put("o2", Map.of("n", 22));
    f.api.delete("o3");
    f.api.put("o4", Map.of("n", 4));
    Instant second = f.clock.now();
    w.tick();

    List<Request> got = receiver.requests();
    assertThat(got).hasSize(6);
    Set<String> changes = new HashSet<>();
    for (int i = 0; i < got.size(); i++) {
      Request r = got.get(i);
      JsonNode event = json(r);
      assertSigned(r, i < 3 ? first : second);
      assertThat(r.path()).isEqualTo("/hooks/orders");
      assertThat(r.contentType()).isEqualTo("application/json");
      assertThat(r.id()).isEqualTo(event.get("id").asText() + "-" + event.get("sequence").asLong());
      changes.add(event.get("type").asText() + " " + event.get("identity").asText());
    }
    assertThat(changes)
        .containsExactlyInAnyOrder(
            "created o1", "created o2", "created o3", "updated o2", "deleted o3", "created o4");
    assertThat(f.pending()).isEmpty();
  }

  @Test
  void aStateThatRecursArrivesAgainWithItsOwnWebhookId() throws Exception {
    // Versioned by content, so the fourth state repeats the second: the same observation (event
    // id) with a later sequence, A -> B -> A.
    Poller<JsonNode> orders = f.snapshot(3).version(n -> n.get("v").asText()).build();
    Watukuy w = f.engine(orders, f.sink(settings("/hooks")));
    for (String v : List.of("X", "A", "B", "A")) {
      f.api.put("o1", Map.of("v", v));
      w.tick();
      f.nextCycle();
    }

    List<Request> got = receiver.requests();
    assertThat(got).hasSize(4);
    List<String> states = new ArrayList<>();
    for (Request r : got) states.add(json(r).get("data").get("v").asText());
    assertThat(states).containsExactly("X", "A", "B", "A");
    assertThat(got.stream().map(Request::id).distinct()).hasSize(4);
    assertThat(json(got.get(1)).get("id")).isEqualTo(json(got.get(3)).get("id"));
  }

  @Test
  void orderPerOrderingKeyHoldsWithFourBatchesInFlight() throws Exception {
    // Three ordering keys, several events of each in every cycle, batches of 2, four at once; the
    // receiver answers after a seeded 0-15 ms so that batches overtake one another when allowed.
    SplittableRandom random = new SplittableRandom(42);
    receiver.answer = r -> Answer.ok().after(Duration.ofMillis(random.split().nextInt(16)));
    Poller<JsonNode> orders =
        f.snapshot(3).orderingKey(n -> "k" + (n.get("id").asText().hashCode() & 3) % 3).build();
    ExecutorService handlers = Executors.newFixedThreadPool(4);
    try {
      Watukuy w = f.engine(orders, f.sink(settings("/hooks")), 4, 2, handlers);
      for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 12; i++) f.api.put("o" + i, Map.of("round", round));
        w.tick();
        f.nextCycle();
      }
    } finally {
      handlers.shutdownNow();
    }

    List<Request> got = receiver.requests();
    assertThat(got).hasSize(60);
    Map<String, Long> lastSequence = new HashMap<>();
    Map<String, Integer> perKey = new HashMap<>();
    for (Request r : got) {
      JsonNode event = json(r);
      String key = event.get("orderingKey").asText();
      long sequence = event.get("sequence").asLong();
      Long before = lastSequence.put(key, sequence);
      assertThat(before == null || before < sequence)
          .as("ordering key %s: sequence %d arrived after %d", key, sequence, before)
          .isTrue();
      perKey.merge(key, 1, Integer::sum);
    }
    assertThat(perKey).hasSize(3);
  }

  @Test
  void aReceiverThatAnswersTooLateIsRetriedThenParked() throws Exception {
    // A second to arrive (a loaded machine is slow to connect too), then an answer far too late.
    receiver.answer = r -> Answer.ok().after(Duration.ofSeconds(3));
    Poller<JsonNode> orders = f.snapshot(2).build();
    Watukuy w = f.engine(orders, f.sink(settings("/hooks").withTimeout(Duration.ofSeconds(1))));
    f.api.put("o1", Map.of("n", 1));

    w.tick();
    assertThat(f.pending()).singleElement().satisfies(row -> assertThat(row.attempts()).isOne());
    f.nextCycle();
    KeyReport second = w.tick().key(ORDERS).orElseThrow();

    assertThat(second.parked()).isOne();
    ParkedRow parked = f.parked().get(0);
    assertThat(parked.attempts()).isEqualTo(2);
    assertThat(parked.error()).contains("did not answer within 1s");
    List<Request> got = receiver.requests();
    assertThat(got).hasSize(2);
    assertThat(got.get(1).id()).isEqualTo(got.get(0).id());
    assertThat(got.get(1).timestamp()).isNotEqualTo(got.get(0).timestamp());
  }

  @Test
  void aServerErrorIsRetriedThenParked() throws Exception {
    receiver.answer = r -> Answer.status(500);
    Poller<JsonNode> orders = f.snapshot(3).build();
    Watukuy w = f.engine(orders, f.sink(settings("/hooks")));
    f.api.put("o1", Map.of("n", 1));

    for (int attempt = 1; attempt <= 3; attempt++) {
      w.tick();
      f.nextCycle();
    }

    assertThat(receiver.requests()).hasSize(3);
    assertThat(f.parked())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.attempts()).isEqualTo(3);
              assertThat(p.error()).contains("answered 500");
            });
    assertThat(f.pending()).isEmpty();
  }

  @Test
  void tooManyRequestsWithRetryAfterIsNotTriedAgainBeforeIt() throws Exception {
    receiver.answer = r -> Answer.status(429).withHeader("Retry-After", "120");
    Poller<JsonNode> orders = f.snapshot(3).build();
    Watukuy w = f.engine(orders, f.sink(settings("/hooks")));
    f.api.put("o1", Map.of("n", 1));
    Instant failedAt = f.clock.now();

    w.tick();
    assertThat(f.pending().get(0).nextAttemptAt()).isEqualTo(failedAt.plusSeconds(120));
    f.clock.advance(Duration.ofSeconds(119));
    w.tick();
    assertThat(receiver.requests()).as("not before Retry-After").hasSize(1);
    f.clock.advance(Duration.ofSeconds(1));
    w.tick();
    assertThat(receiver.requests()).hasSize(2);
    f.clock.advance(Duration.ofSeconds(120));
    w.tick();

    assertThat(receiver.requests()).hasSize(3);
    assertThat(f.parked()).singleElement().satisfies(p -> assertThat(p.error()).contains("429"));
  }

  @Test
  void aRetryAfterDateIsAWaitUntilThatDate() {
    Instant now = Instant.parse("2026-03-01T10:00:00Z");
    assertThat(RetryAfterHeader.parse("Sun, 01 Mar 2026 10:05:00 GMT", now))
        .contains(Duration.ofMinutes(5));
    assertThat(RetryAfterHeader.parse("Sun, 01 Mar 2026 09:00:00 GMT", now))
        .contains(Duration.ZERO);
    assertThat(RetryAfterHeader.parse("soon", now)).isEmpty();
  }

  @Test
  void aSuccessAnswerWithAnErrorBodyFailsTheRuleAndIsRetriedThenParked() throws Exception {
    receiver.answer =
        r ->
            Answer.status(200)
                .withHeader("Content-Type", "application/json")
                .withBody(
                    r.text().contains("\"identity\":\"o1\"")
                        ? "{\"status\":\"ok\"}"
                        : "{\"status\":\"error\",\"reason\":\"quota\"}");
    Poller<JsonNode> orders = f.snapshot(2).build();
    Watukuy w =
        f.engine(orders, f.sink(settings("/hooks").withSuccess(new SuccessRule("/status", "ok"))));
    f.api.put("o1", Map.of("n", 1));
    f.api.put("o2", Map.of("n", 2));

    w.tick();
    f.nextCycle();
    w.tick();

    assertThat(f.pending()).isEmpty();
    assertThat(f.parked())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.event()).contains("\"identity\":\"o2\"");
              assertThat(p.error())
                  .contains("answered 200 but /status is \\\"error\\\", not \\\"ok\\\"");
            });
    assertThat(receiver.requests()).hasSize(3);
  }

  @Test
  void aRedirectToAnotherOriginIsNotFollowedAndTheOtherOriginSeesNothing() throws Exception {
    try (Receiver other = Receiver.start()) {
      receiver.answer = r -> Answer.status(307).withHeader("Location", other.url("/steal"));
      Poller<JsonNode> orders = f.snapshot(1).build();
      Watukuy w = f.engine(orders, f.sink(settings("/hooks")));
      f.api.put("o1", Map.of("n", 1));

      w.tick();

      assertThat(other.requests()).isEmpty();
      assertThat(receiver.requests()).hasSize(1);
      assertThat(f.parked())
          .singleElement()
          .satisfies(
              p -> assertThat(p.error()).contains("answered 307 (redirects are not followed"));
    }
  }

  @Test
  void anUnreachableReceiverLeavesTheEventsPendingWithNoAttemptAndNothingParked() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      closedPort = s.getLocalPort();
    }
    WebhookSink sink =
        f.sink(
            WebhookSettings.of(
                "http://127.0.0.1:" + closedPort + "/hooks", SigningSecret.parse(SECRET)));
    Poller<JsonNode> orders = f.snapshot(1).build();
    Watukuy w = f.engine(orders, sink);
    f.api.put("o1", Map.of("n", 1));
    f.api.put("o2", Map.of("n", 2));

    KeyReport report = w.tick().key(ORDERS).orElseThrow();

    assertThat(report.error())
        .isInstanceOf(HandlerUnavailableException.class)
        .hasMessage(
            "webhook http://127.0.0.1:" + closedPort + "/hooks is unreachable: connection refused");
    assertThat(f.pending()).hasSize(2).allSatisfy(row -> assertThat(row.attempts()).isZero());
    assertThat(f.parked()).isEmpty();
    assertThat(sink.health().healthy()).isFalse();
  }

  @Test
  void aBatchGoesInOneRequestAndItsRedeliveryRepeatsItsWebhookId() throws Exception {
    List<Integer> statuses = new ArrayList<>(List.of(500, 204));
    receiver.answer = r -> Answer.status(statuses.remove(0));
    Poller<JsonNode> orders = f.snapshot(3).orderingKey(n -> "all").build();
    Watukuy w = f.engine(orders, f.sink(settings("/hooks").withBatch(true)));
    for (int i = 1; i <= 3; i++) f.api.put("o" + i, Map.of("n", i));

    w.tick();
    f.nextCycle();
    w.tick();

    List<Request> got = receiver.requests();
    assertThat(got).hasSize(2);
    assertThat(got.get(0).id()).startsWith("batch-").isEqualTo(got.get(1).id());
    assertThat(json(got.get(1)).isArray()).isTrue();
    assertThat(deliveryKeys(got.get(1))).hasSize(3).doesNotHaveDuplicates();
    assertThat(deliveryKeys(got.get(1))).isEqualTo(deliveryKeys(got.get(0)));
    assertSigned(got.get(1), f.clock.now());
    assertThat(f.pending()).isEmpty();
  }

  @Test
  void cloudEventsGoAsStructuredJsonWithTheDeliveryKeyAsId() throws Exception {
    Poller<JsonNode> orders = f.snapshot(3).build();
    Watukuy w = f.engine(orders, f.sink(settings("/hooks").withFormat(EventFormat.CLOUDEVENTS)));
    f.api.put("o1", Map.of("n", 1));

    w.tick();

    Request r = receiver.requests().get(0);
    JsonNode ce = json(r);
    assertThat(r.contentType()).isEqualTo("application/cloudevents+json");
    assertThat(ce.get("specversion").asText()).isEqualTo("1.0");
    assertThat(ce.get("id").asText()).isEqualTo(r.id());
    assertThat(r.id()).isEqualTo(ce.get("eventid").asText() + "-1");
    assertThat(ce.get("type").asText()).isEqualTo("io.watukuy.item.created");
    assertThat(ce.get("data").get("item").get("n").asInt()).isEqualTo(1);
  }

  @Test
  void aCloudEventsBatchIsTheBatchedContentMode() throws Exception {
    Poller<JsonNode> orders = f.snapshot(3).build();
    Watukuy w =
        f.engine(
            orders, f.sink(settings("/hooks").withFormat(EventFormat.CLOUDEVENTS).withBatch(true)));
    f.api.put("o1", Map.of("n", 1));
    f.api.put("o2", Map.of("n", 2));

    w.tick();

    Request r = receiver.requests().get(0);
    assertThat(r.contentType()).isEqualTo("application/cloudevents-batch+json");
    JsonNode batch = json(r);
    assertThat(batch).hasSize(2);
    assertThat(batch.get(0).get("specversion").asText()).isEqualTo("1.0");
    assertThat(batch.get(0).get("id").asText()).isNotEqualTo(batch.get(1).get("id").asText());
  }

  @Test
  void secretsInTheUrlAndHeadersNeverReachTheNameOrAParkedError() throws Exception {
    receiver.answer = r -> Answer.status(500);
    String url = receiver.url("/hooks?token=sekrit&team=t1").replace("://", "://user:pw-xyz@");
    WebhookSettings s =
        WebhookSettings.of(url, SigningSecret.parse(SECRET))
            .withHeaders(Map.of("Authorization", "Bearer hunter2"));
    WebhookSink sink = f.sink(s);
    Poller<JsonNode> orders = f.snapshot(1).build();
    Watukuy w = f.engine(orders, sink);
    f.api.put("o1", Map.of("n", 1));

    w.tick();

    assertThat(receiver.requests().get(0).authorization()).isEqualTo("Bearer hunter2");
    String parked = f.parked().get(0).error();
    for (String shown : List.of(sink.name(), parked, s.toString()))
      assertThat(shown)
          .doesNotContain("sekrit")
          .doesNotContain("pw-xyz")
          .doesNotContain("hunter2")
          .doesNotContain("MfKQ9r8");
    assertThat(sink.name()).endsWith("/hooks?token=***&team=***").contains("://***@127.0.0.1:");
  }

  @Test
  void sourceAndPartitionAreUrlEncodedInThePath() throws Exception {
    Poller<JsonNode> orders = f.snapshot(1).build();
    Watukuy w = f.engine(orders, f.sink(settings("/hooks/{{source}}/x")));
    f.api.put("o1", Map.of("n", 1));
    w.tick();
    assertThat(receiver.requests().get(0).path()).isEqualTo("/hooks/orders/x");
    assertThat(WebhookSink.encoded(io.watukuy.PollerKey.of("a b/c", "é")).poller())
        .isEqualTo("a%20b%2Fc");
  }
}
