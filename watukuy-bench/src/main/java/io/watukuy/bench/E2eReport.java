package io.watukuy.bench;

import static io.watukuy.bench.EndToEnd.FLOOR_PASSES;
import static io.watukuy.bench.EndToEnd.PAGE;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.bench.EndToEnd.Group;
import io.watukuy.bench.EndToEnd.Phase;
import io.watukuy.bench.EndToEnd.Result;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The end-to-end bench's report: the fixed-width table printed after a run, and the JSON written to
 * {@code bench/results}. Kept apart from {@link EndToEnd}, which runs the phases.
 */
final class E2eReport {
  private E2eReport() {}

  /** The result as a fixed-width table, with the targets of the issue that apply. */
  static String table(Result r) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "store: %s, %s; phases: %s; %d cores; %s%n",
            r.store(),
            r.storeVersion(),
            labels(r.groups(), ","),
            Runtime.getRuntime().availableProcessors(),
            System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")));
    if (r.listed())
      out.append(
          String.format(
              Locale.ROOT,
              "snapshot and timestamp phases: %,d items, delivery.concurrency %d, handler %s%n",
              r.n(),
              r.concurrency(),
              r.handler().equals(EventCounter.BATCH)
                  ? "batch (delivery.batchSize " + r.batchSize() + ")"
                  : "single"));
    if (!Double.isNaN(r.fetchSeconds()))
      out.append(
          String.format(
              Locale.ROOT,
              "listing fetch + parse alone (plain client, best of %d passes after a"
                  + " warm-up): %,.0f items/s%n",
              FLOOR_PASSES,
              r.n() / r.fetchSeconds()));
    if (!r.note().isEmpty()) out.append("note: ").append(r.note()).append('\n');
    if (!r.phases().isEmpty()) phasesTable(r, out);
    commitFloorLine(r, out);
    if (r.live() != null) out.append(LiveLatency.table(r.live(), r.store()));
    if (r.idle() != null) out.append(IdleKeys.table(r.idle()));
    out.append("load average before: ")
        .append(r.loadBefore())
        .append(", after: ")
        .append(r.loadAfter())
        .append("; max heap: ")
        .append(mb(Runtime.getRuntime().maxMemory()))
        .append(" MB\n");
    return out.toString();
  }

  private static void phasesTable(Result r, StringBuilder out) {
    String format = "%-15s %9s %8s %8s %9s %9s %8s %9s %11s %8s %11s %8s%n";
    out.append(
        String.format(
            Locale.ROOT,
            format,
            "phase",
            "items",
            "events",
            "seconds",
            "items/s",
            "events/s",
            "peak MB",
            "retain MB",
            "raw items/s",
            "ratio",
            "floor it/s",
            "vs fl"));
    for (Phase p : r.phases()) {
      boolean some = p.items() > 0;
      out.append(
          String.format(
              Locale.ROOT,
              format,
              p.name(),
              String.format(Locale.ROOT, "%,d", p.items()),
              String.format(Locale.ROOT, "%,d", p.events()),
              String.format(Locale.ROOT, "%.2f", p.seconds()),
              some ? String.format(Locale.ROOT, "%,.0f", p.itemsPerSecond()) : "-",
              some ? String.format(Locale.ROOT, "%,.0f", p.eventsPerSecond()) : "-",
              mb(p.peakHeap()),
              mb(p.retained()),
              some ? String.format(Locale.ROOT, "%,.0f", p.baselineItemsPerSecond()) : "-",
              Ratios.format(p.ratio()),
              some ? String.format(Locale.ROOT, "%,.0f", p.floorItemsPerSecond()) : "-",
              Ratios.format(p.floorRatio())));
    }
    for (Phase p : r.phases()) {
      if (p.runs() > 1) {
        out.append(
            String.format(
                Locale.ROOT,
                "%s: %d polls of an empty page, %.2f ms per poll; baseline (%s): %.2f ms%n",
                p.name(),
                p.runs(),
                1e3 * p.seconds() / p.runs(),
                p.baselineWhat(),
                1e3 * p.baselineSeconds() / p.runs()));
      }
    }
    StringBuilder cpu = new StringBuilder("process CPU over wall time (every thread):");
    for (Phase p : r.phases())
      if (Double.isFinite(p.cpuSeconds()))
        cpu.append(String.format(Locale.ROOT, " %s %.2f", p.name(), p.cpuSeconds() / p.seconds()));
    out.append(cpu).append('\n');
    out.append("time inside store calls (wall, calls):\n");
    for (Phase p : r.phases()) {
      StringBuilder line =
          new StringBuilder(
              String.format(
                  Locale.ROOT,
                  "  %-15s %5.1f%% of %.2f s:",
                  p.name(),
                  100 * p.storeSeconds() / p.seconds(),
                  p.seconds()));
      p.storeCalls().entrySet().stream()
          .sorted((a, b) -> Double.compare(b.getValue().seconds(), a.getValue().seconds()))
          .limit(4)
          .forEach(
              e ->
                  line.append(
                      String.format(
                          Locale.ROOT,
                          " %s %.2f s (%,d)",
                          e.getKey(),
                          e.getValue().seconds(),
                          e.getValue().calls())));
      out.append(line).append('\n');
    }
    Phase sync = find(r, "first-sync");
    Phase idle = find(r, "idle-rescan");
    if (sync != null && idle != null) {
      out.append(
          String.format(
              Locale.ROOT,
              "idle re-scan / first sync items/s: %.1fx (target >= 5x)%n",
              idle.itemsPerSecond() / sync.itemsPerSecond()));
      if (List.of("sqlite", "postgres", "mariadb").contains(r.store()))
        out.append(
            "first sync / raw baseline: " + Ratios.format(sync.ratio()) + " (target >= 0.60)\n");
    }
    Phase tsChanged = find(r, "ts-changed-poll");
    Phase changed = find(r, "changed-rescan");
    if (tsChanged != null && changed != null) {
      out.append(
          String.format(
              Locale.ROOT,
              "1%% changed: timestamp poll %.3f s for %,d items vs snapshotDiff re-scan "
                  + "%.3f s for %,d items (%.0fx faster)%n",
              tsChanged.seconds(),
              tsChanged.items(),
              changed.seconds(),
              changed.items(),
              changed.seconds() / tsChanged.seconds()));
    }
  }

  /** The commit floor beside the first sync, or why there is none. */
  private static void commitFloorLine(Result r, StringBuilder out) {
    Phase sync = find(r, "first-sync");
    if (sync == null) return;
    CommitFloor.Result floor = r.commitFloor();
    if (floor == null) {
      out.append("commit floor: not defined for ").append(r.store()).append('\n');
      return;
    }
    out.append(CommitFloor.describe(floor))
        .append("; first sync / commit floor: ")
        .append(Ratios.format(sync.itemsPerSecond() / floor.itemsPerSecond()))
        .append('\n');
  }

  private static @Nullable Phase find(Result r, String name) {
    return r.phases().stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
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
    // The commit measured, from bench/run.sh ("-dirty" when the tree differed from it): a results
    // file quoted as a "before" or an "after" must say which code it was.
    root.put("commit", System.getProperty("watukuy.bench.commit", "unknown"));
    ArrayNode groups = root.putArray("phaseGroups");
    r.groups().forEach(g -> groups.add(g.label()));
    if (r.listed()) {
      // The listing of the snapshot and timestamp phases; the live phase has its own, in its block.
      root.put("items", r.n());
      root.put("deliveryConcurrency", r.concurrency());
      root.put("handler", r.handler());
      if (r.handler().equals(EventCounter.BATCH)) root.put("deliveryBatchSize", r.batchSize());
      root.put("pageSize", PAGE);
    }
    ObjectNode load = root.putObject("loadAverage");
    load.put("before", r.loadBefore());
    load.put("after", r.loadAfter());
    if (!Double.isNaN(r.fetchSeconds())) {
      ObjectNode fetch = root.putObject("listingFetch");
      fetch.put(
          "what",
          "GET + Jackson parse of every page with java.net.http.HttpClient, no watukuy; the best of "
              + FLOOR_PASSES
              + " timed passes after a warm-up pass");
      fetch.put("seconds", r.fetchSeconds());
      fetch.put("itemsPerSecond", r.n() / r.fetchSeconds());
    }
    ArrayNode phases = root.putArray("phases");
    for (Phase p : r.phases()) {
      ObjectNode n = phases.addObject();
      n.put("phase", p.name());
      n.put("strategy", p.strategy());
      n.put("items", p.items());
      n.put("events", p.events());
      n.put("runs", p.runs());
      n.put("seconds", p.seconds());
      ResultsJson.number(n, "itemsPerSecond", p.items() > 0 ? p.itemsPerSecond() : Double.NaN);
      ResultsJson.number(n, "eventsPerSecond", p.items() > 0 ? p.eventsPerSecond() : Double.NaN);
      // The process's CPU time (every thread, the listing server's too) and its share of a core.
      ResultsJson.number(n, "cpuSeconds", p.cpuSeconds());
      ResultsJson.number(n, "cpuCores", p.cpuSeconds() / p.seconds());
      n.put("peakHeapMb", p.peakHeap() / (1024.0 * 1024));
      n.put("retainedHeapMb", p.retained() / (1024.0 * 1024));
      n.put("storeSeconds", p.storeSeconds());
      ObjectNode calls = n.putObject("storeCalls");
      p.storeCalls()
          .forEach(
              (method, u) -> {
                ObjectNode c = calls.putObject(method);
                c.put("calls", u.calls());
                c.put("seconds", u.seconds());
              });
      ObjectNode b = n.putObject("baseline");
      b.put("what", p.baselineWhat());
      b.put("seconds", p.baselineSeconds());
      ResultsJson.number(
          b, "itemsPerSecond", p.items() > 0 ? p.baselineItemsPerSecond() : Double.NaN);
      ResultsJson.number(n, "ratio", p.ratio());
      ObjectNode f = n.putObject("floor");
      f.put(
          "what",
          "a plain client's fetch + parse of the same listing (best of "
              + FLOOR_PASSES
              + " passes after a warm-up), then the raw baseline");
      ResultsJson.number(f, "itemsPerSecond", p.items() > 0 ? p.floorItemsPerSecond() : Double.NaN);
      ResultsJson.number(n, "floorRatio", p.floorRatio());
      if (p.name().equals("first-sync")) commitFloor(n, p, r.commitFloor());
    }
    if (r.live() != null) root.set("live", LiveLatency.json(r.live()));
    if (r.idle() != null) root.set("idle", IdleKeys.json(r.idle()));
    return root;
  }

  /**
   * The first sync's commit floor ({@link CommitFloor}) and {@code commitFloorRatio}, watukuy's
   * items/s over the floor's; null with a reason where the store has none.
   */
  private static void commitFloor(ObjectNode phase, Phase p, CommitFloor.@Nullable Result floor) {
    if (floor == null) {
      phase.put(
          "commitFloor",
          "not defined for this store: it runs no SQL (Redis writes a page in one Lua script;"
              + " MemoryStore writes nothing durable)");
      phase.putNull("commitFloorRatio");
      return;
    }
    ObjectNode f = phase.putObject("commitFloor");
    f.put(
        "what",
        "per page: GET + Jackson parse with a plain client, the rows and the created events' JSON,"
            + " then one transaction of prepared multi-row statements: upsert the items, insert the"
            + " outbox rows, delete them; the store's tables (its DDL, prefix floor_) and"
            + " durability settings");
    f.put("pages", floor.pages());
    f.put("seconds", floor.seconds());
    ResultsJson.number(f, "itemsPerSecond", floor.itemsPerSecond());
    ArrayNode sql = f.putArray("sql");
    floor.sql().forEach(sql::add);
    ResultsJson.number(phase, "commitFloorRatio", p.itemsPerSecond() / floor.itemsPerSecond());
  }

  /** The groups' labels, in run order, joined by {@code separator}. */
  static String labels(Set<Group> groups, String separator) {
    return String.join(separator, groups.stream().map(Group::label).toList());
  }

  static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.0f", bytes / (1024.0 * 1024));
  }
}
