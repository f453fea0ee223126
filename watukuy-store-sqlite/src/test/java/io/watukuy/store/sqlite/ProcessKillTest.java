package io.watukuy.store.sqlite;

import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.PollerState;
import io.watukuy.testing.ChildJvm;
import io.watukuy.testing.MutatingVendor;
import io.watukuy.testing.MutatingVendor.Item;
import io.watukuy.testing.WholeEventLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * G1, G2, G3, G4 and G9 under real process death: the engine runs in a child JVM ({@link
 * KillChild}) against a vendor whose items keep changing ({@link MutatingVendor}), and this test
 * SIGKILLs it at seeded moments, restarts it on the same SQLite file, and finally lets a last child
 * catch up. The child's handler forces every event to a log file before returning, so that file is
 * exactly what a consumer was handed; the store's replay log is what was committed.
 *
 * <p>Seed: {@code -Dwatukuy.kill.seed=N} (default {@value #DEFAULT_SEED}); it fixes the vendor's
 * mutations and the kill delays, not their interleaving with the child, which real time decides.
 * Kills: {@code -Dwatukuy.kill.count=N} (default {@value #DEFAULT_KILLS}). On failure the child's
 * files are kept in {@code target/process-kill/seed-N}. {@code -Dwatukuy.kill.report=FILE} appends
 * each run's figures (kills, committed, delivered, redelivered, violations) to FILE.
 */
class ProcessKillTest {
  static final long DEFAULT_SEED = 20260101L;
  // The number, which docs/guarantees.md states: 24 asked for four more kills than that,
  // and the kill phase's time bound, not the count, is what a slow run meets first.
  static final int DEFAULT_KILLS = 20;

  /** The issue asks for at least this many kills in every run. */
  static final int MIN_KILLS = 20;

  static final int MAX_ITEMS = 40;
  static final Duration MUTATE_EVERY = Duration.ofMillis(10);

  /**
   * A timed kill lands this long after the child reports its daemon running, uniformly: early ones
   * hit JVM warm-up, the wait for the dead child's lease and the first fetch; later ones hit pages,
   * dispatch and the end of a cycle.
   */
  static final long KILL_AFTER_MIN_MS = 150;

  static final long KILL_AFTER_MAX_MS = 2000;

  /**
   * Half the kills instead come as soon as the event log has grown by a seeded number of bytes
   * (lines are about 460): right after a handler returned, often before its ack is committed.
   */
  static final long KILL_AFTER_MAX_BYTES = 40 * 460;

  static final Duration KILL_AFTER_MAX_WAIT = Duration.ofSeconds(3);

  /** The kill loop stops here even short of its kills, leaving time to finish and check. */
  static final Duration KILL_PHASE = Duration.ofSeconds(100);

  static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
  static final Duration FINISH_TIMEOUT = Duration.ofSeconds(70);

  /** What the JDK reports for a child ended by signal 9: 128 + 9. */
  static final int TAIL_LINES = 60;

  static final int MAX_REPORTED = 40;
  static final String RUN_BANNER = "=== run ";

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** One line of the child's event log; {@code run} is the child process that wrote it, from 1. */
  record Delivery(
      int line,
      int run,
      String id,
      String type,
      String identity,
      String version,
      long sequence,
      JsonNode data) {}

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void sigkilledEngineLosesNothingAndConvergesFromTheOutbox() throws Exception {
    sigkill("single");
  }

  /**
   * The same with a batch handler that writes each batch and forces it to disk once: a kill after
   * the force and before the batch's ack repeats the batch, once per kill at most (G9).
   */
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void sigkilledEngineWithABatchHandlerLosesNothingAndConvergesFromTheOutbox() throws Exception {
    sigkill("batch");
  }

  /** One kill campaign; {@code handler} is the child's handler, {@code single} or {@code batch}. */
  private void sigkill(String handler) throws Exception {
    // destroyForcibly() is SIGKILL on Linux (ProcessImpl.destroy(true)); each kill checks exit 137.
    assumeThat(System.getProperty("os.name")).startsWith("Linux");
    long seed = Long.getLong("watukuy.kill.seed", DEFAULT_SEED);
    int wantedKills = Integer.getInteger("watukuy.kill.count", DEFAULT_KILLS);
    // The vendor draws its mutations from the seed itself, the kill delays from a split stream.
    SplittableRandom random = new SplittableRandom(seed).split();
    Path db = dir.resolve("kill.db");
    Path eventLog = dir.resolve("events.jsonl");
    Path stdout = dir.resolve("child.out");
    Path stderr = dir.resolve("child.err");
    List<String> violations = new ArrayList<>();
    // The event log's line count when each child ended: which run wrote which line.
    List<Integer> runEnds = new ArrayList<>();
    long started = System.nanoTime();

    ChildJvm child = null;
    int kills = 0;
    int deliveryKills = 0;
    Map<String, Item> finalItems;
    int mutations;
    int requests;
    long timestamps;
    try (MutatingVendor vendor = MutatingVendor.start(seed, MAX_ITEMS)) {
      vendor.startMutating(MUTATE_EVERY);
      long killPhaseEnd = started + KILL_PHASE.toNanos();
      while (kills < wantedKills && System.nanoTime() < killPhaseEnd) {
        int run = kills + 1;
        child = launch(db, vendor.baseUrl(), eventLog, "run", handler, stdout, stderr, run);
        if (!child.awaitFile(ready(eventLog), READY_TIMEOUT)) {
          violations.add(
              "run " + run + ": child never reported ready (" + state(child.process()) + ")");
          break;
        }
        if (random.nextBoolean()) {
          Thread.sleep(
              KILL_AFTER_MIN_MS + random.nextLong(KILL_AFTER_MAX_MS - KILL_AFTER_MIN_MS + 1));
        } else {
          long grown = size(eventLog) + 1 + random.nextLong(KILL_AFTER_MAX_BYTES);
          child.awaitProgress(() -> size(eventLog), grown, KILL_AFTER_MAX_WAIT);
          deliveryKills++;
        }
        if (!child.isAlive()) {
          violations.add("run " + run + ": child exited by itself with " + child.exitValue());
          break;
        }
        int exit = child.sigkill();
        if (exit != ChildJvm.SIGKILL_EXIT)
          violations.add(
              "run "
                  + run
                  + ": exit "
                  + exit
                  + ", expected "
                  + ChildJvm.SIGKILL_EXIT
                  + " (SIGKILL)");
        child = null;
        kills++;
        runEnds.add(lines(eventLog));
      }
      vendor.stopMutating();
      finalItems = vendor.items();
      mutations = vendor.mutations();
      requests = vendor.requests();
      timestamps = vendor.clock() + 1;

      if (violations.isEmpty()) {
        child =
            launch(db, vendor.baseUrl(), eventLog, "finish", handler, stdout, stderr, kills + 1);
        if (!child.awaitExit(FINISH_TIMEOUT))
          violations.add("finish: child still running after " + FINISH_TIMEOUT);
        else if (child.exitValue() != 0)
          violations.add(
              "finish: child exited with " + child.exitValue() + " (3: it did not catch up)");
        runEnds.add(lines(eventLog));
      }
    } finally {
      if (child != null) child.close();
    }
    if (kills < MIN_KILLS)
      violations.add(
          "only " + kills + " kills in " + KILL_PHASE + ", at least " + MIN_KILLS + " wanted");

    List<Delivery> deliveries = read(eventLog, runEnds);
    long pending;
    long parked;
    long lastSequence;
    List<LoggedEvent> committed;
    try (SqliteStore store = SqliteStore.open(db)) {
      pending = store.countPending(KillChild.KEY);
      parked = store.countParked(KillChild.KEY);
      lastSequence = store.loadState(KillChild.KEY).map(PollerState::lastSequence).orElse(0L);
      committed = WholeEventLog.read(store, KillChild.KEY);
    }
    // A child that failed to start or finish leaves the log incomplete: the checks would only
    // repeat that failure, event by event.
    Set<Integer> leaseLost = Set.of();
    if (violations.isEmpty()) {
      if (pending != 0)
        violations.add("outbox not empty at the end: " + pending + " pending (G1, G4)");
      if (parked != 0) violations.add(parked + " parked rows at the end (G7)");
      leaseLost = leaseLostRuns(stdout);
      check(deliveries, committed, lastSequence, finalItems, kills, leaseLost, violations);
    }

    Map<Long, Integer> copies = new TreeMap<>();
    for (Delivery d : deliveries) copies.merge(d.sequence(), 1, Integer::sum);
    int maxCopies = copies.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    long idleRuns = 0;
    for (int r = 0; r < kills && r < runEnds.size(); r++)
      if (runEnds.get(r) == (r == 0 ? 0 : runEnds.get(r - 1).intValue())) idleRuns++;
    String figures =
        String.format(
            "kills=%d (%d on a delivery, %d before that child delivered anything) mutations=%d"
                + " (at %d distinct updatedAt) requests=%d items=%d committed=%d delivered=%d"
                + " redelivered=%d maxCopiesOfOneEvent=%d runsThatLostTheirLease=%s"
                + " duration=%ds%n",
            kills,
            deliveryKills,
            idleRuns,
            mutations,
            timestamps,
            requests,
            finalItems.size(),
            committed.size(),
            deliveries.size(),
            deliveries.size() - copies.size(),
            maxCopies,
            leaseLost,
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    // -Dwatukuy.kill.report=FILE appends every run's figures, passed or failed, for campaigns
    // that repeat this test over many seeds.
    String report = System.getProperty("watukuy.kill.report");
    if (report != null)
      Files.writeString(
          Path.of(report),
          String.format("seed=%d violations=%d %s", seed, violations.size(), figures),
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    if (violations.isEmpty()) return;
    Path kept = keep(seed, db, dir.resolve("kill.db-wal"), eventLog, stdout, stderr);
    StringBuilder failure = new StringBuilder();
    failure.append(
        String.format(
            "ProcessKillTest seed=%d (rerun with -Dwatukuy.kill.seed=%d): %d violation(s), files"
                + " in %s%n",
            seed, seed, violations.size(), kept));
    violations.stream()
        .limit(MAX_REPORTED)
        .forEach(v -> failure.append("  violation: ").append(v).append('\n'));
    failure.append(figures);
    failure.append(
        String.format(
            "child stdout tail (cycles):%n%s%nchild stderr tail:%n%s%n",
            ChildJvm.tail(stdout, TAIL_LINES), ChildJvm.tail(stderr, TAIL_LINES)));
    fail(failure.toString());
  }

  /**
   * The guarantees, from the durable event log against the store's replay log and the vendor's
   * final state.
   */
  static void check(
      List<Delivery> deliveries,
      List<LoggedEvent> committed,
      long lastSequence,
      Map<String, Item> finalItems,
      int kills,
      Set<Integer> leaseLostRuns,
      List<String> violations)
      throws IOException {
    // G4: sequences are handed out by commits only, so the committed ones are exactly 1..last.
    Map<Long, JsonNode> committedBySequence = new TreeMap<>();
    for (LoggedEvent e : committed) committedBySequence.put(e.sequence(), JSON.readTree(e.event()));
    for (long s = 1; s <= lastSequence; s++)
      if (!committedBySequence.containsKey(s))
        violations.add(
            "sequence " + s + " <= lastSequence " + lastSequence + " is not in the replay log");
    if (committedBySequence.size() != lastSequence)
      violations.add(
          "replay log has "
              + committedBySequence.size()
              + " events, lastSequence is "
              + lastSequence);

    // G1: every committed event was handed to the handler, with the id it was committed with.
    Map<Long, String> deliveredIds = new HashMap<>();
    for (Delivery d : deliveries) {
      String earlier = deliveredIds.putIfAbsent(d.sequence(), d.id());
      if (earlier != null && !earlier.equals(d.id()))
        violations.add(
            "sequence "
                + d.sequence()
                + " delivered with ids "
                + earlier
                + " and "
                + d.id()
                + " (line "
                + d.line()
                + ")");
    }
    for (Map.Entry<Long, JsonNode> c : committedBySequence.entrySet()) {
      String id = deliveredIds.get(c.getKey());
      String committedId = c.getValue().get("id").asText();
      if (id == null)
        violations.add(
            "committed sequence "
                + c.getKey()
                + " ("
                + describe(c.getValue())
                + ") was never delivered (G1)");
      else if (!id.equals(committedId))
        violations.add(
            "sequence " + c.getKey() + " delivered as " + id + " but committed as " + committedId);
    }
    for (Delivery d : deliveries)
      if (!committedBySequence.containsKey(d.sequence()))
        violations.add(
            "line "
                + d.line()
                + ": sequence "
                + d.sequence()
                + " was delivered but never committed");
    TreeSet<Long> seen = new TreeSet<>(deliveredIds.keySet());
    if (!seen.isEmpty())
      for (long s = 1; s <= seen.last(); s++)
        if (!seen.contains(s))
          violations.add(
              "delivered sequences skip " + s + " (max " + seen.last() + "): a lost event");

    // G2: an id names one observation, and one observation has one id.
    Map<String, String> observationOfId = new HashMap<>();
    Map<String, String> idOfObservation = new HashMap<>();
    for (Delivery d : deliveries) {
      String observation = d.identity() + "|" + d.version() + "|" + d.type();
      String o = observationOfId.putIfAbsent(d.id(), observation);
      if (o != null && !o.equals(observation))
        violations.add("id " + d.id() + " names " + o + " and " + observation + " (G2)");
      String i = idOfObservation.putIfAbsent(observation, d.id());
      if (i != null && !i.equals(d.id()))
        violations.add(observation + " has ids " + i + " and " + d.id() + " (G2)");
    }

    // G3: per identity, first deliveries follow sequence order: created, then newer revisions.
    Map<String, List<Delivery>> firstByIdentity = new LinkedHashMap<>();
    Set<Long> firstSeen = new HashSet<>();
    for (Delivery d : deliveries)
      if (firstSeen.add(d.sequence()))
        firstByIdentity.computeIfAbsent(d.identity(), k -> new ArrayList<>()).add(d);
    for (Map.Entry<String, List<Delivery>> e : firstByIdentity.entrySet()) {
      List<Delivery> ds = e.getValue();
      for (int k = 0; k < ds.size(); k++) {
        Delivery d = ds.get(k);
        String expectedType = k == 0 ? "created" : "updated";
        if (!d.type().equals(expectedType))
          violations.add(
              e.getKey()
                  + ": event "
                  + (k + 1)
                  + " (sequence "
                  + d.sequence()
                  + ") is "
                  + d.type()
                  + ", expected "
                  + expectedType);
        if (k == 0) continue;
        Delivery prev = ds.get(k - 1);
        if (d.sequence() <= prev.sequence())
          violations.add(
              e.getKey()
                  + ": sequence "
                  + d.sequence()
                  + " first delivered after "
                  + prev.sequence()
                  + " (G3, line "
                  + d.line()
                  + ")");
        if (Integer.parseInt(d.version()) <= Integer.parseInt(prev.version()))
          violations.add(
              e.getKey()
                  + ": rev "
                  + d.version()
                  + " delivered after rev "
                  + prev.version()
                  + " (G3, line "
                  + d.line()
                  + ")");
      }
    }

    // Convergence: applying the log in order ends at the vendor's final state.
    Map<String, Delivery> last = new HashMap<>();
    for (Delivery d : deliveries) last.put(d.identity(), d);
    for (Item item : finalItems.values()) {
      Delivery d = last.get(item.id());
      JsonNode expected = JSON.valueToTree(item);
      if (d == null) violations.add(item.id() + ": final " + expected + " never delivered (G1)");
      else if (!expected.equals(d.data()))
        violations.add(
            item.id()
                + ": last delivered "
                + d.data()
                + " (sequence "
                + d.sequence()
                + ", line "
                + d.line()
                + "), final "
                + expected);
    }
    for (String identity : last.keySet())
      if (!finalItems.containsKey(identity))
        violations.add(identity + " was delivered but the vendor never had it");

    // G9: a copy per child at most (the handler never fails, so only a kill or a lost lease
    // redelivers), and at most 1 + kills copies in all.
    Map<String, Integer> perRun = new HashMap<>();
    Map<Long, Integer> copies = new TreeMap<>();
    for (Delivery d : deliveries) {
      copies.merge(d.sequence(), 1, Integer::sum);
      if (perRun.merge(d.run() + ":" + d.sequence(), 1, Integer::sum) == 2
          && !leaseLostRuns.contains(d.run()))
        violations.add(
            "sequence "
                + d.sequence()
                + " delivered twice by run "
                + d.run()
                + ", with no kill or lease loss in between (line "
                + d.line()
                + ")");
    }
    copies.forEach(
        (sequence, n) -> {
          if (n > 1 + kills)
            violations.add(
                "sequence "
                    + sequence
                    + " delivered "
                    + n
                    + " times with "
                    + kills
                    + " kills (G9)");
        });
  }

  private static String describe(JsonNode event) {
    return event.get("identity").asText()
        + " "
        + event.get("type").asText()
        + " rev "
        + event.get("version").asText();
  }

  private static String state(Process p) {
    return p.isAlive() ? "alive" : "exit " + p.exitValue();
  }

  private static ChildJvm launch(
      Path db,
      String baseUrl,
      Path eventLog,
      String mode,
      String handler,
      Path stdout,
      Path stderr,
      int run)
      throws IOException {
    String banner = RUN_BANNER + run + " (" + mode + ")";
    ChildJvm.mark(stderr, banner);
    ChildJvm.mark(stdout, banner);
    Files.deleteIfExists(ready(eventLog));
    return ChildJvm.start(
        KillChild.class,
        List.of(),
        stdout,
        stderr,
        db.toString(),
        baseUrl,
        eventLog.toString(),
        mode,
        handler);
  }

  private static Path ready(Path eventLog) {
    return eventLog.resolveSibling(eventLog.getFileName() + KillChild.READY_SUFFIX);
  }

  /** Runs whose child reported a lost lease: they may redeliver without being killed. */
  private static Set<Integer> leaseLostRuns(Path stdout) throws IOException {
    Set<Integer> runs = new HashSet<>();
    int run = 0;
    for (String line : Files.readAllLines(stdout, StandardCharsets.UTF_8)) {
      if (line.startsWith(RUN_BANNER))
        run = Integer.parseInt(line.substring(RUN_BANNER.length()).split(" ")[0]);
      else if (line.contains(KillChild.LEASE_LOST)) runs.add(run);
    }
    return runs;
  }

  private static long size(Path file) throws IOException {
    return Files.exists(file) ? Files.size(file) : 0;
  }

  private static int lines(Path file) throws IOException {
    if (!Files.exists(file)) return 0;
    try (var s = Files.lines(file, StandardCharsets.UTF_8)) {
      return (int) s.count();
    }
  }

  private static List<Delivery> read(Path eventLog, List<Integer> runEnds) throws IOException {
    List<Delivery> out = new ArrayList<>();
    if (!Files.exists(eventLog)) return out;
    List<String> lines = Files.readAllLines(eventLog, StandardCharsets.UTF_8);
    int run = 0;
    for (int i = 0; i < lines.size(); i++) {
      while (run < runEnds.size() && i >= runEnds.get(run)) run++;
      if (lines.get(i).isBlank()) continue;
      JsonNode e = JSON.readTree(lines.get(i));
      out.add(
          new Delivery(
              i + 1,
              run + 1,
              e.get("id").asText(),
              e.get("type").asText(),
              e.get("identity").asText(),
              e.get("version").asText(),
              e.get("sequence").asLong(),
              e.get("data")));
    }
    return out;
  }

  /** Copies the evidence out of the temporary directory, which JUnit deletes. */
  private static Path keep(long seed, Path... files) throws IOException {
    Path target = Path.of("target", "process-kill", "seed-" + seed).toAbsolutePath();
    Files.createDirectories(target);
    for (Path f : files)
      if (Files.exists(f))
        Files.copy(f, target.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
    return target;
  }
}
