package io.watukuy.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.BatchHandler;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.CustomCursor;
import io.watukuy.DeliveryOptions;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Schedule;
import io.watukuy.TickReport;
import io.watukuy.TimeSource;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.spi.StateStore;
import io.watukuy.testing.ChaosOptions.Strategy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** One chaos run: see {@link Chaos}. */
final class ChaosRun {
  static final Duration INTERVAL = Duration.ofSeconds(30);
  static final Duration LAG = Duration.ofSeconds(60);
  static final int PAGE = 3;
  private static final int MAX_QUIESCENCE_TICKS = 60;

  private final ChaosOptions o;
  private final SeededRandom random;
  private final VirtualClock clock = VirtualClock.at("2026-01-01T00:00:00Z");
  private final FakeApi api = new FakeApi(clock);
  private final ChaosLedger ledger = new ChaosLedger();
  private final List<String> trace = new ArrayList<>();
  private final Map<KillPoint, Integer> kills = new EnumMap<>(KillPoint.class);
  private final Map<String, Strategy> pollerStrategy = new LinkedHashMap<>();
  private final List<Poller<JsonNode>> pollers = new ArrayList<>();
  private final Map<String, List<Map<String, Object>>> history = new TreeMap<>();
  private final Set<String> staged = new HashSet<>();
  private final Set<ChaosLedger.Slot> failedOnce = new HashSet<>();

  /** The threads that fetch pages ahead ({@link #aheadAndJoined}); shut down when the run ends. */
  private final ExecutorService ahead = Executors.newCachedThreadPool(ChaosRun::aheadThread);

  private StateStore store;
  private StateStore recorded;
  private FaultyStore process;
  private ChaosPause pause;
  private Watukuy engine;

  /**
   * A second live instance on the same store, never killed: leases must keep the two apart (G5).
   */
  private Watukuy twin;

  private int generation;
  private int nextId = 1;

  /** Events per batch of the current process; 1 with a handler per event. */
  private int batchSize = 1;

  /** Deliveries to let through before the armed handler fault fires; -1 when not armed. */
  private int handlerFault = -1;

  ChaosRun(ChaosOptions options) {
    this.o = options;
    this.random = SeededRandom.of(options.seed());
  }

  ChaosReport run() {
    store = o.store().get();
    try {
      store.migrate();
      recorded = ledger.recording(store);
      for (Strategy s : Strategy.values()) if (o.strategies().contains(s)) pollers.add(poller(s));
      startProcess();
      twin = engine("twin", new FaultyStore(recorded), SeededRandom.of(~o.seed()));
      for (int step = 1; step <= o.steps(); step++) step(step);
      quiesce();
      check();
      return new ChaosReport(
          o.seed(),
          o.steps(),
          kills,
          ledger.commits.size(),
          ledger.deliveries.size(),
          ledger.violations,
          trace);
    } finally {
      ahead.shutdownNow();
      store.close();
    }
  }

  // ---- the world

  private Poller<JsonNode> poller(Strategy s) {
    String name = s.name().toLowerCase().replace("_", "-");
    pollerStrategy.put(name, s);
    // Three ordering keys shared by many items, so per-key order (G3) has something to order.
    Poller.Builder<JsonNode, Void> b =
        Poller.builder(name, JsonNode.class)
            .identity(n -> n.get("id"))
            .orderingKey(n -> "g" + Integer.parseInt(n.get("id").asText().substring(1)) % 3);
    Poller.Builder<JsonNode, ?> built =
        switch (s) {
          case TIMESTAMP ->
              b.cursor(Cursors.timestamp("updatedAt").tieBreak("id").lag(LAG).build())
                  .fetch(api.timestampFetcher(PAGE));
          case TOKEN ->
              b.tombstone(n -> n.path("deleted").asBoolean(false))
                  .cursor(Cursors.token())
                  .fetch(api.tokenFetcher(PAGE));
          case PAGE -> b.cursor(Cursors.page()).fetch(api.pageFetcher(PAGE));
          case SNAPSHOT_DIFF ->
              b.fingerprint(ChaosRun::fields)
                  .cursor(Cursors.snapshotDiff())
                  .fetch(api.snapshotFetcher(PAGE))
                  .maxPagesPerCycle(1000);
          case CUSTOM ->
              b.cursor(Cursors.custom(new Since(null, null), this::advance))
                  .fetch(
                      ctx ->
                          api.updatedSince(
                              new Watermark(ctx.cursor().since(), ctx.cursor().afterId()), PAGE));
        };
    // A fixed interval keeps every key due at every step; the scheduler has its own tests.
    return built.schedule(Schedule.every(INTERVAL).withAdaptive(false).withJitter(0)).build();
  }

