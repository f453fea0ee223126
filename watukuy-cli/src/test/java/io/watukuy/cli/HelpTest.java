package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Every command's {@code --help}: a usage line naming the command, a one-sentence description
 * (which the command lists show alone), whole sentences after it, and every option and argument
 * described, with its default where it has one.
 */
class HelpTest {
  private static List<CommandLine> all(CommandLine root) {
    List<CommandLine> out = new ArrayList<>();
    out.add(root);
    root.getSubcommands().values().forEach(sub -> out.addAll(all(sub)));
    return out;
  }

  private static List<CommandLine> commands() {
    PrintStream discard =
        new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
    return all(new Cli(discard, discard, Map.<String, String>of()::get, false).commandLine());
  }

  private static String help(String... words) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code =
        Main.run(
            words,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            Map.<String, String>of()::get);
    assertThat(code).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void everyCommandOpensWithItsUsageLineAndOneSentence() {
    Set<String> firstSentences = new HashSet<>();
    for (CommandLine cmd : commands()) {
      CommandSpec spec = cmd.getCommandSpec();
      String name = spec.qualifiedName(" ");
      String[] description = spec.usageMessage().description();
      List<String> words =
          new ArrayList<>(List.of(name.split(" ")).subList(1, name.split(" ").length));
      words.add("--help");

      String text = help(words.toArray(String[]::new));
      String synopsisAndAfter = text.substring(text.indexOf('\n') + 1).replaceAll("\\s+", " ");

      assertThat(text).as(name).startsWith("Usage: " + name + " ");
      // The sentence follows the usage line (which may wrap when long), whole.
      assertThat(synopsisAndAfter).as(name).contains(description[0]);
      assertThat(description[0]).as(name).endsWith(".").doesNotContain(". ");
      assertThat(firstSentences.add(description[0]))
          .as("%s has a description of its own", name)
          .isTrue();
      for (String paragraph : description) {
        // A paragraph is whole sentences; picocli wraps it, nothing breaks it by hand.
        assertThat(paragraph).as(name).endsWith(".");
      }
    }
  }

  @Test
  void everyOptionAndArgumentIsDescribed() {
    for (CommandLine cmd : commands()) {
      List<ArgSpec> args = new ArrayList<>(cmd.getCommandSpec().options());
      args.addAll(cmd.getCommandSpec().positionalParameters());
      for (ArgSpec arg : args) {
        if (arg.hidden()) continue;
        String label = cmd.getCommandSpec().qualifiedName(" ") + " " + arg.paramLabel();
        assertThat(arg.description()).as(label).hasSize(1);
        assertThat(arg.description()[0]).as(label).endsWith(".");
      }
    }
  }

  @Test
  void theCommandListShowsWholeSentences() {
    List<String> lines = help("--help").lines().toList();
    List<String> entries = new ArrayList<>();
    for (String line : lines.subList(lines.indexOf("Commands:") + 1, lines.size())) {
      if (line.startsWith("  ") && !line.startsWith("    "))
        entries.add(line.strip().replaceAll("\\s+", " "));
      else entries.set(entries.size() - 1, entries.get(entries.size() - 1) + " " + line.strip());
    }

    assertThat(entries).hasSize(15).allSatisfy(e -> assertThat(e).endsWith("."));
    assertThat(entries)
        .contains(
            "pause Pauses every key (every partition) of poller NAME until resume.",
            "backfill Starts a backfill of every key of poller NAME (or of partition P only), from --from to --to.");
  }

  @Test
  void optionsSayTheirDefaults() {
    assertThat(help("run", "--help").replaceAll("\\s+", " "))
        .contains("--poller=NAME... Run only these pollers (default: all of CONFIG).");
    assertThat(help("backfill", "--help").replaceAll("\\s+", " "))
        .contains("--to=VALUE The cursor to stop at (default: the live cursor now).");
    assertThat(help("demo", "--help").replaceAll("\\s+", " "))
        .contains(
            "--dir=DIR Folder of the demo database and vendor state (default: the current folder).");
  }
}
