package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.TimeSource;
import io.watukuy.testing.VirtualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --once}'s exit code and the health verdict ({@code Watukuy.health()}, shown per key by
 * {@code inspect --json}) agree (docs/operations.md, "Health"): a key that goes without a success
 * for longer than {@code staleAfter} while the vendor throttles it exits 1 and is unhealthy;
 * paused, it exits 0 and is healthy though still stale. {@code staleAfter: 0s} is a config error at
 * its line. A real server and real commands; time is a {@link VirtualClock} the commands run on
 * ({@link Session#time}), moved past {@code staleAfter} instead of slept through.
 */
class HealthExitCodeTest {
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;
  private final VirtualClock clock = VirtualClock.at("2026-03-02T09:00:00Z");

  private final TimeSource before = Session.time;

  @BeforeEach
  void useTheVirtualClock() {
    Session.time = clock;
  }

  @AfterEach
  void restoreTheClock() {
    Session.time = before;
  }

  @Test
  void theExitCodeAndTheHealthVerdictAgreeForAStaleThrottledKeyAndAPausedOne() throws IOException {
    try (JsonServer vendor = new JsonServer().answer("[{\"id\":1}]")) {
      String config = config(vendor, "6s");
      CliRun ok = CliRun.of("run", config, "--once");
      assertThat(ok.exit()).as(ok.stderr()).isZero();
      assertThat(health(config).get("healthy").asBoolean()).isTrue();

      vendor.throttle("3600");
      // Up to staleAfter (6s) since the success the key is healthy; just past it, stale.
      clock.advance(Duration.ofMillis(6_000));
      assertThat(health(config).get("healthy").asBoolean()).isTrue();
      clock.advance(Duration.ofMillis(1));
      CliRun stale = CliRun.of("run", config, "--once");

      assertThat(stale.exit()).isEqualTo(1);
      assertThat(stale.stderr())
          .contains("watukuy: poller items: skipped (throttled")
          .containsPattern(
              "watukuy: poller items: unhealthy \\(stale\\): stale: no successful poll since"
                  + " 2026-03-02T09:00:00Z, longer than staleAfter \\(6s\\)");
      JsonNode verdict = health(config);
      assertThat(verdict.get("healthy").asBoolean()).isFalse();
      assertThat(verdict.get("reasons").toString()).isEqualTo("[\"stale\"]");

      assertThat(CliRun.of("pause", config, "items").exit()).isZero();
      CliRun paused = CliRun.of("run", config, "--once");

      assertThat(paused.exit()).as(paused.stderr()).isZero();
      JsonNode inspected = inspect(config);
      assertThat(inspected.get("stale").asBoolean()).isTrue();
      assertThat(inspected.get("health").get("healthy").asBoolean()).isTrue();
      assertThat(CliRun.of("inspect", config).stdout())
          .contains(
              "items: stale, no successful poll for longer than 6s; paused, so not unhealthy");
    }
  }

  @Test
  void aStaleAfterOfZeroIsAConfigErrorAtItsLine() throws IOException {
    try (JsonServer vendor = new JsonServer()) {
      CliRun r = CliRun.of("validate", config(vendor, "0s"));

      assertThat(r.exit()).isEqualTo(2);
      assertThat(r.stderr()).contains("watukuy.yaml:8:").contains("staleAfter").contains("'0s'");
    }
  }

  private JsonNode inspect(String config) throws IOException {
    CliRun r = CliRun.of("inspect", config, "--json");
    assertThat(r.exit()).as(r.stderr()).isZero();
    return JSON.readTree(r.stdout()).get("pollers").get(0);
  }

  private JsonNode health(String config) throws IOException {
    return inspect(config).get("health");
  }

  private String config(JsonServer vendor, String staleAfter) throws IOException {
    return Files.writeString(
            dir.resolve("watukuy.yaml"),
            """
            store: sqlite:watukuy.db
            pollers:
              - name: items
                request: { url: "%s" }
                response: { items: "" }
                identity: /id
                cursor: { strategy: snapshotDiff }
                staleAfter: %s
            """
                .formatted(vendor.url("/items"), staleAfter))
        .toString();
  }
}