  /**
   * The custom cursor: a keyset (since, afterId) that, like the timestamp lag, leaves recent rows.
   */
  record Since(String since, String afterId) {}

  private CustomCursor.Step<Since> advance(CustomCursor.Input<Since> in) {
    Since c = in.cursor();
    Instant cutoff = clock.now().minus(LAG);
    for (Object o : in.items()) {
      JsonNode n = (JsonNode) o;
      if (Instant.parse(n.get("updatedAt").asText()).isAfter(cutoff))
        return new CustomCursor.Step<>(c, true);
      c = new Since(n.get("updatedAt").asText(), n.get("id").asText());
    }
    return new CustomCursor.Step<>(c, !Boolean.TRUE.equals(in.hasMore()));
  }

  /**
   * The item without its volatile fields: what snapshotDiff hashes, so restored states repeat ids.
   */
  static JsonNode fields(JsonNode n) {
    ObjectNode copy = ((ObjectNode) n).deepCopy();
    copy.remove("updatedAt");
    copy.remove("rev");
    return copy;
  }

  // ---- processes

  private void startProcess() {
    generation++;
    process = new FaultyStore(recorded);
    process.onKill(point -> ledger.killed(store, keys()));
    pause = new ChaosPause(clock);
    int concurrency = 1 + random.nextInt(3);
    // A batch handler may hold a whole batch handled but unacked per permit (G9).
    batchSize = o.batches() ? 1 + random.nextInt(8) : 1;
    ledger.newProcess(concurrency * batchSize);
    engine =
        engine(
            "p" + generation,
            pause.wrap(process),
            pause.time(),
            SeededRandom.of(o.seed() * 31 + generation),
            concurrency);
  }

  private Watukuy engine(String instanceId, StateStore on, SeededRandom seeded) {
    return engine(instanceId, on, clock, seeded, 1 + random.nextInt(3));
  }

  private Watukuy engine(
      String instanceId, StateStore on, TimeSource time, SeededRandom seeded, int concurrency) {
    Watukuy.Builder b =
        Watukuy.builder()
            .store(ledger.fencedBy(instanceId, on))
            .time(time)
            .random(seeded)
            .instanceId(instanceId)
            .executor(this::aheadAndJoined)
            .handlerExecutor(Runnable::run)
            .leaseTtl(o.leaseTtl())
            .delivery(new DeliveryOptions(concurrency, 2 + random.nextInt(10), batchSize));
    for (Poller<JsonNode> p : pollers) b.poller(p);
    Watukuy w = b.build();
    for (Poller<JsonNode> p : pollers) {
      if (o.batches()) w.onBatch(p, this::handleBatch);
      else w.on(p, this::handle);
    }
    return w;
  }

  /**
   * The batch handler: each event as {@link #handle} would take it; a handler fault on the batch's
   * first event fails the whole batch (thrown), a later one is reported and its ordering key's
   * later events are skipped, as {@link io.watukuy.BatchHandler} advises.
   */
  private BatchHandler.BatchResult handleBatch(List<ChangeEvent<JsonNode>> events) {
    BatchHandler.BatchResult result = BatchHandler.BatchResult.ok();
    Set<String> failed = new HashSet<>();
    for (ChangeEvent<JsonNode> e : events) {
      if (failed.contains(e.orderingKey())) continue;
      try {
        handle(e);
      } catch (IllegalStateException fault) {
        if (e == events.get(0)) throw fault;
        failed.add(e.orderingKey());
        result = result.andFailed(e, fault);
      }
    }
    return result;
  }

