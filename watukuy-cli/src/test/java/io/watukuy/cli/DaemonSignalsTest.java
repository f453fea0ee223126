package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon and its signals, in a real process against a real server: SIGTERM during a long
 * listing stops after the page in flight is committed and delivered, and the next start resumes
 * without a repeat; SIGHUP reopens a {@code file:} output that logrotate moved away.
 */
class DaemonSignalsTest {
  static final int PAGES = 30;
  private static final List<String> JVM = List.of("-XX:TieredStopAtLevel=1");

  @TempDir Path dir;

  private HttpServer server;
  private volatile long pageMillis = 500;
  private final List<Integer> served = new CopyOnWriteArrayList<>();
  // Pages after gateAfter wait for the gate: a test holds the listing until what it checks has
  // happened, however slowly a loaded machine delivers a signal.
  private volatile int gateAfter = Integer.MAX_VALUE;
  private final CountDownLatch gate = new CountDownLatch(1);

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/items",
        ex -> {
          String q = ex.getRequestURI().getQuery();
          int page = q == null ? 1 : Integer.parseInt(q.replaceAll(".*page=(\\d+).*", "$1"));
          try {
            Thread.sleep(pageMillis); // a slow vendor: the listing takes PAGES × pageMillis
            if (page > gateAfter) gate.await(60, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          served.add(page);
          byte[] body =
              ("{\"items\":[{\"id\":" + page + "}],\"more\":" + (page < PAGES) + "}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.setExecutor(Executors.newCachedThreadPool());
    server.start();
    Files.writeString(
        dir.resolve("watukuy.yaml"),
        """
        store: sqlite:watukuy.db
        output: file:events.jsonl
        pollers:
          - name: items
            request: { url: "http://127.0.0.1:%d/items", query: { page: "{{cursor.value}}" } }
            response: { items: /items, hasMore: /more }
            identity: /id
            cursor: { strategy: page }
        """
            .formatted(server.getAddress().getPort()));
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  /**
   * The daemon in a JVM of its own, compiled by C1 only: it serves a few slow pages and exits, so
   * the optimizing compiler would only take CPU from a loaded machine's other processes.
   */
  private Process daemon() throws IOException {
    return CliProcess.of(JVM, "run", dir.resolve("watukuy.yaml").toString())
        .redirectOutput(dir.resolve("stdout").toFile())
        .redirectError(dir.resolve("stderr").toFile())
        .start();
  }

  private static long lines(Path file) throws IOException {
    if (!Files.exists(file)) return 0;
    try (var stream = Files.lines(file)) {
      return stream.count();
    }
  }

  private List<String> identities(Path file) throws IOException {
    List<String> ids = new ArrayList<>();
    for (String line : Files.readAllLines(file))
      ids.add(line.replaceAll(".*\"identity\":\"([^\"]+)\".*", "$1"));
    return ids;
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void sigtermDuringALongListingStopsAfterThePageInFlightAndTheNextStartResumesWithoutARepeat()
      throws Exception {
    Process p = daemon();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
      while (served.size() < 3 && System.nanoTime() < deadline) Thread.sleep(20);
      assertThat(served).hasSizeGreaterThanOrEqualTo(3);

      long signalled = System.nanoTime();
      p.destroy(); // SIGTERM
      assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalled);

      assertThat(p.exitValue()).isZero();
      assertThat(tookMs).as("exit after SIGTERM").isLessThan(3_000);
    } finally {
      p.destroyForcibly();
    }
    List<String> first = identities(dir.resolve("events.jsonl"));
    assertThat(first.size()).isBetween(3, 5); // pages 1-3, and the one in flight
    assertThat(served.size()).isLessThan(PAGES);

    pageMillis = 0;
    CliRun rest = CliRun.of("run", dir.resolve("watukuy.yaml").toString(), "--once");

    assertThat(rest.exit()).as(rest.stderr()).isZero();
    List<String> all = identities(dir.resolve("events.jsonl"));
    Set<String> distinct = new HashSet<>(all);
    assertThat(all).hasSize(PAGES); // every page's item exactly once
    assertThat(distinct).hasSize(PAGES);
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void sighupReopensTheOutputFileThatLogrotateMovedAway() throws Exception {
    pageMillis = 100;
    gateAfter = 6; // pages 7 to 30 come only after the reopen: at least 24 events for the new file
    Process p = daemon();
    Path events = dir.resolve("events.jsonl");
    Path stderr = dir.resolve("stderr");
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
      while (served.size() < 5 && System.nanoTime() < deadline) Thread.sleep(20);
      Files.move(events, dir.resolve("events.jsonl.1")); // what logrotate does
      new ProcessBuilder("kill", "-HUP", Long.toString(p.pid()))
          .start()
          .waitFor(10, TimeUnit.SECONDS);
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
      while (!Files.readString(stderr).contains("watukuy: output reopened (SIGHUP)")
          && System.nanoTime() < deadline) Thread.sleep(20);
      gate.countDown();
      // Every page's event written, to one file or the other (the last after it is served).
      deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
      while (lines(dir.resolve("events.jsonl.1")) + lines(events) < PAGES
          && System.nanoTime() < deadline) Thread.sleep(20);

      assertThat(p.isAlive()).isTrue(); // SIGHUP no longer kills the daemon
      p.destroy();
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    } finally {
      gate.countDown();
      p.destroyForcibly();
    }
    assertThat(Files.readString(stderr))
        .contains("watukuy: output reopened (SIGHUP)")
        .doesNotContain("SIGHUP is ignored");
    List<String> rotated = identities(dir.resolve("events.jsonl.1"));
    List<String> fresh = identities(events);
    assertThat(fresh).isNotEmpty();
    assertThat(rotated.size() + fresh.size()).isEqualTo(PAGES);
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aDaemonStartedUnderNohupSaysThatSighupWillNotReopenItsOutput() throws Exception {
    Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/nohup")), "no /usr/bin/nohup");
    pageMillis = 10;
    Path stderr = dir.resolve("stderr");
    List<String> command =
        new ArrayList<>(
            CliProcess.of(JVM, "run", dir.resolve("watukuy.yaml").toString()).command());
    command.add(0, "/usr/bin/nohup");
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(dir.resolve("stdout").toFile())
            .redirectError(stderr.toFile())
            .start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
      while (!Files.readString(stderr).contains("watukuy: running") && System.nanoTime() < deadline)
        Thread.sleep(20);
      p.destroy(); // nohup has become the JVM: SIGTERM drains and exits 0
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    } finally {
      p.destroyForcibly();
    }
    assertThat(Files.readString(stderr))
        .contains(
            "watukuy: SIGHUP is ignored in this process (started under nohup?): kill -HUP will not"
                + " reopen the output");
    assertThat(p.exitValue()).as(Files.readString(stderr)).isZero();
  }
}
