package io.watukuy.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.ConfigException;
import io.watukuy.PollerKey;
import io.watukuy.cli.CliConfig.StoreSpec;
import io.watukuy.effects.EffectPlan;
import io.watukuy.effects.InFlightLane;
import io.watukuy.effects.StuckLane;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectRecord;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.StateStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code watukuy effects list|show|skip|quarantine|release|rewind|plan|forget|retry}
 * (docs/config.md, "Effects commands"; docs/effects.md): the operator's view and levers on the
 * effect tables of a store, for effects declared in YAML ({@code effects:}) or in Java alike.
 * {@code CONFIG} names the store ({@code store:}), as {@code --store URI} does, and the secrets
 * hidden in what the commands print and in a quarantine reason they store; the commands read what
 * an effects runtime persisted there (quarantine, counters, cursors, invocation rows, the effect
 * lease) through {@link EffectStore}; {@code plan} ({@link EffectPlanCommand}) also reads the
 * config's {@code effects:}.
 */
final class EffectCommands {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The stuck lanes and terminal rows {@code show} lists per source key, as the admin view. */
  static final int SHOW_LIMIT = 100;

  // How an invocation whose event belongs to no key is named in text; JSON says null.
  private static final String NO_KEY = "(no key)";

  /**
   * How long a rewind or a forget holds the effect's lease: as long as an engine's
   * (EffectRun.LEASE_TTL).
   */
  static final Duration REWIND_LEASE = Duration.ofSeconds(30);

  private static final int PAGE = 500;

  private final Cli cli;

  EffectCommands(Cli cli) {
    this.cli = cli;
  }

  CommandLine effects() {
    CommandLine effects = new CommandLine(new Effects());
    effects.addSubcommand("list", new CommandLine(new ListEffects()));
    effects.addSubcommand("show", new CommandLine(new Show()));
    effects.addSubcommand("skip", new CommandLine(new Skip()));
    effects.addSubcommand("quarantine", new CommandLine(new Quarantine()));
    effects.addSubcommand("release", new CommandLine(new Release()));
    effects.addSubcommand("rewind", new CommandLine(new Rewind()));
    effects.addSubcommand("plan", new CommandLine(new EffectPlanCommand(cli)));
    effects.addSubcommand("forget", new CommandLine(new EffectForgetCommand(cli, this)));
    effects.addSubcommand("retry", new CommandLine(new EffectRetryCommand(cli, this)));
    return effects;
  }

  /**
   * The store the arguments name, opened, and the arguments after {@code CONFIG}.
   *
   * @param display how messages name the store ({@code sqlite:/srv/watukuy.db})
   */
  record Opened(EffectStore effects, StateStore store, String display, List<String> rest)
      implements AutoCloseable {
    @Override
    public void close() {
      store.close();
    }

    /**
     * NAME, once the arguments after {@code CONFIG} are checked to be NAME (and POSITION when
     * {@code withPosition}) and nothing else, POSITION to be a log position, and NAME to be an
     * effect of the store, in that order: the prologue of every command on one effect.
     *
     * @throws CommandLine.ParameterException for missing or extra arguments, or a bad POSITION
     * @throws ConfigException for an effect the store does not hold
     */
    String effect(CommandSpec spec, boolean withPosition) {
      expect(spec, rest, withPosition);
      if (withPosition) position(spec);
      checkEffect(rest.get(0));
      return rest.get(0);
    }

    /** POSITION, the argument after NAME, as {@link #effect} checked it with a position. */
    long position(CommandSpec spec) {
      return EffectCommands.position(spec, rest.get(1));
    }

    /**
     * Checks that the store holds effect {@code name}.
     *
     * @throws ConfigException naming the effect and the ones the store holds
     */
    void checkEffect(String name) {
      List<String> known = effects.listEffects();
      if (known.contains(name)) return;
      throw new ConfigException(
          display
              + ": no effect "
              + name
              + (known.isEmpty()
                  ? " (the store holds no effects)"
                  : " (it holds: " + String.join(", ", known) + ")"));
    }

    /**
     * The source keys of {@code effect} a command acts on: P's with {@code --partition P}, else the
     * only one; an effect over several partitions needs P, as its positions are per key.
     *
     * @throws ConfigException for a partition the effect has no cursor on, or a missing P
     */
    EffectCursor cursor(String effect, @Nullable String partition) {
      List<EffectCursor> cursors = effects.loadCursors(effect);
      if (cursors.isEmpty())
        throw new ConfigException(
            "effect " + effect + ": no position stored yet (it has not read its source)");
      if (partition == null) {
        if (cursors.size() == 1) return cursors.get(0);
        throw new ConfigException(
            "effect "
                + effect
                + " reads "
                + cursors.size()
                + " keys ("
                + keys(cursors)
                + ") and positions are per key: give --partition P");
      }
      for (EffectCursor c : cursors) if (c.source().partition().equals(partition)) return c;
      if (cursors.size() == 1 && cursors.get(0).source().partition().isEmpty())
        throw new ConfigException(
            "effect "
                + effect
                + ": no partition '"
                + partition
                + "': its source "
                + cursors.get(0).source().poller()
                + " is not partitioned (leave out --partition)");
      throw new ConfigException(
          "effect "
              + effect
              + ": no partition '"
              + partition
              + "' (known: "
              + cursors.stream()
                  .map(c -> c.source().partition().isEmpty() ? "\"\"" : c.source().partition())
                  .collect(Collectors.joining(", "))
              + ")");
    }
  }

