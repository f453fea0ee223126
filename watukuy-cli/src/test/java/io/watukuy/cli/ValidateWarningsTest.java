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
 * {@code validate} warns about requests that cannot move with the cursor, so the lane would stall
 * at run time (docs/operations.md, "Stalled lanes"), and keeps exit 0: the config is valid.
 */
class ValidateWarningsTest {
  @TempDir Path dir;

  private record Result(int exit, String out, String err) {}

  private Result validate(String query, String cursor) throws IOException {
    return validate(query, "{ items: /results, hasMore: nonEmpty }", cursor);
  }

  private Result validate(String query, String response, String cursor) throws IOException {
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(
        file,
        """
        store: memory
        pollers:
          - name: contacts
            request:
              url: http://127.0.0.1:9/contacts
              query: %s
            response: %s
            identity: /id
            cursor: %s
        """
            .formatted(query, response, cursor));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"validate", file.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.<String, String>of()::get);
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void aTimestampPollerWhoseRequestNeverUsesTheCursorValueIsWarnedAbout() throws IOException {
    Result r = validate("{ limit: 100 }", "{ strategy: timestamp, field: updatedAt }");

    assertThat(r.exit()).isZero();
    assertThat(r.out()).contains("ok, 1 poller(s)");
    assertThat(r.err().lines())
        .singleElement()
        .asString()
        .startsWith("watukuy: warning: poller contacts: ")
        .contains("{{cursor.value}}", "PageRepeated");
  }

  @Test
  void aTokenPollerWhoseRequestNeverUsesTheTokenIsWarnedAbout() throws IOException {
    Result r =
        validate("{ limit: 100 }", "{ items: /results, next: /next }", "{ strategy: token }");

    assertThat(r.err().lines())
        .singleElement()
        .asString()
        .startsWith("watukuy: warning: poller contacts: ")
        .contains("{{cursor.value}}");
  }

  @Test
  void aTieBreakThatNoTemplatePassesIsWarnedAbout() throws IOException {
    Result r =
        validate(
            "{ updatedAfterOrAt: \"{{cursor.value}}\", limit: 2 }",
            "{ strategy: timestamp, field: updatedAt, tieBreak: id }");

    assertThat(r.exit()).isZero();
    assertThat(r.err().lines())
        .singleElement()
        .asString()
        .startsWith("watukuy: warning: poller contacts: cursor.tieBreak id is set")
        .contains("{{cursor.tieBreak}}");
  }

  @Test
  void aRequestThatCarriesTheCursorAndTheTieBreakIsNotWarnedAbout() throws IOException {
    Result r =
        validate(
            "{ since: \"{{cursor.value}}\", after_id: \"{{cursor.tieBreak}}\" }",
            "{ strategy: timestamp, field: updatedAt, tieBreak: id }");

    assertThat(r.exit()).isZero();
    assertThat(r.err()).isEmpty();
  }
}
