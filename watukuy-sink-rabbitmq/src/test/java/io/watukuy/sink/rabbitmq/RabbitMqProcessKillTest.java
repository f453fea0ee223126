package io.watukuy.sink.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.GetResponse;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.store.sqlite.SqliteStore;
import io.watukuy.testing.ChildJvm;
import io.watukuy.testing.MutatingVendor;
import io.watukuy.testing.WholeEventLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * G1, G3 and G9 through RabbitMQ across SIGKILLs (docs/sinks.md, "RabbitMQ"): a child JVM (engine,
 * SQLite store, this sink, a mutating HTTP API) is killed mid-batch {@value #KILLS} times, then a
 * last child catches up; everything is read back from a queue bound to the exchange. Nothing the
 * store committed is missing, each item's events arrive in sequence order (first copies), and the
 * repeats are at most {@code concurrency × batchSize} per kill, each a repeated {@code message_id}
 * with the same body.
 */
class RabbitMqProcessKillTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long SEED = 20261202L;
  private static final int KILLS = 10;
  private static final int MAX_ITEMS = 30;
  private static final Duration MUTATE_EVERY = Duration.ofMillis(10);
  private static final long KILL_AFTER_MAX_MS = 300;
  private static final Duration KILL_AFTER_MAX_WAIT = Duration.ofSeconds(8);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration FINISH_TIMEOUT = Duration.ofSeconds(70);

  @TempDir Path dir;

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void tenSigkillsMidBatchLoseNothingKeepOrderPerItemAndRepeatBoundedByMessageId()
      throws Exception {
    // destroyForcibly() is SIGKILL on Linux.
    assumeThat(System.getProperty("os.name")).startsWith("Linux");
    SplittableRandom random = new SplittableRandom(SEED).split();
    Path db = dir.resolve("kill.db");
    Path out = dir.resolve("child.out");
    int kills = 0;
    int deliveryKills = 0;
    Map<String, MutatingVendor.Item> finalItems;
    try (TestRabbit rabbit = TestRabbit.fresh("kill");
        MutatingVendor vendor = MutatingVendor.start(SEED, MAX_ITEMS)) {
      vendor.startMutating(MUTATE_EVERY);
      ChildJvm child = null;
      try {
        while (kills < KILLS) {
          child = launch(db, vendor.baseUrl(), rabbit.exchange, "run", out);
          assertThat(child.awaitFile(RabbitKillChild.ready(db), READY_TIMEOUT))
              .as("child %d reported ready", kills + 1)
              .isTrue();
          // Mid-delivery: once the child's batches reach the queue, after a seeded number of
          // messages (bounded in time), or after a seeded pause.
          long grown = rabbit.waiting() + 1 + random.nextLong(3L * RabbitKillChild.BATCH_SIZE);
          if (child.awaitProgress(rabbit::waiting, grown, KILL_AFTER_MAX_WAIT)) deliveryKills++;
          Thread.sleep(random.nextLong(KILL_AFTER_MAX_MS));
          assertThat(child.isAlive()).as("child %d alive until killed", kills + 1).isTrue();
          assertThat(child.sigkill()).isEqualTo(ChildJvm.SIGKILL_EXIT);
          child = null;
          kills++;
        }
        vendor.stopMutating();
        finalItems = vendor.items();
        child = launch(db, vendor.baseUrl(), rabbit.exchange, "finish", out);
        assertThat(child.awaitExit(FINISH_TIMEOUT)).as("finish child done").isTrue();
        assertThat(child.exitValue()).as("finish exit (see %s)", out).isZero();
      } finally {
        if (child != null) child.close();
      }

      List<LoggedEvent> committed;
      try (SqliteStore store = SqliteStore.open(db)) {
        assertThat(store.countPending(RabbitKillChild.KEY)).as("pending at the end").isZero();
        assertThat(store.countParked(RabbitKillChild.KEY)).as("parked at the end").isZero();
        committed = WholeEventLog.read(store, RabbitKillChild.KEY);
      }
      List<GetResponse> messages = rabbit.read(Integer.MAX_VALUE, Duration.ofSeconds(3));
      // Most kills land while batches are being published, not before the first one.
      assertThat(deliveryKills)
          .as("kills after messages flowed (see %s)", out)
          .isGreaterThanOrEqualTo(KILLS / 2);
      check(committed, messages, finalItems, kills);
    }
  }

  private static void check(
      List<LoggedEvent> committed,
      List<GetResponse> messages,
      Map<String, MutatingVendor.Item> finalItems,
      int kills)
      throws Exception {
    assertThat(committed).isNotEmpty();
    Map<String, JsonNode> first = new LinkedHashMap<>();
    Map<String, byte[]> firstBody = new HashMap<>();
    int repeats = 0;
    for (GetResponse m : messages) {
      String messageId = m.getProps().getMessageId();
      JsonNode env = JSON.readTree(new String(m.getBody(), StandardCharsets.UTF_8));
      assertThat(messageId).isEqualTo(env.get("id").asText() + "-" + env.get("sequence").asLong());
      if (first.containsKey(messageId)) {
        repeats++;
        assertThat(m.getBody()).as("repeat of %s", messageId).isEqualTo(firstBody.get(messageId));
      } else {
        first.put(messageId, env);
        firstBody.put(messageId, m.getBody());
      }
    }
    // Nothing lost (G1): every committed event arrived; and nothing arrived that was not committed.
    List<String> committedKeys = new ArrayList<>();
    for (LoggedEvent e : committed) {
      JsonNode env = JSON.readTree(e.event());
      committedKeys.add(env.get("id").asText() + "-" + e.sequence());
    }
    assertThat(first.keySet()).containsExactlyInAnyOrderElementsOf(committedKeys);
    // Order per item, the ordering key (G3): first copies in sequence order.
    Map<String, Long> lastSequence = new HashMap<>();
    for (JsonNode env : first.values()) {
      long seq = env.get("sequence").asLong();
      Long before = lastSequence.put(env.get("identity").asText(), seq);
      assertThat(before == null || before < seq)
          .as("%s: sequence %d after %d", env.get("identity").asText(), seq, before)
          .isTrue();
    }
    // The vendor's last state of every item arrived.
    Map<String, Integer> lastRev = new HashMap<>();
    for (JsonNode env : first.values())
      lastRev.merge(env.get("identity").asText(), env.get("data").get("rev").asInt(), Math::max);
    for (MutatingVendor.Item item : finalItems.values())
      assertThat(lastRev.get(item.id())).as("last rev of %s", item.id()).isEqualTo(item.rev());
    System.out.printf(
        "%d kills: %d committed, %d messages, %d repeats%n",
        kills, committed.size(), messages.size(), repeats);
    // G9: a kill repeats at most the batches in flight.
    assertThat(repeats)
        .isLessThanOrEqualTo(kills * RabbitKillChild.CONCURRENCY * RabbitKillChild.BATCH_SIZE);
  }

  private static ChildJvm launch(Path db, String baseUrl, String exchange, String mode, Path out)
      throws Exception {
    Files.deleteIfExists(RabbitKillChild.ready(db));
    return ChildJvm.start(
        RabbitKillChild.class, List.of(), out, db.toString(), baseUrl, exchange, mode);
  }
}