  private static String keys(List<EffectCursor> cursors) {
    return cursors.stream().map(c -> c.source().toString()).collect(Collectors.joining(", "));
  }

  /**
   * {@code (CONFIG | --store URI) NAME}: the store and the effect show, quarantine and release act
   * on, shared as {@link OperationCommands} shares {@code ConfigAndName}.
   */
  static final class StoreAndName {
    @CommandLine.Mixin OperationCommands.Target target;

    @Parameters(
        paramLabel = "[CONFIG] NAME",
        arity = "1..*",
        description = "The YAML config file (unless --store), then the effect's name.")
    List<String> args = new ArrayList<>();
  }

  /** {@link #open(CommandSpec, OperationCommands.Target, List)} on what {@code named} read. */
  private Opened open(CommandSpec spec, StoreAndName named) {
    return open(spec, named.target, named.args);
  }

  /**
   * Opens the store {@code CONFIG} (the first argument) or {@code --store URI} names.
   *
   * @throws CommandLine.ParameterException when neither is given
   * @throws ConfigException for a config that does not load, a SQLite file that does not exist
   *     (these commands never create a store), or a store without effect tables
   */
  Opened open(CommandSpec spec, OperationCommands.Target target, List<String> args) {
    StoreSpec store;
    List<String> rest;
    if (target.store == null) {
      if (args.isEmpty()) throw OperationCommands.usage(spec, "give CONFIG, or --store URI");
      store = cli.loadWithoutSinks(Path.of(args.get(0))).store();
      rest = List.copyOf(args.subList(1, args.size()));
    } else {
      store = StoreUris.parse(target.store);
      rest = List.copyOf(args);
    }
    OperationCommands.requireSqliteFile(store, store.display());
    StateStore opened = Stores.open(store);
    Optional<EffectStore> effects = opened.effects();
    if (effects.isEmpty()) {
      opened.close();
      throw new ConfigException(store.display() + " keeps no effects");
    }
    return new Opened(effects.get(), opened, store.display(), rest);
  }

  /** {@code NAME} (and {@code POSITION} when {@code withPosition}), nothing else. */
  private static void expect(CommandSpec spec, List<String> rest, boolean withPosition) {
    String what = withPosition ? "NAME POSITION" : "NAME";
    int n = withPosition ? 2 : 1;
    if (rest.size() < n) throw OperationCommands.usage(spec, "give the effect's " + what);
    if (rest.size() > n)
      throw OperationCommands.usage(spec, "unexpected argument '" + rest.get(n) + "'");
  }

  private static long position(CommandSpec spec, String text) {
    if (!text.matches("[0-9]{1,18}"))
      throw OperationCommands.usage(
          spec, "POSITION '" + text + "' is not a log position (a whole number, 0 or more)");
    return Long.parseLong(text);
  }

  /** One line: a message or reason cut of its line breaks. */
  private String flat(@Nullable String text) {
    return cli.redact(text).replaceAll("\\s*\\R\\s*", " ");
  }

