package io.watukuy.bench.camel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.bench.Items;
import io.watukuy.bench.Machine;
import io.watukuy.bench.ResultsJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import org.apache.camel.CamelContext;

/**
 * The Apache Camel peer of the end-to-end bench, run by {@code bench/run.sh e2e --peer camel} right
 * after the bench's JVM for the same store:
 *
 * <pre>
 * java -Xmx256m -cp bench/camel/target/classes:bench/camel/target/lib/* \
 *     io.watukuy.bench.camel.CamelPeer --results FILE [--postgres-url JDBC-URL] [--mariadb-url JDBC-URL]
 * </pre>
 *
 * It reads the store and the item count from the bench's results {@code FILE} (a run with the
 * {@code snapshot} phases on {@code sqlite}, {@code postgres} or {@code mariadb}), runs {@link
 * ListingSyncRoute} over a listing of the same items on the same database ({@link PeerPasses}),
 * prints watukuy beside Camel and writes the numbers back into {@code FILE}: a {@code peer} section
 * (the route's numbers, the ratios, what the route does not do, the route's source text), and a
 * {@code camelRatio} in the bench's {@code first-sync} and {@code idle-rescan} phases. Every ratio
 * is watukuy over Camel, so that above 1 means watukuy did better: items/s over items/s, and items
 * per CPU second over items per CPU second.
 *
 * <p>Exit code 0 on success, 1 on a failed pass or database, 2 on a usage error or a results file
 * the peer cannot compare with.
 */
public final class CamelPeer {
  /** The phases of the bench the peer repeats, in order. */
  static final List<String> PHASES = List.of("first-sync", "idle-rescan");

  /** What watukuy does on the same listing that the route does not. */
  static final List<String> DOES_NOT_DO =
      List.of(
          "deletes: an item gone from the listing is never noticed; watukuy's snapshotDiff emits a"
              + " deleted event for it",
          "crash safety: the key is written before the handler runs, in its own transaction, with"
              + " no outbox: a crash (or kill) in between loses that item for good; watukuy commits"
              + " the events with the state in one transaction and delivers them after, at least"
              + " once (G1, G4, G9)",
          "per-key order: nothing holds a key's next version back while an earlier one is"
              + " failing: the failed one is dropped once the item changes, and with"
              + " parallelProcessing on the split (the usual way to speed the route up) versions of"
              + " one key may reach the handler out of order; watukuy delivers each key's events in"
              + " order and holds the later ones behind a failing one (G3)",
          "retries with park: a failed handler removes the key (removeOnFailure) and the next pass"
              + " tries again, with no backoff, no attempt limit and no parking, and the exception"
              + " ends the pass after that page; watukuy retries with backoff and parks an event"
              + " that keeps failing without holding other keys (G7)",
          "budgets: no rate budget, pacing or Retry-After: every page is requested as fast as the"
              + " server answers, and a 429 fails the pass; watukuy shares rate budgets across"
              + " instances and honours Retry-After (G6)",
          "one instance per listing: two JVMs running the route both read every page and race on"
              + " every key (with the primary key, the loser's insert fails, and with it its pass);"
              + " watukuy leases each key (G5)",
          "a growing table: one row per (id, updated_at) ever seen, never pruned; watukuy keeps"
              + " one row per item and removes it on delete");

  private CamelPeer() {}

  /**
   * Runs the peer.
   *
   * @param args see the class comment
   */
  public static void main(String[] args) {
    try {
      System.exit(run(args));
    } catch (IllegalArgumentException e) {
      System.err.println("camel peer: " + e.getMessage());
      System.exit(2);
    } catch (Exception e) {
      System.err.println("camel peer: failed: " + e);
      e.printStackTrace();
      System.exit(1);
    }
  }

