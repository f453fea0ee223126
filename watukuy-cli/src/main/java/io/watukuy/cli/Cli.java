package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ConfigException;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.HttpStatusException;
import io.watukuy.Inspection;
import io.watukuy.KeyHealth;
import io.watukuy.KeyInspection;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.TickOptions;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.admin.AdminServer;
import io.watukuy.cli.CliConfig.StoreSpec;
import io.watukuy.effects.Effects;
import io.watukuy.sink.SinkConfig;
import io.watukuy.spi.CredentialStore;
import io.watukuy.spi.StateStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The commands. One instance per invocation; holds the streams and the environment. */
final class Cli {
  final PrintStream out;
  final PrintStream err;
  private final Function<String, @Nullable String> env;
  private final boolean verbose;
  // Values read from ${NAME}: hidden in every message this process prints (docs/operations.md,
  // "Secrets"); known once the config is read, even when it turns out invalid.
  private volatile Function<@Nullable String, String> redaction = Watukuy.redaction(Set.of());

  /** The time the effects commands stamp writes and compare leases with. */
  final Clock clock;

  /** Where a command asks the operator; null when standard input is not a terminal. */
  final @Nullable Terminal terminal;

  Cli(PrintStream out, PrintStream err, Function<String, @Nullable String> env, boolean verbose) {
    this(out, err, env, verbose, Clock.systemUTC(), Terminal.system());
  }

  Cli(
      PrintStream out,
      PrintStream err,
      Function<String, @Nullable String> env,
      boolean verbose,
      Clock clock,
      @Nullable Terminal terminal) {
    this.out = out;
    this.err = err;
    this.env = env;
    this.verbose = verbose;
    this.clock = clock;
    this.terminal = terminal;
  }

  /** The operator at a terminal, asked a question that takes one line. */
  interface Terminal {
    /**
     * Shows {@code question} and reads the answer.
     *
     * @return the line typed, or null at the end of input
     */
    @Nullable String ask(String question);

    /** The process's terminal, or null when standard input or output is not one. */
    static @Nullable Terminal system() {
      if (!DemoCommand.onTerminal()) return null;
      java.io.Console console = System.console();
      return console == null ? null : question -> console.readLine("%s", question);
    }
  }

  CommandLine commandLine() {
    CommandLine root = new CommandLine(new Root());
    root.addSubcommand("run", new CommandLine(new Run()));
    root.addSubcommand("validate", new CommandLine(new Validate()));
    root.addSubcommand("migrate", new CommandLine(new Migrate()));
    root.addSubcommand("inspect", new CommandLine(new Inspect()));
    root.addSubcommand(
        "auth",
        new CommandLine(new AuthCommands.Auth()).addSubcommand("set", new AuthCommands.Set(this)));
    root.addSubcommand(
        "pause",
        operation(
            "pause",
            "Pauses every key (every partition) of poller NAME until resume.",
            "run skips a paused key, and a running daemon stops polling it from its next cycle."));
    root.addSubcommand(
        "resume",
        operation(
            "resume",
            "Resumes every key (every partition) of poller NAME.",
            "The keys return to idle; a pending Retry-After or an open circuit still applies."));
    root.addSubcommand(
        "trigger",
        operation(
            "trigger",
            "Makes every key (every partition) of poller NAME due now.",
            "It also forces a probe of an open circuit; a running daemon polls the keys at once."));
    root.addSubcommand(
        "confirm-deletes",
        operation(
            "confirm-deletes",
            "Releases the deletes the delete guard holds on every key (every partition) of poller"
                + " NAME.",
            "The next complete listing of each key emits its deletes once, however many; then the"
                + " guard is armed again (docs/operations.md, \"False deletes\")."));
    // Redrawn in place only on the process's own terminal, never into a stream a caller passed in.
    root.addSubcommand(
        "demo",
        new CommandLine(new DemoCommand(out, err, err == System.err && DemoCommand.onTerminal())));
    OperationCommands ops = new OperationCommands(this);
    root.addSubcommand("reset-cursor", new CommandLine(ops.new ResetCursor()));
    root.addSubcommand("backfill", new CommandLine(ops.new Backfill()));
    root.addSubcommand("replay", new CommandLine(ops.new Replay()));
    root.addSubcommand("parked", ops.parked());
    root.addSubcommand("effects", new EffectCommands(this).effects());
    return root;
  }