  @Command(
      name = "effects",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      synopsisSubcommandLabel =
          "(list | show | skip | quarantine | release | rewind | plan | forget | retry)",
      description = {
        "Shows and operates the effects a store holds: positions, stuck lanes, skips, quarantine and rewind.",
        "Takes CONFIG (its store:) or --store URI, and reads what the effects runtime stored there."
      })
  static final class Effects implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      throw OperationCommands.usage(
          spec, "give list, show, skip, quarantine, release, rewind, plan, forget or retry");
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      customSynopsis = "watukuy effects list (CONFIG | --store URI) [--json]",
      description = {
        "Lists the effects of the store with their states, positions, counters and quarantine.",
        "One tab-separated line per effect: NAME STATE POSITIONS TERMINAL-SKIPS LATEST-COLLAPSED"
            + " QUARANTINE, where STATE is quarantined, blocked, wedged, lagging or ok, POSITIONS is"
            + " KEY=POSITION per source key, comma-separated, and QUARANTINE is - or the time and"
            + " reason. Blocked is judged only for the effects CONFIG declares; stderr names the others."
            + " No effects: no output."
      })
  final class ListEffects implements Callable<Integer> {
    @CommandLine.Mixin OperationCommands.Target target;

    @Parameters(
        paramLabel = "CONFIG",
        arity = "0..*",
        description = "The YAML config file whose store to read (unless --store).")
    List<String> args = new ArrayList<>();

    @Option(names = "--json", description = "One JSON object per line instead.")
    boolean json;

    @Spec CommandSpec spec;
    @CommandLine.Mixin Cli.Verbose v;

    @Override
    public Integer call() {
      try (Opened o = open(spec, target, args)) {
        if (!o.rest().isEmpty())
          throw OperationCommands.usage(spec, "unexpected argument '" + o.rest().get(0) + "'");
        Map<String, List<EffectPlan>> declared =
            EffectStates.declared(cli, target.store == null ? args.get(0) : null, o.store());
        for (String name : o.effects().listEffects()) {
          Optional<EffectRecord> rec = o.effects().loadEffect(name);
          List<EffectCursor> cursors = o.effects().loadCursors(name);
          EffectStates.View view =
              EffectStates.of(
                  o.store(), o.effects(), name, rec, cursors, declared, cli.clock.instant());
          boolean running =
              o.effects().effectLease(name).filter(l -> held(l, cli.clock.instant())).isPresent();
          if (json) cli.out.println(withState(summary(name, rec, cursors), view, running));
          else {
            cli.out.println(line(name, rec, cursors, view));
            if (!view.blockedJudged()) notJudged(name);
          }
        }
      }
      return Main.OK;
    }

    private String line(
        String name,
        Optional<EffectRecord> rec,
        List<EffectCursor> cursors,
        EffectStates.View view) {
      String positions =
          cursors.isEmpty()
              ? "-"
              : cursors.stream()
                  .map(c -> c.source() + "=" + c.watermark())
                  .collect(Collectors.joining(","));
      return String.join(
          "\t",
          name,
          view.state().wire(),
          positions,
          Long.toString(rec.map(EffectRecord::terminalSkips).orElse(0L)),
          Long.toString(rec.map(EffectRecord::latestCollapsed).orElse(0L)),
          rec.filter(EffectRecord::quarantined)
              .map(r -> r.quarantinedAt() + " " + flat(r.quarantineReason()))
              .orElse("-"));
    }
  }

  /**
   * One stderr line for an effect whose blocked state the store alone cannot judge
   * (docs/effects.md, "States"): its listed state may read ok while its declaring program would
   * start it blocked.
   */
  private void notJudged(String name) {
    cli.err.println(
        "watukuy: effect "
            + name
            + ": no config at hand declares it, so its state leaves out blocked; "
            + EffectStates.NOT_JUDGED
            + name);
  }

  /**
   * Adds the derived state to an effect's JSON object: {@code state}, {@code blockedJudged}, and
   * per source (in {@code sources}, one per cursor in order) {@code head}, {@code lag}, {@code
   * blocked} (the reason, or null) and {@code inFlight}. With no engine holding the lease ({@code
   * running} false) a running row is what a stopped engine left: its {@code runningMs} is null and
   * {@code leftRunning} true, since no time runs for it anywhere.
   */
  private ObjectNode withState(ObjectNode n, EffectStates.View view, boolean running) {
    n.put("state", view.state().wire());
    n.put("blockedJudged", view.blockedJudged());
    ArrayNode sources = (ArrayNode) n.get("sources");
    for (int i = 0; i < view.sources().size(); i++) {
      EffectStates.Source src = view.sources().get(i);
      ObjectNode s = (ObjectNode) sources.get(i);
      s.put("head", src.head());
      s.put("lag", src.lag());
      s.put("blocked", src.blocked());
      ArrayNode inFlight = s.putArray("inFlight");
      for (InFlightLane lane : src.inFlight()) {
        ObjectNode l = inFlight.addObject();
        l.put("lane", lane.lane());
        l.put("position", lane.position());
        l.put("attempt", lane.attempt());
        l.put("runningMs", running ? lane.runningMs() : null);
        l.put("leftRunning", !running);
        l.put("error", lane.error() == null ? null : cli.redact(lane.error()));
      }
    }
    return n;
  }

  /**
   * The show lines of one source key's state: its blocked reason and its in-flight lanes. With no
   * engine holding the lease ({@code running} false) a running row is what a stopped engine left (a
   * kill, or the shutdown's 30 s): it runs nowhere and replays at the next start, which the line
   * says instead of a time it has been running.
   */
  private void stateLines(EffectStates.Source src, boolean running) {
    if (src.blocked() != null) cli.out.println("    " + flat(src.blocked()));
    for (InFlightLane lane : src.inFlight())
      cli.out.println(
          "    in flight lane "
              + laneName(lane.lane())
              + " at "
              + lane.position()
              + (running ? " for " + lane.runningMs() / 1000 + "s" : STOPPED)
              + ", attempt "
              + lane.attempt()
              + ": "
              + (lane.error() == null ? "no error yet" : flat(lane.error())));
  }

  // A running row no engine holds the lease for: left by a kill or the shutdown's 30 s.
  private static final String STOPPED =
      " when its engine stopped (no engine runs it; it replays at the next start)";

  /** The listing's object of one effect; {@code show --json} adds to it. */
  private ObjectNode summary(String name, Optional<EffectRecord> rec, List<EffectCursor> cursors) {
    ObjectNode n = JSON.createObjectNode();
    n.put("effect", name);
    EffectRecord r = rec.orElse(null);
    n.put("quarantined", r != null && r.quarantined());
    n.put("quarantinedAt", r == null || r.quarantinedAt() == null ? null : r.quarantinedAt() + "");
    n.put(
        "quarantineReason",
        r == null || r.quarantineReason() == null ? null : cli.redact(r.quarantineReason()));
    n.put("terminalSkips", r == null ? 0 : r.terminalSkips());
    n.put(
        "lastTerminalError",
        r == null || r.lastTerminalError() == null ? null : cli.redact(r.lastTerminalError()));
    n.put("latestCollapsed", r == null ? 0 : r.latestCollapsed());
    ArrayNode sources = n.putArray("sources");
    for (EffectCursor c : cursors) {
      ObjectNode s = sources.addObject();
      s.put("poller", c.source().poller());
      s.put("partition", c.source().partition());
      s.put("position", c.watermark());
      s.put("liveBoundary", c.liveBoundary());
    }
    return n;
  }

  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      customSynopsis = "watukuy effects show (CONFIG | --store URI) NAME [--json]",
      description = {
        "Shows one effect: what list shows, its lease, and per source key its lag, why it is blocked,"
            + " its in-flight and stuck lanes and its terminal and skipped rows.",
        "A stuck lane is a failed invocation above the position, or its retry running: lane, position,"
            + " attempt, retry in (or running for), error. An in-flight lane is any other invocation"
            + " running for 30 s or more: lane, position, running for, attempt, last error. At most 100 of each and 100 terminal and 100 skipped rows per"
            + " key, lowest position first."
      })
  final class Show implements Callable<Integer> {
    @CommandLine.Mixin StoreAndName target;

    @Option(names = "--json", description = "One JSON object instead.")
    boolean json;

    @Spec CommandSpec spec;
    @CommandLine.Mixin Cli.Verbose v;

    @Override
    public Integer call() {
      try (Opened o = open(spec, target)) {
        String name = o.effect(spec, false);
        Instant now = cli.clock.instant();
        Optional<EffectRecord> rec = o.effects().loadEffect(name);
        List<EffectCursor> cursors = o.effects().loadCursors(name);
        Optional<Lease> lease = o.effects().effectLease(name).filter(l -> held(l, now));
        EffectStates.View view =
            EffectStates.of(
                o.store(),
                o.effects(),
                name,
                rec,
                cursors,
                EffectStates.declared(
                    cli, target.target.store == null ? target.args.get(0) : null, o.store()),
                now);
        if (json) {
          ObjectNode n = withState(summary(name, rec, cursors), view, lease.isPresent());
          n.put("leaseOwner", lease.map(Lease::owner).orElse(null));
          n.put("leaseExpiresAt", lease.map(l -> l.expiresAt().toString()).orElse(null));
          ArrayNode sources = (ArrayNode) n.get("sources");
          for (int i = 0; i < cursors.size(); i++)
            details(o, view.sources().get(i), (ObjectNode) sources.get(i), lease.isPresent());
          cli.out.println(n);
        } else {
          text(o, name, rec.orElse(null), view, lease.orElse(null));
        }
      }
      return Main.OK;
    }

    private void text(
        Opened o,
        String name,
        @Nullable EffectRecord r,
        EffectStates.View view,
        @Nullable Lease lease) {
      cli.out.println("effect " + name);
      cli.out.println(
          "  state: "
              + view.state().wire()
              + (view.blockedJudged() ? "" : " (" + EffectStates.NOT_JUDGED + name + ")"));
      cli.out.println(
          "  quarantine: "
              + (r == null || !r.quarantined()
                  ? "none"
                  : "since " + r.quarantinedAt() + ": " + flat(r.quarantineReason())));
      cli.out.println(
          "  terminal skips: "
              + (r == null ? 0 : r.terminalSkips())
              + (r == null || r.lastTerminalError() == null
                  ? ""
                  : " (last: " + flat(r.lastTerminalError()) + ")"));
      cli.out.println("  latest collapsed: " + (r == null ? 0 : r.latestCollapsed()));
      cli.out.println(
          "  lease: "
              + (lease == null
                  ? "free (no engine runs it)"
                  : "held by " + lease.owner() + " until " + lease.expiresAt()));
      for (EffectStates.Source src : view.sources()) {
        EffectCursor c = src.cursor();
        Set<Long> skips = skipsRequested(o, c);
        cli.out.println(
            "  source "
                + c.source()
                + ": position "
                + c.watermark()
                + ", lag "
                + src.lag()
                + " (head "
                + src.head()
                + "), live boundary "
                + (c.liveBoundary() == null ? "-" : c.liveBoundary())
                + ", "
                + (src.blocked() != null ? 0 : src.status().wedgedLanes())
                + " stuck lane(s)");
        stateLines(src, lease != null);
        for (StuckLane lane : src.stuck())
          cli.out.println(
              "    stuck lane "
                  + laneName(lane.lane())
                  + " at "
                  + lane.position()
                  + ": attempt "
                  + lane.attempt()
                  + (lane.runningMs() == null
                      ? ", retry in " + lane.retryInMs() + "ms"
                      : lease != null ? " running for " + lane.runningMs() / 1000 + "s" : STOPPED)
                  + (skips.contains(lane.position()) ? ", skip requested" : "")
                  + ": "
                  + flat(lane.error()));
        for (InvocationRow row : terminal(o, c))
          cli.out.println(
              "    terminal at "
                  + row.position()
                  + " (lane "
                  + laneName(row)
                  + ", "
                  + row.updatedAt()
                  + "): "
                  + flat(row.error()));
        for (InvocationRow row : skipped(o, c))
          cli.out.println(
              "    skipped at "
                  + row.position()
                  + " (lane "
                  + laneName(row)
                  + ", at "
                  + row.updatedAt()
                  + ")");
      }
    }

    private void details(Opened o, EffectStates.Source src, ObjectNode s, boolean running) {
      EffectCursor c = src.cursor();
      Set<Long> skips = skipsRequested(o, c);
      ArrayNode stuck = s.putArray("stuckLanes");
      for (StuckLane lane : src.stuck()) {
        ObjectNode l = stuck.addObject();
        l.put("lane", lane.lane());
        l.put("position", lane.position());
        l.put("attempt", lane.attempt());
        l.put("error", cli.redact(lane.error()));
        l.put("retryInMs", lane.retryInMs());
        l.put("runningMs", running ? lane.runningMs() : null);
        l.put("leftRunning", !running && lane.runningMs() != null);
        l.put("skipRequested", skips.contains(lane.position()));
      }
      completed(s.putArray("terminal"), terminal(o, c));
      completed(s.putArray("skipped"), skipped(o, c)); // error: the failure it was skipped over
    }

    /** Completed rows as {@code lane, position, error, at}; {@code lane} null for no key. */
    private void completed(ArrayNode out, List<InvocationRow> rows) {
      for (InvocationRow row : rows) {
        ObjectNode t = out.addObject();
        t.put("lane", row.lane().isEmpty() ? null : row.lane());
        t.put("position", row.position());
        t.put("error", row.error() == null ? null : cli.redact(row.error()));
        t.put("at", row.updatedAt().toString());
      }
    }
  }

  /**
   * The lane as {@code show} prints it: {@code (no key)} for an invocation whose event belongs to
   * no key (docs/effects.md, "Invocations"), which the store keeps as an empty lane.
   */
  private static String laneName(InvocationRow row) {
    return row.lane().isEmpty() ? NO_KEY : row.lane();
  }

  /** The lane as {@code show} prints it, from a status entry's lane (null for no key). */
  private static String laneName(@Nullable String lane) {
    return lane == null ? NO_KEY : lane;
  }

  /** The failed positions above the watermark whose skip is requested and not yet completed. */
  private static Set<Long> skipsRequested(Opened o, EffectCursor c) {
    Set<Long> out = new HashSet<>();
    for (InvocationRow row :
        o.effects()
            .listInvocations(
                c.effect(), c.source(), c.watermark(), Set.of(InvocationStatus.FAILED), SHOW_LIMIT))
      if (row.skipRequested()) out.add(row.position());
    return out;
  }

  private static List<InvocationRow> terminal(Opened o, EffectCursor c) {
    return o.effects()
        .listInvocations(c.effect(), c.source(), 0, Set.of(InvocationStatus.TERMINAL), SHOW_LIMIT);
  }

  /** The rows an operator skipped (docs/effects.md, "Skip"), kept until the retention sweep. */
  private static List<InvocationRow> skipped(Opened o, EffectCursor c) {
    return o.effects()
        .listInvocations(c.effect(), c.source(), 0, Set.of(InvocationStatus.SKIPPED), SHOW_LIMIT);
  }

  /** Whether {@code lease} is unexpired: an engine runs the effect (docs/effects.md, "Rewind"). */
  static boolean held(Lease lease, Instant now) {
    return lease.expiresAt().isAfter(now);
  }

  /**
   * Refuses a command on an effect an engine runs (docs/effects.md, "Rewind"): one line naming the
   * holder; the command exits {@link Main#FAILED}.
   *
   * @param lease the holder's lease, or null when it was taken between a look and an acquisition
   * @param done what the command would have done, as in "nothing rewound"
   */
  private void refuseHeld(String name, @Nullable Lease lease, String done) {
    cli.err.println(
        "watukuy: effect "
            + name
            + " is running: "
            + (lease == null
                ? "an engine took its lease"
                : lease.owner() + " holds its lease until " + lease.expiresAt())
            + "; stop that engine first (nothing "
            + done
            + ")");
  }

  /**
   * Refuses a command on an effect whose lease an engine holds unexpired (docs/effects.md,
   * "Rewind"), printing the line {@link #refuseHeld} prints.
   *
   * @param done what the command would have done, as in "nothing rewound"
   * @return true when refused: the command exits {@link Main#FAILED}
   */
  boolean refusedWhileHeld(Opened o, String name, String done) {
    Optional<Lease> holder =
        o.effects().effectLease(name).filter(l -> held(l, cli.clock.instant()));
    if (holder.isEmpty()) return false;
    refuseHeld(name, holder.get(), done);
    return true;
  }

  /**
   * Takes the effect's lease for {@link #REWIND_LEASE} so no engine starts on it while a command
   * changes its rows (docs/effects.md, "Rewind"); the caller releases it. When an engine took it
   * since the last look, prints the refusal {@link #refuseHeld} prints.
   *
   * @param command the command's name, as the lease owner {@code show} prints names it
   * @param done what the command would have done, as in "nothing rewound"
   * @return the lease, or empty when refused: the command exits {@link Main#FAILED}
   */
  Optional<Lease> acquireOrRefuse(Opened o, String name, String command, String done) {
    Optional<Lease> lease =
        o.effects().acquireEffectLease(name, owner(command), REWIND_LEASE, cli.clock.instant());
    if (lease.isEmpty()) refuseHeld(name, o.effects().effectLease(name).orElse(null), done);
    return lease;
  }

  /**
   * Refuses a command on one position that has not failed (docs/effects.md, "Skip" and "Retry
   * now"): one line naming the effect, position, source key and what the position is instead.
   *
   * @param row the position's invocation, or null when it has none
   * @param done what the command would have done, as in "nothing skipped"
   */
  void refuseNotFailed(
      String name, long position, PollerKey source, @Nullable InvocationRow row, String done) {
    cli.err.println(
        "watukuy: effect "
            + name
            + ": position "
            + position
            + " on "
            + source
            + " has not failed ("
            + (row == null
                ? "it has no invocation"
                : "it is " + row.status().name().toLowerCase(java.util.Locale.ROOT))
            + "); nothing "
            + done);
  }

  /**
   * The usage error (exit 2) for a POSITION below 1 given to a command on one position: log
   * positions start at 1 (docs/effects.md, "Position").
   *
   * @param done what the command would have done, as in "nothing skipped"
   */
  static CommandLine.ParameterException notALogPosition(
      CommandSpec spec, String name, long position, String done) {
    return OperationCommands.usage(
        spec,
        "effect "
            + name
            + ": POSITION "
            + position
            + " is not a log position (positions start at 1); nothing "
            + done);
  }

  @Command(
      name = "skip",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      customSynopsis = "watukuy effects skip (CONFIG | --store URI) NAME POSITION [--partition P]",
      description = {
        "Asks the running engine to skip a failed position of effect NAME.",
        "Its lane completes the position as skipped at its next look, without running the arm again."
            + " Refused (exit 1) for a position that has not failed: done, running, or never read;"
            + " POSITION 0 is a usage error (exit 2): positions start at 1."
      })
  final class Skip implements Callable<Integer> {
    @CommandLine.Mixin OperationCommands.Target target;

    @Parameters(
        paramLabel = "[CONFIG] NAME POSITION",
        arity = "1..*",
        description =
            "The YAML config file (unless --store), the effect's name, then the failed log position.")
    List<String> args = new ArrayList<>();

    @Option(
        names = "--partition",
        paramLabel = "P",
        description =
            "The source partition the position is on (needed when the effect reads several).")
    @Nullable String partition;

    @Spec CommandSpec spec;
    @CommandLine.Mixin Cli.Verbose v;

    @Override
    public Integer call() {
      try (Opened o = open(spec, target, args)) {
        String name = o.effect(spec, true);
        long position = o.position(spec);
        // The admin API answers this 400: a mistake in the request, not a refused skip.
        if (position < 1) throw notALogPosition(spec, name, position, "skipped");
        PollerKey source = o.cursor(name, partition).source();
        if (!o.effects().requestSkip(name, source, position, cli.clock.instant())) {
          refuseNotFailed(
              name,
              position,
              source,
              o.effects().loadInvocation(name, source, position).orElse(null),
              "skipped");
          return Main.FAILED;
        }
        cli.err.println(
            "watukuy: effect "
                + name
                + ": skip of position "
                + position
                + " on "
                + source
                + " requested; the running engine completes it as skipped at its next look");
      }
      return Main.OK;
    }
  }

  @Command(
      name = "quarantine",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      customSynopsis = "watukuy effects quarantine (CONFIG | --store URI) NAME [--reason TEXT]",
      description = {
        "Quarantines effect NAME: an engine stops dispatching it until release.",
        "Kept in the store, so a restart keeps it; an effect already quarantined keeps its time and reason."
      })
  final class Quarantine implements Callable<Integer> {
    @CommandLine.Mixin StoreAndName target;

    @Option(
        names = "--reason",
        paramLabel = "TEXT",
        description = "Why, shown by list and show (default: quarantined by an operator).")
    @Nullable String reason;

    @Spec CommandSpec spec;
    @CommandLine.Mixin Cli.Verbose v;

    @Override
    public Integer call() {
      if (reason != null && reason.isBlank())
        throw OperationCommands.usage(spec, "--reason must not be blank");
      try (Opened o = open(spec, target)) {
        String name = o.effect(spec, false);
        Optional<EffectRecord> before = o.effects().loadEffect(name);
        if (before.isPresent() && before.get().quarantined()) {
          cli.err.println(
              "watukuy: effect "
                  + name
                  + ": already quarantined since "
                  + before.get().quarantinedAt()
                  + ": "
                  + flat(before.get().quarantineReason()));
          return Main.OK;
        }
        o.effects()
            .setQuarantine(
                name,
                reason == null ? "quarantined by an operator" : cli.redact(reason),
                cli.clock.instant());
        cli.err.println("watukuy: effect " + name + ": quarantined; release to resume it");
      }
      return Main.OK;
    }
  }

  @Command(
      name = "release",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      customSynopsis = "watukuy effects release (CONFIG | --store URI) NAME",
      description = {
        "Releases the quarantine of effect NAME.",
        "An engine running it dispatches again at its next look; one not quarantined is left as it is."
      })
  final class Release implements Callable<Integer> {
    @CommandLine.Mixin StoreAndName target;

    @Spec CommandSpec spec;
    @CommandLine.Mixin Cli.Verbose v;

    @Override
    public Integer call() {
      try (Opened o = open(spec, target)) {
        String name = o.effect(spec, false);
        if (o.effects().loadEffect(name).filter(EffectRecord::quarantined).isEmpty()) {
          cli.err.println("watukuy: effect " + name + ": not quarantined; nothing to release");
          return Main.OK;
        }
        o.effects().setQuarantine(name, null, cli.clock.instant());
        cli.err.println("watukuy: effect " + name + ": released");
      }
      return Main.OK;
    }
  }

  @Command(
      name = "rewind",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      customSynopsis =
          "watukuy effects rewind (CONFIG | --store URI) NAME POSITION [--partition P] [--live] [--yes]",
      description = {
        "Moves effect NAME back to POSITION on one source key, so the positions above it run again.",
        "Deletes the invocation rows above POSITION and their journals, so their calls fire again."
            + " Prints what it discards, then asks; --yes answers without a terminal."
            + " Refused (exit 1) while an engine holds the effect's lease; POSITION may be the current"
            + " position (the way out of blocked), never above it, nor below the oldest event the"
            + " log still keeps (the events between are pruned)."
      })
  final class Rewind implements Callable<Integer> {
    @CommandLine.Mixin OperationCommands.Target target;

    @Parameters(
        paramLabel = "[CONFIG] NAME POSITION",
        arity = "1..*",
        description =
            "The YAML config file (unless --store), the effect's name, then the new position.")
    List<String> args = new ArrayList<>();

    @Option(
        names = "--partition",
        paramLabel = "P",
        description = "The source partition to rewind (needed when the effect reads several).")
    @Nullable String partition;

    @Option(
        names = "--live",
        description = "Also lower the on live boundary to POSITION, for good (default: it stays).")
    boolean live;

    @Option(names = "--yes", description = "Rewind without asking (the summary is still printed).")
    boolean yes;

    @Spec CommandSpec spec;
    @CommandLine.Mixin Cli.Verbose v;

    @Override
    public Integer call() {
      try (Opened o = open(spec, target, args)) {
        String name = o.effect(spec, true);
        long position = o.position(spec);
        EffectCursor cursor = o.cursor(name, partition);
        PollerKey source = cursor.source();
        if (position > cursor.watermark())
          throw new ConfigException(
              "effect "
                  + name
                  + ": POSITION "
                  + position
                  + " is above the position "
                  + cursor.watermark()
                  + " on "
                  + source
                  + "; rewind moves back only (skip passes a failed position)");
        checkFloor(o, name, source, position, cursor.watermark());
        if (refusedWhileHeld(o, name, "rewound")) return Main.FAILED;
        long discards = summary(o, cursor, position);
        if (!confirmed(name, source, position)) return Main.FAILED;
        Optional<Lease> lease = acquireOrRefuse(o, name, "rewind", "rewound");
        if (lease.isEmpty()) return Main.FAILED;
        long deleted;
        try {
          // An engine may have run while the operator was asked: what was agreed to is no longer
          // what would be discarded.
          if (o.cursor(name, partition).watermark() != cursor.watermark()
              || o.effects().countInvocations(name, source, position) != discards) {
            cli.err.println(
                "watukuy: effect "
                    + name
                    + " moved on "
                    + source
                    + " since the summary; nothing rewound (run the command again)");
            return Main.FAILED;
          }
          deleted =
              o.effects().rewind(name, source, position, live, lease.get(), cli.clock.instant());
        } finally {
          o.effects().releaseEffectLease(name, lease.get());
        }
        cli.err.println(
            "watukuy: effect "
                + name
                + ": rewound to "
                + position
                + " on "
                + source
                + ", "
                + deleted
                + " invocation row(s) discarded; the next engine start runs the positions above "
                + position
                + " again");
      }
      return Main.OK;
    }

    /**
     * Refuses a {@code position} below the log's oldest kept event less one: the events between
     * were pruned (docs/effects.md, "Retention"), so a rewind there would pass them without running
     * them. The current position itself is always allowed, as it reads nothing again.
     *
     * @throws ConfigException naming the effect, the position asked and the oldest kept position
     */
    private void checkFloor(Opened o, String name, PollerKey source, long position, long current) {
      if (position >= current) return;
      List<LoggedEvent> oldest = o.store().readLog(source, LogRange.ALL, 1);
      long kept = oldest.isEmpty() ? -1 : oldest.get(0).sequence();
      if (kept >= 0 && position >= Math.min(kept - 1, current)) return;
      throw new ConfigException(
          "effect "
              + name
              + ": POSITION "
              + position
              + " is below the oldest event the log of "
              + source
              + " still keeps ("
              + (kept < 0
                  ? "none: every event up to " + current + " is pruned"
                  : "position " + kept)
              + "); the events between were pruned and a rewind there would skip them without"
              + " running them: give "
              + (kept < 0 ? current : Math.min(kept - 1, current))
              + " or more");
    }

    /**
     * Prints what the rewind discards on stdout, with --yes too.
     *
     * @return the invocation rows it discards
     */
    private long summary(Opened o, EffectCursor cursor, long position) {
      long rows = o.effects().countInvocations(cursor.effect(), cursor.source(), position);
      long calls = journaledCalls(o, cursor, position);
      cli.out.println(
          "effect "
              + cursor.effect()
              + " on "
              + cursor.source()
              + ": position "
              + cursor.watermark()
              + " -> "
              + position);
      cli.out.println(
          "discards "
              + rows
              + " invocation row(s) above "
              + position
              + " and their "
              + calls
              + " journaled call(s): the positions above "
              + position
              + " run again and their calls fire again");
      Long boundary = cursor.liveBoundary();
      if (live)
        cli.out.println(
            "on live boundary: "
                + (boundary == null ? "not set" : boundary)
                + " -> "
                + (boundary != null && boundary <= position ? boundary : position)
                + " (for good: on live arms treat the events above it as news)");
      else
        cli.out.println(
            "on live boundary: stays " + (boundary == null ? "unset" : boundary.toString()));
      return rows;
    }

    private boolean confirmed(String name, PollerKey source, long position) {
      String question = "Rewind effect " + name + " on " + source + " to " + position + "? [y/N] ";
      return Confirmation.confirmed(cli, spec, yes, name, "rewind", "rewound", question);
    }
  }

  /** The journal entries of the invocations above {@code position}, counted page by page. */
  static long journaledCalls(Opened o, EffectCursor c, long position) {
    long calls = 0;
    long after = position;
    while (true) {
      List<InvocationRow> rows =
          o.effects().listInvocations(c.effect(), c.source(), after, Set.of(), PAGE);
      for (InvocationRow row : rows) {
        int offset = 0;
        int got;
        do {
          got =
              o.effects().listJournal(c.effect(), c.source(), row.position(), offset, PAGE).size();
          calls += got;
          offset += got;
        } while (got == PAGE);
      }
      if (rows.size() < PAGE) return calls;
      after = rows.get(rows.size() - 1).position();
    }
  }

  /**
   * The lease owner of a command that takes the effect's lease, as {@code show} and a refused
   * engine name it.
   *
   * @param command the command's name: {@code rewind}, {@code retry} or {@code forget}
   */
  private static String owner(String command) {
    return "watukuy effects " + command + " (pid " + ProcessHandle.current().pid() + ")";
  }
}
