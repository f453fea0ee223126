package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code output: file:} on a real full file system, a 1 MB tmpfs (issue 16, §3): a batch whose
 * write runs out of space leaves the file as it was before the batch, the batch stays pending and
 * comes back whole once space returns; {@code run --once} exits 1, the daemon backs off and
 * recovers by itself. Mounting needs root (or CAP_SYS_ADMIN); without it the tests are skipped, and
 * {@link OutputFileTest} makes the same failure through a seam.
 */
class FullDiskTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ITEMS = 40;

  @TempDir Path dir;
  private Path disk;
  private boolean mounted;
  private JsonServer vendor;
  private Path config;

  @BeforeEach
  void mountAndServe() throws Exception {
    disk = Files.createDirectory(dir.resolve("disk"));
    mounted = exec("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", disk.toString());
    Assumptions.assumeTrue(
        mounted, "cannot mount a 1 MB tmpfs here (needs root); OutputFileTest covers the seam");
    // Items of about 1 KB each: the disk fills in the middle of a line.
    StringBuilder items = new StringBuilder("[");
    for (int i = 1; i <= ITEMS; i++) {
      if (i > 1) items.append(',');
      items
          .append("{\"id\":")
          .append(i)
          .append(",\"pad\":\"")
          .append("p".repeat(900))
          .append("\"}");
    }
    vendor = new JsonServer().answer(items.append(']').toString());
    config = dir.resolve("watukuy.yaml");
    Files.writeString(
        config,
        """
        store: sqlite:watukuy.db
        output: file:disk/events.jsonl
        delivery: { batchSize: 5 }
        pollers:
          - name: items
            request: { url: "%s" }
            response: { items: "" }
            identity: /id
            cursor: { strategy: snapshotDiff }
        """
            .formatted(vendor.url("/items")));
  }

  @AfterEach
  void unmount() throws Exception {
    if (vendor != null) vendor.close();
    if (mounted && !exec("umount", disk.toString())) exec("umount", "-l", disk.toString());
  }

  private static boolean exec(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
  }

  /** Fills the disk, then frees {@code free} bytes: room for a few lines, not all of them. */
  private Path fill(int free) throws IOException {
    Path filler = disk.resolve("filler");
    byte[] chunk = new byte[4096];
    try (OutputStream out = Files.newOutputStream(filler)) {
      for (int i = 0; i < 1024; i++) out.write(chunk); // bounded: 4 MB > the 1 MB disk
    } catch (IOException full) {
      // No space left: the disk is full.
    }
    try (FileChannel c = FileChannel.open(filler, StandardOpenOption.WRITE)) {
      c.truncate(c.size() - free);
    }
    return filler;
  }

  /** The ids of the events in the output; fails when a line is not one whole JSON event. */
  private List<Integer> ids() throws IOException {
    Path file = disk.resolve("events.jsonl");
    String text = Files.exists(file) ? Files.readString(file) : "";
    assertThat(text.isEmpty() || text.endsWith("\n")).as("ends with a whole line").isTrue();
    List<Integer> ids = new ArrayList<>();
    for (String line : text.lines().toList()) {
      JsonNode event = JSON.readTree(line);
      assertThat(event.path("type").asText()).as(line).isEqualTo("created");
      ids.add(event.path("data").path("id").asInt());
    }
    return ids;
  }

  private static List<Integer> oneToItems() {
    List<Integer> all = new ArrayList<>();
    for (int i = 1; i <= ITEMS; i++) all.add(i);
    return all;
  }

  @Test
  void runOnceOnAFullDiskExitsOneAndTheFailedEventComesBackWholeOnce() throws Exception {
    Path filler = fill(3 * 4096 + 512);

    CliRun full = CliRun.of("run", config.toString(), "--once");

    assertThat(full.exit()).as(full.stderr()).isEqualTo(1);
    assertThat(full.stderr())
        .contains(
            "watukuy: output "
                + dir.resolve("disk/events.jsonl")
                + ": No space left on device; the undelivered events stay pending");
    List<Integer> before = ids();
    assertThat(before).isNotEmpty().hasSizeLessThan(ITEMS);
    // Batches of five: the batch that ran out of space was cut back to where it started.
    assertThat(before.size() % 5).as("whole batches only: " + before).isZero();

    Files.delete(filler); // space returns
    CliRun again = CliRun.of("run", config.toString(), "--once");

    assertThat(again.exit()).as(again.stderr()).isZero();
    // Every line one whole event; the one whose write failed appears once, in its place.
    assertThat(ids()).containsExactlyElementsOf(oneToItems());
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void theDaemonOnAFullDiskBacksOffAndRecoversWithoutExiting() throws Exception {
    Path filler = fill(3 * 4096 + 512);
    Path err = dir.resolve("stderr");
    Process p =
        CliProcess.of(List.of(), "run", config.toString())
            .redirectOutput(dir.resolve("stdout").toFile())
            .redirectError(err.toFile())
            .start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < deadline && !Files.readString(err).contains("retrying")) {
        Thread.sleep(100);
      }
      Thread.sleep(1500); // a daemon that stops on the failure would have exited by now
      assertThat(p.isAlive()).as(Files.readString(err)).isTrue();

      Files.delete(filler); // space returns: the next attempt (backoff cap 1, 2, 4 s...) delivers
      while (System.nanoTime() < deadline && ids().size() < ITEMS) Thread.sleep(100);
      p.destroy(); // SIGTERM: drain, then exit 0
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      p.destroyForcibly();
    }

    assertThat(p.exitValue()).as(Files.readString(err)).isZero();
    assertThat(ids()).containsExactlyElementsOf(oneToItems());
    String file = dir.resolve("disk/events.jsonl").toString();
    List<String> outputLines =
        Files.readAllLines(err).stream()
            .filter(l -> l.startsWith("watukuy: output"))
            .collect(Collectors.toList());
    assertThat(outputLines)
        .containsExactly(
            "watukuy: output "
                + file
                + ": No space left on device; the events stay pending, retrying with backoff",
            "watukuy: output " + file + " recovered, delivering the pending events");
  }
}
