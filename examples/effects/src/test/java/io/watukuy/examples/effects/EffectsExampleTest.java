package io.watukuy.examples.effects;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.examples.support.Peers;
import io.watukuy.examples.support.WatukuyCli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed {@code watukuy.yaml} run as a daemon (effects run in the daemon only) against
 * {@link Receiver} on a free loopback port: one request per new order, and after a restart with one
 * order added, one request for that order only.
 */
class EffectsExampleTest {
  private static final Path EXAMPLE = Peers.repositoryRoot().resolve("examples/effects");

  @TempDir Path dir;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private Receiver receiver;
  private Path config;

  @BeforeEach
  void start() throws IOException {
    Files.copy(EXAMPLE.resolve("orders.json"), dir.resolve("orders.json"));
    receiver = Receiver.start(dir.resolve("orders.json"), 0, lines::add);
    config =
        WatukuyCli.config(
            EXAMPLE.resolve("watukuy.yaml"),
            dir,
            Map.of(
                "127.0.0.1:3997",
                "127.0.0.1:" + receiver.port(),
                // the restart polls again a second after the first run's last cycle, not ten
                "schedule: { min: 10s, max: 10s }",
                "schedule: { min: 1s, max: 1s }"));
  }

  @AfterEach
  void stop() {
    receiver.close();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void oneRequestPerNewOrderAndNoneAgainAfterARestart() throws Exception {
    daemonUntil(3);
    assertThat(lines.stream().map(l -> l.replaceAll(" Idempotency-Key: [0-9a-f]{64}$", "")))
        .containsExactlyInAnyOrder(
            "POST /welcome/acme {\"order\":\"1\",\"total\":12.5}",
            "POST /welcome/globex {\"order\":\"2\",\"total\":80}",
            "POST /welcome/acme {\"order\":\"3\",\"total\":7}");
    // the README's sample shows these requests (its keys were made on port 3997, these are not)
    assertThat(
            Files.readString(EXAMPLE.resolve("README.md"))
                .lines()
                .filter(l -> l.startsWith("POST /welcome/"))
                .map(l -> l.replaceAll(" Idempotency-Key: [0-9a-f]{8}…$", "")))
        .containsExactlyInAnyOrderElementsOf(
            lines.stream().map(l -> l.replaceAll(" Idempotency-Key: [0-9a-f]{64}$", "")).toList());
    // acme's two orders share a lane: log order.
    assertThat(lines.stream().filter(l -> l.contains("/acme ")).toList().get(0))
        .contains("\"order\":\"1\"");

    Files.writeString(
        dir.resolve("orders.json"),
        Files.readString(dir.resolve("orders.json"))
            .replace(
                "{\"id\": 3, \"customer\": \"acme\", \"total\": 7}",
                "{\"id\": 3, \"customer\": \"acme\", \"total\": 7},\n"
                    + "  {\"id\": 4, \"customer\": \"initech\", \"total\": 5}"));
    daemonUntil(4);
    assertThat(lines).hasSize(4).noneMatch(l -> l.contains("a repeat"));
    assertThat(lines.get(3)).startsWith("POST /welcome/initech {\"order\":\"4\",\"total\":5}");
  }

  /** Runs {@code watukuy run} until the receiver has {@code count} lines, then SIGTERM. */
  private void daemonUntil(int count) throws Exception {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "io.watukuy.cli.Main",
                "run",
                config.toString())
            .redirectOutput(dir.resolve("stdout").toFile())
            .redirectError(dir.resolve("stderr").toFile())
            .start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (lines.size() < count && System.nanoTime() < deadline) Thread.sleep(20);
      p.destroy(); // SIGTERM: pollers, then effects, drain
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
      String stderr = Files.readString(dir.resolve("stderr"));
      assertThat(p.exitValue()).as(stderr).isZero();
      assertThat(stderr).contains("watukuy: running 1 effect (welcome)");
    } finally {
      p.destroyForcibly();
    }
    assertThat(lines).as("requests received").hasSize(count);
  }
}
