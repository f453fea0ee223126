package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A daemon whose sink cannot be reached at start (docs/sinks.md, "Configuration"; issue 18, §7): it
 * says so in one line and keeps running, the events wait in the store, and the sink is opened again
 * with backoff until it works; then every event arrives, and the recovery is one line too. In a JVM
 * of its own, stopped by SIGTERM; {@link ProbeSinkProvider} stands in for a sink module, reachable
 * once a file exists.
 */
class SinkDaemonTest {
  @TempDir Path dir;

  private static List<String> lines(Path file) throws Exception {
    return Files.exists(file) ? Files.readAllLines(file) : List.of();
  }

  /** Waits up to {@code seconds} for {@code file} to hold a line containing {@code text}. */
  private static boolean await(Path file, String text, int seconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      if (lines(file).stream().anyMatch(l -> l.contains(text))) return true;
      Thread.sleep(100);
    }
    return false;
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void aSinkUnreachableAtStartIsOneLineAndTheDaemonDeliversOnceItIsBack() throws Exception {
    try (JsonServer vendor = new JsonServer().answer("[{\"id\":1},{\"id\":2}]")) {
      Path config = dir.resolve("watukuy.yaml");
      Files.writeString(
          config,
          """
          store: sqlite:watukuy.db
          sink: { type: probe, id: d, open: unreachable, until: ready, log: delivered.txt }
          pollers:
            - name: items
              request: { url: "%s" }
              response: { items: "" }
              identity: /id
              cursor: { strategy: snapshotDiff }
              schedule: { min: 1s, max: 2s }
          """
              .formatted(vendor.url("/items")));
      Path err = dir.resolve("stderr");
      Path delivered = dir.resolve("delivered.txt");
      Process p =
          CliProcess.of(List.of(), "run", config.toString())
              .redirectOutput(dir.resolve("stdout").toFile())
              .redirectError(err.toFile())
              .start();
      try {
        assertThat(await(err, "running on, the sink is opened again", 45))
            .as(lines(err).toString())
            .isTrue();
        // Polled meanwhile: the events wait in the store, not in the sink.
        assertThat(await(err, "retrying with backoff", 45)).as(lines(err).toString()).isTrue();
        assertThat(p.isAlive()).isTrue();
        assertThat(lines(delivered)).isEmpty();

        Files.writeString(dir.resolve("ready"), "");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && lines(delivered).size() < 2) Thread.sleep(100);

        p.destroy(); // SIGTERM: drain, then exit 0
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      } finally {
        p.destroyForcibly();
      }
      List<String> stderr = lines(err);
      assertThat(p.exitValue()).as(stderr.toString()).isZero();
      assertThat(lines(delivered)).as(String.join("\n", stderr)).hasSize(2);
      assertThat(stderr)
          .contains(
              "watukuy: sink probe d cannot start: connection refused to probe:null; running on, the"
                  + " sink is opened again before its first batch");
      // One line when the key's delivery starts failing, not one per retry.
      assertThat(stderr).filteredOn(l -> l.contains("retrying with backoff")).hasSize(1);
      // And one when it recovers, without --verbose, after the failing one.
      String recovered =
          "watukuy: poller items: sink probe d recovered, delivering the pending events";
      assertThat(stderr).filteredOn(recovered::equals).hasSize(1);
      assertThat(stderr.indexOf(recovered))
          .isGreaterThan(
              stderr.indexOf(
                  stderr.stream()
                      .filter(l -> l.contains("retrying with backoff"))
                      .findFirst()
                      .orElseThrow()));
      assertThat(stderr.get(stderr.size() - 1)).isEqualTo("watukuy: stopped, 2 events delivered");
    }
  }
}