  /**
   * One of pause, resume and trigger: the shared command with its own synopsis, and its own
   * sentences before the shared description, so each reads as its own command in --help.
   */
  private CommandLine operation(String op, String... description) {
    CommandLine cmd = new CommandLine(new Operation(op));
    CommandLine.Model.UsageMessageSpec usage = cmd.getCommandSpec().usageMessage();
    List<String> all = new ArrayList<>(List.of(description));
    all.addAll(List.of(usage.description()));
    usage.description(all.toArray(String[]::new));
    String[] synopsis = usage.customSynopsis();
    for (int i = 0; i < synopsis.length; i++)
      synopsis[i] = synopsis[i].replace("pause|resume|trigger", op);
    usage.customSynopsis(synopsis);
    return cmd;
  }

  /**
   * {@code message} with the config's secrets hidden in every encoding (Watukuy.redaction); null
   * reads as {@code "null"}. Apply before cutting or escaping.
   */
  String redact(@Nullable String message) {
    return redaction.apply(String.valueOf(message));
  }

  /** One line for an error that ended a command, in words (see {@link Failures}). */
  static String describe(Throwable e) {
    return Failures.problem(e);
  }

  CliConfig load(Path file) {
    return ConfigReader.read(file, env, found -> redaction = Watukuy.redaction(found));
  }

  /**
   * {@link #load} for a command that never makes a sink: the sinks' {@code ${NAME}} and {@code
   * ${file:PATH}} may be missing ({@link ConfigReader#readWithoutSinkSecrets}).
   */
  CliConfig loadWithoutSinks(Path file) {
    return ConfigReader.readWithoutSinkSecrets(
        file, env, found -> redaction = Watukuy.redaction(found));
  }

  static StateStore open(StoreSpec spec) {
    return Stores.open(spec);
  }

  static final class Verbose {
    @Option(
        names = "--verbose",
        description = "Log at debug level and print stack traces, on stderr.")
    boolean verbose;
  }

  // Help texts: the first description line is one sentence (the command lists show it alone);
  // each further line is a paragraph that picocli wraps, so no sentence is broken by hand.
  @Command(
      name = "watukuy",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      description = {
        "Polls HTTP JSON APIs declared in YAML and writes each change as one JSON line.",
        "Events go to standard output, everything else to standard error. Exit codes: 0 success, 1 a fetch,"
            + " store or output error, 2 a usage or config error.",
        "Run watukuy COMMAND --help for the arguments of a command; docs/config.md has the YAML format."
      },
      synopsisSubcommandLabel = "COMMAND")
  final class Root implements Callable<Integer> {
    @Override
    public Integer call() {
      err.println("watukuy: a command is required; see watukuy --help");
      return Main.USAGE;
    }
  }

  @Command(
      name = "run",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      description = {
        "Polls the APIs of CONFIG and writes each change as one JSON line.",
        "With --once: one pass (idle and backing-off keys are made due), delivery, then exit 0, or 1 if"
            + " any key failed. Without --once: runs until SIGINT or SIGTERM, delivers what was fetched,"
            + " and exits 0."
      })
  final class Run implements Callable<Integer> {
    @Parameters(
        paramLabel = "CONFIG",
        description = "The YAML config file; relative paths in it resolve against its folder.")
    Path config;

    @Option(
        names = "--once",
        description = "Poll once, deliver and exit, for cron (default: run as a daemon).")
    boolean once;

    @Option(names = "--quiet", description = "No progress line every 10 s while a cycle runs long.")
    boolean quiet;

    @Option(
        names = "--poller",
        paramLabel = "NAME",
        arity = "1..*",
        description = "Run only these pollers (default: all of CONFIG).")
    List<String> only = new ArrayList<>();

    @Option(
        names = "--admin",
        paramLabel = "HOST:PORT",
        description =
            "Serve health, metrics and operations over HTTP on this address, e.g. 127.0.0.1:8080"
                + " (daemon only; docs/operations.md, \"Admin HTTP\"). Any address but loopback needs"
                + " --admin-token-file.")
    @Nullable String admin;

    @Option(
        names = "--admin-token-file",
        paramLabel = "PATH",
        description =
            "A file holding the bearer token every admin request but /health/live and"
                + " /health/ready must carry (at least 16 characters).")
    @Nullable Path adminTokenFile;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    private @Nullable AdminOption adminOption;

    // Every poller of the config: an effect reads its source's log even when --poller leaves the
    // source itself out of this run.
    private List<Poller<JsonNode>> allPollers = List.of();

    @CommandLine.Mixin Verbose v;

