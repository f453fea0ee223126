package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.ParkedEvent;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Watukuy;
import io.watukuy.cli.CliConfig.PollerSpec;
import io.watukuy.cli.CliConfig.StoreSpec;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.StateStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The operations on stored state: {@code reset-cursor}, {@code backfill}, {@code replay} and {@code
 * parked list|retry|discard} ({@code pause}, {@code resume} and {@code trigger} are in {@link
 * Cli}). Each names its store by {@code CONFIG} or, where the poller's definition is not needed, by
 * {@code --store URI}, then the poller by {@code NAME}, and one partition's key by {@code
 * --partition P}.
 */
final class OperationCommands {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * A poison event's outbox sequence, or an invalid item's {@code invalid-} id (see {@link
   * io.watukuy.spi.ParkedRow#id()}).
   */
  private static final Pattern PARKED_ID = Pattern.compile("[0-9]+|invalid-[0-9a-f]{16}");

  private final Cli cli;

  OperationCommands(Cli cli) {
    this.cli = cli;
  }

  /** {@code --store URI}: the store, when there is no config. */
  static final class Target {
    @Option(
        names = "--store",
        paramLabel = "URI",
        description = "sqlite:PATH (relative to the current folder) instead of CONFIG.")
    @Nullable String store;
  }

  /**
   * {@code CONFIG NAME} for the commands that need the poller's definition, with a {@code --store
   * URI} hidden from their help and still read, so that giving it gets the one line saying why
   * CONFIG is needed.
   */
  static final class ConfigAndName {
    @Option(names = "--store", paramLabel = "URI", hidden = true)
    @Nullable String store;

    @Parameters(
        paramLabel = "CONFIG NAME",
        arity = "1..*",
        description = "The YAML config file, then the poller's name.")
    List<String> args = new ArrayList<>();

    /**
     * The config and poller named, as {@link OperationCommands#resolve} reads them with CONFIG
     * required and nothing after NAME.
     */
    Resolved resolve(Cli cli, CommandSpec spec) {
      Target t = new Target();
      t.store = store;
      return OperationCommands.resolve(cli, spec, t, args, true, false);
    }
  }

  /**
   * {@code --partition P}: the operation acts on that key alone instead of every key of NAME. P is
   * checked against the partitions the config declares and those with stored state (by the engine,
   * or by {@link #keys} for {@code parked}), and any other is refused with a config error (exit 2)
   * naming poller, partition and the known ones.
   */
  static final class PartitionOption {
    @Option(
        names = "--partition",
        paramLabel = "P",
        description = "Only this partition's key (default: every key of NAME).")
    @Nullable String partition;

    /** What the operation acts on in {@code engine}: every key of {@code poller}, or P's. */
    Selection select(Watukuy engine, String poller) {
      return new Selection(
          engine, poller, partition == null ? null : PollerKey.of(poller, partition));
    }

    /** How a message names what the operation acted on. */
    String who(String poller) {
      return "poller " + poller + (partition == null ? "" : " partition " + partition);
    }
  }

  /**
   * The engine's operations on what {@code --partition} selects: with P, the one-key form of {@link
   * Watukuy} on (NAME, P), which checks P; without, the poller-wide form on every key of NAME. The
   * one place the commands choose between the two forms.
   *
   * @param key the one key, or null for every key of {@code poller}
   */
  record Selection(Watukuy engine, String poller, @Nullable PollerKey key) {
    void pause() {
      if (key == null) engine.pause(poller);
      else engine.pause(key);
    }

    void resume() {
      if (key == null) engine.resume(poller);
      else engine.resume(key);
    }

    void trigger() {
      if (key == null) engine.trigger(poller);
      else engine.trigger(key);
    }

    void confirmDeletes() {
      if (key == null) engine.confirmDeletes(poller);
      else engine.confirmDeletes(key);
    }

    void resetCursor(@Nullable String to, boolean clearSnapshot) {
      if (key == null) engine.resetCursor(poller, to, clearSnapshot);
      else engine.resetCursor(key, to, clearSnapshot);
    }

    void backfill(String from, @Nullable String to, boolean force) {
      if (key == null) engine.backfill(poller, from, to, force);
      else engine.backfill(key, from, to, force);
    }

    int replay(Instant from, @Nullable Instant to) {
      return key == null ? engine.replay(poller, from, to) : engine.replay(key, from, to);
    }
  }

  /**
   * What the positional arguments and {@code --store} name. With a config, {@code config} is set
   * and the session runs the config's pollers; with {@code --store}, a stand-in poller of that
   * name.
   */
  record Resolved(@Nullable CliConfig config, StoreSpec store, String name, List<String> rest) {
    Session session() {
      if (config != null) return new Session(config);
      Session s = new Session(store, List.of(standIn(name)), DeliveryOptions.DEFAULT);
      try {
        if (s.store.listKeys(name).isEmpty()) {
          TreeSet<String> known = new TreeSet<>();
          s.store.listKeys(null).forEach(k -> known.add(k.poller()));
          throw new ConfigException(
              store.display()
                  + ": no state for poller "
                  + name
                  + (known.isEmpty()
                      ? " (the store holds no pollers)"
                      : " (it holds: " + String.join(", ", known) + ")"));
        }
      } catch (RuntimeException e) {
        s.close();
        throw e;
      }
      return s;
    }

    @Nullable PollerSpec poller() {
      if (config == null) return null;
      return config.pollers().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }
  }

  /**
   * Reads {@code [CONFIG] NAME [REST...]}.
   *
   * @param needsConfig the command needs the poller's definition, so {@code --store} is refused
   * @param rest whether arguments after NAME are allowed
   * @throws ParameterException for a usage error
   * @throws ConfigException for a config that does not load or has no poller NAME
   */
  static Resolved resolve(
      Cli cli,
      CommandSpec spec,
      Target target,
      List<String> args,
      boolean needsConfig,
      boolean rest) {
    String command = spec.qualifiedName(" ").replaceFirst("^watukuy ", "");
    if (target.store == null) {
      if (args.size() < 2)
        throw usage(spec, "give CONFIG NAME" + (needsConfig ? "" : ", or --store URI NAME"));
      if (!rest && args.size() > 2) throw usage(spec, "unexpected argument '" + args.get(2) + "'");
      // None of these makes a sink: the sinks' secrets need not be set.
      CliConfig cfg = cli.loadWithoutSinks(Path.of(args.get(0)));
      String name = args.get(1);
      if (cfg.pollers().stream().noneMatch(p -> p.name().equals(name))) {
        throw new ConfigException(name + ": " + cfg.file() + " has no such poller");
      }
      return new Resolved(cfg, cfg.store(), name, List.copyOf(args.subList(2, args.size())));
    }
    if (needsConfig) {
      throw usage(
          spec,
          command
              + " needs CONFIG, not --store: it checks values against the poller's cursor strategy");
    }
    if (args.isEmpty()) throw usage(spec, "give NAME after --store URI");
    if (!rest && args.size() > 1) throw usage(spec, "give CONFIG or --store URI, not both");
    StoreSpec store = StoreUris.parse(target.store);
    requireSqliteFile(store, "--store " + target.store);
    String name = args.get(0);
    String problem = nameProblem(name);
    if (problem != null) throw usage(spec, problem);
    return new Resolved(null, store, name, List.copyOf(args.subList(1, args.size())));
  }

  private static @Nullable String nameProblem(String name) {
    return name.matches("[A-Za-z0-9_.-]+")
        ? null
        : "'" + name + "' is not a poller name (letters, digits, _ . -)";
  }

  /**
   * A session on {@code --store URI} alone, with a stand-in for every poller that has state there:
   * what {@code inspect --store} reads without the config's secrets.
   *
   * @throws ConfigException when a SQLite file does not exist
   */
  static Session storeSession(String uri) {
    StoreSpec store = StoreUris.parse(uri);
    requireSqliteFile(store, "--store " + uri);
    TreeSet<String> names = new TreeSet<>();
    try (StateStore s = Stores.open(store)) {
      s.listKeys(null).forEach(k -> names.add(k.poller()));
    }
    return new Session(
        store, names.stream().map(OperationCommands::standIn).toList(), DeliveryOptions.DEFAULT);
  }

  /**
   * Refuses a SQLite store whose file does not exist: the operation commands never create a store.
   *
   * @param named how the message names the store ({@code --store sqlite:x.db})
   * @throws ConfigException naming the store and the missing file
   */
  static void requireSqliteFile(StoreSpec store, String named) {
    if (store.sqlitePath() != null && !Files.isRegularFile(store.sqlitePath()))
      throw new ConfigException(named + ": no such file " + store.sqlitePath());
  }

  static ParameterException usage(CommandSpec spec, String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  /**
   * A poller that only names stored state, for operations run with {@code --store}: the engine's
   * operations need a registered poller, and these never fetch or decode a cursor. It declares no
   * partition, so its keys are exactly those with stored state: an operation never creates a key
   * (such as {@code ""} beside the stored partitions) that the real poller does not have.
   */
  static Poller<JsonNode> standIn(String name) {
    return Poller.builder(name, JsonNode.class)
        .identity(item -> item)
        .partitions(() -> List.of())
        .cursor(Cursors.snapshotDiff())
        .fetch(
            ctx -> {
              throw new IllegalStateException(
                  "poller " + name + ": a --store stand-in never fetches");
            })
        .build();
  }

  @Command(
      name = "reset-cursor",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      customSynopsis =
          "watukuy reset-cursor CONFIG NAME [--partition P] (--to VALUE | --initial) [--clear-snapshot]",
      description = {
        "Moves the live cursor of every key of poller NAME (or of partition P only) and makes the keys due now.",
        "VALUE is the API's own string (a timestamp, a page number, a token), checked against the poller's"
            + " cursor strategy, so CONFIG is required (no --store). Waits up to one lease TTL (lease.ttl, 30 s by default) for a"
            + " running cycle; exits 1 if a key stays leased."
      })
  final class ResetCursor implements Callable<Integer> {
    @CommandLine.Mixin ConfigAndName target;

    @Option(
        names = "--to",
        paramLabel = "VALUE",
        description = "The new live cursor, as the API writes it.")
    @Nullable String to;

    @Option(names = "--initial", description = "Back to the strategy's initial cursor.")
    boolean initial;

    @Option(
        names = "--clear-snapshot",
        description =
            "Also forget the known items, so the next run emits every item as created, with the same ids.")
    boolean clearSnapshot;

    @CommandLine.Mixin PartitionOption only;
    @Spec CommandSpec spec;
    @CommandLine.Mixin Cli.Verbose v;

    @Override
    public Integer call() {
      if ((to == null) != initial)
        throw usage(spec, "give exactly one of --to VALUE and --initial");
      Resolved r = target.resolve(cli, spec);
      try (Session s = r.session()) {
        only.select(s.engine, r.name()).resetCursor(to, clearSnapshot);
      }
      cli.err.println(
          "watukuy: "
              + only.who(r.name())
              + ": live cursor reset to "
              + (to == null ? "its initial value" : "'" + to + "'")
              + (clearSnapshot ? ", snapshot cleared" : ""));
      return Main.OK;
    }
  }

  @Command(
      name = "backfill",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      customSynopsis =
          "watukuy backfill CONFIG NAME [--partition P] --from VALUE [--to VALUE] [--force]",
      description = {
        "Starts a backfill of every key of poller NAME (or of partition P only), from --from to --to.",
        "From each key's next due cycle (trigger starts it at once), a second lane runs the cursor strategy"
            + " from --from until --to. Timestamp and page cursors only, so CONFIG is required (no --store)."
            + " Known, unchanged items are not emitted again unless --force."
      })
  final class Backfill implements Callable<Integer> {
    @CommandLine.Mixin ConfigAndName target;

    @Option(
        names = "--from",
        paramLabel = "VALUE",
        required = true,
        description = "The cursor to start from.")
    String from;

    @Option(
        names = "--to",
        paramLabel = "VALUE",
        description = "The cursor to stop at (default: the live cursor now).")
    @Nullable String to;

    @Option(
        names = "--force",
        description = "Emit every known item again, as updated (default: only changes).")
    boolean force;

    @CommandLine.Mixin PartitionOption only;
    @Spec CommandSpec spec;
    @CommandLine.Mixin Cli.Verbose v;

    @Override
    public Integer call() {
      Resolved r = target.resolve(cli, spec);
      try (Session s = r.session()) {
        only.select(s.engine, r.name()).backfill(from, to, force);
      }
      cli.err.println(
          "watukuy: "
              + only.who(r.name())
              + ": backfill from '"
              + from
              + "' to "
              + (to == null ? "the live cursor" : "'" + to + "'")
              + (force ? " (force)" : "")
              + " starts with its next cycle; trigger to start it now");
      return Main.OK;
    }
  }

  @Command(
      name = "replay",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      customSynopsis = "watukuy replay CONFIG NAME [--partition P] --from INSTANT [--to INSTANT]",
      description = {
        "Puts the logged events of poller NAME (or of partition P only) back into the outbox, so the next run delivers them again.",
        "Copies the events committed in [--from, --to), with their original ids, and prints how many on stdout."
            + " Needs log: {enabled: true} on the poller, so CONFIG is required (no --store)."
            + " INSTANT is ISO 8601 UTC, e.g. 2024-05-01T00:00:00Z."
      })
  final class Replay implements Callable<Integer> {
    @CommandLine.Mixin ConfigAndName target;

    @Option(
        names = "--from",
        paramLabel = "INSTANT",
        required = true,
        description = "First commit time, inclusive.")
    String from;

    @Option(
        names = "--to",
        paramLabel = "INSTANT",
        description = "End, exclusive (default: no end).")
    @Nullable String to;

    @CommandLine.Mixin PartitionOption only;
    @Spec CommandSpec spec;
    @CommandLine.Mixin Cli.Verbose v;

    @Override
    public Integer call() {
      Instant start = instant(spec, "--from", from);
      Instant end = to == null ? null : instant(spec, "--to", to);
      Resolved r = target.resolve(cli, spec);
      if (!r.poller().log().enabled()) {
        throw new ConfigException(
            "poller "
                + r.name()
                + ": replay needs the event log; add log: {enabled: true}"
                + " to the poller (events committed from then on can be replayed)");
      }
      int copied;
      try (Session s = r.session()) {
        copied = only.select(s.engine, r.name()).replay(start, end);
      }
      cli.out.println(copied);
      cli.err.println(
          "watukuy: "
              + only.who(r.name())
              + ": "
              + copied
              + " event(s) back in the outbox; the next run delivers them");
      return Main.OK;
    }
  }

  private static Instant instant(CommandSpec spec, String option, String value) {
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException e) {
      throw usage(
          spec, option + " '" + value + "' is not an ISO-8601 instant (e.g. 2024-05-01T00:00:00Z)");
    }
  }

  CommandLine parked() {
    CommandLine parked = new CommandLine(new Parked());
    parked.addSubcommand("list", new CommandLine(new ParkedList()));
    parked.addSubcommand(
        "retry",
        parkedChange(
            true,
            "Puts parked events back into the outbox at their original place.",
            "The next run delivers them, attempts from zero; parked invalid items are dropped."));
    parked.addSubcommand(
        "discard",
        parkedChange(
            false, "Drops parked rows for good.", "An ordering key they held is released."));
    return parked;
  }

  /**
   * retry or discard: the shared command with its own synopsis and first sentences (as in
   * Cli#operation).
   */
  private CommandLine parkedChange(boolean retry, String... description) {
    String op = retry ? "retry" : "discard";
    CommandLine cmd = new CommandLine(new ParkedChange(retry));
    CommandLine.Model.UsageMessageSpec usage = cmd.getCommandSpec().usageMessage();
    List<String> all = new ArrayList<>(List.of(description));
    all.addAll(List.of(usage.description()));
    usage.description(all.toArray(String[]::new));
    String[] synopsis = usage.customSynopsis();
    for (int i = 0; i < synopsis.length; i++)
      synopsis[i] = synopsis[i].replace("retry|discard", op);
    usage.customSynopsis(synopsis);
    return cmd;
  }

  @Command(
      name = "parked",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      synopsisSubcommandLabel = "(list | retry | discard)",
      description = {
        "Lists, retries or discards the parked events and invalid items of a poller.",
        "Takes CONFIG or --store URI; --partition P limits it to one key."
      })
  final class Parked implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      throw usage(spec, "give list, retry or discard");
    }
  }

