package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --once} exits 1 while a key is unhealthy, not only on the runs that failed: a vendor
 * that stays down keeps cron alerting red after the circuit opens (docs/operations.md, "Health"). A
 * paused key waits by design and exits 0.
 */
class UnhealthySkipExitTest {
  @TempDir Path dir;

  @Test
  void aKeyWhoseCircuitIsOpenIsAnUnhealthySkipThatExitsOneNamingSinceWhenAndTheLastError()
      throws IOException {
    try (JsonServer vendor = new JsonServer().fail(503)) {
      String config = config(vendor);

      // circuit.failures defaults to 5: five failed runs open the circuit.
      for (int i = 1; i <= 5; i++) {
        CliRun r = CliRun.of("run", config, "--once");
        assertThat(r.exit()).as("run %d: %s", i, r.stderr()).isEqualTo(1);
      }
      int requests = vendor.requests.get();
      CliRun skipped = CliRun.of("run", config, "--once");

      assertThat(vendor.requests.get()).isEqualTo(requests); // the open circuit sent nothing
      assertThat(skipped.exit()).isEqualTo(1);
      assertThat(skipped.stderr())
          .matches(
              "watukuy: poller items: skipped \\(circuit open since [0-9]{4}-[0-9-]{5}T[0-9:]{8}Z,"
                  + " after 5 failure\\(s\\) in a row; last error FetchException: poller items"
                  + " page 1: GET http://127.0.0.1:[0-9]+/items returned HTTP 503\\)\\n");
    }
  }

  @Test
  void aPausedKeyWaitsByDesignAndExitsZero() throws IOException {
    try (JsonServer vendor = new JsonServer().answer("[{\"id\":1}]")) {
      String config = config(vendor);
      assertThat(CliRun.of("run", config, "--once").exit()).isZero();
      assertThat(CliRun.of("pause", config, "items").exit()).isZero();

      CliRun paused = CliRun.of("run", config, "--once");

      assertThat(paused.exit()).isZero();
      assertThat(paused.stderr()).isEqualTo("watukuy: poller items: skipped (paused)\n");
    }
  }

  private String config(JsonServer vendor) throws IOException {
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
            """
                .formatted(vendor.url("/items")))
        .toString();
  }
}
