package io.watukuy.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.store.sqlite.SqliteStore;
import io.watukuy.testing.ChildJvm;
import io.watukuy.testing.MutatingVendor;
import io.watukuy.testing.WholeEventLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * G1, G3 and G9 for the Kafka sink under real process death (docs/sinks.md, "Kafka"): the engine
 * runs in a child JVM ({@link KafkaKillChild}: SQLite store, Kafka sink, {@code concurrency} 2,
 * {@code batchSize} 5) polling a vendor whose items keep changing ({@link MutatingVendor}); this
 * test SIGKILLs the child {@value #KILLS} times at seeded moments while batches are in flight,
 * restarts it on the same store, lets a last child catch up, then reads the whole topic back. The
 * broker is never killed. What must hold: every committed event (the store's replay log) is in the
 * topic (nothing lost); with records whose delivery key was seen before dropped, each ordering
 * key's sequences increase and stay in one partition (order); and the repeats are at most {@code
 * concurrency × batchSize} per kill, each a record whose delivery key was seen before.
 */
@ExtendWith(KafkaBroker.class)
class KafkaSinkProcessKillTest {
  static final long SEED = 20261202L;
  static final int KILLS = 10;
  static final int MAX_ITEMS = 30;
  static final Duration MUTATE_EVERY = Duration.ofMillis(20);

  /** A kill lands up to this long after the child's first acknowledged batch, seeded. */
  static final long KILL_AFTER_MAX_MS = 150;

  static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
  static final Duration FINISH_TIMEOUT = Duration.ofSeconds(70);

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void sigkilledDaemonLosesNoEventKeepsOrderPerKeyAndRepeatsAtMostConcurrencyTimesBatchSizePerKill(
      KafkaBroker broker) throws Exception {
    // destroyForcibly() is SIGKILL on Linux; each kill checks exit 137.
    assumeThat(System.getProperty("os.name")).startsWith("Linux");
    String topic = "kill-items";
    broker.createTopic(topic, 3, Map.of());
    Path db = dir.resolve("kill.db");
    Path out = dir.resolve("child.out");
    SplittableRandom random = new SplittableRandom(SEED).split();
    Map<String, MutatingVendor.Item> finalItems;
    int kills = 0;
    try (MutatingVendor api = MutatingVendor.start(SEED, MAX_ITEMS)) {
      api.startMutating(MUTATE_EVERY);
      for (int run = 1; run <= KILLS; run++) {
        try (ChildJvm child = launch(db, api.baseUrl(), broker.bootstrap(), topic, "run", out)) {
          assertThat(child.awaitFile(KafkaKillChild.ready(db), READY_TIMEOUT))
              .as("run %d reported ready", run)
              .isTrue();
          // Mid-batch: once the broker acknowledged this child's first batch, while its next
          // batches are in flight and the vendor keeps changing.
          assertThat(child.awaitProgress(() -> deliveries(out), deliveries(out) + 1, READY_TIMEOUT))
              .as("run %d delivered within %s (see %s)", run, READY_TIMEOUT, out)
              .isTrue();
          Thread.sleep(random.nextLong(KILL_AFTER_MAX_MS));
          assertThat(child.isAlive()).as("run %d alive until killed", run).isTrue();
          assertThat(child.sigkill())
              .as("run %d killed by SIGKILL", run)
              .isEqualTo(ChildJvm.SIGKILL_EXIT);
          kills++;
        }
      }
      api.stopMutating();
      finalItems = api.items();
      try (ChildJvm last = launch(db, api.baseUrl(), broker.bootstrap(), topic, "finish", out)) {
        assertThat(last.awaitExit(FINISH_TIMEOUT)).as("the last child caught up in time").isTrue();
        assertThat(last.exitValue()).as("finish exit (see %s)", out).isZero();
      }
    }
    assertThat(broker.process().isAlive()).as("the broker was never killed").isTrue();

    List<LoggedEvent> committed = new ArrayList<>();
    try (SqliteStore store = SqliteStore.open(db)) {
      assertThat(store.countPending(KafkaKillChild.KEY)).isZero();
      assertThat(store.countParked(KafkaKillChild.KEY)).isZero();
      committed.addAll(WholeEventLog.read(store, KafkaKillChild.KEY));
    }
    List<ConsumerRecord<byte[], byte[]>> records =
        TopicReader.readAll(broker.bootstrap(), topic, Duration.ofSeconds(60));

    // Nothing lost: every committed event's delivery key is in the topic.
    Set<String> written = new HashSet<>();
    for (ConsumerRecord<byte[], byte[]> r : records)
      written.add(TopicReader.header(r, KafkaRecords.DELIVERY_KEY));
    List<String> missing = new ArrayList<>();
    for (LoggedEvent e : committed) {
      JsonNode event = JSON.readTree(e.event());
      String key = event.get("id").asText() + "-" + e.sequence();
      if (!written.contains(key)) missing.add(key);
    }
    assertThat(committed).as("events committed").hasSizeGreaterThan(KILLS * 5);
    assertThat(missing).as("committed events not in the topic").isEmpty();

    // The last state of every item arrived.
    Map<String, Integer> lastRev = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      JsonNode data = JSON.readTree(r.value()).get("data");
      lastRev.merge(data.get("id").asText(), data.get("rev").asInt(), Math::max);
    }
    Map<String, Integer> expectedRev = new HashMap<>();
    finalItems.forEach((id, item) -> expectedRev.put(id, item.rev()));
    assertThat(lastRev).isEqualTo(expectedRev);

    // Order per key, deduplicated by delivery key as a consumer would; one partition per key.
    Set<String> seen = new HashSet<>();
    Map<String, Long> lastSequence = new HashMap<>();
    Map<String, Integer> partition = new HashMap<>();
    int repeats = 0;
    for (ConsumerRecord<byte[], byte[]> r : records) {
      String key = KafkaBroker.utf8(r.key());
      assertThat(partition.computeIfAbsent(key, k -> r.partition()))
          .as("partition of key %s", key)
          .isEqualTo(r.partition());
      if (!seen.add(TopicReader.header(r, KafkaRecords.DELIVERY_KEY))) {
        repeats++;
        continue;
      }
      long sequence = JSON.readTree(r.value()).get("sequence").asLong();
      Long before = lastSequence.put(key, sequence);
      if (before != null)
        assertThat(sequence).as("key %s: sequence after %d", key, before).isGreaterThan(before);
    }
    assertThat(kills).isEqualTo(KILLS);
    assertThat(records).hasSize(seen.size() + repeats);
    assertThat(repeats)
        .as("repeated records (each a delivery key seen before)")
        .isLessThanOrEqualTo(kills * KafkaKillChild.CONCURRENCY * KafkaKillChild.BATCH_SIZE);
    System.out.printf(
        "kafka kill test: kills=%d committed=%d records=%d repeats=%d items=%d%n",
        kills, committed.size(), records.size(), repeats, finalItems.size());
  }

  private static ChildJvm launch(
      Path db, String baseUrl, String bootstrap, String topic, String mode, Path out)
      throws IOException {
    Files.deleteIfExists(KafkaKillChild.ready(db));
    return ChildJvm.start(
        KafkaKillChild.class,
        List.of("-Xmx256m"),
        out,
        db.toString(),
        baseUrl,
        bootstrap,
        topic,
        mode);
  }

  /** How many acknowledged batches the children have reported so far. */
  private static long deliveries(Path out) throws IOException {
    if (!Files.exists(out)) return 0;
    try (var lines = Files.lines(out)) {
      return lines.filter(l -> l.startsWith(KafkaKillChild.BATCH)).count();
    }
  }
}