  /** The keys of poller {@code name} an operation acts on: one partition, or all with state. */
  private static List<PollerKey> keys(Session s, Resolved r, @Nullable String partition) {
    TreeSet<PollerKey> all = new TreeSet<>(s.store.listKeys(r.name()));
    PollerSpec p = r.poller();
    if (p != null) p.partitions().forEach(part -> all.add(PollerKey.of(r.name(), part)));
    if (partition == null) return List.copyOf(all);
    PollerKey key = PollerKey.of(r.name(), partition);
    if (!all.contains(key)) {
      List<String> known =
          all.stream().map(PollerKey::partition).map(k -> k.isEmpty() ? "\"\"" : k).toList();
      throw new ConfigException(
          "poller "
              + r.name()
              + ": no partition '"
              + partition
              + "' (known: "
              + (known.isEmpty() ? "none" : String.join(", ", known))
              + ")");
    }
    return List.of(key);
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      customSynopsis = "watukuy parked list (CONFIG | --store URI) NAME [--partition P] [--json]",
      description = {
        "Lists the parked rows of poller NAME, oldest first per key.",
        "One tab-separated line per row: KEY ID KIND ATTEMPTS PARKED-AT ERROR, where KEY is NAME or"
            + " NAME[partition] and KIND is poison (a handler gave up) or invalid (an item failed validation)."
            + " Nothing parked: no output."
      })
  final class ParkedList implements Callable<Integer> {
    @CommandLine.Mixin Target target;

