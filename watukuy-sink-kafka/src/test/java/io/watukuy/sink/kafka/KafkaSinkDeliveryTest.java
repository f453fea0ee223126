package io.watukuy.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.Cursors;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.sink.EventFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Kafka sink against a real broker (docs/sinks.md, "Kafka"): every change of a mutating API
 * arrives as one record keyed by its ordering key, with its delivery key (G1); one ordering key's
 * records stay in one partition in sequence order with several batches in flight (G3); an item that
 * goes A → B → A arrives three times, though its first and third events share an id (G2).
 */
@ExtendWith(KafkaBroker.class)
class KafkaSinkDeliveryTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration READ = Duration.ofSeconds(30);

  private final SinkEngine f = new SinkEngine();

  @Test
  void everyCreatedUpdatedAndDeletedChangeOfAMutatingApiArrivesKeyedWithItsDeliveryKey(
      KafkaBroker broker) throws Exception {
    broker.createTopic("feed-changes", 3, Map.of());
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.token())
            .fetch(f.api.tokenFetcher(50))
            .tombstone(n -> n.path("deleted").asBoolean())
            .schedule(SinkEngine.FIXED)
            .build();
    KafkaSink sink =
        SinkEngine.sink(broker.bootstrap(), "{{source}}-changes", EventFormat.ENVELOPE, Map.of());
    Watukuy w = f.engine(Runnable::run, 1, 10).poller(feed).sink(feed, sink).build();
    try {
      for (int i = 1; i <= 5; i++) f.api.put("o" + i, Map.of("n", i));
      w.tick();
      f.nextCycle();
      f.api.put("o2", Map.of("n", 20));
      f.api.put("o3", Map.of("n", 30));
      f.api.delete("o4");
      w.tick();
      assertThat(f.store.countPending(PollerKey.of("feed"))).isZero();
    } finally {
      w.close();
    }

    List<ConsumerRecord<byte[], byte[]>> records =
        TopicReader.readAll(broker.bootstrap(), "feed-changes", READ);
    assertThat(records).hasSize(8);
    Map<String, List<String>> typesByItem = new HashMap<>();
    Set<String> deliveryKeys = new HashSet<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      JsonNode event = JSON.readTree(r.value());
      String identity = event.get("identity").asText();
      assertThat(KafkaBroker.utf8(r.key())).as("record key = ordering key").isEqualTo(identity);
      assertThat(TopicReader.header(r, "watukuy-delivery-key"))
          .isEqualTo(event.get("id").asText() + "-" + event.get("sequence").asLong());
      assertThat(TopicReader.header(r, "watukuy-event-id")).isEqualTo(event.get("id").asText());
      deliveryKeys.add(TopicReader.header(r, "watukuy-delivery-key"));
      typesByItem.computeIfAbsent(identity, k -> new ArrayList<>()).add(event.get("type").asText());
    }
    assertThat(deliveryKeys).hasSize(8);
    assertThat(typesByItem)
        .containsOnly(
            Map.entry("o1", List.of("created")),
            Map.entry("o2", List.of("created", "updated")),
            Map.entry("o3", List.of("created", "updated")),
            Map.entry("o4", List.of("created", "deleted")),
            Map.entry("o5", List.of("created")));
  }

  @Test
  void oneOrderingKeysRecordsStayInOnePartitionInSequenceOrderUnderConcurrencyFour(
      KafkaBroker broker) throws Exception {
    broker.createTopic("ordered", 3, Map.of());
    Poller<JsonNode> orders =
        f.timestamp("orders").orderingKey(n -> "k" + (n.get("n").asInt() % 4)).build();
    KafkaSink sink = SinkEngine.sink(broker.bootstrap(), "ordered", EventFormat.ENVELOPE, Map.of());
    ExecutorService pool = Executors.newFixedThreadPool(4);
    Watukuy w = f.engine(pool, 4, 5).poller(orders).sink(orders, sink).build();
    int items = 40;
    int rounds = 3;
    try {
      for (int round = 0; round < rounds; round++) {
        for (int i = 1; i <= items; i++) {
          f.api.put(String.format("o%03d", i), Map.of("n", i, "round", round));
          f.clock.advance(Duration.ofMillis(1));
        }
        w.tick();
        f.nextCycle();
      }
      assertThat(f.store.countPending(PollerKey.of("orders"))).isZero();
    } finally {
      w.close();
      pool.shutdownNow();
    }

    List<ConsumerRecord<byte[], byte[]>> records =
        TopicReader.readAll(broker.bootstrap(), "ordered", READ);
    assertThat(records).hasSize(items * rounds);
    Map<String, Integer> partitionOfKey = new HashMap<>();
    Map<String, Long> lastSequence = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      String key = KafkaBroker.utf8(r.key());
      JsonNode event = JSON.readTree(r.value());
      assertThat(event.get("orderingKey").asText()).isEqualTo(key);
      assertThat(partitionOfKey.computeIfAbsent(key, k -> r.partition()))
          .as("partition of %s", key)
          .isEqualTo(r.partition());
      long sequence = event.get("sequence").asLong();
      Long before = lastSequence.put(key, sequence);
      if (before != null)
        assertThat(sequence).as("sequence after %d in key %s", before, key).isGreaterThan(before);
    }
    assertThat(partitionOfKey).containsOnlyKeys("k0", "k1", "k2", "k3");
  }

  @Test
  void anItemGoingAToBToAArrivesThreeTimesWithThreeDistinctDeliveryKeys(KafkaBroker broker)
      throws Exception {
    broker.createTopic("flip", 1, Map.of());
    // Tracked by hash of "v" only. Created as Z, then updated to A, B and A again: the second
    // update to A has the first one's event id (the id hashes identity, hash and type; G2), and
    // only the delivery key tells them apart.
    Poller<JsonNode> flip =
        Poller.builder("flip", JsonNode.class)
            .identity(n -> n.get("id"))
            .fingerprint(n -> n.get("v"))
            .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
            .fetch(f.api.timestampFetcher(50))
            .schedule(SinkEngine.FIXED)
            .build();
    KafkaSink sink = SinkEngine.sink(broker.bootstrap(), "flip", EventFormat.ENVELOPE, Map.of());
    Watukuy w = f.engine(Runnable::run, 1, 10).poller(flip).sink(flip, sink).build();
    try {
      for (String v : List.of("Z", "A", "B", "A")) {
        f.api.put("x", Map.of("v", v));
        w.tick();
        f.nextCycle();
      }
    } finally {
      w.close();
    }

    List<ConsumerRecord<byte[], byte[]>> records =
        TopicReader.readAll(broker.bootstrap(), "flip", READ);
    assertThat(records).hasSize(4);
    records = records.subList(1, 4);
    List<String> eventIds = new ArrayList<>();
    List<String> values = new ArrayList<>();
    Set<String> deliveryKeys = new HashSet<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      eventIds.add(TopicReader.header(r, "watukuy-event-id"));
      deliveryKeys.add(TopicReader.header(r, "watukuy-delivery-key"));
      values.add(JSON.readTree(r.value()).get("data").get("v").asText());
    }
    assertThat(values).containsExactly("A", "B", "A");
    assertThat(eventIds.get(2)).as("A again: the same event id").isEqualTo(eventIds.get(0));
    assertThat(deliveryKeys).hasSize(3);
  }
}
