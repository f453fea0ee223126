package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The delete guard on the command line (docs/operations.md, "False deletes"): an API that suddenly
 * answers an empty listing holds the deletes, exits 1 and shows the held count in {@code inspect};
 * {@code confirm-deletes} releases them, and the next listing emits them once.
 */
class DeleteGuardCliTest {
  @TempDir Path dir;

  @Test
  void anEmptyListingHoldsTwentyDeletesUntilConfirmDeletes() throws IOException {
    StringBuilder twenty = new StringBuilder("[");
    for (int i = 1; i <= 20; i++)
      twenty.append(i == 1 ? "" : ",").append("{\"id\":").append(i).append('}');
    try (JsonServer vendor = new JsonServer().answer(twenty.append(']').toString())) {
      String config =
          Files.writeString(
                  dir.resolve("watukuy.yaml"),
                  """
                  store: sqlite:watukuy.db
                  pollers:
                    - name: catalog
                      request: { url: "%s" }
                      response: { items: "" }
                      identity: /id
                      cursor: { strategy: snapshotDiff }
                  """
                      .formatted(vendor.url("/catalog")))
              .toString();
      assertThat(CliRun.of("run", config, "--once").stdout().lines()).hasSize(20);
      vendor.answer("[]");

      CliRun held = CliRun.of("run", config, "--once");

      assertThat(held.exit()).isEqualTo(1);
      assertThat(held.stdout()).isEmpty();
      assertThat(held.stderr()).contains("poller catalog", "20 stored items are missing");
      assertThat(CliRun.of("inspect", config).stdout())
          .contains("catalog: 20 deletes held by the delete guard; watukuy confirm-deletes");

      CliRun confirm = CliRun.of("confirm-deletes", config, "catalog");
      CliRun released = CliRun.of("run", config, "--once");

      assertThat(confirm.exit()).isZero();
      assertThat(confirm.stderr())
          .isEqualTo(
              "watukuy: poller catalog: deletes confirmed; the next complete listing emits them\n");
      assertThat(released.exit()).as(released.stderr()).isZero();
      assertThat(released.stdout().lines()).hasSize(20).allMatch(l -> l.contains("\"deleted\""));
      assertThat(CliRun.of("run", config, "--once").stdout()).isEmpty();
    }
  }
}