    @Override
    public Integer call() throws Exception {
      adminOption = adminOption();
      CliConfig cfg = load(config);
      Set<String> selected = new LinkedHashSet<>();
      for (String name : only) {
        if (cfg.pollers().stream().noneMatch(p -> p.name().equals(name))) {
          throw new ConfigException("--poller " + name + ": " + cfg.file() + " has no such poller");
        }
        selected.add(name);
      }
      if (selected.isEmpty()) cfg.pollers().forEach(p -> selected.add(p.name()));
      // Before the try: a missing folder is a config error (exit 2), not an output failure. The
      // same checks as validate, so that validate's ok means run accepts the file.
      RunChecks.check(cfg, selected);
      // Only the selected pollers are registered, and only their sinks made and opened: the
      // others are not run at all (docs/config.md, "Commands"), so a sink of theirs that
      // is down or refused cannot stop this run.
      allPollers = YamlPollers.build(cfg);
      List<Poller<JsonNode>> pollers =
          allPollers.stream().filter(p -> selected.contains(p.name())).toList();
      // Effects need a runtime that outlives a cycle: never silently not run.
      if (once && !cfg.effects().isEmpty())
        err.println(
            "watukuy: effects run in the daemon only; run --once does not run "
                + String.join(", ", cfg.effects().stream().map(e -> e.name()).toList()));
      boolean newStore = Stores.isNew(cfg.store());
      OutageLines outages = new OutageLines();
      ProgressLines progress = new ProgressLines(err, PROGRESS_EVERY);
      Map<PollerKey, String> unavailable = new ConcurrentHashMap<>();
      Map<String, CountingSink> sinks = new ConcurrentHashMap<>();
      AtomicBoolean deliveryFailed = new AtomicBoolean();
      WatukuyListener listener =
          new WatukuyListener() {
            @Override
            public void onDeliveryFailed(
                PollerKey key,
                String eventId,
                long sequence,
                int attempt,
                @Nullable Instant retryAt,
                Throwable cause) {
              // Never silent: a sink or output refusing an event is a line, and --once exits 1.
              // A park has its own warning line from the engine.
              deliveryFailed.set(true);
              if (retryAt == null) return;
              err.println(
                  "watukuy: "
                      + redact(
                          Failures.line(key, cause)
                              + " (event "
                              + eventId
                              + ", sequence "
                              + sequence
                              + ", attempt "
                              + attempt
                              + "; retried at "
                              + retryAt
                              + ")"));
            }

            @Override
            public void onPage(PollerKey key, int pages, int items, int events, Duration elapsed) {
              if (!quiet) progress.page(key, pages, items, events, elapsed);
            }

            @Override
            public void onCycle(KeyReport report) {
              progress.cycleEnded(report.key());
              // --once reports from the TickReport; the daemon, as each run ends, and a store
              // outage once when it starts and once when it ends (the engine backs it off).
              if (once) return;
              String line = outages.line(report.key(), report.error());
              if (line != null) err.println("watukuy: " + redact(line));
              Throwable error = report.error();
              if (error instanceof HandlerUnavailableException
                  && !OutputSink.isWriteFailure(error)) {
                // A sink that is down: one line when it starts failing, not one per retry.
                if (!String.valueOf(error.getMessage())
                    .equals(unavailable.put(report.key(), String.valueOf(error.getMessage()))))
                  err.println(
                      "watukuy: "
                          + redact(Failures.line(report.key(), error))
                          + "; the events stay pending, retrying with backoff");
                return;
              }
              // Its recovery is a line too, once, as its outage was (the engine's own line about
              // it is --verbose only).
              if (error == null && unavailable.remove(report.key()) != null)
                err.println(
                    "watukuy: "
                        + redact(Failures.who(report.key()) + ": " + sinkName(sinks, report.key()))
                        + " recovered, delivering the pending events");
              if (error != null && !OutageLines.isStore(error)) failed(report.key(), error);
            }
          };
      Supplier<Session> open =
          () ->
              new Session(
                  cfg.store(),
                  pollers,
                  cfg.delivery(),
                  cfg.secrets(),
                  adminOption == null
                      ? List.of(listener)
                      : List.of(listener, adminOption.metrics()),
                  cfg.budgets(),
                  cfg.budgetStore(),
                  cfg.leaseTtl(),
                  store -> {
                    // The credentials table of grant: refreshToken lives in this store too.
                    cfg.credentials().bind(store);
                    // Made once the store is open: a sink may write in the store's own database.
                    sinks.clear();
                    sinks.putAll(SinkSections.create(cfg, selected, store, out));
                    return sinks;
                  });
      AtomicBoolean kept = new AtomicBoolean(!newStore);
      try {
        return run(cfg, open, selected, pollers, sinks, kept, deliveryFailed);
      } catch (ConfigException e) {
        // Exit 2 before the store was announced leaves it as it was: the store this run created
        // is removed. Once announced (sinks open, fetching begun) it is kept, whatever happens.
        if (!kept.get()) Stores.discardNew(cfg.store());
        throw e;
      }
    }

