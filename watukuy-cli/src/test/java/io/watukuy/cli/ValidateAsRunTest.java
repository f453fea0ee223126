package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate} refuses what {@code run} refuses before it touches the store, with the same
 * {@code FILE:LINE} message in both (issue 16, §6: validate said ok for a SQLite tablePrefix that
 * run refused, and run's refusal named no line).
 */
class ValidateAsRunTest {
  @TempDir Path dir;

  private Path config(String store, String output) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(
        file,
        """
        store: %s
        output: %s
        pollers:
          - name: items
            request: { url: "http://127.0.0.1:9/items" }
            response: { items: "" }
            identity: /id
            cursor: { strategy: snapshotDiff }
        """
            .formatted(store, output));
    return file;
  }

  /** Both commands exit 2 with {@code line}, and run creates no store file. */
  private void bothRefuse(Path config, String line) {
    CliRun validate = CliRun.of("validate", config.toString());
    CliRun run = CliRun.of("run", config.toString(), "--once");

    assertThat(validate.exit()).as(validate.stdout() + validate.stderr()).isEqualTo(2);
    assertThat(validate.stdout()).isEmpty();
    assertThat(validate.stderr()).isEqualTo(line + "\n");
    assertThat(run.exit()).as(run.stderr()).isEqualTo(2);
    assertThat(run.stderr()).isEqualTo(line + "\n");
  }

  @Test
  void aSqliteTablePrefixThatRunRefusesIsRefusedByValidateWithItsLine() throws IOException {
    Path config = config("{ uri: \"sqlite:x.db\", tablePrefix: \"my-app\" }", "stdout");

    bothRefuse(
        config,
        "watukuy: "
            + config
            + ":1: store: tablePrefix must be an SQL identifier of 1 to 41 letters, digits and"
            + " '_', not starting with a digit (^[A-Za-z_][A-Za-z0-9_]{0,40}$), but was 'my-app'");
    assertThat(dir.resolve("x.db")).doesNotExist();
  }

  @Test
  void aSqliteTablePrefixInTheNamesSqliteReservesIsRefusedByValidateWithItsLine()
      throws IOException {
    // SQLite refuses to create a table named sqlite_..., in any case ("object name reserved for
    // internal use"); run used to find out at its first write, exit 1, no FILE:LINE.
    Path config = config("{ uri: \"sqlite:x.db\", tablePrefix: \"SQLite_app_\" }", "stdout");

    bothRefuse(
        config,
        "watukuy: "
            + config
            + ":1: store: tablePrefix must not start with 'sqlite_' (SQLite reserves those names"
            + " for itself), but was 'SQLite_app_'");
    assertThat(dir.resolve("x.db")).doesNotExist();
  }

  @Test
  void aStoreFolderThatDoesNotExistIsRefusedByValidateWithItsLine() throws IOException {
    Path config = config("sqlite:data/x.db", "stdout");

    bothRefuse(
        config,
        "watukuy: "
            + config
            + ":1: store sqlite:"
            + dir.resolve("data/x.db")
            + ": folder "
            + dir.resolve("data")
            + " does not exist; watukuy creates no folders: create it, or fix the path");
    assertThat(dir.resolve("data")).doesNotExist();
  }

  @Test
  void anOutputFolderThatDoesNotExistIsRefusedByValidateWithItsLine() throws IOException {
    Path config = config("sqlite:x.db", "file:logs/events.jsonl");

    bothRefuse(
        config,
        "watukuy: "
            + config
            + ":2: output file:"
            + dir.resolve("logs/events.jsonl")
            + ": folder "
            + dir.resolve("logs")
            + " does not exist; watukuy creates no folders: create it, or fix the path");
    assertThat(dir.resolve("logs")).doesNotExist();
    assertThat(dir.resolve("x.db")).doesNotExist();
  }
}