    @Parameters(
        paramLabel = "[CONFIG] NAME",
        arity = "1..*",
        description = "The YAML config file (unless --store), then the poller's name.")
    List<String> args = new ArrayList<>();

    @CommandLine.Mixin PartitionOption only;

    @Option(names = "--json", description = "One JSON object per line instead.")
    boolean json;

    @Spec CommandSpec spec;
    @CommandLine.Mixin Cli.Verbose v;

    @Override
    public Integer call() {
      Resolved r = resolve(cli, spec, target, args, false, false);
      try (Session s = r.session()) {
        List<PollerKey> keys = keys(s, r, only.partition);
        for (ParkedEvent e : s.engine.parked().list(r.name())) {
          if (!keys.contains(e.key())) continue;
          cli.out.println(cli.redact(json ? json(e) : line(e)));
        }
      }
      return Main.OK;
    }

    private String line(ParkedEvent e) {
      ParkedRow row = e.row();
      return String.join(
          "\t",
          e.key().toString(),
          row.id(),
          row.kind().wire(),
          Integer.toString(row.attempts()),
          row.parkedAt().toString(),
          row.errorMessage().replaceAll("\\s*\\R\\s*", " "));
    }

    private String json(ParkedEvent e) {
      ParkedRow row = e.row();
      ObjectNode n = JSON.createObjectNode();
      n.put("poller", e.key().poller());
      n.put("partition", e.key().partition());
      n.put("id", row.id());
      n.put("kind", row.kind().wire());
      n.put("eventId", row.eventId());
      n.put("orderingKey", row.orderingKey());
      n.put("attempts", row.attempts());
      n.put("parkedAt", row.parkedAt().toString());
      n.put("error", row.errorMessage());
      return n.toString();
    }
  }