    /**
     * Opens the session, the outputs and the sinks, then runs once or as a daemon. A new store is
     * announced ({@code new store}, and {@code kept} set) once the sinks opened or are only
     * unreachable, so a config error (exit 2) never announces a store the caller then removes.
     *
     * @param kept false while the SQLite store is one this run creates and has not announced
     */
    private int run(
        CliConfig cfg,
        Supplier<Session> open,
        Set<String> selected,
        List<Poller<JsonNode>> pollers,
        Map<String, CountingSink> sinks,
        AtomicBoolean kept,
        AtomicBoolean deliveryFailed)
        throws Exception {
      // A daemon started before its store's server waits for it; --once reports and exits.
      try (Session s =
          once
              ? open.get()
              : StoreStartup.await(
                  open, line -> err.println("watukuy: " + redact(line)), Thread::sleep)) {
        List<OutputSink> outputs = outputs(sinks, pollers);
        try {
          for (OutputSink o : outputs) {
            boolean newFile = o.file() != null && !Files.exists(o.file());
            o.open();
            if (newFile) err.println("watukuy: new output file:" + o.file().toAbsolutePath());
            if (o.output().trimmed() > 0)
              err.println(
                  "watukuy: output "
                      + o.file()
                      + ": cut an incomplete last line of "
                      + count(o.output().trimmed(), "byte")
                      + " (a write that never finished; its event is delivered again)");
          }
        } catch (IOException e) {
          keep(cfg, kept);
          err.println("watukuy: " + e.getMessage());
          return Main.FAILED;
        }
        try {
          // A sink that can never work (bad credentials, a missing topic) is a config error at
          // start (exit 2, thrown on); one that cannot be reached now is reported here. Each sink
          // that failed is one line: the others come suppressed by the one thrown.
          s.engine.openSinks();
        } catch (ConfigException | HandlerUnavailableException e) {
          for (Throwable other : e.getSuppressed())
            err.println("watukuy: " + redact(other.getMessage()) + sinkOutcome(other));
          if (e instanceof ConfigException) throw e;
          keep(cfg, kept);
          if (once) {
            err.println("watukuy: " + redact(e.getMessage()) + "; the events stay pending");
            if (verbose) e.printStackTrace(err);
            return Main.FAILED;
          }
          err.println(
              "watukuy: "
                  + redact(e.getMessage())
                  + "; running on, the sink is opened again before its first batch");
        }
        keep(cfg, kept);
        if (!once) return daemon(cfg, s, selected, outputs, sinks.values());
        int code = once(s, selected, outputs);
        // An event a sink or output refused (retried or parked) is a failed run for cron.
        return deliveryFailed.get() ? Main.FAILED : code;
      }
    }