  static int run(String[] args) throws Exception {
    Deque<String> rest = new ArrayDeque<>(List.of(args));
    Path results = null;
    String postgres = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    String mariadb = "jdbc:mariadb://127.0.0.1:3306/test?user=root";
    while (!rest.isEmpty()) {
      String a = rest.poll();
      String v = rest.poll();
      if (v == null) throw new IllegalArgumentException(a + " needs a value");
      switch (a) {
        case "--results" -> results = Path.of(v);
        case "--postgres-url" -> postgres = v;
        case "--mariadb-url" -> mariadb = v;
        default -> throw new IllegalArgumentException("unknown option '" + a + "'");
      }
    }
    if (results == null) throw new IllegalArgumentException("--results FILE is needed");
    ObjectNode root = (ObjectNode) Items.MAPPER.readTree(Files.readAllBytes(results));
    String store = root.path("store").asText();
    if (!PeerDatabase.KINDS.contains(store))
      throw new IllegalArgumentException(
          results + ": store '" + store + "': the Camel peer runs on sqlite, postgres or mariadb");
    for (String phase : PHASES)
      if (ResultsJson.phase(root, phase) == null)
        throw new IllegalArgumentException(
            results + " has no " + phase + " phase: the Camel peer needs the snapshot phases");
    int n = root.path("items").asInt();

    String loadBefore = Machine.loadAverage();
    PeerPasses.Result result;
    ObjectNode peer;
    PeerDatabase db = PeerDatabase.open(store, postgres, mariadb);
    Thread hook = new Thread(() -> closeQuietly(db, System.err), "camel-peer-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      result = PeerPasses.run(n, db);
      peer = peerJson(root, db, result, loadBefore);
    } finally {
      db.close();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook has run or is running; it found the database closed or closed it
      }
    }
    root.set("peer", peer);
    addRatios(root, peer);
    Files.writeString(
        results, Items.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
    System.out.print(table(peer));
    System.out.println("wrote the peer section into " + results);
    return 0;
  }

  private static void closeQuietly(PeerDatabase db, PrintStream err) {
    try {
      db.close();
    } catch (Exception e) {
      err.println("camel peer: clean-up failed: " + e);
    }
  }

  /**
   * Puts {@code camelRatio} (its items/s over the Camel pass's) into every bench phase named like a
   * Camel pass ({@code first-sync}, and any variant such as {@code first-sync-batch}), and lists
   * the variants in the peer's phase as {@code alsoCompared}.
   */
  static void addRatios(ObjectNode root, ObjectNode peer) {
    for (JsonNode p : peer.get("phases")) {
      String name = p.get("phase").asText();
      double camel = p.get("itemsPerSecond").asDouble();
      for (JsonNode w : root.path("phases")) {
        String bench = w.path("phase").asText();
        if (!bench.equals(name) && !bench.startsWith(name + "-")) continue;
        double ratio = w.path("itemsPerSecond").asDouble(Double.NaN) / camel;
        ResultsJson.number((ObjectNode) w, "camelRatio", ratio);
        if (bench.equals(name)) continue;
        ObjectNode also = ((ObjectNode) p).withObject("/alsoCompared").putObject(bench);
        ResultsJson.number(also, "itemsPerSecond", w.path("itemsPerSecond").asDouble(Double.NaN));
        ResultsJson.number(also, "ratio", ratio);
      }
    }
  }

