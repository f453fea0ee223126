package io.watukuy.cli;

import io.watukuy.ConfigException;
import io.watukuy.cli.EffectCommands.Opened;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectRecord;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.Lease;
import io.watukuy.spi.StateStore;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code watukuy effects forget (CONFIG | --store URI) NAME [--yes]} (docs/config.md, "Effects
 * commands"; docs/effects.md, "Forget"): deletes what the store keeps for a retired effect through
 * {@link EffectStore#forgetEffect}, so its cursors stop holding the event logs it read. Refused
 * while an engine holds the effect, as rewind is, and for an effect {@code CONFIG} still declares;
 * prints what it deletes, then asks (or takes {@code --yes}), then deletes under the effect's
 * lease.
 */
@Command(
    name = "forget",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    customSynopsis = "watukuy effects forget (CONFIG | --store URI) NAME [--yes]",
    description = {
      "Deletes everything the store keeps for a retired effect NAME, so it no longer holds the log.",
      "Its cursor per source key, its invocation rows and their journal, its quarantine and counters"
          + " and its lease go; the logs it read are pruned by their retention again. Prints what it"
          + " deletes, then asks; --yes answers without a terminal. Refused (exit 1) while an engine"
          + " holds the effect's lease, and (exit 2) for an effect CONFIG still declares."
    })
final class EffectForgetCommand implements Callable<Integer> {
  /** The statuses of an invocation that has not completed: pending, lost with the effect. */
  private static final Set<InvocationStatus> PENDING =
      EnumSet.of(InvocationStatus.RUNNING, InvocationStatus.FAILED);

  private static final int PAGE = 1000;

  private final Cli cli;
  private final EffectCommands commands;

  @Mixin OperationCommands.Target target;

  @Parameters(
      paramLabel = "[CONFIG] NAME",
      arity = "1..*",
      description = "The YAML config file (unless --store), then the effect's name.")
  List<String> args = new ArrayList<>();

  @Option(
      names = "--yes",
      description = "Forget without asking (what it deletes is still printed).")
  boolean yes;

  @Spec CommandSpec spec;
  @Mixin Cli.Verbose v;

  EffectForgetCommand(Cli cli, EffectCommands commands) {
    this.cli = cli;
    this.commands = commands;
  }

  /** What the store keeps for the effect, as the summary showed it. */
  private record Kept(List<EffectCursor> cursors, long rows, long pending, long journal) {}

  @Override
  public Integer call() {
    try (Opened o = commands.open(spec, target, args)) {
      String name = o.effect(spec, false);
      if (target.store == null) refuseDeclared(Path.of(args.get(0)), name);
      if (commands.refusedWhileHeld(o, name, "forgotten")) return Main.FAILED;
      Kept kept = kept(o, name);
      summary(name, kept, o.effects().loadEffect(name));
      if (!confirmed(name)) return Main.FAILED;
      Optional<Lease> lease = commands.acquireOrRefuse(o, name, "forget", "forgotten");
      if (lease.isEmpty()) return Main.FAILED;
      // An engine may have run while the operator was asked: what was agreed to is no longer what
      // would be deleted.
      if (!kept(o, name).equals(kept)) {
        o.effects().releaseEffectLease(name, lease.get());
        cli.err.println(
            "watukuy: effect "
                + name
                + " moved since the summary; nothing forgotten (run the command again)");
        return Main.FAILED;
      }
      o.effects().forgetEffect(name); // its lease, ours now, goes with the rest
      cli.err.println(
          "watukuy: effect "
              + name
              + " forgotten: "
              + kept.cursors().size()
              + " cursor(s), "
              + kept.rows()
              + " invocation row(s) and "
              + kept.journal()
              + " journaled call(s) deleted; the logs it read are pruned by their retention again");
    }
    return Main.OK;
  }

  /**
   * Refuses an effect the config still declares: the next run would start it afresh.
   *
   * @throws ConfigException naming the effect and the file
   */
  private void refuseDeclared(Path config, String name) {
    if (cli.loadWithoutSinks(config).effects().stream().noneMatch(e -> e.name().equals(name)))
      return;
    throw new ConfigException(
        "effect "
            + name
            + " is declared in "
            + config
            + ": forgetting it would make the next run start it afresh, from the oldest event the"
            + " log keeps; remove it from effects: first (nothing forgotten)");
  }

  private static Kept kept(Opened o, String name) {
    List<EffectCursor> cursors = o.effects().loadCursors(name);
    long rows = 0;
    long pending = 0;
    long journal = 0;
    for (EffectCursor c : cursors) {
      rows += o.effects().countInvocations(name, c.source(), 0);
      pending += pending(o.effects(), c);
      journal += EffectCommands.journaledCalls(o, c, 0);
    }
    return new Kept(cursors, rows, pending, journal);
  }

  private static long pending(EffectStore effects, EffectCursor c) {
    long count = 0;
    long after = 0;
    while (true) {
      List<InvocationRow> rows =
          effects.listInvocations(c.effect(), c.source(), after, PENDING, PAGE);
      count += rows.size();
      if (rows.size() < PAGE) return count;
      after = rows.get(rows.size() - 1).position();
    }
  }

  /** Prints on stdout what the forget deletes, with --yes too. */
  private void summary(String name, Kept kept, Optional<EffectRecord> record) {
    cli.out.println("effect " + name + ": forget deletes");
    cli.out.println(
        "  cursors: "
            + (kept.cursors().isEmpty()
                ? "none"
                : kept.cursors().stream()
                    .map(c -> c.source() + " at position " + c.watermark())
                    .collect(Collectors.joining(", "))));
    cli.out.println(
        "  invocations: "
            + kept.rows()
            + " row(s), "
            + kept.pending()
            + " of them pending (running or failed): they never run");
    cli.out.println("  journal: " + kept.journal() + " journaled call(s)");
    cli.out.println(
        "  quarantine: "
            + record
                .filter(EffectRecord::quarantined)
                .map(r -> "since " + r.quarantinedAt() + ": " + cli.redact(r.quarantineReason()))
                .orElse("none"));
  }

  private boolean confirmed(String name) {
    return Confirmation.confirmed(
        cli, spec, yes, name, "forget", "forgotten", "Forget effect " + name + "? [y/N] ");
  }

  /**
   * The hint {@code inspect CONFIG} prints for each effect the store holds and {@code config} does
   * not declare (docs/effects.md, "Forget"): its cursors hold the logs it read for good.
   *
   * @param out where the lines go
   * @param store the store inspected
   * @param config the config file, as given
   * @param declared the names of the config's effects
   */
  static void printRetired(PrintStream out, StateStore store, Path config, Set<String> declared) {
    EffectStore effects = store.effects().orElse(null);
    if (effects == null) return;
    for (String name : effects.listEffects()) {
      if (declared.contains(name)) continue;
      List<EffectCursor> cursors = effects.loadCursors(name);
      if (cursors.isEmpty()) continue;
      out.printf(
          "  effect %s is not in %s but holds the log of %s; watukuy effects forget %s %s lets"
              + " retention prune it%n",
          name,
          config,
          cursors.stream()
              .map(c -> c.source() + " above " + c.watermark())
              .collect(Collectors.joining(", ")),
          config,
          name);
    }
  }
}
