package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An identity listed twice in one page is one item whose last copy counts, and a warning says so
 * once per page (docs/architecture.md, "One poll's path"): an API that lists an item twice may have
 * meant two items.
 */
class DuplicateIdentityWarningTest {
  @TempDir Path dir;

  @Test
  void theLastCopyCountsAndOneWarningNamesTheIdentity() throws IOException {
    try (JsonServer vendor =
        new JsonServer()
            .answer(
                "[{\"id\":\"a\",\"n\":1},{\"id\":\"b\"},{\"id\":\"a\",\"n\":2},{\"id\":\"b\"}]")) {
      String config =
          Files.writeString(
                  dir.resolve("watukuy.yaml"),
                  """
                  store: memory
                  pollers:
                    - name: feed
                      request: { url: "%s" }
                      response: { items: "" }
                      identity: /id
                      cursor: { strategy: snapshotDiff }
                  """
                      .formatted(vendor.url("/feed")))
              .toString();
      PrintStream jvmErr = System.err;
      ByteArrayOutputStream logs = new ByteArrayOutputStream();
      CliRun run;
      try {
        System.setErr(new PrintStream(logs, true, StandardCharsets.UTF_8));
        run = CliRun.of("run", config, "--once");
      } finally {
        System.setErr(jvmErr);
      }

      assertThat(run.stdout().lines()).hasSize(2);
      assertThat(run.stdout()).contains("\"n\":2").doesNotContain("\"n\":1");
      // In-process the log line's prefix is the test JVM's; BadInputTest checks the real one.
      assertThat(logs.toString(StandardCharsets.UTF_8))
          .containsOnlyOnce(
              "poller feed: page 1: identity 'a' is listed more than once (2 repeated items in this"
                  + " page); the last copy counts");
    }
  }
}