    /** Checks --admin and --admin-token-file before anything opens: a mistake is exit 2. */
    private @Nullable AdminOption adminOption() {
      if (admin == null) {
        if (adminTokenFile != null)
          throw new CommandLine.ParameterException(
              spec.commandLine(), "--admin-token-file " + adminTokenFile + " needs --admin");
        return null;
      }
      if (once)
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--admin " + admin + " serves a daemon: drop --once or --admin");
      try {
        return AdminOption.check(admin, adminTokenFile, line -> err.println("watukuy: " + line));
      } catch (ConfigException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
    }

    /** Announces the store this run created, once: from here on it is kept. */
    private void keep(CliConfig cfg, AtomicBoolean kept) {
      if (kept.compareAndSet(false, true))
        err.println("watukuy: new store " + storeText(cfg.store()));
    }

    /** {@code sink NAME} of a key's poller, or {@code destination} when it has none. */
    private static String sinkName(Map<String, CountingSink> sinks, PollerKey key) {
      CountingSink s = sinks.get(key.poller());
      return s == null ? "destination" : "sink " + s.sink().name();
    }

    /**
     * What happens after a sink failed to open, for its line: nothing for one that can never work
     * (the command exits 2), else that its events wait.
     */
    private String sinkOutcome(Throwable failure) {
      if (failure instanceof ConfigException) return "";
      return once
          ? "; the events stay pending"
          : "; running on, the sink is opened again before its first batch";
    }

    /** The standard-output and file sinks of the pollers that run, each once. */
    private static List<OutputSink> outputs(
        Map<String, CountingSink> sinks, List<Poller<JsonNode>> pollers) {
      Set<OutputSink> outputs = new LinkedHashSet<>();
      for (Poller<JsonNode> p : pollers)
        if (sinks.get(p.name()) != null && sinks.get(p.name()).sink() instanceof OutputSink o)
          outputs.add(o);
      return List.copyOf(outputs);
    }

    /** One line for a failed key; an unavailable output is reported once, by the caller. */
    private void failed(PollerKey key, Throwable error) {
      if (OutputSink.isWriteFailure(error)) return;
      err.println("watukuy: " + redact(Failures.line(key, error)));
      if (verbose) error.printStackTrace(err);
    }

    private int once(Session s, Set<String> selected, List<OutputSink> outputs) {
      Inspection before = s.engine.inspect();
      Instant now = before.at();
      for (KeyInspection k : before.pollers()) {
        if (!selected.contains(k.poller())) continue;
        ScheduleState.Status st = k.state();
        boolean throttled =
            st == ScheduleState.Status.THROTTLED
                || (k.throttledUntil() != null && k.throttledUntil().isAfter(now));
        boolean blocked =
            k.paused() != null
                || st == ScheduleState.Status.PAUSED
                || throttled
                || st == ScheduleState.Status.CIRCUIT_OPEN;
        // Key by key: a paused or throttled partition must not keep its idle siblings waiting, and
        // trigger() would force a circuit probe.
        if (!blocked
            && (st == ScheduleState.Status.IDLE || st == ScheduleState.Status.BACKING_OFF)) {
          s.engine.trigger(PollerKey.of(k.poller(), k.partition()));
        }
      }
      TickReport report = s.engine.tick(new TickOptions(null, selected));
      int code = Main.OK;
      @Nullable Inspection after = null;
      // Keys whose line already said what makes them unhealthy, or that failed in this run.
      Set<PollerKey> told = new HashSet<>();
      for (KeyReport k : report.keys()) {
        String who =
            "poller "
                + k.key().poller()
                + (k.key().partition().isEmpty() ? "" : " partition " + k.key().partition());
        @Nullable HttpStatusException throttle = Failures.throttle(k.error());
        if (k.outcome() == KeyReport.Outcome.DEFERRED && k.error() != null) {
          // A budget timeout is a skip (docs/architecture.md, "Exit codes"): the line says the
          // cycle is deferred.
          err.println("watukuy: " + redact(Failures.line(k.key(), k.error())));
        } else if (throttle != null) {
          // A 429 (or a 503 with Retry-After) met in this run is a skip (docs/architecture.md,
          // "Exit codes").
          if (after == null) after = s.engine.inspect();
          err.println(
              "watukuy: "
                  + who
                  + ": skipped ("
                  + StatusLines.throttled(throttle, after, k.key())
                  + ")");
        } else if (k.error() != null) {
          code = Main.FAILED;
          told.add(k.key());
          failed(k.key(), k.error());
        } else if (k.outcome() != KeyReport.Outcome.POLLED) {
          if (after == null) after = s.engine.inspect();
          KeyInspection inspected = StatusLines.find(after, k.key());
          // A skipped key that is unhealthy (an open circuit, a poison halt, held deletes, no
          // success for longer than staleAfter) fails the run, so that cron alerting sees a
          // vendor that stays down. The verdict is Watukuy.health()'s, KeyInspection.health(): a
          // paused key is healthy there (docs/operations.md, "Health").
          String problem = inspected == null ? null : inspected.health().problem();
          if (problem != null) code = Main.FAILED;
          told.add(k.key());
          err.println(
              "watukuy: "
                  + who
                  + ": skipped ("
                  + (problem != null
                      ? redact(problem)
                      : StatusLines.skipReason(k.outcome(), inspected))
                  + ")");
        }
      }
      // Every other key the run reported is judged by the same verdict as Watukuy.health(): a
      // throttled or deferred key without a success for longer than staleAfter, a polled key with
      // more parked rows than maxParked (docs/operations.md, "Health").
      for (KeyReport k : report.keys()) {
        if (told.contains(k.key())) continue;
        if (after == null) after = s.engine.inspect();
        KeyInspection inspected = StatusLines.find(after, k.key());
        if (inspected == null || inspected.health().healthy()) continue;
        KeyHealth health = inspected.health();
        code = Main.FAILED;
        err.println(
            "watukuy: "
                + Failures.who(k.key())
                + ": unhealthy ("
                + String.join(", ", health.reasons().stream().map(KeyHealth.Reason::wire).toList())
                + "): "
                + redact(health.problem()));
      }
      for (OutputSink o : outputs) {
        IOException failed = o.output().failure();
        if (failed != null) {
          err.println(
              "watukuy: " + redact(failed.getMessage()) + "; the undelivered events stay pending");
          code = Main.FAILED;
        }
      }
      return code;
    }

    /**
     * Waits up to a second for the stop signal. A cycle that fills the heap (a vendor's body) may
     * make this thread's allocation fail too: the cycle ends and its memory is freed, so the wait
     * goes on rather than take the daemon and its other pollers down.
     */
    private static boolean awaitStop(CountDownLatch stop) throws InterruptedException {
      try {
        return stop.await(1, TimeUnit.SECONDS);
      } catch (OutOfMemoryError e) {
        return stop.getCount() == 0;
      }
    }

    private int daemon(
        CliConfig cfg,
        Session s,
        Set<String> selected,
        List<OutputSink> outputSinks,
        Collection<CountingSink> sinks)
        throws InterruptedException {
      List<Output> outputs = outputSinks.stream().map(OutputSink::output).toList();
      List<Output> files = outputs.stream().filter(o -> !o.isStdout()).toList();
      CountDownLatch stop = new CountDownLatch(1);
      Thread hook = new Thread(stop::countDown, "watukuy-shutdown");
      Runtime.getRuntime().addShutdownHook(hook);
      Signals.onTermination(stop::countDown);
      boolean hangup =
          Signals.onHangup(
              () -> {
                for (Output output : files) {
                  try {
                    output.reopen();
                    err.println("watukuy: output reopened (SIGHUP)");
                  } catch (IOException e) {
                    err.println("watukuy: " + redact(e.getMessage()));
                  }
                }
              });
      if (!hangup && !files.isEmpty())
        err.println(
            "watukuy: SIGHUP is ignored in this process (started under nohup?): kill -HUP will not"
                + " reopen the output; rotate it with the daemon stopped, or start it without nohup");
      // A file that fails is retried (below); standard output that fails stops the daemon.
      for (Output output : files)
        output.onChange(
            line ->
                err.println(
                    "watukuy: "
                        + redact(line)
                        + (line.endsWith(" recovered")
                            ? ", delivering the pending events"
                            : "; the events stay pending, retrying with backoff")));
      // Before start(): a first cycle that fails at once must not print its line ahead of this one.
      err.println(
          "watukuy: running "
              + count(selected.size(), "poller")
              + " ("
              + String.join(", ", selected)
              + ") from "
              + cfg.file()
              + ", store "
              + redact(storeText(cfg.store()))
              + "; Ctrl-C to stop");
      // The same store as the pollers (docs/effects.md, "The model"); closed after the engine
      // stopped, so a SIGTERM drains both. Built before the admin server, which serves them.
      Effects effects =
          cfg.effects().isEmpty()
              ? null
              : YamlEffects.runtime(
                  cfg.effects(), s.store, allPollers, cfg.secrets(), cfg.secretKey());
      AdminServer adminServer =
          adminOption == null ? null : adminOption.start(s, cfg.secrets(), effects);
      if (adminServer != null)
        err.println(
            "watukuy: admin HTTP on "
                + adminServer.url()
                + (adminOption.hasToken() ? " (bearer token required)" : ""));
      s.engine.start();
      if (effects != null) {
        effects.start();
        err.println(
            "watukuy: running "
                + count(cfg.effects().size(), "effect")
                + " ("
                + String.join(", ", effects.names())
                + ")");
      }
      int code = Main.OK;
      try {
        while (!awaitStop(stop)) {
          // A closed standard output does not come back; a file (a full disk) may: the engine
          // backs off the keys whose delivery it stopped, and Output says when it recovers.
          Output closed =
              outputs.stream()
                  .filter(o -> o.isStdout() && o.failure() != null)
                  .findFirst()
                  .orElse(null);
          if (closed != null) {
            err.println(
                "watukuy: "
                    + redact(closed.failure().getMessage())
                    + "; stopping, the undelivered events stay pending");
            s.engine.stop(false);
            code = Main.FAILED;
            break;
          }
        }
        if (code == Main.OK) s.engine.stop(true); // drains: what was fetched is delivered first
      } finally {
        if (effects != null) effects.close(); // waits up to 30 s for invocations in flight
        if (adminServer != null) adminServer.close();
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // already shutting down
        }
      }
      long delivered = new LinkedHashSet<>(sinks).stream().mapToLong(CountingSink::delivered).sum();
      err.println("watukuy: stopped, " + count(delivered, "event") + " delivered");
      return code;
    }
  }

