package io.watukuy.sink.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.sink.SinkConfig;
import io.watukuy.spi.OutboxRow;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.FakeApi;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker under a resource alarm blocks publishing connections ({@code connection.blocked}; docs/
 * sinks.md, "RabbitMQ"): the batch ends at once with the broker's reason, stays pending with no
 * attempt counted and nothing parked, rather than waiting out {@code confirmTimeout}. The alarm is
 * raised on a node of the test's own ({@link PrivateRabbit}) whose memory watermark is one byte,
 * never on the machine's shared node.
 */
class RabbitMqBlockedTest {
  private static final PollerKey FEED = PollerKey.of("feed");
  private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aBlockedBrokerEndsTheBatchWithItsReasonLongBeforeTheConfirmTimeoutAndParksNothing()
      throws Exception {
    assumeThat(PrivateRabbit.installed()).as("RabbitMQ server installed").isTrue();
    VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
    FakeApi api = new FakeApi(clock);
    MemoryStore store = new MemoryStore();
    try (PrivateRabbit node =
        PrivateRabbit.start(dir, 1 << 20, "vm_memory_high_watermark.absolute = 1\n")) {
      ConnectionFactory f = new ConnectionFactory();
      f.setUri(node.uri());
      try (Connection c = f.newConnection()) {
        // Declaring is not publishing: the alarm lets it through.
        Channel ch = c.createChannel();
        ch.exchangeDeclare("events", "topic", true);
        ch.queueDeclare("all", true, false, false, null);
        ch.queueBind("all", "events", "#");
      }
      Poller<JsonNode> feed =
          Poller.builder("feed", JsonNode.class)
              .identity(n -> n.get("id").asText())
              .cursor(Cursors.token())
              .fetch(api.tokenFetcher(50))
              .schedule(Schedule.every(Duration.ofSeconds(30)).withAdaptive(false).withJitter(0))
              .build();
      RabbitMqSink sink =
          RabbitMqSink.create(
              SinkConfig.of(
                  Map.of(
                      "type",
                      "rabbitmq",
                      "uri",
                      node.uri(),
                      "exchange",
                      "events",
                      "confirmTimeout",
                      CONFIRM_TIMEOUT.toSeconds() + "s"),
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
        api.put("a", Map.of("n", 1));
        api.put("b", Map.of("n", 2));

        long start = System.nanoTime();
        KeyReport report = w.tick().key(FEED).orElseThrow();
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(report.error())
            .isInstanceOf(HandlerUnavailableException.class)
            .hasMessageContaining("the broker blocks publishing (")
            .hasMessageContaining("memory");
        assertThat(took)
            .as("ended by the block, not the confirm timeout")
            .isLessThan(CONFIRM_TIMEOUT.dividedBy(2));
        assertThat(store.countPending(FEED)).isEqualTo(2);
        assertThat(store.countParked(FEED)).isZero();
        assertThat(store.loadPending(FEED, 0, 10)).extracting(OutboxRow::attempts).containsOnly(0);
        assertThat(sink.health().healthy()).isFalse();
        assertThat(sink.health().detail()).contains("blocks publishing");
      }
    }
  }
}