  @Command(
      mixinStandardHelpOptions = true,
      versionProvider = Main.Version.class,
      customSynopsis =
          "watukuy parked retry|discard (CONFIG | --store URI) NAME [--partition P] ID...",
      description =
          "Without --partition, every key of NAME is searched for the ids; unknown ids are ignored."
              + " Prints how many rows were removed on stdout.")
  final class ParkedChange implements Callable<Integer> {
    private final boolean retry;
    @CommandLine.Mixin Target target;

    @Parameters(
        paramLabel = "[CONFIG] NAME ID",
        arity = "1..*",
        description =
            "The YAML config file (unless --store), the poller's name, then parked ids (see parked list).")
    List<String> args = new ArrayList<>();

    @CommandLine.Mixin PartitionOption only;
    @Spec CommandSpec spec;
    @CommandLine.Mixin Cli.Verbose v;

    ParkedChange(boolean retry) {
      this.retry = retry;
    }

    @Override
    public Integer call() {
      Resolved r = resolve(cli, spec, target, args, false, true);
      if (r.rest().isEmpty()) throw usage(spec, "give at least one parked ID (see parked list)");
      for (String id : r.rest()) {
        // A typo would otherwise match no row and print 0, as if there were nothing to do.
        if (!PARKED_ID.matcher(id).matches()) {
          throw usage(
              spec,
              "parked ID '"
                  + id
                  + "' is not an id of parked list (a whole number, or invalid-"
                  + " and 16 hex digits)");
        }
      }
      // An invalid item is checked again with the poller's identity, validator and schema, which
      // only CONFIG has: a --store stand-in would judge it by nothing and drop it.
      if (retry
          && r.config() == null
          && r.rest().stream().anyMatch(id -> id.startsWith("invalid-")))
        throw new ConfigException(
            "parked retry of an invalid item needs CONFIG, not --store: it is checked again with"
                + " the poller's identity, validator and schema (discard needs no CONFIG)");
      int changed = 0;
      try (Session s = r.session()) {
        for (PollerKey key : keys(s, r, only.partition)) {
          changed +=
              retry
                  ? s.engine.parked().retry(key, r.rest())
                  : s.engine.parked().discard(key, r.rest());
        }
      }
      cli.out.println(changed);
      return Main.OK;
    }
  }
}