  /**
   * The cycle executor of a chaos engine. Chaos runs every cycle on the test thread, so the only
   * tasks are pages fetched ahead (docs/architecture.md, "A page ahead"). Each runs to its end on a
   * thread other than the test thread before this returns: page n+1 is fetched before page n's
   * commit starts, always, so that a seed replays the same store calls and a kill point during that
   * commit, a lost lease or a frozen process meets a page fetched ahead, which must be dropped
   * unseen. The threads are the run's {@link #ahead} pool, reused from page to page as an engine's
   * own pool would be: a run fetches thousands of pages ahead, and starting a thread for each cost
   * a fifth of a run on a persistent store.
   *
   * @throws IllegalStateException if the task threw (a page fetched ahead never does)
   */
  private void aheadAndJoined(Runnable task) {
    Future<?> done = ahead.submit(task);
    boolean interrupted = false;
    try {
      while (true) {
        try {
          done.get();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException("chaos: a page fetched ahead threw " + e.getCause(), e);
    } finally {
      if (interrupted) Thread.currentThread().interrupt();
    }
  }

  private static Thread aheadThread(Runnable r) {
    Thread t = new Thread(r, "chaos-ahead");
    t.setDaemon(true);
    return t;
  }

  private void handle(ChangeEvent<JsonNode> e) {
    ChaosLedger.Slot slot = new ChaosLedger.Slot(e.key(), e.sequence());
    if (handlerFault > 0) handlerFault--;
    if (handlerFault == 0 && failedOnce.add(slot)) {
      handlerFault = -1;
      kills.merge(KillPoint.HANDLER, 1, Integer::sum);
      trace.add(
          "    handler fault on "
              + e.key()
              + " #"
              + e.sequence()
              + " "
              + e.identity()
              + ":"
              + e.type().wire());
      throw new IllegalStateException("chaos: handler fault");
    }
    ledger.delivered(e);
  }

  private List<PollerKey> keys() {
    List<PollerKey> keys = new ArrayList<>();
    for (Poller<JsonNode> p : pollers) keys.add(PollerKey.of(p.name()));
    return keys;
  }

  // ---- steps

  private void step(int step) {
    ledger.step = step;
    List<String> did = mutate();
    String armed = arm();
    trace.add(
        "step "
            + step
            + " t="
            + clock.now()
            + " p"
            + generation
            + ": "
            + String.join(", ", did)
            + (armed == null ? "" : "; armed " + armed));
    TickReport report = engine.tick();
    traceTick(report);
    if (random.nextInt(100) < 30) {
      trace.add("    twin ticks");
      traceTick(twin.tick());
    }
    commitStaged();
    if (process.dead()) {
      KillPoint point = process.fired().orElseThrow();
      kills.merge(point, 1, Integer::sum);
      trace.add(
          "    KILL at "
              + point
              + "; p"
              + generation
              + " dropped without stop(), lease left to expire");
      clock.advance(o.leaseTtl());
      startProcess();
    } else {
      process.disarm();
    }
    if (pause.fired()) kills.merge(KillPoint.PAUSED, 1, Integer::sum);
    pause.disarm();
    handlerFault = -1;
    clock.advance(INTERVAL.plusMillis(random.nextInt(5000)));
  }

  private String arm() {
    if (o.killPoints().isEmpty() || random.nextInt(100) >= 80) return null;
    List<KillPoint> points = new ArrayList<>(o.killPoints());
    points.sort(null);
    KillPoint p = points.get(random.nextInt(points.size()));
    if (p == KillPoint.HANDLER) {
      handlerFault = random.nextInt(6);
      return p.harnessName() + " on delivery " + (handlerFault + 1);
    }
    // One key, and one of its calls, so every poller and every page is hit, not only the first.
    PollerKey key = keys().get(random.nextInt(pollers.size()));
    int skip = random.nextInt(3);
    if (p == KillPoint.PAUSED) {
      boolean timersFirst = random.nextBoolean();
      pause.arm(key, skip, () -> paused(key), timersFirst);
      return p.harnessName()
          + " on "
          + key
          + (skip == 0 ? "" : " after " + skip + " loads or commits")
          + (timersFirst ? ", its renewal timer first at the resume" : "");
    }
    process.arm(p, key, skip);
    return p.harnessName() + " on " + key + (skip == 0 ? "" : " after " + skip + " matching calls");
  }

  /**
   * The process froze between loading events of {@code key} and handing them over: its lease
   * expires, the API changes, and the twin takes the key and delivers on (G3, G5: the resumed
   * process must not hand over what it loaded before the freeze).
   */
  private void paused(PollerKey key) {
    trace.add("    PAUSE of p" + generation + " on " + key + " past the lease TTL");
    clock.advance(o.leaseTtl().plusSeconds(1));
    List<String> did = mutate();
    trace.add("    while paused: " + String.join(", ", did) + "; twin ticks");
    traceTick(twin.tick());
    trace.add("    p" + generation + " resumes");
  }

  private List<String> mutate() {
    List<String> did = new ArrayList<>();
    int n = random.nextInt(5);
    for (int i = 0; i < n; i++) {
      List<String> live = new ArrayList<>(history.keySet());
      live.removeIf(id -> api.item(id) == null);
      int roll = random.nextInt(100);
      if (live.isEmpty() || roll < 30) {
        String id = String.format("i%04d", nextId++);
        Map<String, Object> fields = Map.of("v", random.nextInt(3));
        if (random.nextInt(100) < 15) {
          api.stage(id, fields);
          staged.add(id);
          history.computeIfAbsent(id, k -> new ArrayList<>()).add(fields);
          did.add("stage " + id);
        } else {
          put(id, fields);
          did.add("create " + id);
        }
      } else {
        String id = live.get(random.nextInt(live.size()));
        if (staged.contains(id)) continue;
        List<Map<String, Object>> h = history.get(id);
        if (roll < 45) {
          api.delete(id);
          did.add("delete " + id);
        } else if (roll < 60 && h.size() > 1) {
          Map<String, Object> earlier = h.get(random.nextInt(h.size() - 1));
          put(id, earlier);
          did.add("restore " + id + " " + earlier);
        } else {
          Map<String, Object> fields = Map.of("v", random.nextInt(3));
          put(id, fields);
          did.add("update " + id + " " + fields);
        }
      }
    }
    if (did.isEmpty()) did.add("no change");
    return did;
  }

  private void put(String id, Map<String, Object> fields) {
    api.put(id, fields);
    history.computeIfAbsent(id, k -> new ArrayList<>()).add(fields);
  }

  private void commitStaged() {
    for (String id : staged) {
      api.commit(id);
      trace.add("    late commit " + id);
    }
    staged.clear();
  }

  private void traceTick(TickReport report) {
    for (KeyReport k : report.keys()) {
      if (k.outcome() == KeyReport.Outcome.SKIPPED_NOT_DUE && k.error() == null) continue;
      trace.add(
          "    "
              + k.key()
              + " "
              + k.outcome().name().toLowerCase()
              + " pages="
              + k.pages()
              + " committed="
              + k.eventsCommitted()
              + " delivered="
              + k.delivered()
              + (k.error() == null ? "" : " error=" + k.error().getMessage()));
    }
  }

  private void quiesce() {
    ledger.step = o.steps() + 1;
    process.disarm();
    pause.disarm();
    handlerFault = -1;
    commitStaged();
    trace.add("quiescence t=" + clock.now());
    int quiet = 0;
    for (int i = 0; i < MAX_QUIESCENCE_TICKS && quiet < 2; i++) {
      clock.advance(LAG.plus(INTERVAL));
      TickReport r = engine.tick();
      traceTick(r);
      long pending = 0;
      for (PollerKey k : keys()) pending += store.countPending(k);
      quiet = r.eventsCommitted() == 0 && pending == 0 && !r.failed() ? quiet + 1 : 0;
    }
    if (quiet < 2) ledger.violation("no quiescence after " + MAX_QUIESCENCE_TICKS + " ticks");
  }

  // ---- the guarantees

  private void check() {
    // G4, G7: nothing left behind.
    for (PollerKey k : keys()) {
      if (store.countPending(k) != 0)
        ledger.violation(
            "G4: " + k + " has " + store.countPending(k) + " pending events at the end");
      if (store.countParked(k) != 0)
        ledger.violation("G7: " + k + " has " + store.countParked(k) + " parked rows at the end");
    }
    // G2: one observation per id, one id per outbox row.
    Map<String, String> observation = new HashMap<>();
    Map<ChaosLedger.Slot, String> idOfSlot = new HashMap<>();
    Map<String, String> idOfObservation = new HashMap<>();
    for (ChaosLedger.Commit c : ledger.commits) {
      String obs = c.key() + "|" + c.identity() + "|" + c.versionOrHash() + "|" + c.type();
      String before = observation.putIfAbsent(c.id(), obs);
      if (before != null && !before.equals(obs))
        ledger.violation("G2: id " + c.id() + " names " + before + " and " + obs);
      idOfSlot.put(new ChaosLedger.Slot(c.key(), c.sequence()), c.id());
      String otherId = idOfObservation.putIfAbsent(obs, c.id());
      if (otherId != null && !otherId.equals(c.id()))
        ledger.violation("G2: " + obs + " has ids " + otherId + " and " + c.id());
    }
    Map<ChaosLedger.Slot, Integer> deliveredCount = new HashMap<>();
    Map<String, Long> lastFirstDelivery = new HashMap<>();
    Set<ChaosLedger.Slot> seen = new HashSet<>();
    for (ChaosLedger.Delivery d : ledger.deliveries) {
      ChaosLedger.Slot slot = new ChaosLedger.Slot(d.key(), d.sequence());
      String committedId = idOfSlot.get(slot);
      if (committedId == null)
        ledger.violation(
            "G1: delivered " + d.key() + " #" + d.sequence() + " that was never committed");
      else if (!committedId.equals(d.id()))
        ledger.violation(
            "G2: "
                + d.key()
                + " #"
                + d.sequence()
                + " delivered with id "
                + d.id()
                + ", committed as "
                + committedId);
      deliveredCount.merge(slot, 1, Integer::sum);
      if (seen.add(slot)) {
        // G3: first deliveries of one ordering key follow sequence order.
        String ok = d.key() + "|" + d.orderingKey();
        Long last = lastFirstDelivery.put(ok, d.sequence());
        if (last != null && last > d.sequence())
          ledger.violation("G3: " + ok + " #" + d.sequence() + " delivered after #" + last);
      }
    }
    // G1: every committed event delivered; G9: at most 1 + kills while pending.
    for (ChaosLedger.Commit c : ledger.commits) {
      ChaosLedger.Slot slot = new ChaosLedger.Slot(c.key(), c.sequence());
      int n = deliveredCount.getOrDefault(slot, 0);
      if (n == 0)
        ledger.violation(
            "G1: "
                + c.key()
                + " #"
                + c.sequence()
                + " "
                + c.identity()
                + ":"
                + c.type()
                + " committed, never delivered");
      // G9: one extra delivery at most per kill that found the event handled but not acked.
      int bound = 1 + ledger.killsWhileInFlight.getOrDefault(slot, 0);
      if (n > bound)
        ledger.violation(
            "G9: "
                + c.key()
                + " #"
                + c.sequence()
                + " delivered "
                + n
                + " times, in flight at "
                + (bound - 1)
                + " kills");
    }
    convergence();
  }

  /** G1: the last delivered event of each identity matches the API's final state. */
  private void convergence() {
    for (Poller<JsonNode> p : pollers) {
      Strategy s = pollerStrategy.get(p.name());
      boolean seesDeletes = s == Strategy.TOKEN || s == Strategy.SNAPSHOT_DIFF;
      Map<String, ChaosLedger.Delivery> last = new HashMap<>();
      for (ChaosLedger.Delivery d : ledger.deliveries)
        if (d.key().poller().equals(p.name())) last.put(d.identity(), d);
      for (String id : history.keySet()) {
        JsonNode now = api.item(id);
        ChaosLedger.Delivery d = last.get(id);
        if (now == null) {
          if (seesDeletes && d != null && !d.type().equals("deleted"))
            ledger.violation(
                "G1: " + p.name() + " " + id + " was deleted, last delivered " + d.type());
          continue;
        }
        if (d == null) {
          ledger.violation("G1: " + p.name() + " " + id + " exists, nothing delivered");
        } else if (d.type().equals("deleted")) {
          ledger.violation("G1: " + p.name() + " " + id + " exists, last delivered deleted");
        } else {
          JsonNode want = s == Strategy.SNAPSHOT_DIFF ? fields(now) : now;
          JsonNode got = s == Strategy.SNAPSHOT_DIFF ? fields(d.data()) : d.data();
          if (!want.equals(got))
            ledger.violation(
                "G1: " + p.name() + " " + id + " final " + want + ", last delivered " + got);
        }
      }
    }
  }
}
