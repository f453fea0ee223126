package io.watukuy.sink.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
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
import io.watukuy.sink.SinkConfig;
import io.watukuy.spi.ParkedRow;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A message over the broker's {@code max_message_size}: the broker closes the channel with {@code
 * 406 PRECONDITION_FAILED}, and the sink parks that event only (docs/sinks.md, "RabbitMQ"). The
 * limit is node-wide, so the test runs a node of its own with a 4 KiB limit ({@link
 * PrivateRabbit}).
 */
class RabbitMqMessageSizeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_MESSAGE_SIZE = 4096;
  private static final PollerKey FEED = PollerKey.of("feed");

  @TempDir Path dir;

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aMessageOverTheBrokersMaxMessageSizeIsParkedAndTheOtherEventsArrive() throws Exception {
    assumeThat(PrivateRabbit.installed()).as("RabbitMQ server installed").isTrue();
    VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
    FakeApi api = new FakeApi(clock);
    MemoryStore store = new MemoryStore();
    try (PrivateRabbit node = PrivateRabbit.start(dir, MAX_MESSAGE_SIZE)) {
      ConnectionFactory f = new ConnectionFactory();
      f.setUri(node.uri());
      try (Connection c = f.newConnection()) {
        Channel ch = c.createChannel();
        ch.exchangeDeclare("events", "topic", true);
        ch.queueDeclare("all", true, false, false, null);
        ch.queueBind("all", "events", "#");
        Poller<JsonNode> feed =
            Poller.builder("feed", JsonNode.class)
                .identity(n -> n.get("id").asText())
                .orderingKey(n -> n.get("group").asText())
                .cursor(Cursors.token())
                .fetch(api.tokenFetcher(50))
                .schedule(Schedule.every(Duration.ofSeconds(30)).withAdaptive(false).withJitter(0))
                .delivery(DeliveryPolicy.DEFAULT.withRetry(RetryPolicy.attempts(1)))
                .build();
        RabbitMqSink sink =
            RabbitMqSink.create(
                SinkConfig.of(
                    Map.of("type", "rabbitmq", "uri", node.uri(), "exchange", "events"),
                    Path.of(".")));
        try (Watukuy w =
            Watukuy.builder()
                .store(store)
                .time(clock)
                .random(SeededRandom.of(7))
                .instanceId("test")
                .executor(Runnable::run)
                .handlerExecutor(Runnable::run)
                .delivery(new DeliveryOptions(1, 100, 10))
                .poller(feed)
                .sink(feed, sink)
                .build()) {
          // One batch: a (g1), big (g2, over the limit), d (g2, after big), c (g1).
          api.put("a", Map.of("group", "g1"));
          api.put("big", Map.of("group", "g2", "pad", "x".repeat(2 * MAX_MESSAGE_SIZE)));
          api.put("d", Map.of("group", "g2"));
          api.put("c", Map.of("group", "g1"));

          KeyReport report = w.tick().key(FEED).orElseThrow();

          assertThat(report.parked()).isEqualTo(1);
          assertThat(store.countPending(FEED)).isZero();
          List<ParkedRow> parked = store.listParked(FEED, null, 10);
          assertThat(parked).hasSize(1);
          assertThat(parked.get(0).error())
              .contains("the broker refused message")
              .contains("max size " + MAX_MESSAGE_SIZE);

          Map<String, String> firstById = new LinkedHashMap<>();
          List<GetResponse> got = new ArrayList<>();
          for (GetResponse r; (r = ch.basicGet("all", true)) != null; ) got.add(r);
          for (GetResponse r : got)
            firstById.putIfAbsent(
                r.getProps().getMessageId(),
                JSON.readTree(new String(r.getBody(), StandardCharsets.UTF_8))
                    .get("identity")
                    .asText());
          // big's group (g2) resumes with d after big is parked; "a" may repeat (unconfirmed when
          // the channel closed), with the same message_id.
          assertThat(firstById.values()).containsExactlyInAnyOrder("a", "c", "d");
          assertThat(List.copyOf(firstById.values()).indexOf("d"))
              .isGreaterThan(List.copyOf(firstById.values()).indexOf("a"));
        }
      }
    }
  }
}
