package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.testing.HostileVendor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One vendor's body cannot kill the daemon (issue 16, §2): {@code watukuy run} in its own JVM with
 * {@code -Xmx256m}, beside a hostile vendor on 127.0.0.1 serving a 300 MiB body announced by
 * Content-Length, an endless chunked body, a 10 MiB item (over maxItemSize), a 30 MiB string (over
 * the parser's string limit) and duplicate keys. Each of those pollers fails its cycles with a
 * message that names the size or the problem, the poller of a well-behaved listing goes on
 * delivering the whole time, and the process is alive until SIGTERM stops it with exit code 0.
 * Before the bounds, the 300 MiB body alone ended the process with an OutOfMemoryError in 2.4 s.
 */
class HostileVendorDaemonTest {
  @TempDir Path dir;

  private final HostileVendor vendor = HostileVendor.start();

  @AfterEach
  void stop() {
    vendor.close();
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void theDaemonSurvivesEveryHostileBodyAndTheOtherPollerKeepsDelivering() throws Exception {
    Path config = dir.resolve("watukuy.yaml");
    StringBuilder yaml = new StringBuilder("store: sqlite:watukuy.db\npollers:\n");
    String[][] pollers = {
      {"announced", "/announced?mb=300"},
      {"endless", "/endless"},
      {"hugeitem", "/huge-item?mb=10"},
      {"longstring", "/huge-item?mb=30"},
      {"duplicates", "/duplicate-keys"},
      {"growing", "/growing"},
    };
    for (String[] p : pollers) {
      yaml.append(
          """
            - name: %s
              request: { url: "%s" }
              response: { items: /items }
              identity: /id
              cursor: { strategy: snapshotDiff }
              schedule: { min: 200ms, max: 1s, jitter: 0, adaptive: false }
          """
              .formatted(p[0], vendor.url(p[1])));
    }
    Files.writeString(config, yaml.toString());

    Path out = dir.resolve("stdout");
    Path err = dir.resolve("stderr");
    Process p =
        CliProcess.of(List.of("-Xmx256m"), "run", config.toString())
            .directory(dir.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    boolean aliveAtTheEnd;
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      // Until every hostile poller has failed twice, and the growing one delivered after that.
      while (System.nanoTime() < deadline && p.isAlive() && !seenEnough(out, err)) {
        Thread.sleep(200);
      }
      aliveAtTheEnd = p.isAlive();
      p.destroy(); // SIGTERM: drain, then exit 0
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      p.destroyForcibly();
    }
    String errText = Files.readString(err);
    assertThat(aliveAtTheEnd).as(errText).isTrue();
    assertThat(p.exitValue()).as(errText).isZero();
    assertThat(errText)
        .contains(
            "poller announced: GET "
                + vendor.url("/announced?mb=300")
                + " failed: the response announces a body of 314572800 bytes (Content-Length),"
                + " more than request.maxBodySize 33554432 bytes")
        .contains(
            "poller endless: GET "
                + vendor.url("/endless")
                + " failed: the response body passed request.maxBodySize 33554432 bytes")
        .contains("Duplicate field 'id' at /items/0/id")
        .contains(
            "poller longstring: GET "
                + vendor.url("/huge-item?mb=30")
                + " (HTTP 200, Content-Type application/json): the body is JSON beyond a parser"
                + " limit: String value length (")
        .contains("exceeds the maximum allowed (20000000")
        .doesNotContain("OutOfMemoryError");
    List<String> events = Files.readAllLines(out);
    assertThat(events).anyMatch(l -> l.contains("\"source\":\"growing\"") && l.contains("\"g5\""));
    assertThat(events).noneMatch(l -> l.contains("\"identity\":\"huge\""));
    assertThat(events)
        .as(errText)
        .anyMatch(
            l -> l.contains("\"source\":\"hugeitem\"") && l.contains("\"identity\":\"small\""));
    // Neither the 300 MiB nor the endless body was read whole.
    assertThat(vendor.bytesSent()).isLessThan(4L * 300 * (1 << 20));
  }

  private boolean seenEnough(Path out, Path err) throws Exception {
    String e = Files.readString(err);
    List<String> growing = new ArrayList<>();
    for (String l : Files.readAllLines(out))
      if (l.contains("\"source\":\"growing\"")) growing.add(l);
    return count(e, "poller announced:") >= 2
        && count(e, "poller endless:") >= 2
        && count(e, "poller duplicates:") >= 2
        && count(e, "poller longstring:") >= 2
        && vendor.requests("/huge-item") >= 4
        && growing.stream().anyMatch(l -> l.contains("\"g5\""));
  }

  private static int count(String text, String what) {
    int n = 0;
    for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) n++;
    return n;
  }
}
