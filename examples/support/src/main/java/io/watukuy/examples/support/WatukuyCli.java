package io.watukuy.examples.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.watukuy.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Runs {@code watukuy} commands in-process, exactly as {@code bin/watukuy ARGS…} would, and parses
 * the NDJSON events a {@code run} prints.
 */
public final class WatukuyCli {
  private static final ObjectMapper JSON = new ObjectMapper();

  private WatukuyCli() {}

  /**
   * What one command did.
   *
   * @param exit its exit code (0 success, 1 runtime error, 2 usage or config error)
   * @param stdout everything it printed on stdout
   * @param stderr everything it printed on stderr, the engine's log lines included
   */
  public record Result(int exit, String stdout, String stderr) {
    /**
     * The events printed by {@code run}: one envelope per stdout line, in output order.
     *
     * @return the parsed envelopes
     * @throws UncheckedIOException if a line is not JSON
     */
    public List<JsonNode> events() {
      return stdout.lines().filter(l -> !l.isBlank()).map(WatukuyCli::parse).toList();
    }

    /**
     * The events as {@code "type identity"} strings ({@code "created 3"}), in output order: the
     * shape the examples' tests compare against.
     *
     * @return one string per event
     */
    public List<String> changes() {
      return events().stream()
          .map(e -> e.get("type").asText() + " " + e.get("identity").asText())
          .toList();
    }

    /**
     * {@link #changes()} of one poller.
     *
     * @param source the poller's name, the envelope's {@code source}
     * @return one {@code "type identity"} string per event of that poller, in output order
     */
    public List<String> changes(String source) {
      return events().stream()
          .filter(e -> e.get("source").asText().equals(source))
          .map(e -> e.get("type").asText() + " " + e.get("identity").asText())
          .toList();
    }

    /**
     * The first event of one poller for one identity.
     *
     * @param source the poller's name
     * @param identity the item's identity as the envelope writes it
     * @return the envelope
     * @throws AssertionError if there is none; the message carries stdout
     */
    public JsonNode event(String source, String identity) {
      return events().stream()
          .filter(
              e ->
                  e.get("source").asText().equals(source)
                      && e.get("identity").asText().equals(identity))
          .findFirst()
          .orElseThrow(
              () ->
                  new AssertionError("no " + source + " event for " + identity + " in\n" + stdout));
    }
  }

  /**
   * {@code watukuy run CONFIG --once [extra…]} that must go well: exit code 0 and no line on stderr
   * that speaks of an error, a warning or an exception.
   *
   * @param config the config file
   * @param server the third-party server it polls, whose log goes into the failure message
   * @param extra more arguments ({@code --poller NAME})
   * @return its exit code and output
   * @throws AssertionError naming the exit code, stderr and the server's log otherwise
   */
  public static Result runOnce(Path config, LocalServer server, String... extra) {
    String[] args = new String[3 + extra.length];
    args[0] = "run";
    args[1] = config.toString();
    args[2] = "--once";
    System.arraycopy(extra, 0, args, 3, extra.length);
    Result r = run(args);
    boolean problems =
        r.stderr().lines().anyMatch(l -> l.matches("(?i).*\\b(error|warn|exception)\\b.*"));
    if (r.exit() != 0 || problems) {
      throw new AssertionError(
          "watukuy run --once exited "
              + r.exit()
              + (problems ? " with problems on stderr" : "")
              + "; stderr:\n"
              + r.stderr()
              + "\n"
              + server
              + ":\n"
              + server.log());
    }
    return r;
  }

  /**
   * Runs {@code watukuy args…}. {@code System.err} is redirected for the duration, so the engine's
   * own log lines land in {@link Result#stderr()} as they would on a terminal; calls must not
   * overlap.
   *
   * @param args the command line after {@code watukuy}
   * @return its exit code and output
   */
  public static Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit;
    PrintStream jvmErr = System.err;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      // The engine logs through slf4j-simple to System.err, which bin/watukuy sends to stderr.
      System.setErr(e);
      exit = Main.run(args, o, e);
    } finally {
      System.setErr(jvmErr);
    }
    jvmErr.print(err.toString(StandardCharsets.UTF_8)); // still in the test's own output
    return new Result(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /**
   * Copies an example's committed YAML into {@code dir}, with each {@code replacements} key
   * replaced by its value (the committed file names a fixed port; a test uses a free one), so the
   * store it names ({@code sqlite:…}, relative to the file) lands in {@code dir} too.
   *
   * @param example the committed YAML file
   * @param dir the folder to write it to
   * @param replacements literal text to replace, e.g. {@code "127.0.0.1:3999" -> "127.0.0.1:41234"}
   * @return the copy's path
   * @throws IllegalArgumentException if a key does not occur in the file (the example changed)
   */
  public static Path config(Path example, Path dir, Map<String, String> replacements) {
    try {
      String yaml = Files.readString(example);
      for (Map.Entry<String, String> r : replacements.entrySet()) {
        if (!yaml.contains(r.getKey())) {
          throw new IllegalArgumentException(example + " does not contain " + r.getKey());
        }
        yaml = yaml.replace(r.getKey(), r.getValue());
      }
      Files.createDirectories(dir);
      return Files.writeString(dir.resolve(example.getFileName()), yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode parse(String line) {
    try {
      return JSON.readTree(line);
    } catch (IOException e) {
      throw new UncheckedIOException("not a JSON line on stdout: " + line, e);
    }
  }
}