  /** How often a long cycle prints its progress (docs/operations.md, "Progress"). */
  static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);

  static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  /**
   * The store as a user finds it: {@code sqlite:} with the absolute path, else its URI with any
   * password hidden.
   */
  static String storeText(StoreSpec spec) {
    return spec.sqlitePath() != null
        ? "sqlite:" + spec.sqlitePath().toAbsolutePath()
        : spec.display();
  }

  @Command(
      name = "validate",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      description = {
        "Checks CONFIG as run does before it polls, without opening the store or the output.",
        "Prints FILE: ok, N poller(s) and exits 0, or prints the first problem as FILE:LINE: ... and exits 2.",
        "With effects: FILE: ok, N poller(s), M effect(s), then one line per effect: its name, source"
            + " poller, event types and key."
      })
  final class Validate implements Callable<Integer> {
    @Parameters(paramLabel = "CONFIG", description = "The YAML config file.")
    Path config;

    @CommandLine.Mixin Verbose v;

    @Override
    public Integer call() {
      CliConfig cfg = load(config);
      RunChecks.check(cfg, SinkSections.every(cfg));
      for (String warning : ConfigWarnings.of(cfg)) err.println(warning);
      String effects = cfg.effects().isEmpty() ? "" : ", " + cfg.effects().size() + " effect(s)";
      out.println(cfg.file() + ": ok, " + cfg.pollers().size() + " poller(s)" + effects);
      for (YamlEffects.EffectSpec e : cfg.effects()) out.println(YamlEffects.describe(e));
      return Main.OK;
    }
  }

  @Command(
      name = "migrate",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      description = {
        "Creates or upgrades the tables of a store.",
        "The store is the one CONFIG names, or the one given by --store."
      })
  final class Migrate implements Callable<Integer> {
    @Parameters(
        paramLabel = "CONFIG",
        arity = "0..1",
        description = "The YAML config file whose store to migrate.")
    @Nullable Path config;

    @Option(
        names = "--store",
        paramLabel = "URI",
        description = "sqlite:PATH (relative to the current folder) instead of CONFIG.")
    @Nullable String store;

    @CommandLine.Mixin Verbose v;

    @Override
    public Integer call() {
      if ((config == null) == (store == null)) {
        err.println(
            "watukuy migrate: give CONFIG or --store URI" + (config == null ? "" : ", not both"));
        return Main.USAGE;
      }
      StoreSpec spec = store != null ? StoreUris.parse(store) : loadWithoutSinks(config).store();
      if (spec.sqlitePath() != null
          && !Files.isDirectory(spec.sqlitePath().toAbsolutePath().getParent())) {
        throw new ConfigException(
            spec.display() + ": folder " + spec.sqlitePath().getParent() + " does not exist");
      }
      try (StateStore s = open(spec)) {
        s.migrate();
      }
      err.println("watukuy: " + spec.display() + ": migrated");
      return Main.OK;
    }
  }

  @Command(
      name = "inspect",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      description = {
        "Shows the state of every key of the pollers of CONFIG, or of every poller with state in the"
            + " store of --store URI.",
        "One row per key: state, when it is next due, lag (how far a timestamp cursor is behind now;"
            + " - when unknown, as with --store), pending and parked events, the last success and the"
            + " last error with how long ago, and whether the key has succeeded since; durations in"
            + " human units (850ms, 3m20s, 2h5m).",
        "Then the store's credentials (grant: refreshToken): version, the key id each is sealed"
            + " under, when written and the claim, never the value; and the auths of CONFIG not"
            + " stored yet."
      })
  final class Inspect implements Callable<Integer> {
    @Parameters(paramLabel = "CONFIG", arity = "0..1", description = "The YAML config file.")
    @Nullable Path config;

    @Option(
        names = "--store",
        paramLabel = "URI",
        description =
            "A store URI instead of CONFIG: no secrets of the pollers needed; lag shows as -.")
    @Nullable String store;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--json",
        description =
            "One line of JSON instead, with machine values: lagMs and intervalMs in milliseconds,"
                + " instants in ISO 8601.")
    boolean json;

    @CommandLine.Mixin Verbose v;

    @Override
    public Integer call() {
      if ((config == null) == (store == null))
        throw OperationCommands.usage(
            spec,
            config == null ? "give CONFIG or --store URI" : "give CONFIG or --store URI, not both");
      CliConfig cfg = config != null ? loadWithoutSinks(config) : null;
      try (Session s = cfg != null ? new Session(cfg) : OperationCommands.storeSession(store)) {
        Inspection ins = s.engine.inspect();
        // The sinks from the config, never made: a sink's secrets are not needed here.
        List<SinkLines.Row> sinkRows =
            cfg == null ? List.of() : SinkLines.rows(cfg, ins, Cli.this::redact);
        // The credentials table, never a sealed value (docs/operations.md, "Credentials").
        List<CredentialLines.Row> credentialRows =
            s.store instanceof CredentialStore c
                ? CredentialLines.rows(c, config, cfg == null ? Map.of() : cfg.auths())
                : List.of();
        if (json) {
          String j = cfg == null ? ins.toJson() : SinkLines.withSinks(ins.toJson(), sinkRows);
          out.println(redact(CredentialLines.withCredentials(j, credentialRows)));
          return Main.OK;
        }
        // Durations in human units here; --json keeps the machine values (lagMs, ISO instants).
        out.printf(
            "%-20s %-12s %-12s %-12s %-10s %-8s %-7s %-14s %s%n",
            "POLLER",
            "PARTITION",
            "STATE",
            "NEXT DUE",
            "LAG",
            "PENDING",
            "PARKED",
            "LAST SUCCESS",
            "LAST ERROR");
        for (KeyInspection k : ins.pollers()) {
          out.printf(
              "%-20s %-12s %-12s %-12s %-10s %-8d %-7d %-14s %s%n",
              k.poller(),
              k.partition().isEmpty() ? "-" : k.partition(),
              k.state().wire(),
              k.nextDueAt() == null || !k.nextDueAt().isAfter(ins.at())
                  ? "now"
                  : "in " + SinkConfig.formatDuration(Duration.between(ins.at(), k.nextDueAt())),
              k.lagMs() == null ? "-" : SinkConfig.formatDuration(Duration.ofMillis(k.lagMs())),
              k.outboxPending(),
              k.parked(),
              StatusLines.ago(k.lastSuccessAt(), ins.at()),
              StatusLines.lastError(k, ins.at(), Cli.this::redact));
          if (k.listing() != null && k.listing().heldDeletes() > 0)
            out.printf(
                "  %s: %d deletes held by the delete guard%s%n",
                k.key(),
                k.listing().heldDeletes(),
                k.listing().deletesConfirmed()
                    ? " (confirmed: the next complete listing emits them)"
                    : "; watukuy confirm-deletes releases them");
          // The verdict of Watukuy.health() (docs/operations.md, "Health"), and staleness a pause
          // keeps out of it.
          KeyHealth health = k.health();
          if (!health.healthy())
            out.printf(
                "  %s: unhealthy (%s): %s%n",
                k.key(),
                String.join(", ", health.reasons().stream().map(KeyHealth.Reason::wire).toList()),
                redact(health.problem()));
          else if (k.stale())
            out.printf(
                "  %s: stale, no successful poll for longer than %s; paused, so not unhealthy%n",
                k.key(), SinkConfig.formatDuration(Duration.ofMillis(k.staleAfterMs())));
        }
        // An effect the config no longer declares still holds the logs it read (docs/effects.md,
        // "Forget"); with --store there is no config to tell which effects are retired.
        if (cfg != null)
          EffectForgetCommand.printRetired(
              out,
              s.store,
              config,
              cfg.effects().stream().map(YamlEffects.EffectSpec::name).collect(Collectors.toSet()));
        if (!sinkRows.isEmpty()) SinkLines.print(out, sinkRows, ins.at());
        CredentialLines.print(out, credentialRows, ins.at(), Cli.this::redact);
        return Main.OK;
      }
    }
  }

  @Command(
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      customSynopsis = "watukuy pause|resume|trigger (CONFIG | --store URI) NAME [--partition P]",
      description =
          "Takes CONFIG, or --store URI when there is no config; then NAME must have state in that store.")
  final class Operation implements Callable<Integer> {
    private final String op;
    @CommandLine.Mixin OperationCommands.Target target;

    @Parameters(
        paramLabel = "[CONFIG] NAME",
        arity = "1..2",
        description = "The YAML config file (unless --store), then the poller's name.")
    List<String> args = new ArrayList<>();

    @CommandLine.Mixin OperationCommands.PartitionOption only;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @CommandLine.Mixin Verbose v;

    Operation(String op) {
      this.op = op;
    }

    @Override
    public Integer call() {
      OperationCommands.Resolved r =
          OperationCommands.resolve(Cli.this, spec, target, args, false, false);
      String name = r.name();
      try (Session s = r.session()) {
        OperationCommands.Selection keys = only.select(s.engine, name);
        switch (op) {
          case "pause" -> keys.pause();
          case "resume" -> keys.resume();
          case "confirm-deletes" -> keys.confirmDeletes();
          default -> keys.trigger();
        }
      }
      err.println(
          "watukuy: "
              + only.who(name)
              + ": "
              + switch (op) {
                case "confirm-deletes" -> "deletes confirmed; the next complete listing emits them";
                case "trigger" -> "triggered";
                default -> op + "d";
              });
      return Main.OK;
    }
  }
}
