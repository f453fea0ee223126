package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon, in its own JVM, while its SQLite store refuses every write (another connection holds
 * the write lock, busyTimeoutMs 0): one line when the store starts failing and one when it is back,
 * not one per attempt (issue 16, §6: a store that was down printed 35 lines in 17 s, one attempt
 * per {@code schedule.min}).
 */
class DaemonStoreOutageTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aStoreThatRefusesWritesIsOneLineWhenItStartsAndOneWhenItEnds() throws Exception {
    try (JsonServer vendor = new JsonServer().answer("[{\"id\":1}]")) {
      Path config = dir.resolve("watukuy.yaml");
      Files.writeString(
          config,
          """
          store: { uri: "sqlite:watukuy.db", busyTimeoutMs: 0 }
          pollers:
            - name: items
              request: { url: "%s" }
              response: { items: "" }
              identity: /id
              cursor: { strategy: snapshotDiff }
              schedule: { min: 250ms, max: 250ms, jitter: 0, adaptive: false }
          """
              .formatted(vendor.url("/items")));
      assertThat(CliRun.of("run", config.toString(), "--once").exit()).isZero();

      Path err = dir.resolve("stderr");
      Process p =
          CliProcess.of(List.of("-XX:TieredStopAtLevel=1"), "run", config.toString())
              .redirectOutput(dir.resolve("stdout").toFile())
              .redirectError(err.toFile())
              .start();
      try {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && Files.readString(err).isEmpty()) Thread.sleep(100);
        try (Connection c =
                DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("watukuy.db"));
            Statement s = c.createStatement()) {
          s.execute("BEGIN EXCLUSIVE");
          // 12 attempts at one per schedule.min; backoff waits of 1 and 2 s allow at most 3. (A
          // 6 s outage at 500 ms proved the same twelve-to-one ratio in twice the time.)
          Thread.sleep(3000);
          s.execute("COMMIT");
        }
        while (System.nanoTime() < deadline && !Files.readString(err).contains("recovered")) {
          Thread.sleep(100);
        }
        p.destroy(); // SIGTERM: exit 0
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      } finally {
        p.destroyForcibly();
      }

      List<String> lines = Files.readAllLines(err);
      assertThat(p.exitValue()).as(String.join("\n", lines)).isZero();
      List<String> about =
          lines.stream().filter(l -> l.startsWith("watukuy: poller items")).toList();
      assertThat(about).as(String.join("\n", lines)).hasSize(2);
      assertThat(about.get(0))
          .startsWith("watukuy: poller items: ")
          .endsWith("; retrying with backoff");
      assertThat(about.get(1)).isEqualTo("watukuy: poller items: store recovered");
    }
  }
}