  /** The {@code peer} section of the results. */
  static ObjectNode peerJson(JsonNode root, PeerDatabase db, PeerPasses.Result r, String loadBefore)
      throws IOException {
    ObjectNode peer = Items.MAPPER.createObjectNode();
    peer.put("name", "camel");
    peer.put(
        "what",
        "the route a Java integration engineer would write with Apache Camel instead of watukuy"
            + " (ListingSyncRoute, in routeSource): a timer starts a loop that GETs page=1,2,... of"
            + " the same listing until an empty page, splits /items, passes each item through"
            + " idempotentConsumer(id + \"-\" + updated_at) on a JdbcMessageIdRepository in the"
            + " same database, into a no-op endpoint; same items, same machine, its own JVM"
            + " (-Xmx256m) right after the bench's, the listing server in the same process as in"
            + " the bench");
    peer.put("camel", CamelContext.class.getPackage().getImplementationVersion());
    peer.put("date", Instant.now().toString());
    peer.put(
        "jvm",
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
    peer.put("maxHeapMb", Runtime.getRuntime().maxMemory() / (1024 * 1024));
    ObjectNode repo = peer.putObject("repository");
    repo.put("class", "org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository");
    repo.put("database", db.version());
    repo.put("table", db.table());
    repo.put(
        "createTable", ListingSyncRoute.CREATE_TABLE.replace("CAMEL_MESSAGEPROCESSED", db.table()));
    repo.put("rows", r.rows());
    if (!db.note().isEmpty()) repo.put("note", db.note());
    ObjectNode load = peer.putObject("loadAverage");
    load.put("before", loadBefore);
    load.put("after", Machine.loadAverage());
    ObjectNode fetch = peer.putObject("listingFetch");
    fetch.put(
        "what",
        "the same plain fetch + parse as the bench's listingFetch, in this JVM (best of "
            + PeerPasses.FETCH_PASSES
            + " after a warm-up): compare it with the bench's to see that both JVMs had the same"
            + " machine");
    fetch.put("seconds", r.fetchSeconds());
    fetch.put("itemsPerSecond", root.path("items").asInt() / r.fetchSeconds());
    ArrayNode phases = peer.putArray("phases");
    for (PeerPasses.Pass p : r.passes()) {
      JsonNode w = ResultsJson.phase(root, p.name());
      double wItems = w.path("itemsPerSecond").asDouble(Double.NaN);
      double wCpu = w.path("cpuSeconds").asDouble(Double.NaN);
      double wSeconds = w.path("seconds").asDouble(Double.NaN);
      ObjectNode n = phases.addObject();
      n.put("phase", p.name());
      n.put("items", p.items());
      n.put("passedOn", p.passedOn());
      n.put("duplicates", p.duplicates());
      n.put("requests", p.requests());
      n.put("seconds", p.seconds());
      n.put("itemsPerSecond", p.itemsPerSecond());
      n.put("cpuSeconds", p.cpuSeconds());
      n.put("cpuCores", p.cores());
      n.put("itemsPerCpuSecond", p.items() / p.cpuSeconds());
      ObjectNode wat = n.putObject("watukuy");
      ResultsJson.number(wat, "itemsPerSecond", wItems);
      ResultsJson.number(wat, "cpuSeconds", wCpu);
      ResultsJson.number(wat, "cpuCores", wCpu / wSeconds);
      ResultsJson.number(wat, "itemsPerCpuSecond", p.items() / wCpu);
      ResultsJson.number(n, "ratio", wItems / p.itemsPerSecond());
      ResultsJson.number(n, "cpuRatio", (p.items() / wCpu) / (p.items() / p.cpuSeconds()));
    }
    peer.put(
        "ratios",
        "ratio: watukuy's items/s over the route's; cpuRatio: watukuy's items per CPU second over"
            + " the route's (process CPU time, every thread, the listing server's too); above 1,"
            + " watukuy did better");
    ArrayNode not = peer.putArray("doesNotDo");
    DOES_NOT_DO.forEach(not::add);
    peer.put("routeSource", routeSource());
    return peer;
  }

  /** The route's source file, as built into the peer's classes. */
  static String routeSource() throws IOException {
    try (InputStream in = ListingSyncRoute.class.getResourceAsStream("ListingSyncRoute.java")) {
      if (in == null)
        throw new IOException("ListingSyncRoute.java is not among the peer's classes");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** watukuy beside Camel, one line per phase. */
  static String table(ObjectNode peer) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "Apache Camel %s peer: JdbcMessageIdRepository on %s%n",
            peer.path("camel").asText(),
            peer.path("repository").path("database").asText()));
    String format = "%-12s %9s %8s %12s %6s %12s %6s %7s %9s%n";
    out.append(
        String.format(
            Locale.ROOT,
            format,
            "phase",
            "items",
            "seconds",
            "camel it/s",
            "cores",
            "watukuy it/s",
            "cores",
            "ratio",
            "cpu ratio"));
    for (JsonNode p : peer.get("phases")) {
      JsonNode w = p.get("watukuy");
      out.append(
          String.format(
              Locale.ROOT,
              format,
              p.get("phase").asText(),
              String.format(Locale.ROOT, "%,d", p.get("items").asInt()),
              String.format(Locale.ROOT, "%.2f", p.get("seconds").asDouble()),
              String.format(Locale.ROOT, "%,.0f", p.get("itemsPerSecond").asDouble()),
              String.format(Locale.ROOT, "%.2f", p.get("cpuCores").asDouble()),
              ResultsJson.decimal(w.get("itemsPerSecond"), "%,.0f"),
              ResultsJson.decimal(w.get("cpuCores"), "%.2f"),
              ResultsJson.decimal(p.get("ratio"), "%.2f"),
              ResultsJson.decimal(p.get("cpuRatio"), "%.2f")));
      p.path("alsoCompared")
          .fields()
          .forEachRemaining(
              e ->
                  out.append(
                      String.format(
                          Locale.ROOT,
                          "  and %s: watukuy %s items/s, ratio %s%n",
                          e.getKey(),
                          ResultsJson.decimal(e.getValue().get("itemsPerSecond"), "%,.0f"),
                          ResultsJson.decimal(e.getValue().get("ratio"), "%.2f"))));
    }
    out.append(
        "ratio: watukuy items/s over Camel's (target >= 2 for the first sync); cpu ratio: watukuy"
            + " items per CPU second over Camel's; cores: process CPU time over wall time\n");
    out.append("load average before: ")
        .append(peer.path("loadAverage").path("before").asText())
        .append(", after: ")
        .append(peer.path("loadAverage").path("after").asText())
        .append('\n');
    return out.toString();
  }
}
