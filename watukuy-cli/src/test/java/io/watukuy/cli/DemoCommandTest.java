package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Runs {@code watukuy demo} for real: a loopback vendor, SQLite, real sleeps. */
class DemoCommandTest {
  private static final Pattern EVENT_ID = Pattern.compile("\\[([0-9a-f]{8})]$");

  @TempDir Path tmp;

  private record Run(int code, List<String> events, String err) {}

  private Run demo() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {
              "demo",
              "--for",
              "3s",
              "--dir",
              tmp.toString(),
              "--mutate-every",
              "200ms",
              "--reconcile-every",
              "1s",
              "--status-every",
              "1s"
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    List<String> events =
        out.toString(StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
    return new Run(code, events, err.toString(StandardCharsets.UTF_8));
  }

  private static Set<String> ids(List<String> lines) {
    return lines.stream()
        .map(EVENT_ID::matcher)
        .filter(Matcher::find)
        .map(m -> m.group(1))
        .collect(Collectors.toSet());
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void secondRunResumesTheSameWorldWithoutRepeatingAnEvent() {
    Run first = demo();

    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.events()).as(first.err()).hasSizeGreaterThanOrEqualTo(13);
    assertThat(first.events())
        .allMatch(l -> l.matches("(created|updated|deleted) +#\\d+ .*\\[[0-9a-f]{8}]"));
    // The recorded issues, as the first poll finds them (the mutator may have touched a few by
    // then).
    assertThat(first.events())
        .anyMatch(l -> l.matches("created +#\\d+ +\"Test issue \\d+\" \\(open\\) .*"));
    assertThat(first.err()).contains("starting fresh").contains("status: 1 poller");
    assertThat(tmp.resolve(DemoCommand.DB_FILE)).exists();
    assertThat(tmp.resolve(DemoCommand.VENDOR_FILE)).exists();

    Run second = demo();

    assertThat(second.code()).as(second.err()).isZero();
    assertThat(second.err()).contains("resuming: ").contains("same world as last time");
    assertThat(ids(first.events()))
        .as(String.join("\n", first.events()))
        .hasSize(first.events().size());
    assertThat(ids(second.events())).doesNotContainAnyElementsOf(ids(first.events()));
    // The vendor's world went on, so the second run saw changes, but not the 13 recorded issues
    // again.
    assertThat(second.events())
        .noneMatch(l -> l.startsWith("created") && l.contains("\"Test issue "));
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void withoutATerminalTheStatusIsOneLineEachTime() {
    Run run = demo();

    List<String> status = run.err().lines().filter(l -> l.contains("status: ")).toList();
    assertThat(status)
        .hasSizeGreaterThanOrEqualTo(2)
        .allMatch(l -> l.startsWith("status: 1 poller ("));
    assertThat(run.err()).doesNotContain("\r").doesNotContain(DemoCommand.CLEAR_TO_EOL);
    // A new world ends now, so the lag is seconds, not the years since the recording.
    assertThat(status.get(0)).matches(".* lag (\\d+(\\.\\d)?s|\\d+ms|-), .*");
  }

  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void onATerminalTheStatusLineIsRedrawnInPlace() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    int code =
        new picocli.CommandLine(new DemoCommand(o, e, true))
            .execute(
                "--for",
                "3s",
                "--dir",
                tmp.toString(),
                "--mutate-every",
                "200ms",
                "--reconcile-every",
                "1s",
                "--status-every",
                "1s");
    String text = err.toString(StandardCharsets.UTF_8);

    assertThat(code).as(text).isZero();
    // Every status is drawn from the start of the line and clears what an older, longer one left.
    assertThat(text.split("\r", -1))
        .filteredOn(s -> s.startsWith("status: "))
        .hasSizeGreaterThanOrEqualTo(2)
        .allMatch(s -> s.matches("status: 1 poller \\([^\n]*\\)[^\n]*\u001b\\[K\n?"));
    // No status ever starts a line of its own (that would be a new line per status), and the last
    // one is ended by a newline so that the shell's prompt starts below it.
    assertThat(text.split("\n")).noneMatch(l -> l.startsWith("status: "));
    assertThat(text).endsWith(DemoCommand.CLEAR_TO_EOL + "\n");
    assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain(DemoCommand.CLEAR_TO_EOL);
  }

  @Test
  void anUnreadableDurationIsAUsageError() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"demo", "--for", "3x", "--dir", tmp.toString()},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(code).isEqualTo(Main.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--for: '3x' is not a duration");
  }
}
