package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.PollerKey;
import io.watukuy.spi.StateStore;
import io.watukuy.store.sqlite.SqliteStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --partition P} on pause, resume, trigger, reset-cursor, backfill and replay, driven
 * through {@code Main.run} against a local listing with two partitions.
 */
class PartitionCommandsTest {
  private static final Pattern PARTITION = Pattern.compile("\"partition\":\"([^\"]*)\"");
  private static final Pattern IDENTITY = Pattern.compile("\"identity\":\"([^\"]*)\"");
  private static final Pattern TYPE = Pattern.compile("\"type\":\"([^\"]*)\"");
  private static final Pattern LANE = Pattern.compile("\"lane\":\"([^\"]*)\"");
  private static final Pattern ID = Pattern.compile("^\\{\"id\":\"([0-9a-f]+)\"");

  @TempDir Path dir;

  private final Map<String, List<String>> orders = new ConcurrentHashMap<>();
  private HttpServer server;
  private Path config;
  private Path db;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    // The whole listing of a partition every time: known versions keep repeats out of the output.
    server.createContext("/eu/orders", ex -> list(ex, "eu"));
    server.createContext("/us/orders", ex -> list(ex, "us"));
    server.start();
    for (String region : List.of("eu", "us")) {
      orders.put(region, new CopyOnWriteArrayList<>());
      orders.get(region).add("{\"id\":1,\"updatedAt\":\"2024-01-01T00:00:00Z\"}");
    }
    config = dir.resolve("watukuy.yaml");
    db = dir.resolve("watukuy.db");
    writeConfig("");
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private void writeConfig(String extra) throws IOException {
    Files.writeString(
        config,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: orders
            partitions: [eu, us]
            request:
              url: http://127.0.0.1:%d/{{partition}}/orders
              query: { updated_since: "{{cursor.value}}" }
            response: { items: /data }
            identity: /id
            version: /updatedAt
            cursor: { strategy: timestamp, field: updatedAt }
        %s"""
            .formatted(server.getAddress().getPort(), extra));
  }

  private void list(HttpExchange ex, String region) throws IOException {
    byte[] body =
        ("{\"data\":[" + String.join(",", orders.get(region)) + "]}")
            .getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, body.length);
    ex.getResponseBody().write(body);
    ex.close();
  }

  private void add(String region, int id, String updatedAt) {
    orders.get(region).add("{\"id\":" + id + ",\"updatedAt\":\"" + updatedAt + "\"}");
  }

  private record Result(int code, String out, String err) {
    /** "partition/identity:type" per event line. */
    List<String> events() {
      return out.lines()
          .map(l -> field(PARTITION, l) + "/" + field(IDENTITY, l) + ":" + field(TYPE, l))
          .toList();
    }

    /** "partition/id" per event line. */
    List<String> ids() {
      return out.lines().map(l -> field(PARTITION, l) + "/" + field(ID, l)).toList();
    }

    List<String> lanes() {
      return out.lines().map(l -> field(LANE, l)).toList();
    }

    private static String field(Pattern p, String line) {
      Matcher m = p.matcher(line);
      assertThat(m.find()).as("%s in %s", p, line).isTrue();
      return m.group(1);
    }
  }

  private Result cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.<String, String>of()::get);
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private Result ok(String... args) {
    Result r = cli(args);
    assertThat(r.code()).as(String.join(" ", args) + "\n" + r.err()).isZero();
    return r;
  }

  private Result once() {
    return ok("run", config.toString(), "--once");
  }

  @Test
  void pausingOnePartitionSkipsItWhileTheOtherRunsAndResumeByStoreBringsItBack() {
    assertThat(once().events()).containsExactly("eu/1:created", "us/1:created");

    Result pause = ok("pause", config.toString(), "orders", "--partition", "eu");

    assertThat(pause.err())
        .isEqualTo("watukuy: poller orders partition eu: paused" + System.lineSeparator());
    add("eu", 2, "2024-01-02T00:00:00Z");
    add("us", 2, "2024-01-02T00:00:00Z");
    Result skipped = once();
    assertThat(skipped.events()).containsExactly("us/2:created");
    assertThat(skipped.err())
        .isEqualTo(
            "watukuy: poller orders partition eu: skipped (paused)" + System.lineSeparator());

    Result resume = ok("resume", "--store", "sqlite:" + db, "orders", "--partition", "eu");

    assertThat(resume.err())
        .isEqualTo("watukuy: poller orders partition eu: resumed" + System.lineSeparator());
    assertThat(once().events()).containsExactly("eu/2:created");
  }

  @Test
  void triggeringOnePartitionLeavesTheOtherPaused() {
    once();
    ok("pause", config.toString(), "orders");

    Result trigger = ok("trigger", config.toString(), "orders", "--partition", "us");
    ok("resume", config.toString(), "orders", "--partition", "us");

    assertThat(trigger.err())
        .isEqualTo("watukuy: poller orders partition us: triggered" + System.lineSeparator());
    add("eu", 2, "2024-01-02T00:00:00Z");
    add("us", 2, "2024-01-02T00:00:00Z");
    Result r = once();
    assertThat(r.events()).containsExactly("us/2:created");
    assertThat(r.err()).contains("poller orders partition eu: skipped (paused)");
  }

  @Test
  void resetCursorOfOnePartitionReEmitsOnlyItsItemsWithTheSameIds() {
    List<String> first = once().ids();
    assertThat(first).hasSize(2);

    Result reset =
        ok(
            "reset-cursor",
            config.toString(),
            "orders",
            "--partition",
            "eu",
            "--initial",
            "--clear-snapshot");

    assertThat(reset.err())
        .isEqualTo(
            "watukuy: poller orders partition eu: live cursor reset to its initial value,"
                + " snapshot cleared"
                + System.lineSeparator());
    Result again = once();
    assertThat(again.events()).containsExactly("eu/1:created");
    assertThat(again.ids()).containsExactly(first.get(0));
    assertThat(first.get(0)).startsWith("eu/");
  }

  @Test
  void backfillOfOnePartitionRunsOnThatKeyOnly() {
    once();

    Result backfill =
        ok(
            "backfill",
            config.toString(),
            "orders",
            "--partition",
            "us",
            "--from",
            "2023-01-01T00:00:00Z",
            "--force");

    assertThat(backfill.err())
        .startsWith(
            "watukuy: poller orders partition us: backfill from '2023-01-01T00:00:00Z'"
                + " to the live cursor (force)");
    Result r = once();
    assertThat(r.events()).containsExactly("us/1:updated");
    assertThat(r.lanes()).containsExactly("backfill");
  }

  @Test
  void replayOfOnePartitionCopiesThatKeysLogOnly() throws IOException {
    writeConfig("    log: { enabled: true, retention: 1d }\n");
    once();

    Result replay =
        ok(
            "replay",
            config.toString(),
            "orders",
            "--partition",
            "eu",
            "--from",
            "2000-01-01T00:00:00Z");

    assertThat(replay.out()).isEqualTo("1" + System.lineSeparator());
    assertThat(replay.err())
        .startsWith("watukuy: poller orders partition eu: 1 event(s) back in the outbox");
    Result r = once();
    assertThat(r.events()).containsExactly("eu/1:created");
    assertThat(r.lanes()).containsExactly("replay");
  }

  @Test
  void aPartitionTheConfigDoesNotDeclareExitsTwoWithOneLineNamingTheDeclaredOnes()
      throws IOException {
    writeConfig("    log: { enabled: true, retention: 1d }\n");
    once();
    for (String[] args :
        List.of(
            new String[] {"pause", config.toString(), "orders", "--partition", "ap"},
            new String[] {"resume", "--store", "sqlite:" + db, "orders", "--partition", "ap"},
            new String[] {"trigger", config.toString(), "orders", "--partition", "ap"},
            new String[] {
              "reset-cursor", config.toString(), "orders", "--partition", "ap", "--initial"
            },
            new String[] {
              "backfill",
              config.toString(),
              "orders",
              "--partition",
              "ap",
              "--from",
              "2024-01-01T00:00:00Z"
            },
            new String[] {
              "replay",
              config.toString(),
              "orders",
              "--partition",
              "ap",
              "--from",
              "2024-01-01T00:00:00Z"
            })) {
      Result r = cli(args);

      assertThat(r.code()).as(String.join(" ", args)).isEqualTo(Main.USAGE);
      assertThat(r.out()).isEmpty();
      assertThat(r.err())
          .as(String.join(" ", args))
          .isEqualTo(
              "watukuy: poller orders: no partition 'ap' (known: eu, us)" + System.lineSeparator());
    }
    try (StateStore store = SqliteStore.builder(db).build()) {
      assertThat(store.listKeys("orders"))
          .containsExactly(PollerKey.of("orders", "eu"), PollerKey.of("orders", "us"));
    }
  }

  @Test
  void aPartitionOnAnUnpartitionedPollerExitsTwo() throws IOException {
    Files.writeString(
        config,
        Files.readString(config)
            .replace("    partitions: [eu, us]\n", "")
            .replace("/{{partition}}/orders", "/eu/orders"));
    once();

    Result r = cli("trigger", config.toString(), "orders", "--partition", "eu");

    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.err())
        .isEqualTo(
            "watukuy: poller orders: no partition 'eu' (the poller has no partitions)"
                + System.lineSeparator());
  }

  @Test
  void pauseByStoreOfAPartitionedPollerCreatesNoUnpartitionedKey() {
    once();

    ok("pause", "--store", "sqlite:" + db, "orders");
    Result r = cli("pause", "--store", "sqlite:" + db, "orders", "--partition", "");

    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.err())
        .isEqualTo(
            "watukuy: poller orders: no partition '' (known: eu, us)" + System.lineSeparator());
    try (StateStore store = SqliteStore.builder(db).build()) {
      assertThat(store.listKeys("orders"))
          .containsExactly(PollerKey.of("orders", "eu"), PollerKey.of("orders", "us"));
    }
    assertThat(once().err())
        .isEqualTo(
            "watukuy: poller orders partition eu: skipped (paused)"
                + System.lineSeparator()
                + "watukuy: poller orders partition us: skipped (paused)"
                + System.lineSeparator());
  }
}
