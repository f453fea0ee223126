package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code watukuy run} daemons, three JVMs, on one PostgreSQL store (guarantee G5 in real
 * time): a local vendor serves eight partitions and counts requests per partition in flight; it
 * never sees two at once, every change reaches one daemon's stdout, and SIGTERM drains each daemon
 * to exit 0. Bounded: 60 s per wait, 3 minutes in all.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ThreeDaemonsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> PARTITIONS =
      List.of("p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7");

  @TempDir Path dir;
  private final String schema = "wk_daemons_" + Long.toHexString(System.nanoTime());

  /** Per partition: id to item, as the vendor stores them. */
  private final Map<String, ConcurrentSkipListMap<Integer, ObjectNode>> items =
      new ConcurrentHashMap<>();

  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final Set<String> overlapping = ConcurrentHashMap.newKeySet();
  private final AtomicInteger requests = new AtomicInteger();
  private final List<Process> daemons = new ArrayList<>();
  private HttpServer vendor;
  private int nextId = 1;
  private long clock = Instant.parse("2024-05-01T10:00:00Z").toEpochMilli();

  @BeforeEach
  void startVendor() throws IOException {
    for (String p : PARTITIONS) {
      items.put(p, new ConcurrentSkipListMap<>());
      inFlight.put(p, new AtomicInteger());
      for (int i = 0; i < 5; i++) put(p, nextId++);
    }
    vendor = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    vendor.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(8));
    vendor.createContext("/orders/", this::list);
    vendor.start();
  }

  @AfterEach
  void stopAll() throws Exception {
    for (Process p : daemons) p.destroyForcibly();
    vendor.stop(0);
    try (Connection c = DriverManager.getConnection(StoreUrisTest.PG);
        Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  @Test
  void threeDaemonsOnOnePostgresStoreShareTheKeysAndDeliverEveryChangeOnce() throws Exception {
    Path config =
        Files.writeString(
            dir.resolve("watukuy.yaml"),
            """
        store: { uri: "postgres:%s", schema: %s }
        pollers:
          - name: orders
            partitions: [%s]
            request:
              url: http://127.0.0.1:%d/orders/{{partition}}
              query: { updated_since: "{{cursor.value}}", after_id: "{{cursor.tieBreak}}", limit: 2 }
            response: { items: /data, hasMore: /has_more }
            identity: /id
            version: /updatedAt
            cursor: { strategy: timestamp, field: updatedAt, tieBreak: id }
            schedule: { min: 200ms, max: 1s, adaptive: false }
        """
                .formatted(
                    StoreUrisTest.PG,
                    schema,
                    String.join(", ", PARTITIONS),
                    vendor.getAddress().getPort()));
    for (String name : List.of("a", "b", "c")) daemons.add(daemon(config, name));

    Map<String, String> expected = expected();
    awaitDelivered(expected);
    for (String p : PARTITIONS) {
      put(p, items.get(p).firstKey()); // an update
      put(p, nextId++); // a new item
    }
    expected = expected();
    awaitDelivered(expected);

    for (Process p : daemons) p.destroy(); // SIGTERM: drain, then exit 0
    for (int i = 0; i < daemons.size(); i++) {
      Process p = daemons.get(i);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("daemon %d stopped", i).isTrue();
      assertThat(p.exitValue()).as("daemon %d exit; stderr:%n%s", i, stderr(i)).isZero();
    }
    assertThat(overlapping).as("partitions requested by two daemons at once").isEmpty();
    List<JsonNode> events = events();
    assertThat(events).extracting(e -> e.get("id").asText()).doesNotHaveDuplicates();
    assertThat(delivered(events)).containsAllEntriesOf(expected);
    assertThat(requests.get()).isGreaterThan(PARTITIONS.size());
  }

  private Process daemon(Path config, String name) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(
            java,
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("java.class.path"),
            "io.watukuy.cli.Main",
            "run",
            config.toString())
        .redirectOutput(dir.resolve("out-" + name).toFile())
        .redirectError(dir.resolve("err-" + name).toFile())
        .start();
  }

  /** Waits (at most 60 s) until every {@code identity -> version} has been printed. */
  private void awaitDelivered(Map<String, String> expected) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!delivered(events()).entrySet().containsAll(expected.entrySet())) {
      for (int i = 0; i < daemons.size(); i++) {
        assertThat(daemons.get(i).isAlive())
            .as("daemon %d alive; stderr:%n%s", i, stderr(i))
            .isTrue();
      }
      assertThat(System.nanoTime())
          .as("events within 60 s; have %s", delivered(events()))
          .isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  private List<JsonNode> events() throws IOException {
    List<JsonNode> all = new ArrayList<>();
    for (String name : List.of("a", "b", "c")) {
      Path out = dir.resolve("out-" + name);
      if (!Files.exists(out)) continue;
      for (String line : Files.readAllLines(out)) {
        if (line.endsWith("}")) all.add(JSON.readTree(line)); // a line being written is skipped
      }
    }
    return all;
  }

  /** The last version printed per {@code partition/identity}. */
  private static Map<String, String> delivered(List<JsonNode> events) {
    Map<String, String> last = new HashMap<>();
    Set<String> seen = new HashSet<>();
    for (JsonNode e : events) {
      String key = e.get("partition").asText() + "/" + e.get("identity").asText();
      String version = e.get("version").asText();
      // Outputs of three processes are read one after another: keep the newest version.
      if (seen.add(key) || version.compareTo(last.get(key)) > 0) last.put(key, version);
    }
    return last;
  }

  private Map<String, String> expected() {
    Map<String, String> m = new HashMap<>();
    items.forEach(
        (p, byId) ->
            byId.forEach((id, item) -> m.put(p + "/" + id, item.get("updatedAt").asText())));
    return m;
  }

  private synchronized void put(String partition, int id) {
    clock += 1000;
    ObjectNode item =
        JSON.createObjectNode()
            .put("id", id)
            .put("partition", partition)
            .put("updatedAt", Instant.ofEpochMilli(clock).toString());
    items.get(partition).put(id, item);
  }

  private void list(HttpExchange ex) throws IOException {
    String partition = ex.getRequestURI().getPath().substring("/orders/".length());
    AtomicInteger n = inFlight.get(partition);
    if (n == null) {
      ex.sendResponseHeaders(404, -1);
      ex.close();
      return;
    }
    requests.incrementAndGet();
    if (n.incrementAndGet() > 1) overlapping.add(partition);
    try {
      Thread.sleep(20); // a slow vendor widens the window in which a second poller would show
      Map<String, String> q = query(ex.getRequestURI().getRawQuery());
      String since = q.get("updated_since");
      int after =
          q.containsKey("after_id") ? Integer.parseInt(q.get("after_id")) : Integer.MIN_VALUE;
      int limit = Integer.parseInt(q.getOrDefault("limit", "100"));
      List<ObjectNode> match = new ArrayList<>();
      for (ObjectNode item : items.get(partition).values()) {
        String at = item.get("updatedAt").asText();
        int cmp = since == null ? 1 : at.compareTo(since);
        if (cmp > 0 || (cmp == 0 && item.get("id").asInt() > after)) match.add(item);
      }
      match.sort(
          (x, y) -> {
            int c = x.get("updatedAt").asText().compareTo(y.get("updatedAt").asText());
            return c != 0 ? c : Integer.compare(x.get("id").asInt(), y.get("id").asInt());
          });
      ObjectNode body = JSON.createObjectNode();
      ArrayNode data = body.putArray("data");
      match.stream().limit(limit).forEach(data::add);
      body.put("has_more", match.size() > limit);
      byte[] bytes = JSON.writeValueAsBytes(body);
      ex.getResponseHeaders().set("Content-Type", "application/json");
      ex.sendResponseHeaders(200, bytes.length);
      ex.getResponseBody().write(bytes);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      n.decrementAndGet();
      ex.close();
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> q = new HashMap<>();
    if (raw == null) return q;
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        q.put(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return q;
  }

  private String stderr(int i) {
    try {
      return Files.readString(dir.resolve("err-" + List.of("a", "b", "c").get(i)));
    } catch (IOException e) {
      return "(none)";
    }
  }
}
