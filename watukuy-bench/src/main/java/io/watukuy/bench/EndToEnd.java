package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The end-to-end bench of one store, in four groups of phases ({@link Group}), each on its own
 * poller over the same fresh store:
 *
 * <ul>
 *   <li>{@code snapshot}: the three phases below;
 *   <li>{@code timestamp}: the same listing read incrementally ({@link TimestampPhases});
 *   <li>{@code live}: the live lane's latency on a running daemon ({@link LiveLatency});
 *   <li>{@code idle}: the CPU of many idle keys on one engine ({@link IdleKeys}).
 * </ul>
 *
 * The snapshot phases run a {@code snapshotDiff} poller over HTTP against a {@link ListingServer}
 * of {@code n} items in 500-item pages, each phase followed by the store's raw baseline on the same
 * rows:
 *
 * <ol>
 *   <li>{@code first-sync}: every item is new, {@code n} created events; baseline: upsert the
 *       {@code n} rows, 500 per transaction.
 *   <li>{@code idle-rescan}: nothing changed, no event (every item skipped on its version);
 *       baseline: read the version and hash of the {@code n} identities, 500 per query.
 *   <li>{@code changed-rescan}: 1% of the items updated and 0.1% deleted on the server; baseline:
 *       the same reads, then upsert the updated rows and delete the deleted ones, 500 per
 *       transaction.
 * </ol>
 *
 * A phase is one {@link Watukuy#tick()}: it lists every page, diffs, commits, delivers every event
 * to a handler that counts them, and (for snapshotDiff) emits the deletes; its events and pages are
 * checked against what the phase must produce, so a number is never reported for a run that did the
 * wrong thing. {@code ratio} is watukuy's items/s over the baseline's items/s for the same items.
 * The fetch + parse of the whole listing with a plain {@link HttpClient} is the best of {@value
 * #FLOOR_PASSES} timed passes after one warm-up pass; added to the raw baseline it gives each
 * phase's physical floor (no watukuy logic at all), and {@code floorRatio} is watukuy's items/s
 * over the floor's.
 *
 * <p>The phases never assert timing: {@link Settings#tiny()} is the smoke pass of {@code ./mvnw
 * verify}.
 */
final class EndToEnd {
  /** Items per page, as the server serves them. */
  static final int PAGE = ListingServer.PAGE;

  /**
   * Timed passes of a plain client's fetch of a listing, after one warm-up pass; the floor takes
   * the fastest, the least disturbed by the rest of the machine.
   */
  static final int FLOOR_PASSES = 3;

  /** The groups of phases, as {@code --phases} names them. */
  enum Group {
    SNAPSHOT,
    TIMESTAMP,
    LIVE,
    IDLE;

    /** The name on the command line and in the results. */
    String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code --phases}.
     *
     * @param list comma-separated labels, such as {@code snapshot,timestamp}
     * @return the groups, in run order
     * @throws IllegalArgumentException for an unknown or missing label
     */
    static Set<Group> parse(String list) {
      Set<Group> out = EnumSet.noneOf(Group.class);
      for (String part : list.split(",")) {
        String label = part.trim();
        if (label.isEmpty()) continue;
        Group g =
            Arrays.stream(values())
                .filter(v -> v.label().equals(label))
                .findFirst()
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "--phases: unknown phase '"
                                + label
                                + "'; expected snapshot, timestamp, live or idle"));
        out.add(g);
      }
      if (out.isEmpty())
        throw new IllegalArgumentException(
            "--phases needs at least one of snapshot,timestamp,live,idle");
      return out;
    }
  }

  /**
   * What to run.
   *
   * @param items items in the listing of the snapshot and timestamp phases; at least 1000
   * @param groups the groups to run, in {@link Group} order
   * @param live the live-latency phase's settings
   * @param idle the idle-keys phase's settings
   * @param concurrency {@code delivery.concurrency} of the snapshot and timestamp engines (default
   *     {@value io.watukuy.DeliveryOptions#DEFAULT_CONCURRENCY}): it bounds the handled events
   *     waiting for their ack, so it sets how many acks share one store write
   * @param handler how those engines deliver: {@code batch} (default: a {@link
   *     io.watukuy.BatchHandler} of {@code delivery.batchSize} events, one ack write per batch) or
   *     {@code single} (a {@link io.watukuy.Handler} per event)
   * @param batchSize {@code delivery.batchSize} of those engines with the batch handler (default
   *     {@value io.watukuy.DeliveryOptions#DEFAULT_BATCH_SIZE})
   */
  record Settings(
      int items,
      Set<Group> groups,
      LiveLatency.Settings live,
      IdleKeys.Settings idle,
      int concurrency,
      String handler,
      int batchSize) {
    /** Every group at full length over {@code items} items. */
    static Settings full(int items) {
      return new Settings(
          items,
          EnumSet.allOf(Group.class),
          LiveLatency.Settings.full(),
          IdleKeys.Settings.full(),
          DeliveryOptions.DEFAULT_CONCURRENCY,
          EventCounter.BATCH,
          DeliveryOptions.DEFAULT_BATCH_SIZE);
    }

    /** The smoke pass: 2 000 items, a few live changes, 200 idle keys for 1 s. */
    static Settings tiny() {
      return new Settings(
          2_000,
          EnumSet.allOf(Group.class),
          LiveLatency.Settings.tiny(),
          IdleKeys.Settings.tiny(),
          DeliveryOptions.DEFAULT_CONCURRENCY,
          EventCounter.BATCH,
          DeliveryOptions.DEFAULT_BATCH_SIZE);
    }

    Settings withGroups(Set<Group> groups) {
      return new Settings(
          items, EnumSet.copyOf(groups), live, idle, concurrency, handler, batchSize);
    }

    Settings withLive(LiveLatency.Settings live) {
      return new Settings(items, groups, live, idle, concurrency, handler, batchSize);
    }

    Settings withConcurrency(int concurrency) {
      return new Settings(items, groups, live, idle, concurrency, handler, batchSize);
    }

    Settings withHandler(String handler, int batchSize) {
      return new Settings(items, groups, live, idle, concurrency, handler, batchSize);
    }

    /** The snapshot and timestamp engines' delivery options. */
    DeliveryOptions delivery() {
      return new DeliveryOptions(
          concurrency, DeliveryOptions.DEFAULT_DISPATCH_BATCH_SIZE, batchSize);
    }

    Settings withIdle(IdleKeys.Settings idle) {
      return new Settings(items, groups, live, idle, concurrency, handler, batchSize);
    }
  }

  /**
   * One phase's numbers.
   *
   * @param name the phase
   * @param strategy the poller's cursor strategy
   * @param items items the phase listed
   * @param events events delivered, checked
   * @param runs ticks measured (seconds is their total); 1 but for repeated idle polls
   * @param seconds wall time of the ticks
   * @param peakHeap the highest heap in use while it ran, bytes
   * @param retained the heap after a full collection at its end, bytes
   * @param storeCalls time inside each store method
   * @param baselineWhat what the baseline did
   * @param baselineSeconds the baseline's wall time for the same work
   * @param fetchSeconds a plain client's fetch + parse of the same listing, seconds
   * @param cpuSeconds the process's CPU time over the same span as {@code seconds} (every thread,
   *     the listing server's too); NaN where not measured
   */
  record Phase(
      String name,
      String strategy,
      int items,
      long events,
      int runs,
      double seconds,
      long peakHeap,
      long retained,
      Map<String, TimedStore.Usage> storeCalls,
      String baselineWhat,
      double baselineSeconds,
      double fetchSeconds,
      double cpuSeconds) {
    /** Seconds spent inside store calls. */
    double storeSeconds() {
      return storeCalls.values().stream().mapToDouble(TimedStore.Usage::seconds).sum();
    }

    double itemsPerSecond() {
      return items / seconds;
    }

    double eventsPerSecond() {
      return events / seconds;
    }

    double baselineItemsPerSecond() {
      return items / baselineSeconds;
    }

    /**
     * watukuy's throughput over the baseline's: the baseline's time over watukuy's for the same
     * work.
     */
    double ratio() {
      return baselineSeconds / seconds;
    }

    /**
     * The physical floor of the phase with no watukuy logic: fetch + parse of the listing with a
     * plain client, then the raw store work, one after the other; items per second.
     */
    double floorItemsPerSecond() {
      return items / (fetchSeconds + baselineSeconds);
    }

    /** watukuy's items/s over the floor's (its time over the floor's, for a phase of no items). */
    double floorRatio() {
      return (fetchSeconds + baselineSeconds) / seconds;
    }

    /** This phase beside its baseline and its plain fetch. */
    Phase withBaseline(String what, double baselineSeconds, double fetchSeconds) {
      return new Phase(
          name,
          strategy,
          items,
          events,
          runs,
          seconds,
          peakHeap,
          retained,
          storeCalls,
          what,
          baselineSeconds,
          fetchSeconds,
          cpuSeconds);
    }
  }

  /**
   * The whole run's numbers.
   *
   * @param groups the groups that ran
   * @param n items in the listing of the snapshot and timestamp phases (the live phase has its own)
   * @param concurrency {@code delivery.concurrency} of the snapshot and timestamp engines
   * @param handler {@code batch} or {@code single}: how those engines delivered
   * @param batchSize their {@code delivery.batchSize}
   * @param fetchSeconds the plain fetch + parse of the page listing; NaN without the snapshot
   *     phases
   * @param phases the snapshot and timestamp phases that ran
   * @param live the live-latency phase, or null when it did not run
   * @param idle the idle-keys phase, or null when it did not run
   * @param commitFloor the first sync's commit floor, or null when the snapshot phases did not run
   *     or the store has none
   */
  record Result(
      String store,
      String storeVersion,
      String note,
      Set<Group> groups,
      int n,
      int concurrency,
      String handler,
      int batchSize,
      double fetchSeconds,
      List<Phase> phases,
      LiveLatency.@Nullable Result live,
      IdleKeys.@Nullable Result idle,
      CommitFloor.@Nullable Result commitFloor,
      String loadBefore,
      String loadAfter) {
    /** Whether the snapshot or timestamp phases ran, the ones over {@link #n()} items. */
    boolean listed() {
      return groups.contains(Group.SNAPSHOT) || groups.contains(Group.TIMESTAMP);
    }
  }

  private EndToEnd() {}

  /**
   * Runs the selected groups of phases, with their baselines, on a fresh store.
   *
   * @param kind {@code memory}, {@code sqlite}, {@code postgres} or {@code redis}
   * @param settings what to run; {@code items} at least 1000, so that 0.1% is at least one item
   * @param where the servers of the persistent stores
   * @return the numbers
   * @throws IllegalStateException if a phase did not produce exactly the events it must
   */
  static Result run(String kind, Settings settings, BenchStore.Where where) throws Exception {
    try (BenchStore bench = BenchStore.open(kind, where)) {
      return run(kind, bench, settings);
    }
  }

  /**
   * Runs the selected groups of phases, with their baselines, on a store the caller opened and
   * closes.
   *
   * @param kind the store's name, for the results
   * @param bench the fresh store
   * @param settings what to run; {@code items} at least 1000, so that 0.1% is at least one item
   * @return the numbers
   * @throws IllegalStateException if a phase did not produce exactly the events it must
   */
  static Result run(String kind, BenchStore bench, Settings settings) throws Exception {
    int n = settings.items();
    if (n < 1000) throw new IllegalArgumentException("--items must be >= 1000, but was " + n);
    String loadBefore = Machine.loadAverage();
    List<Phase> phases = new ArrayList<>();
    double fetchSeconds = Double.NaN;
    LiveLatency.Result live = null;
    IdleKeys.Result idle = null;
    CommitFloor.Result commitFloor = null;
    String version;
    String note;
    try (RawStore raw = bench.raw()) {
      version = bench.version();
      note = bench.note();
      // The raw upsert of the n rows, measured once when the snapshot phases run and reused.
      double upsertSeconds = Double.NaN;
      if (settings.groups().contains(Group.SNAPSHOT)) {
        fetchSeconds = snapshot(bench, raw, n, settings, phases);
        upsertSeconds = phases.get(0).baselineSeconds();
        commitFloor = CommitFloor.measure(kind, bench, n);
      }
      if (settings.groups().contains(Group.TIMESTAMP))
        phases.addAll(TimestampPhases.run(bench.store(), raw, n, upsertSeconds, settings));
      if (settings.groups().contains(Group.LIVE))
        live = LiveLatency.run(bench.store(), settings.live());
      if (settings.groups().contains(Group.IDLE))
        idle = IdleKeys.run(bench.store(), settings.idle(), ServerCpu.of(kind));
    }
    return new Result(
        kind,
        version,
        note,
        settings.groups(),
        n,
        settings.concurrency(),
        settings.handler(),
        settings.batchSize(),
        fetchSeconds,
        phases,
        live,
        idle,
        commitFloor,
        loadBefore,
        Machine.loadAverage());
  }

  /** The three snapshotDiff phases; returns the plain fetch + parse time of the listing. */
  private static double snapshot(
      BenchStore bench, RawStore raw, int n, Settings settings, List<Phase> phases)
      throws Exception {
    DeliveryOptions delivery = settings.delivery();
    try (ListingServer server = new ListingServer(n);
        HeapWatch heap = new HeapWatch()) {
      EventCounter counter = new EventCounter(settings.handler());
      AtomicLong fetched = new AtomicLong();
      Poller<JsonNode> poller = poller(server.url(), n, fetched);
      TimedStore store = new TimedStore(bench.store());
      try (Watukuy engine =
          Watukuy.builder().store(store).poller(poller).delivery(delivery).build()) {
        counter.attach(engine, poller);
        fetchListing(server); // warms the client and the server's code up
        double fetchSeconds = Double.POSITIVE_INFINITY;
        for (int pass = 0; pass < FLOOR_PASSES; pass++)
          fetchSeconds = Math.min(fetchSeconds, fetchListing(server));

        Phase sync =
            cycle(
                "first-sync",
                SNAPSHOT,
                engine,
                store,
                heap,
                counter,
                fetched,
                n,
                new EventCounter.Counts(n, 0, 0),
                pages(n));
        double base = timeBatches(server, raw, Op.UPSERT);
        phases.add(
            sync.withBaseline("upsert " + n + " rows, 500 per transaction", base, fetchSeconds));

        Phase idle =
            cycle(
                "idle-rescan",
                SNAPSHOT,
                engine,
                store,
                heap,
                counter,
                fetched,
                n,
                new EventCounter.Counts(0, 0, 0),
                pages(n));
        base = timeBatches(server, raw, Op.SELECT);
        phases.add(idle.withBaseline("read " + n + " versions, 500 per query", base, fetchSeconds));

        List<Integer> updated = new ArrayList<>();
        List<Integer> deleted = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          if (i % 100 == 50) updated.add(i);
          else if (i % 1000 == 7) deleted.add(i);
        }
        updated.forEach(server::update);
        deleted.forEach(server::delete);
        Phase changed =
            cycle(
                "changed-rescan",
                SNAPSHOT,
                engine,
                store,
                heap,
                counter,
                fetched,
                server.size(),
                new EventCounter.Counts(0, updated.size(), deleted.size()),
                pages(server.size()));
        base =
            timeBatches(server, raw, Op.SELECT)
                + timeUpserts(server, raw, updated)
                + timeDeletes(raw, deleted);
        phases.add(
            changed.withBaseline(
                "read "
                    + server.size()
                    + " versions, upsert "
                    + updated.size()
                    + " and delete "
                    + deleted.size()
                    + " rows, 500 per transaction",
                base,
                fetchSeconds * server.size() / n));
        return fetchSeconds;
      }
    }
  }

  /** The pages a listing of {@code items} items takes: at least one, empty or not. */
  static int pages(int items) {
    return Math.max(1, (items + PAGE - 1) / PAGE);
  }

  private static Poller<JsonNode> poller(String url, int n, AtomicLong fetched) {
    return Poller.builder("items", JsonNode.class)
        .identity(item -> item.get("id"))
        .version(item -> item.get("updated_at"))
        .cursor(Cursors.snapshotDiff())
        .fetch(
            ctx -> {
              JsonNode body = ctx.http().get(url + "?page=" + ctx.page()).json();
              List<JsonNode> items = new ArrayList<>(PAGE);
              body.get("items").forEach(items::add);
              fetched.addAndGet(items.size());
              return Page.of(items).withHasMore(body.get("hasMore").asBoolean());
            })
        // The whole listing in one cycle, and due again as soon as the bench ticks.
        .maxPagesPerCycle(n / PAGE + 2)
        .schedule(Schedule.every(Duration.ofMillis(1)).withAdaptive(false).withJitter(0))
        .build();
  }

  /** The strategy label of the snapshot phases. */
  static final String SNAPSHOT = "snapshotDiff";

  /**
   * Runs one tick of the engine's single key and checks it: one key polled over {@code pages}
   * pages, {@code items} items fetched, exactly {@code expected} events committed and delivered.
   *
   * @return the phase, with no baseline yet
   * @throws IllegalStateException if the tick did anything else
   */
  static Phase cycle(
      String name,
      String strategy,
      Watukuy engine,
      TimedStore store,
      HeapWatch heap,
      EventCounter counter,
      AtomicLong fetched,
      int items,
      EventCounter.Counts expected,
      int pages)
      throws InterruptedException {
    Thread.sleep(5); // past schedule.min, so the key is due
    heap.reset();
    store.drain();
    EventCounter.Counts before = counter.now();
    long fetchedBefore = fetched.get();
    long cpu = ProcessCpu.nanos();
    long start = System.nanoTime();
    TickReport report = engine.tick();
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpuSeconds = (ProcessCpu.nanos() - cpu) / 1e9;
    Map<String, TimedStore.Usage> calls = store.drain();
    long peakHeap = heap.peak();
    long retained = heap.retained();
    check(
        name,
        report,
        counter.now().minus(before),
        fetched.get() - fetchedBefore,
        items,
        expected,
        pages);
    return new Phase(
        name,
        strategy,
        items,
        expected.total(),
        1,
        seconds,
        peakHeap,
        retained,
        calls,
        "",
        Double.NaN,
        Double.NaN,
        cpuSeconds);
  }

  /**
   * Checks one tick of a single-key engine.
   *
   * @throws IllegalStateException if the tick did not poll one key over {@code pages} pages,
   *     fetching {@code items} items, committing and delivering exactly {@code expected}
   */
  static void check(
      String name,
      TickReport report,
      EventCounter.Counts seen,
      long fetched,
      int items,
      EventCounter.Counts expected,
      int pages) {
    KeyReport key = report.keys().size() == 1 ? report.keys().get(0) : null;
    if (key == null
        || key.failed()
        || key.truncated()
        || report.eventsCommitted() != expected.total()
        || report.delivered() != expected.total()
        || !seen.equals(expected)
        || key.pages() != pages
        || fetched != items) {
      throw new IllegalStateException(
          name
              + ": expected one key, "
              + items
              + " items over "
              + pages
              + " pages, "
              + expected
              + " committed and delivered, but the tick reported "
              + report
              + ", fetched "
              + fetched
              + " items, and the handler saw "
              + seen);
    }
  }

  /** What {@link #timeBatches} times. */
  enum Op {
    UPSERT,
    SELECT
  }

  /** Runs the raw store over every listed item, 500 at a time; only the store calls are timed. */
  static double timeBatches(ListingServer server, RawStore raw, Op op) throws Exception {
    // A read right after the bulk upsert would find the table not yet analyzed, and PostgreSQL
    // would then read the whole table for every batch: a baseline slower than the engine.
    if (op == Op.SELECT) raw.analyze();
    int n = server.size();
    long nanos = 0;
    long now = Instant.now().toEpochMilli();
    List<Integer> indexes = server.liveIndexes();
    for (int from = 0; from < n; from += PAGE) {
      List<Integer> batch = indexes.subList(from, Math.min(n, from + PAGE));
      if (op == Op.UPSERT) {
        List<RawStore.Row> rows = rows(server, batch, now);
        long t = System.nanoTime();
        raw.upsert(rows);
        nanos += System.nanoTime() - t;
      } else {
        List<String> ids = new ArrayList<>(batch.size());
        for (int i : batch) ids.add(identity(i));
        long t = System.nanoTime();
        int found = raw.select(ids);
        nanos += System.nanoTime() - t;
        if (found != ids.size())
          throw new IllegalStateException("baseline read found " + found + " of " + ids.size());
      }
    }
    return nanos / 1e9;
  }

  static double timeUpserts(ListingServer server, RawStore raw, List<Integer> indexes)
      throws Exception {
    long nanos = 0;
    long now = Instant.now().toEpochMilli();
    for (int from = 0; from < indexes.size(); from += PAGE) {
      List<RawStore.Row> rows =
          rows(server, indexes.subList(from, Math.min(indexes.size(), from + PAGE)), now);
      long t = System.nanoTime();
      raw.upsert(rows);
      nanos += System.nanoTime() - t;
    }
    return nanos / 1e9;
  }

  private static double timeDeletes(RawStore raw, List<Integer> indexes) throws Exception {
    long nanos = 0;
    for (int from = 0; from < indexes.size(); from += PAGE) {
      List<String> ids = new ArrayList<>();
      for (int i : indexes.subList(from, Math.min(indexes.size(), from + PAGE)))
        ids.add(identity(i));
      long t = System.nanoTime();
      raw.delete(ids);
      nanos += System.nanoTime() - t;
    }
    return nanos / 1e9;
  }

  private static List<RawStore.Row> rows(ListingServer server, List<Integer> indexes, long now) {
    List<RawStore.Row> rows = new ArrayList<>(indexes.size());
    for (int i : indexes) {
      int rev = server.revision(i);
      // A stand-in content hash: 64 hex digits like the real one, without the cost of hashing.
      String hash =
          String.format(
              Locale.ROOT, "%016x%016x%016x%016x", i, rev, (long) i * 31 + rev, ~(long) i);
      rows.add(new RawStore.Row(identity(i), server.updatedAt(i), hash, now));
    }
    return rows;
  }

  /** The {@code id} of item {@code index}, as the store keeps it. */
  static String identity(int index) {
    return Long.toString(1_000_000L + index);
  }

  /** Fetches and parses every page with a plain JDK client; returns the seconds it took. */
  private static double fetchListing(ListingServer server) throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    long start = System.nanoTime();
    int seen = 0;
    for (int page = 1; ; page++) {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(server.url() + "?page=" + page))
              .timeout(Duration.ofSeconds(30))
              .GET()
              .build();
      byte[] body = client.send(request, HttpResponse.BodyHandlers.ofByteArray()).body();
      JsonNode tree = Items.MAPPER.readTree(body);
      seen += tree.get("items").size();
      if (!tree.get("hasMore").asBoolean()) break;
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (seen != server.size())
      throw new IllegalStateException("listing fetch saw " + seen + " of " + server.size());
    return seconds;
  }
}
