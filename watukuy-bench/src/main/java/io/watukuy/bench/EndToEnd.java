package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.Cursors;
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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The end-to-end bench of one store: a {@code snapshotDiff} poller over HTTP against a {@link
 * ListingServer} of {@code n} items in 500-item pages, three phases, each followed by the store's
 * raw baseline on the same rows:
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
 * to a handler that counts them, and (for snapshotDiff) emits the deletes; its events and pages
 * are checked against what the phase must produce, so a number is never reported for a run that
 * did the wrong thing. {@code ratio} is watukuy's items/s over the baseline's items/s for the same
 * items. The fetch + parse of the whole listing with a plain {@link HttpClient} is measured once;
 * added to the raw baseline it gives each phase's physical floor (no watukuy logic at all), and
 * {@code floorRatio} is watukuy's items/s over the floor's.
 */
final class EndToEnd {
  /** Items per page, as the server serves them. */
  static final int PAGE = ListingServer.PAGE;

  /** One phase's numbers. */
  record Phase(String name, int items, long events, double seconds, long peakHeap, long retained,
      Map<String, TimedStore.Usage> storeCalls, String baselineWhat, double baselineSeconds, double fetchSeconds) {
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

    double ratio() {
      return itemsPerSecond() / baselineItemsPerSecond();
    }

    /**
     * The physical floor of the phase with no watukuy logic: fetch + parse of the listing with a
     * plain client, then the raw store work, one after the other; items per second.
     */
    double floorItemsPerSecond() {
      return items / (fetchSeconds + baselineSeconds);
    }

    /** watukuy's items/s over the floor's. */
    double floorRatio() {
      return itemsPerSecond() / floorItemsPerSecond();
    }
  }

  /** The whole run's numbers. */
  record Result(String store, String storeVersion, String note, int n, double fetchSeconds, List<Phase> phases,
      String loadBefore, String loadAfter) {}

  private EndToEnd() {}

