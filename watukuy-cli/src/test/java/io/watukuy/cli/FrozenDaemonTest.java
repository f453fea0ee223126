package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.testing.ReadsWallClock;
import io.watukuy.testing.SeededRandom;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Guarantees G3 and G5 against a frozen process (issue 16, finding 1): two {@code watukuy run}
 * daemons, two JVMs, on one store (a SQLite file, then a PostgreSQL schema) and one output file, a
 * local vendor changing 20 items a second. Six times the lease holder is frozen with SIGSTOP for
 * longer than the 2 s lease TTL (the other daemon takes the key and delivers on), then resumed with
 * SIGCONT. In the output, the events of each item must keep their sequence order (a resumed daemon
 * must not write what it had loaded before the freeze after newer events), and none may be missing.
 * Bounded: 6 rounds of about 3 s, 30 s to settle, 3 minutes in all.
 */
@ReadsWallClock("freezes and resumes real processes; the lease TTL runs on their system clocks")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FrozenDaemonTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  // Each round freezes the holder past its TTL: the other daemon takes the key over meanwhile, and
  // the resumed one must give its lease up without writing what it had loaded. Twelve rounds gave
  // 12 (SQLite) and 9 (PostgreSQL) such resumes and nothing stale; six still give several per store
  // (at least one is asserted), and the exact windows a freeze can hit (after loading the outbox,
  // after a commit, before a handler's write) are each held deterministically by
  // FrozenLeaseHolderTest and, on every CI seed, by ChaosPausedProcessTest (watukuy-testing).
  private static final int ROUNDS = 6;
  private static final int IDENTITIES = 40;
  private static final long TTL_MS = 2000;

  @TempDir Path dir;

  /** The vendor's items by id; guarded by this. */
  private final TreeMap<Integer, ObjectNode> items = new TreeMap<>();

  private final SeededRandom random = SeededRandom.of(16);
  private final String schema = "wk_frozen_" + Long.toHexString(System.nanoTime());

  /** {@code ""} for SQLite, {@code schema.} for PostgreSQL: where the store's tables are. */
  private String tables = "";

  private boolean postgres;
  private final List<Process> daemons = new ArrayList<>();
  private HttpServer vendor;
  private Thread mutator;
  private volatile boolean mutating = true;
  private long revision;

  @BeforeEach
  void startVendor() throws IOException {
    for (int id = 1; id <= IDENTITIES; id++) put(id);
    vendor = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    vendor.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4));
    vendor.createContext("/items", this::list);
    vendor.start();
  }

  @AfterEach
  void stopAll() throws Exception {
    mutating = false;
    if (mutator != null) mutator.join(5000);
    for (Process p : daemons) {
      signal("CONT", p.pid()); // a frozen process does not die from SIGKILL before it resumes
      p.destroyForcibly();
    }
    vendor.stop(0);
    if (postgres)
      try (Connection c = DriverManager.getConnection(StoreUrisTest.PG);
          Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
  }

  @ParameterizedTest
  @ValueSource(strings = {"sqlite", "postgres"})
  void aDaemonFrozenPastItsLeaseWritesNothingStaleWhenItResumes(String kind) throws Exception {
    postgres = kind.equals("postgres");
    tables = postgres ? schema + "." : "";
    String store =
        postgres
            ? "{ uri: \"postgres:" + StoreUrisTest.PG + "\", schema: " + schema + " }"
            : "sqlite:watukuy.db";
    Path config =
        Files.writeString(
            dir.resolve("watukuy.yaml"),
            """
            store: %s
            output: file:events.jsonl
            lease: { ttl: 2s }
            pollers:
              - name: items
                request: { url: "http://127.0.0.1:%d/items" }
                response: { items: "" }
                identity: /id
                version: /rev
                cursor: { strategy: snapshotDiff }
                schedule: { min: 100ms, max: 1s, adaptive: false }
            """
                .formatted(store, vendor.getAddress().getPort()));
    daemons.add(daemon(config, "a"));
    awaitLines(IDENTITIES); // a created the store and delivered the first listing
    daemons.add(daemon(config, "b"));
    mutator = new Thread(this::mutate, "vendor-changes");
    mutator.start();

    int frozen = 0;
    try (Connection db =
        DriverManager.getConnection(
            postgres ? StoreUrisTest.PG : "jdbc:sqlite:" + dir.resolve("watukuy.db"))) {
      for (int round = 1; round <= ROUNDS; round++) {
        Process holder = awaitHolder(db);
        if (holder == null) continue;
        signal("STOP", holder.pid());
        frozen++;
        Thread.sleep(TTL_MS + 500); // past the TTL: the other daemon takes the key meanwhile
        signal("CONT", holder.pid());
        Thread.sleep(500);
      }
      mutating = false;
      mutator.join(5000);
      awaitSettled(db);
    }
    for (Process p : daemons) p.destroy(); // SIGTERM: drain, then exit 0
    for (int i = 0; i < daemons.size(); i++) {
      assertThat(daemons.get(i).waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(daemons.get(i).exitValue()).as("exit of daemon %d: %s", i, stderr(i)).isZero();
    }

    Figures f = figures(events());
    System.out.printf(
        "frozen daemon (%s): %d rounds, %d events (%d distinct), %d lost, %d out of order, %d"
            + " duplicates, %d leases given up on resume%n",
        kind,
        frozen,
        f.lines,
        f.distinct,
        f.lost.size(),
        f.outOfOrder.size(),
        f.duplicates,
        leaseLostLines());
    assertThat(frozen).as("rounds that froze the lease holder").isGreaterThanOrEqualTo(ROUNDS / 2);
    assertThat(leaseLostLines()).as("resumes that found their lease taken over").isPositive();
    assertThat(f.outOfOrder).as("events written after a newer one of their item").isEmpty();
    assertThat(f.lost).as("sequences committed but never written").isEmpty();
    assertThat(f.lastPerIdentity).as("last event per item").isEqualTo(finalState());
  }

  /** The outcome of reading the output in order. */
  private record Figures(
      int lines,
      int distinct,
      List<String> outOfOrder,
      int duplicates,
      List<Long> lost,
      Map<String, String> lastPerIdentity) {}

  private static Figures figures(List<JsonNode> events) {
    Map<String, Long> newest = new HashMap<>();
    Map<String, String> last = new TreeMap<>();
    List<String> outOfOrder = new ArrayList<>();
    java.util.Set<Long> sequences = new java.util.HashSet<>();
    int duplicates = 0;
    long max = 0;
    for (JsonNode e : events) {
      String identity = e.get("identity").asText();
      long seq = e.get("sequence").asLong();
      max = Math.max(max, seq);
      if (!sequences.add(seq)) duplicates++;
      Long before = newest.get(identity);
      if (before != null && seq < before) {
        outOfOrder.add(identity + " #" + seq + " after #" + before);
        continue;
      }
      newest.put(identity, seq);
      String type = e.get("type").asText();
      last.put(identity, type.equals("deleted") ? "deleted" : e.get("version").asText());
    }
    List<Long> lost = new ArrayList<>();
    for (long s = 1; s <= max; s++) if (!sequences.contains(s)) lost.add(s);
    return new Figures(events.size(), sequences.size(), outOfOrder, duplicates, lost, last);
  }

  /** What the vendor holds now, as the last event of each item that ever existed must say. */
  private synchronized Map<String, String> finalState() {
    Map<String, String> m = new TreeMap<>();
    for (int id = 1; id <= IDENTITIES; id++) {
      ObjectNode item = items.get(id);
      m.put(Integer.toString(id), item == null ? "deleted" : item.get("rev").asText());
    }
    return m;
  }

  /** The daemon holding the key's lease, found within 5 s, or null. */
  private @Nullable Process awaitHolder(Connection db) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < deadline) {
      String owner = leaseOwner(db);
      if (owner != null)
        for (Process p : daemons) if (owner.contains(":" + p.pid() + ":") && p.isAlive()) return p;
      Thread.sleep(1);
    }
    return null;
  }

  private @Nullable String leaseOwner(Connection db) {
    try (Statement s = db.createStatement();
        ResultSet r = s.executeQuery("SELECT lease_owner FROM " + tables + "watukuy_pollers")) {
      return r.next() ? r.getString(1) : null;
    } catch (java.sql.SQLException busy) {
      return null; // a daemon is writing; ask again
    }
  }

  /** Waits (at most 30 s) until the output ends with the vendor's state and nothing is pending. */
  private void awaitSettled(Connection db) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      Figures f = figures(events());
      if (f.lastPerIdentity.equals(finalState()) && pending(db) == 0) return;
      for (int i = 0; i < daemons.size(); i++)
        assertThat(daemons.get(i).isAlive()).as("daemon %d alive: %s", i, stderr(i)).isTrue();
      assertThat(System.nanoTime()).as("settled within 30 s").isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  private long pending(Connection db) {
    try (Statement s = db.createStatement();
        ResultSet r = s.executeQuery("SELECT count(*) FROM " + tables + "watukuy_outbox")) {
      return r.next() ? r.getLong(1) : 0;
    } catch (java.sql.SQLException busy) {
      return -1;
    }
  }

  private void awaitLines(int count) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (events().size() < count) {
      assertThat(daemons.get(0).isAlive()).as("daemon a alive: %s", stderr(0)).isTrue();
      assertThat(System.nanoTime()).as("first events within 60 s").isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  /** 20 changes a second, in bursts of 10 so that cycles carry several events to write. */
  private void mutate() {
    try {
      while (mutating) {
        for (int i = 0; i < 10; i++) change(1 + random.nextInt(IDENTITIES));
        Thread.sleep(500);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized void change(int id) {
    if (items.containsKey(id) && random.nextInt(5) == 0) items.remove(id);
    else put(id);
  }

  private synchronized void put(int id) {
    items.put(id, JSON.createObjectNode().put("id", id).put("rev", ++revision));
  }

  private void list(HttpExchange ex) throws IOException {
    byte[] body;
    synchronized (this) {
      ArrayNode all = JSON.createArrayNode();
      items.values().forEach(all::add);
      body = JSON.writeValueAsBytes(all);
    }
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, body.length);
    ex.getResponseBody().write(body);
    ex.close();
  }

  private Process daemon(Path config, String name) throws IOException {
    return CliProcess.of(List.of("-XX:TieredStopAtLevel=1"), "run", config.toString())
        .redirectOutput(dir.resolve("out-" + name).toFile())
        .redirectError(dir.resolve("err-" + name).toFile())
        .start();
  }

  private static void signal(String signal, long pid) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
    kill.waitFor(10, TimeUnit.SECONDS);
  }

  private List<JsonNode> events() throws IOException {
    Path out = dir.resolve("events.jsonl");
    List<JsonNode> all = new ArrayList<>();
    if (!Files.exists(out)) return all;
    for (String line : Files.readAllLines(out))
      if (line.endsWith("}")) all.add(JSON.readTree(line)); // a line being written is skipped
    return all;
  }

  private long leaseLostLines() throws IOException {
    long n = 0;
    for (String name : List.of("a", "b")) {
      Path err = dir.resolve("err-" + name);
      if (Files.exists(err))
        n += Files.readAllLines(err).stream().filter(l -> l.contains("lease lost")).count();
    }
    return n;
  }

  private String stderr(int i) {
    try {
      return Files.readString(dir.resolve("err-" + List.of("a", "b").get(i)));
    } catch (IOException e) {
      return "(none)";
    }
  }
}
