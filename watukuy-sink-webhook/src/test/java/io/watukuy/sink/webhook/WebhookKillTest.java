package io.watukuy.sink.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.sink.webhook.Receiver.Request;
import io.watukuy.spi.PollerState;
import io.watukuy.store.sqlite.SqliteStore;
import io.watukuy.testing.ChildJvm;
import io.watukuy.testing.MutatingVendor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The webhook sink under real process death (G1, G3, G9; docs/sinks.md, "Webhooks"): a child JVM
 * ({@link WebhookKillChild}: engine, SQLite store, this sink, polling a mutating local API) is
 * SIGKILLed {@value #KILLS} times at seeded moments while the receiver here records every request
 * it got; a last child catches up. Once with one event per request, once with one batch per
 * request. Then: every committed sequence arrived (nothing lost), each item's last arrival is its
 * final revision, every signature verifies, order per item holds within each child's run, no event
 * arrives twice within a run, and after each kill at most {@code concurrency × batchSize} events
 * arrive again, each with the {@code webhook-id} it had.
 *
 * <p>Seed: {@code -Dwatukuy.kill.seed=N}; it fixes the mutations and kill delays, not their
 * interleaving with the child.
 */
class WebhookKillTest {
  static final int KILLS = 10;
  static final int MAX_ITEMS = 25;

  /** A kill comes once the child has had 1 to this many requests answered... */
  static final int MAX_REQUESTS_BEFORE_KILL = 12;

  /** ...or after this long without them... */
  static final Duration DELIVERY_WAIT = Duration.ofSeconds(6);

  /** ...and a pause of up to this long, so that it lands anywhere in a batch. */
  static final long KILL_PAUSE_MAX_MS = 15;

  static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
  static final Duration FINISH_TIMEOUT = Duration.ofSeconds(50);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void sigkilledDaemonLosesNothingKeepsOrderAndRepeatsOnlyWhatWasInFlight() throws Exception {
    campaign(false);
  }

  /**
   * The same with one batch per request ({@code batch: true}): each request is a JSON array whose
   * {@code webhook-id} is {@code batch-} and the SHA-256 of its delivery keys; the elements are
   * checked as the single events are, deduplicated by their own delivery keys (docs/sinks.md,
   * "Webhooks").
   */
  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void inBatchModeASigkilledDaemonLosesNothingKeepsOrderAndRepeatsOnlyWhatWasInFlight()
      throws Exception {
    campaign(true);
  }

  /** One kill campaign; {@code batch} is the sink's mode, one batch (or one event) a request. */
  private void campaign(boolean batch) throws Exception {
    assumeThat(System.getProperty("os.name")).startsWith("Linux");
    long seed = Long.getLong("watukuy.kill.seed", 20261202L);
    SplittableRandom random = new SplittableRandom(seed).split();
    Path db = dir.resolve("kill.db");
    Path out = dir.resolve("child.out");
    int kills = 0;
    int midDelivery = 0;
    Map<String, MutatingVendor.Item> finalItems;
    List<Request> got;
    try (MutatingVendor vendor = MutatingVendor.start(seed, MAX_ITEMS);
        Receiver receiver = Receiver.start()) {
      String hook = receiver.url("/hooks");
      vendor.startMutating(Duration.ofMillis(15));
      while (kills < KILLS) {
        receiver.run.set(kills + 1);
        try (ChildJvm child = launch(db, vendor.baseUrl(), hook, "run", batch, out)) {
          assertThat(child.awaitFile(ready(db), READY_TIMEOUT))
              .as("run %d reported ready", kills + 1)
              .isTrue();
          // Mid-delivery: once this child has had a seeded number of its requests answered
          // (bounded in time), after a seeded pause of up to a few requests.
          int requests = 1 + random.nextInt(MAX_REQUESTS_BEFORE_KILL);
          int run = kills + 1;
          if (child.awaitProgress(() -> receiver.countInRun(run), requests, DELIVERY_WAIT))
            midDelivery++;
          Thread.sleep(random.nextLong(KILL_PAUSE_MAX_MS + 1));
          assertThat(child.isAlive()).as("run %d alive until killed", kills + 1).isTrue();
          assertThat(child.sigkill()).as("SIGKILL").isEqualTo(ChildJvm.SIGKILL_EXIT);
        }
        kills++;
      }
      vendor.stopMutating();
      finalItems = vendor.items();
      receiver.run.set(kills + 1);
      try (ChildJvm finish = launch(db, vendor.baseUrl(), hook, "finish", batch, out)) {
        assertThat(finish.awaitExit(FINISH_TIMEOUT))
            .as("finish within %s", FINISH_TIMEOUT)
            .isTrue();
        assertThat(finish.exitValue())
            .as("finish caught up; child output: %s", ChildJvm.tail(out, 30))
            .isZero();
      }
      got = receiver.requests();
    }

    long lastSequence;
    try (SqliteStore store = SqliteStore.open(db)) {
      assertThat(store.countPending(WebhookKillChild.KEY)).isZero();
      assertThat(store.countParked(WebhookKillChild.KEY)).isZero();
      lastSequence =
          store.loadState(WebhookKillChild.KEY).map(PollerState::lastSequence).orElseThrow();
    }
    assertThat(kills).isGreaterThanOrEqualTo(10);
    assertThat(midDelivery)
        .as("kills that came while the child was delivering")
        .isGreaterThan(KILLS / 2);
    check(got, lastSequence, finalItems, batch);
  }

  private static void check(
      List<Request> got,
      long lastSequence,
      Map<String, MutatingVendor.Item> finalItems,
      boolean batch)
      throws Exception {
    StandardWebhooksVerifier verifier = new StandardWebhooksVerifier(EngineSetup.SECRET);
    Map<String, Integer> firstRun = new HashMap<>();
    Map<Long, String> keyOfSequence = new HashMap<>();
    Map<String, JsonNode> lastOfItem = new HashMap<>();
    Map<String, Long> lastSequenceOfItemInRun = new HashMap<>();
    Map<Integer, Integer> repeatsInRun = new HashMap<>();
    List<String> violations = new ArrayList<>();
    for (Request r : got) {
      if (!verifier.verify(r.id(), r.timestamp(), r.signature(), r.body()))
        violations.add("bad signature on " + r.id());
      JsonNode body = JSON.readTree(r.body());
      if (batch != body.isArray())
        violations.add("request " + r.id() + " is " + (batch ? "not " : "") + "an array");
      List<JsonNode> events = new ArrayList<>();
      body.forEach(events::add);
      if (!body.isArray()) events = List.of(body);
      StringBuilder keys = new StringBuilder();
      for (JsonNode event : events)
        keys.append(event.get("id").asText())
            .append('-')
            .append(event.get("sequence"))
            .append('\n');
      String expectedId = batch ? batchId(keys.toString()) : keys.toString().strip();
      if (!r.id().equals(expectedId))
        violations.add("webhook-id " + r.id() + " is not " + expectedId);
      for (JsonNode event : events) {
        long sequence = event.get("sequence").asLong();
        String deliveryKey = event.get("id").asText() + "-" + sequence;
        String identity = event.get("identity").asText();
        String before = keyOfSequence.putIfAbsent(sequence, deliveryKey);
        if (before != null && !before.equals(deliveryKey))
          violations.add("sequence " + sequence + " arrived as " + before + " and " + deliveryKey);
        Integer first = firstRun.putIfAbsent(deliveryKey, r.run());
        if (first != null) {
          if (first == r.run())
            violations.add(deliveryKey + " arrived twice in run " + r.run() + " (no kill between)");
          repeatsInRun.merge(r.run(), 1, Integer::sum);
        }
        // G3 within one child: an item's events arrive in sequence order.
        String itemInRun = r.run() + "/" + identity;
        Long previous = lastSequenceOfItemInRun.put(itemInRun, sequence);
        if (previous != null && previous >= sequence)
          violations.add(
              "run " + r.run() + ": " + identity + " sequence " + sequence + " after " + previous);
        lastOfItem.put(identity, event);
      }
    }
    // G1: every committed sequence arrived.
    TreeSet<Long> missing = new TreeSet<>();
    for (long s = 1; s <= lastSequence; s++) if (!keyOfSequence.containsKey(s)) missing.add(s);
    if (!missing.isEmpty()) violations.add("never arrived: sequences " + missing);
    for (MutatingVendor.Item item : finalItems.values()) {
      JsonNode last = lastOfItem.get(item.id());
      if (last == null) violations.add(item.id() + " never arrived");
      else if (last.get("data").get("rev").asInt() != item.rev())
        violations.add(
            item.id()
                + " last arrived at rev "
                + last.get("data").get("rev")
                + ", is "
                + item.rev());
    }
    // G9: a kill repeats at most what was in flight, concurrency x batchSize events.
    int bound = WebhookKillChild.CONCURRENCY * WebhookKillChild.BATCH_SIZE;
    repeatsInRun.forEach(
        (run, n) -> {
          if (n > bound)
            violations.add("run " + run + " repeated " + n + " events, more than " + bound);
        });
    int repeats = repeatsInRun.values().stream().mapToInt(Integer::intValue).sum();
    System.out.printf(
        "webhook kill test (batch %s): requests=%d lastSequence=%d repeated=%d repeatsPerRun=%s%n",
        batch, got.size(), lastSequence, repeats, repeatsInRun);
    assertThat(violations)
        .as(
            "%d requests, last sequence %d, repeats per run %s",
            got.size(), lastSequence, repeatsInRun)
        .isEmpty();
    assertThat(lastSequence).isGreaterThan(KILLS);
  }

  /** {@code batch-} and the hex SHA-256 of the delivery keys, one a line (docs/sinks.md). */
  private static String batchId(String deliveryKeysOneALine) throws Exception {
    byte[] digest =
        MessageDigest.getInstance("SHA-256")
            .digest(deliveryKeysOneALine.getBytes(StandardCharsets.UTF_8));
    return "batch-" + HexFormat.of().formatHex(digest);
  }

  private static ChildJvm launch(
      Path db, String vendor, String hook, String mode, boolean batch, Path out)
      throws IOException {
    Files.deleteIfExists(ready(db));
    return ChildJvm.start(
        WebhookKillChild.class,
        List.of("-XX:+UseSerialGC"),
        out,
        db.toString(),
        vendor,
        hook,
        mode,
        batch ? "batch" : "event");
  }

  private static Path ready(Path db) {
    return db.resolveSibling(db.getFileName() + ".ready");
  }
}