  /**
   * Runs the three phases and their baselines on a fresh store.
   *
   * @param kind {@code memory}, {@code sqlite}, {@code postgres} or {@code redis}
   * @param n items in the listing; at least 1000, so that 0.1% is at least one item
   * @param where the servers of the persistent stores
   * @return the numbers
   * @throws IllegalStateException if a phase did not produce exactly the events it must
   */
  static Result run(String kind, int n, BenchStore.Where where) throws Exception {
    if (n < 1000) throw new IllegalArgumentException("--items must be >= 1000, but was " + n);
    String loadBefore = Machine.loadAverage();
    List<Phase> phases = new ArrayList<>();
    double fetchSeconds;
    String version;
    String note;
    try (ListingServer server = new ListingServer(n);
        BenchStore bench = BenchStore.open(kind, where);
        RawStore raw = bench.raw();
        HeapWatch heap = new HeapWatch()) {
      version = bench.version();
      note = bench.note();
      AtomicLong handled = new AtomicLong();
      Poller<JsonNode> poller = poller(server.url(), n);
      TimedStore store = new TimedStore(bench.store());
      try (Watukuy engine = Watukuy.builder().store(store).poller(poller).build()) {
        engine.on(poller, event -> handled.incrementAndGet());
        fetchListing(server); // warms the client and the server's code up
        fetchSeconds = fetchListing(server);

        Phase sync = cycle("first-sync", engine, store, heap, handled, n, 0, 0);
        double base = timeBatches(server, raw, Op.UPSERT);
        phases.add(baseline(sync, "upsert " + n + " rows, 500 per transaction", base, fetchSeconds));

        Phase idle = cycle("idle-rescan", engine, store, heap, handled, n, 0, 0);
        base = timeBatches(server, raw, Op.SELECT);
        phases.add(baseline(idle, "read " + n + " versions, 500 per query", base, fetchSeconds));

        List<Integer> updated = new ArrayList<>();
        List<Integer> deleted = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          if (i % 100 == 50) updated.add(i);
          else if (i % 1000 == 7) deleted.add(i);
        }
        updated.forEach(server::update);
        deleted.forEach(server::delete);
        Phase changed = cycle("changed-rescan", engine, store, heap, handled, server.size(), updated.size(),
            deleted.size());
        base = timeBatches(server, raw, Op.SELECT) + timeUpserts(server, raw, updated) + timeDeletes(raw, deleted);
        phases.add(baseline(changed, "read " + server.size() + " versions, upsert " + updated.size()
            + " and delete " + deleted.size() + " rows, 500 per transaction", base,
            fetchSeconds * server.size() / n));
      }
    }
    return new Result(kind, version, note, n, fetchSeconds, phases, loadBefore, Machine.loadAverage());
  }

  private static Poller<JsonNode> poller(String url, int n) {
    return Poller.builder("items", JsonNode.class)
        .identity(item -> item.get("id"))
        .version(item -> item.get("updated_at"))
        .cursor(Cursors.snapshotDiff())
        .fetch(ctx -> {
          JsonNode body = ctx.http().get(url + "?page=" + ctx.page()).json();
          List<JsonNode> items = new ArrayList<>(PAGE);
          body.get("items").forEach(items::add);
          return Page.of(items).withHasMore(body.get("hasMore").asBoolean());
        })
        // The whole listing in one cycle, and due again as soon as the bench ticks.
        .maxPagesPerCycle(n / PAGE + 2)
        .schedule(Schedule.every(Duration.ofMillis(1)).withAdaptive(false).withJitter(0))
        .build();
  }

  private static Phase cycle(String name, Watukuy engine, TimedStore store, HeapWatch heap,
      AtomicLong handled, int items, int updates, int deletes) throws InterruptedException {
    long created = name.equals("first-sync") ? items : 0;
    long expected = created + updates + deletes;
    Thread.sleep(5); // past schedule.min, so the key is due
    heap.reset();
    store.drain();
    long before = handled.get();
    long start = System.nanoTime();
    TickReport report = engine.tick();
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<String, TimedStore.Usage> calls = store.drain();
    long peakHeap = heap.peak();
    long retained = heap.retained();
    KeyReport key = report.keys().size() == 1 ? report.keys().get(0) : null;
    int pages = Math.max(1, (items + PAGE - 1) / PAGE);
    if (key == null || key.failed() || key.truncated() || report.eventsCommitted() != expected
        || report.delivered() != expected || handled.get() - before != expected || key.pages() != pages) {
      throw new IllegalStateException(name + ": expected one key, " + expected + " events committed and delivered over "
          + pages + " pages, but the tick reported " + report + " and the handler saw " + (handled.get() - before));
    }
    return new Phase(name, items, expected, seconds, peakHeap, retained, calls, "", Double.NaN, Double.NaN);
  }

  private static Phase baseline(Phase p, String what, double seconds, double fetchSeconds) {
    return new Phase(p.name(), p.items(), p.events(), p.seconds(), p.peakHeap(), p.retained(), p.storeCalls(), what,
        seconds, fetchSeconds);
  }

  private enum Op { UPSERT, SELECT }

  /** Runs the raw store over every listed item, 500 at a time; only the store calls are timed. */
  private static double timeBatches(ListingServer server, RawStore raw, Op op) throws Exception {
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
        if (found != ids.size()) throw new IllegalStateException("baseline read found " + found + " of " + ids.size());
      }
    }
    return nanos / 1e9;
  }

  private static double timeUpserts(ListingServer server, RawStore raw, List<Integer> indexes) throws Exception {
    long nanos = 0;
    long now = Instant.now().toEpochMilli();
    for (int from = 0; from < indexes.size(); from += PAGE) {
      List<RawStore.Row> rows = rows(server, indexes.subList(from, Math.min(indexes.size(), from + PAGE)), now);
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
      for (int i : indexes.subList(from, Math.min(indexes.size(), from + PAGE))) ids.add(identity(i));
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
      String hash = String.format(Locale.ROOT, "%016x%016x%016x%016x", i, rev, (long) i * 31 + rev, ~(long) i);
      rows.add(new RawStore.Row(identity(i), Items.updatedAt(i, rev), hash, now));
    }
    return rows;
  }

  private static String identity(int index) {
    return Long.toString(1_000_000L + index);
  }

  /** Fetches and parses every page with a plain JDK client; returns the seconds it took. */
  private static double fetchListing(ListingServer server) throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    long start = System.nanoTime();
    int seen = 0;
    for (int page = 1; ; page++) {
      HttpRequest request = HttpRequest.newBuilder(URI.create(server.url() + "?page=" + page))
          .timeout(Duration.ofSeconds(30)).GET().build();
      byte[] body = client.send(request, HttpResponse.BodyHandlers.ofByteArray()).body();
      JsonNode tree = Items.MAPPER.readTree(body);
      seen += tree.get("items").size();
      if (!tree.get("hasMore").asBoolean()) break;
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (seen != server.size()) throw new IllegalStateException("listing fetch saw " + seen + " of " + server.size());
    return seconds;
  }

  /** The result as a fixed-width table, with the targets of the issue that apply. */
  static String table(Result r) {
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "store: %s, %s; %,d items; listing fetch + parse alone: %,.0f items/s%n",
        r.store(), r.storeVersion(), r.n(), r.n() / r.fetchSeconds()));
    if (!r.note().isEmpty()) out.append("note: ").append(r.note()).append('\n');
    String format = "%-15s %9s %8s %8s %9s %9s %8s %9s %11s %6s %11s %6s%n";
    out.append(String.format(Locale.ROOT, format, "phase", "items", "events", "seconds", "items/s", "events/s",
        "peak MB", "retain MB", "raw items/s", "ratio", "floor it/s", "vs fl"));
    for (Phase p : r.phases()) {
      out.append(String.format(Locale.ROOT, format, p.name(), String.format(Locale.ROOT, "%,d", p.items()),
          String.format(Locale.ROOT, "%,d", p.events()), String.format(Locale.ROOT, "%.2f", p.seconds()),
          String.format(Locale.ROOT, "%,.0f", p.itemsPerSecond()), String.format(Locale.ROOT, "%,.0f", p.eventsPerSecond()),
          mb(p.peakHeap()), mb(p.retained()), String.format(Locale.ROOT, "%,.0f", p.baselineItemsPerSecond()),
          String.format(Locale.ROOT, "%.2f", p.ratio()), String.format(Locale.ROOT, "%,.0f", p.floorItemsPerSecond()),
          String.format(Locale.ROOT, "%.2f", p.floorRatio())));
    }
    out.append("time inside store calls (wall, calls):\n");
    for (Phase p : r.phases()) {
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-15s %5.1f%% of %.2f s:", p.name(),
          100 * p.storeSeconds() / p.seconds(), p.seconds()));
      p.storeCalls().entrySet().stream()
          .sorted((a, b) -> Double.compare(b.getValue().seconds(), a.getValue().seconds()))
          .limit(4)
          .forEach(e -> line.append(String.format(Locale.ROOT, " %s %.2f s (%,d)", e.getKey(), e.getValue().seconds(),
              e.getValue().calls())));
      out.append(line).append('\n');
    }
    Phase sync = r.phases().get(0);
    Phase idle = r.phases().get(1);
    out.append(String.format(Locale.ROOT, "idle re-scan / first sync items/s: %.1fx (target >= 5x)%n",
        idle.itemsPerSecond() / sync.itemsPerSecond()));
    if (r.store().equals("sqlite") || r.store().equals("postgres"))
      out.append(String.format(Locale.ROOT, "first sync / raw baseline: %.2f (target >= 0.60)%n", sync.ratio()));
    out.append("load average before: ").append(r.loadBefore()).append(", after: ").append(r.loadAfter())
        .append("; max heap: ").append(mb(Runtime.getRuntime().maxMemory())).append(" MB\n");
    return out.toString();
  }

  /** The result as JSON, with the machine it ran on. */
  static ObjectNode json(Result r) {
    ObjectNode root = Items.MAPPER.createObjectNode();
    root.put("date", Instant.now().toString());
    root.put("store", r.store());
    root.put("storeVersion", r.storeVersion());
    if (!r.note().isEmpty()) root.put("note", r.note());
    Machine.describe(root);
    root.put("maxHeapMb", Runtime.getRuntime().maxMemory() / (1024 * 1024));
    root.put("watukuy", Versions.of("watukuy"));
    root.put("items", r.n());
    root.put("pageSize", PAGE);
    root.put("strategy", "snapshotDiff");
    ObjectNode load = root.putObject("loadAverage");
    load.put("before", r.loadBefore());
    load.put("after", r.loadAfter());
    ObjectNode fetch = root.putObject("listingFetch");
    fetch.put("what", "GET + Jackson parse of every page with java.net.http.HttpClient, no watukuy");
    fetch.put("seconds", r.fetchSeconds());
    fetch.put("itemsPerSecond", r.n() / r.fetchSeconds());
    ArrayNode phases = root.putArray("phases");
    for (Phase p : r.phases()) {
      ObjectNode n = phases.addObject();
      n.put("phase", p.name());
      n.put("items", p.items());
      n.put("events", p.events());
      n.put("seconds", p.seconds());
      n.put("itemsPerSecond", p.itemsPerSecond());
      n.put("eventsPerSecond", p.eventsPerSecond());
      n.put("peakHeapMb", p.peakHeap() / (1024.0 * 1024));
      n.put("retainedHeapMb", p.retained() / (1024.0 * 1024));
      n.put("storeSeconds", p.storeSeconds());
      ObjectNode calls = n.putObject("storeCalls");
      p.storeCalls().forEach((method, u) -> {
        ObjectNode c = calls.putObject(method);
        c.put("calls", u.calls());
        c.put("seconds", u.seconds());
      });
      ObjectNode b = n.putObject("baseline");
      b.put("what", p.baselineWhat());
      b.put("seconds", p.baselineSeconds());
      b.put("itemsPerSecond", p.baselineItemsPerSecond());
      n.put("ratio", p.ratio());
      ObjectNode f = n.putObject("floor");
      f.put("what", "listing fetch + parse, then the raw baseline");
      f.put("itemsPerSecond", p.floorItemsPerSecond());
      n.put("floorRatio", p.floorRatio());
    }
    return root;
  }

  private static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.0f", bytes / (1024.0 * 1024));
  }
}
