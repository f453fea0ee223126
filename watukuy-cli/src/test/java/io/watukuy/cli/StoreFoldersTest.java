package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No command creates folders, so a typo in a store or output path fails before anything runs
 * instead of starting a fresh store that re-emits everything; {@code run} says so in one line when
 * it creates a new store or output file in an existing folder (docs/config.md, "Commands").
 */
class StoreFoldersTest {
  @TempDir Path dir;

  private String config(String store, String extra, String url) throws IOException {
    return Files.writeString(
            dir.resolve("watukuy.yaml"),
            """
            store: %s
            %s
            pollers:
              - name: items
                request: { url: "%s" }
                response: { items: "" }
                identity: /id
                cursor: { strategy: snapshotDiff }
            """
                .formatted(store, extra, url))
        .toString();
  }

  @Test
  void aStoreInAFolderThatDoesNotExistIsRefusedAndNoFolderIsCreated() throws IOException {
    String config = config("sqlite:missing/dir/x.db", "", "http://127.0.0.1:9/items");

    CliRun run = CliRun.of("run", config, "--once");
    CliRun migrate = CliRun.of("migrate", "--store", "sqlite:" + dir.resolve("missing/dir/x.db"));
    CliRun inspect = CliRun.of("inspect", config);

    for (CliRun r : new CliRun[] {run, migrate, inspect}) {
      assertThat(r.exit()).as(r.stderr()).isEqualTo(2);
      assertThat(r.stderr()).contains("folder", "missing", "does not exist");
    }
    // The same FILE:LINE refusal as validate's (ValidateAsRunTest).
    assertThat(run.stderr())
        .isEqualTo(
            "watukuy: "
                + config
                + ":1: store sqlite:"
                + dir.resolve("missing/dir/x.db")
                + ": folder "
                + dir.resolve("missing/dir")
                + " does not exist; watukuy creates no folders: create it, or fix the path\n");
    assertThat(dir.resolve("missing")).doesNotExist();
  }

  @Test
  void onlyRunCreatesAStoreOtherCommandsRefuseAMissingFile() throws IOException {
    String config = config("sqlite:x.db", "", "http://127.0.0.1:9/items");

    for (String[] args :
        new String[][] {
          {"inspect", config},
          {"pause", config, "items"},
          {"confirm-deletes", config, "items"},
          {"parked", "list", config, "items"}
        }) {
      CliRun r = CliRun.of(args);
      assertThat(r.exit()).as(String.join(" ", args) + ": " + r.stderr()).isEqualTo(2);
      assertThat(r.stderr())
          .contains("store sqlite:" + dir.resolve("x.db") + " does not exist; run creates it");
    }
    assertThat(dir.resolve("x.db")).doesNotExist();
  }

  @Test
  void aNewStoreAndANewOutputFileInExistingFoldersAreSaidOnceEach() throws IOException {
    try (JsonServer vendor = new JsonServer().answer("[{\"id\":1}]")) {
      String config = config("sqlite:state.db", "output: file:events.jsonl", vendor.url("/items"));

      CliRun first = CliRun.of("run", config, "--once");
      CliRun second = CliRun.of("run", config, "--once");

      assertThat(first.exit()).as(first.stderr()).isZero();
      assertThat(first.stderr())
          .isEqualTo(
              "watukuy: new output file:"
                  + dir.resolve("events.jsonl")
                  + "\nwatukuy: new store sqlite:"
                  + dir.resolve("state.db")
                  + "\n");
      assertThat(second.stderr()).isEmpty();
      assertThat(Files.readAllLines(dir.resolve("events.jsonl"))).hasSize(1);
    }
  }

  @Test
  void anOutputFileInAFolderThatDoesNotExistIsRefusedBeforeAnythingIsFetched() throws IOException {
    try (JsonServer vendor = new JsonServer().answer("[{\"id\":1}]")) {
      String config = config("sqlite:state.db", "output: file:logs/events.jsonl", vendor.url("/"));

      CliRun run = CliRun.of("run", config, "--once");

      assertThat(run.exit()).isEqualTo(2);
      assertThat(run.stderr())
          .isEqualTo(
              "watukuy: "
                  + config
                  + ":2: output file:"
                  + dir.resolve("logs/events.jsonl")
                  + ": folder "
                  + dir.resolve("logs")
                  + " does not exist; watukuy creates no folders: create it, or fix the path\n");
      assertThat(vendor.requests.get()).isZero();
      assertThat(dir.resolve("logs")).doesNotExist();
      assertThat(dir.resolve("state.db")).doesNotExist();
    }
  }
}
