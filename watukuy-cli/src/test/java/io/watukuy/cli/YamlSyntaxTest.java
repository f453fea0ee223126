package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file the YAML parser rejects: one line, {@code FILE:LINE: } and the problem in words about the
 * file, at the line where the fix goes; exit 2.
 */
class YamlSyntaxTest {
  @TempDir Path dir;

  /** Runs {@code validate} and returns stderr with the file's full path shortened to its name. */
  private String validate(String yaml) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(file, yaml);
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"validate", file.toString()},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.<String, String>of()::get);
    assertThat(code).isEqualTo(Main.USAGE);
    return err.toString(StandardCharsets.UTF_8).replace(file.toString(), "watukuy.yaml");
  }

  @Test
  void aKeyIndentedDeeperThanItsSiblings() throws IOException {
    assertThat(
            validate(
                """
        store: memory
        pollers:
          - name: orders
             request: { url: "http://127.0.0.1:9/orders" }
        """))
        .isEqualTo(
            "watukuy: watukuy.yaml:4: a ':' where no key can start: indent this line like the keys"
                + " it belongs with, or quote a value that contains ': '\n");
  }

  @Test
  void aKeyIndentedLessThanItsSiblings() throws IOException {
    assertThat(
            validate(
                """
        pollers:
          - name: orders
           request: { url: "http://127.0.0.1:9/orders" }
        """))
        .isEqualTo(
            "watukuy: watukuy.yaml:3: this line is indented differently from the lines it belongs"
                + " with (the block that starts on line 2)\n");
  }

  @Test
  void aTab() throws IOException {
    assertThat(validate("store: memory\npollers:\n\t- name: orders\n"))
        .isEqualTo("watukuy: watukuy.yaml:3: a tab character; YAML indents with spaces only\n");
  }

  @Test
  void anUnclosedQuoteIsNamedWhereItOpens() throws IOException {
    assertThat(
            validate(
                """
        store: memory
        pollers:
          - name: "orders
            identity: /id
        """))
        .isEqualTo(
            "watukuy: watukuy.yaml:3: the quoted value that starts here is never closed"
                + " (a missing \" or ')\n");
  }

  @Test
  void anUnclosedBraceIsNamedWhereItOpens() throws IOException {
    assertThat(
            validate(
                """
        pollers:
          - name: orders
            request: { url: "http://127.0.0.1:9/orders"
            identity: /id
        """))
        .isEqualTo(
            "watukuy: watukuy.yaml:3: the { on this line is not closed with } before line 4"
                + " (or a comma is missing)\n");
  }

  @Test
  void aLineWithoutAColon() throws IOException {
    assertThat(
            validate(
                """
        store: memory
        pollers
        """))
        .isEqualTo(
            "watukuy: watukuy.yaml:2: a key without ':' (each line of a map is key: value)\n");
  }
}
