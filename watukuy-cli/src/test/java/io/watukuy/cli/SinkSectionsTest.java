package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code sink:} sections of a config (docs/sinks.md, "Configuration"; issue 18, §1 and §7): the
 * provider found by type, the {@code output:} shorthand and its conflict with {@code sink:}, {@code
 * ${file:PATH}} values that never show, one sink per section, and what {@code run} does with a sink
 * that cannot open. {@link ProbeSinkProvider} stands in for a sink module.
 */
class SinkSectionsTest {
  @TempDir Path dir;
  private JsonServer vendor;

  @BeforeEach
  void start() throws IOException {
    vendor = new JsonServer().answer("[{\"id\":1},{\"id\":2}]");
  }

  @AfterEach
  void stop() {
    vendor.close();
  }

  /** A config of pollers a, b and c over the vendor, with {@code top} at the top level. */
  private String config(String top, String aExtra, String bExtra, String cExtra)
      throws IOException {
    String poller =
        """
          - name: %s
            request: { url: "%s" }
            response: { items: "" }
            identity: /id
            cursor: { strategy: snapshotDiff }
        """;
    StringBuilder yaml =
        new StringBuilder("store: sqlite:state.db\n").append(top).append("pollers:\n");
    String[] extras = {aExtra, bExtra, cExtra};
    String[] names = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
      yaml.append(poller.formatted(names[i], vendor.url("/" + names[i])));
      if (!extras[i].isEmpty()) yaml.append("    ").append(extras[i]).append('\n');
    }
    return Files.writeString(dir.resolve("watukuy.yaml"), yaml.toString()).toString();
  }

  private static String id(String test) {
    return test + "-" + System.nanoTime();
  }

  @Test
  void anUnknownTypeIsAConfigErrorAtItsLineListingTheKnownTypes() throws IOException {
    String config = config("", "", "sink: { type: kafak }", "");

    CliRun run = CliRun.of("validate", config);

    assertThat(run.exit()).isEqualTo(Main.USAGE);
    String prefix =
        "watukuy: " + config + ":13: poller b: sink.type: 'kafak' is not a sink type (known: ";
    assertThat(run.stderr()).startsWith(prefix).endsWith(")\n");
    List<String> known =
        Arrays.asList(
            run.stderr().substring(prefix.length(), run.stderr().length() - 2).split(", "));
    // Every provider on the class path: this module's two and the test's probe (sink modules add
    // theirs).
    assertThat(known).contains("file", "probe", "stdout").isSorted();
  }

  @Test
  void sinkAndOutputAtTheTopLevelIsAConfigErrorNamingBoth() throws IOException {
    String config = config("output: stdout\nsink: { type: stdout }\n", "", "", "");

    for (String command : new String[] {"validate", "run"}) {
      CliRun run = CliRun.of(command, config, command.equals("run") ? "--once" : "--verbose");
      assertThat(run.exit()).isEqualTo(Main.USAGE);
      assertThat(run.stderr().lines().findFirst().orElseThrow())
          .isEqualTo(
              "watukuy: "
                  + config
                  + ":3: sink: and output: are both set at the top level: keep one (output:"
                  + " stdout is sink: {type: stdout}, output: file:PATH is sink: {type: file, path:"
                  + " PATH})");
    }
    assertThat(dir.resolve("state.db")).doesNotExist();
  }

  @Test
  void aPollersOwnSinkWinsOverTheTopLevelOutput() throws IOException {
    String config =
        config("output: file:top.jsonl\n", "", "sink: { type: file, path: b.jsonl }", "");

    CliRun run = CliRun.of("run", config, "--once");

    assertThat(run.exit()).as(run.stderr()).isZero();
    List<String> top = Files.readAllLines(dir.resolve("top.jsonl"));
    List<String> b = Files.readAllLines(dir.resolve("b.jsonl"));
    assertThat(top)
        .hasSize(4)
        .allMatch(l -> l.contains("\"source\":\"a\"") || l.contains("\"source\":\"c\""));
    assertThat(b).hasSize(2).allMatch(l -> l.contains("\"source\":\"b\""));
    assertThat(run.stdout()).isEmpty();
  }

  @Test
  void aFormatThatIsNeitherEnvelopeNorCloudEventsIsAConfigErrorNamingIt() throws IOException {
    String config = config("sink: { type: file, path: e.jsonl, format: xml }\n", "", "", "");

    CliRun run = CliRun.of("validate", config);

    assertThat(run.exit()).isEqualTo(Main.USAGE);
    assertThat(run.stderr())
        .isEqualTo(
            "watukuy: "
                + config
                + ":2: sink.format: 'xml' is not a format (envelope or cloudevents)\n");
  }

  @Test
  void aFileReferenceThatIsMissingIsAConfigErrorNamingThePath() throws IOException {
    String config =
        config("", "sink: { type: probe, id: x, secret: \"${file:keys/token.txt}\" }", "", "");

    CliRun run = CliRun.of("validate", config);

    assertThat(run.exit()).isEqualTo(Main.USAGE);
    assertThat(run.stderr())
        .isEqualTo(
            "watukuy: "
                + config
                + ":8: poller a: sink.secret: ${file:keys/token.txt}: "
                + dir.resolve("keys/token.txt")
                + " does not exist\n");
  }

  @Test
  void aFileReferenceIsReadTrimmedAndItsContentNeverShowsInAnErrorOrVerboseTrace()
      throws IOException {
    String secret = "pr0be-s3cret-Value";
    Files.writeString(dir.resolve("token.txt"), secret + "\n");
    String probe = id("file-ref");
    String config =
        config(
            "",
            "sink: { type: probe, id: "
                + probe
                + ", open: config, nested: { auth: \"Bearer ${file:token.txt}\" }, secret:"
                + " \"${file:token.txt}\" }",
            "",
            "");

    CliRun validate = CliRun.of("validate", config);
    CliRun run = CliRun.of("run", config, "--once", "--verbose");

    assertThat(validate.exit()).as(validate.stderr()).isZero();
    // The provider saw the content, trimmed, in nested maps too.
    assertThat(ProbeSinkProvider.record(probe).settings().get(0))
        .contains("\"secret\":\"" + secret + "\"", "\"auth\":\"Bearer " + secret + "\"");
    // The sink refuses the credential, quoting it: a config problem, exit 2, the value hidden.
    assertThat(run.exit()).isEqualTo(Main.USAGE);
    assertThat(run.stderr())
        .contains("watukuy: sink probe " + probe + ": credentials refused: [redacted]")
        .contains("at io.watukuy") // the --verbose trace is there
        .doesNotContain(secret);
  }

  @Test
  void oneSinkPerSectionTheTopLevelOneSharedAndOpenedOnce() throws IOException {
    String shared = id("shared");
    String own = id("own");
    String config =
        config(
            "sink: { type: probe, id: " + shared + " }\n",
            "",
            "sink: { type: probe, id: " + own + " }",
            "");

    CliRun run = CliRun.of("run", config, "--once");

    assertThat(run.exit()).as(run.stderr()).isZero();
    ProbeSinkProvider.Record top = ProbeSinkProvider.record(shared);
    ProbeSinkProvider.Record b = ProbeSinkProvider.record(own);
    // Made twice (run's checks, as validate, then the run), one instance for a and c.
    assertThat(top.created().get()).isEqualTo(2);
    assertThat(top.opened().get()).isEqualTo(1);
    assertThat(top.closed().get()).isEqualTo(1);
    assertThat(top.deliveryKeys()).hasSize(4);
    assertThat(top.deliveryKeys()).filteredOn(k -> k.startsWith("a:")).hasSize(2);
    assertThat(top.deliveryKeys()).filteredOn(k -> k.startsWith("c:")).hasSize(2);
    assertThat(b.opened().get()).isEqualTo(1);
    assertThat(b.deliveryKeys()).hasSize(2).allMatch(k -> k.startsWith("b:"));
    assertThat(run.stdout()).isEmpty();
  }

  @Test
  void validateMakesTheSinksButNeverOpensThem() throws IOException {
    String probe = id("validate");
    String config =
        config("sink: { type: probe, id: " + probe + ", open: unreachable }\n", "", "", "");

    CliRun run = CliRun.of("validate", config);

    assertThat(run.exit()).as(run.stderr()).isZero();
    assertThat(run.stdout()).isEqualTo(config + ": ok, 3 poller(s)\n");
    assertThat(ProbeSinkProvider.record(probe).created().get()).isEqualTo(1);
    assertThat(ProbeSinkProvider.record(probe).opened().get()).isZero();
    assertThat(vendor.requests.get()).isZero();
  }

  @Test
  void aSinkThatCanNeverWorkExitsTwoNamingItBeforeAnythingIsFetched() throws IOException {
    String probe = id("never");
    String config = config("sink: { type: probe, id: " + probe + ", open: config }\n", "", "", "");

    CliRun run = CliRun.of("run", config, "--once");

    assertThat(run.exit()).isEqualTo(Main.USAGE);
    // A config error leaves the store as it was: none, so none is announced.
    assertThat(run.stderr()).isEqualTo("watukuy: sink probe " + probe + ": credentials refused\n");
    assertThat(dir.resolve("state.db")).doesNotExist();
    assertThat(vendor.requests.get()).isZero();
  }

  @Test
  void aConfigErrorOfASinkLeavesAStoreThatWasThereInPlace() throws IOException {
    String ok = id("ok");
    CliRun first =
        CliRun.of("run", config("sink: { type: probe, id: " + ok + " }\n", "", "", ""), "--once");
    assertThat(first.exit()).as(first.stderr()).isZero();
    assertThat(first.stderr()).contains(CliRun.NEW_STORE);
    long size = Files.size(dir.resolve("state.db"));

    String never = id("never");
    CliRun run =
        CliRun.of(
            "run",
            config("sink: { type: probe, id: " + never + ", open: config }\n", "", "", ""),
            "--once");

    assertThat(run.exit()).isEqualTo(Main.USAGE);
    assertThat(run.stderr()).isEqualTo("watukuy: sink probe " + never + ": credentials refused\n");
    assertThat(dir.resolve("state.db")).exists();
    assertThat(Files.size(dir.resolve("state.db"))).isEqualTo(size);
  }

  @Test
  void pollerSelectionMakesAndOpensOnlyTheSinksOfTheSelectedPollers() throws IOException {
    String top = id("top");
    String never = id("never");
    String down = id("down");
    String config =
        config(
            "sink: { type: probe, id: " + top + " }\n",
            "",
            "sink: { type: probe, id: " + never + ", open: config }",
            "sink: { type: probe, id: " + down + ", open: unreachable }");

    CliRun run = CliRun.of("run", config, "--once", "--poller", "a");

    // docs/config.md: the other pollers are not run at all, so their sinks (one refused, one
    // down) are neither made nor opened, and cannot stop the run.
    assertThat(run.exit()).as(run.stderr()).isZero();
    assertThat(ProbeSinkProvider.record(top).opened().get()).isEqualTo(1);
    assertThat(ProbeSinkProvider.record(top).deliveryKeys())
        .hasSize(2)
        .allMatch(k -> k.startsWith("a:"));
    assertThat(ProbeSinkProvider.record(never).created().get()).isZero();
    assertThat(ProbeSinkProvider.record(down).created().get()).isZero();
    assertThat(run.stderr()).doesNotContain(never).doesNotContain(down);

    // validate still checks every section: it makes all three, opening none.
    CliRun validate = CliRun.of("validate", config);
    assertThat(validate.exit()).as(validate.stderr()).isZero();
    assertThat(ProbeSinkProvider.record(never).created().get()).isEqualTo(1);
    assertThat(ProbeSinkProvider.record(down).created().get()).isEqualTo(1);
    assertThat(ProbeSinkProvider.record(never).opened().get()).isZero();
  }

  @Test
  void everySinkThatFailsToOpenIsOneLineNamingItThenTheCommandActsAsBefore() throws IOException {
    String top = id("top-down");
    String own = id("own-down");
    String never = id("never");
    String twoDown =
        config(
            "sink: { type: probe, id: " + top + ", open: unreachable }\n",
            "",
            "sink: { type: probe, id: " + own + ", open: unreachable }",
            "");

    CliRun run = CliRun.of("run", twoDown, "--once");

    assertThat(run.exit()).as(run.stderr()).isEqualTo(Main.FAILED);
    assertThat(CliRun.withoutNewStore(run.stderr()).lines())
        .containsExactlyInAnyOrder(
            "watukuy: sink probe "
                + top
                + " cannot start: connection refused to probe:null; the events stay pending",
            "watukuy: sink probe "
                + own
                + " cannot start: connection refused to probe:null; the events stay pending");

    String oneNever =
        config(
            "sink: { type: probe, id: " + top + ", open: unreachable }\n",
            "sink: { type: probe, id: " + never + ", open: config }",
            "sink: { type: probe, id: " + own + ", open: unreachable }",
            "");
    CliRun withConfig = CliRun.of("run", oneNever, "--once");

    // One sink can never work: exit 2, its line last, and the two unreachable ones said too.
    assertThat(withConfig.exit()).isEqualTo(Main.USAGE);
    List<String> lines = CliRun.withoutNewStore(withConfig.stderr()).lines().toList();
    assertThat(lines).hasSize(3);
    assertThat(lines.subList(0, 2))
        .containsExactlyInAnyOrder(
            "watukuy: sink probe "
                + top
                + " cannot start: connection refused to probe:null; the events stay pending",
            "watukuy: sink probe "
                + own
                + " cannot start: connection refused to probe:null; the events stay pending");
    assertThat(lines.get(2)).isEqualTo("watukuy: sink probe " + never + ": credentials refused");
    assertThat(vendor.requests.get()).isZero();
  }

  @Test
  void anUnreachableSinkExitsOneWithOnceAndTheEventsComeWhenItIsBack() throws IOException {
    String probe = id("unreachable");
    String down =
        config(
            "sink: { type: probe, id: "
                + probe
                + ", open: unreachable, secret: \"${SINK_KEY}\" }\n",
            "",
            "",
            "");
    Map<String, String> env = Map.of("SINK_KEY", "s1nk-k3y-value");

    CliRun run = CliRun.withEnv(env, "run", down, "--once");

    assertThat(run.exit()).isEqualTo(Main.FAILED);
    assertThat(CliRun.withoutNewStore(run.stderr()))
        .isEqualTo(
            "watukuy: sink probe "
                + probe
                + " cannot start: connection refused to probe:[redacted]; the events stay pending\n");
    assertThat(vendor.requests.get()).isZero();

    Files.writeString(
        Path.of(down), Files.readString(Path.of(down)).replace("open: unreachable", "open: ok"));
    CliRun back = CliRun.withEnv(env, "run", down, "--once");

    assertThat(back.exit()).as(back.stderr()).isZero();
    assertThat(ProbeSinkProvider.record(probe).deliveryKeys()).hasSize(6);
  }

  @Test
  void aSinkThatRefusesAnEventIsALineAndOnceExitsOneNeverSilent() throws IOException {
    String probe = id("refuse");
    String refusing =
        config(
            "sink: { type: probe, id: " + probe + ", refuse: true, secret: \"${SINK_KEY}\" }\n",
            "",
            "",
            "");

    CliRun run = CliRun.withEnv(Map.of("SINK_KEY", "s1nk-k3y-value"), "run", refusing, "--once");

    assertThat(run.exit()).as(run.stderr()).isEqualTo(Main.FAILED);
    // Each poller's first event was refused: one line each, naming the poller, the event and
    // when it is retried, with the credential hidden.
    assertThat(run.stderr())
        .containsPattern(
            "watukuy: poller a: probe refused it: \\[redacted\\] \\(event [0-9a-f]{64}, sequence 1,"
                + " attempt 1; retried at [0-9T:.-]+Z\\)")
        .contains("watukuy: poller b: probe refused it")
        .contains("watukuy: poller c: probe refused it")
        .doesNotContain("s1nk-k3y-value");
  }
}
