package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/** One command line run in-process, with an empty environment: exit code, stdout and stderr. */
record CliRun(int exit, String stdout, String stderr) {
  /** The line {@code run} prints when it creates a SQLite store file (docs/config.md). */
  static final String NEW_STORE = "watukuy: new store ";

  /** {@code stderr} without the new-store line, for tests about other lines. */
  static String withoutNewStore(String stderr) {
    return stderr
        .lines()
        .filter(l -> !l.startsWith(NEW_STORE))
        .map(l -> l + "\n")
        .reduce("", String::concat);
  }

  /**
   * The events on stdout as {@code "type identity"} ({@code "created 3"}), in output order.
   *
   * @throws java.io.UncheckedIOException when a line is not JSON
   */
  List<String> changes() {
    ObjectMapper json = new ObjectMapper();
    return stdout
        .lines()
        .filter(l -> !l.isBlank())
        .map(
            l -> {
              try {
                JsonNode e = json.readTree(l);
                return e.get("type").asText() + " " + e.get("identity").asText();
              } catch (IOException ex) {
                throw new UncheckedIOException(ex);
              }
            })
        .toList();
  }

  static CliRun of(String... args) {
    return withEnv(Map.of(), args);
  }

  /** The same, with {@code env} as the environment ({@code ${NAME}} in the config). */
  static CliRun withEnv(Map<String, String> env, String... args) {
    return capture((out, err) -> Main.run(args, out, err, env::get));
  }

  /**
   * The same, on {@code clock}, asking {@code terminal} what a command asks the operator.
   *
   * @param terminal the operator's terminal, or null for none (standard input is no terminal)
   */
  static CliRun on(
      Clock clock, Map<String, String> env, Cli.@Nullable Terminal terminal, String... args) {
    return capture((out, err) -> Main.run(args, out, err, env::get, clock, terminal));
  }

  /** Runs {@code command} on UTF-8 streams in memory and keeps what it printed. */
  private static CliRun capture(BiFunction<PrintStream, PrintStream, Integer> command) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        command.apply(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new CliRun(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
