package io.watukuy.cli;

import io.watukuy.PollerKey;
import io.watukuy.cli.EffectCommands.Opened;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectRecord;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.Lease;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code watukuy effects retry (CONFIG | --store URI) NAME [POSITION] [--partition P]}
 * (docs/config.md, "Effects commands"; docs/effects.md, "Retry now"): for an effect no engine runs,
 * sets the stored retry time of its failed invocations above the watermark (or of the one failed
 * POSITION) to now, through {@link EffectStore#saveInvocation} under the effect's lease, so the
 * next engine start runs them at once instead of waiting out their backoff. Refused while an engine
 * holds the effect, as rewind is: a running engine is asked through {@code Effects.retryNow} or the
 * admin server instead. The attempt count is kept.
 */
@Command(
    name = "retry",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    customSynopsis = "watukuy effects retry (CONFIG | --store URI) NAME [POSITION] [--partition P]",
    description = {
      "Makes the failed invocations of effect NAME due now, so the next engine start runs them at once.",
      "Sets the stored retry time of every failed position above the effect's position (or of POSITION"
          + " alone) to now, keeping the attempt count; prints one line per position made due."
          + " Refused (exit 1) while an engine holds the effect's lease (a running engine retries"
          + " through the admin server's POST /admin/effects/NAME/retry), and (exit 2) for a POSITION"
          + " that has not failed."
    })
final class EffectRetryCommand implements Callable<Integer> {
  private static final int PAGE = 1000;

  private final Cli cli;
  private final EffectCommands commands;

  @Mixin OperationCommands.Target target;

  @Parameters(
      paramLabel = "[CONFIG] NAME [POSITION]",
      arity = "1..*",
      description =
          "The YAML config file (unless --store), the effect's name, then a failed log position"
              + " (default: every failed one).")
  List<String> args = new ArrayList<>();

  @Option(
      names = "--partition",
      paramLabel = "P",
      description =
          "The source partition to retry on (needed with POSITION when the effect reads several;"
              + " without POSITION it limits the retry to P).")
  @Nullable String partition;

  @Spec CommandSpec spec;
  @Mixin Cli.Verbose v;

  EffectRetryCommand(Cli cli, EffectCommands commands) {
    this.cli = cli;
    this.commands = commands;
  }

  @Override
  public Integer call() {
    try (Opened o = commands.open(spec, target, args)) {
      boolean one = o.rest().size() > 1;
      String name = o.effect(spec, one);
      long position = one ? o.position(spec) : 0;
      if (one && position < 1)
        throw EffectCommands.notALogPosition(spec, name, position, "retried");
      List<EffectCursor> cursors =
          one || partition != null
              ? List.of(o.cursor(name, partition))
              : o.effects().loadCursors(name);
      if (commands.refusedWhileHeld(o, name, "retried")) return Main.FAILED;
      Optional<Lease> lease = commands.acquireOrRefuse(o, name, "retry", "retried");
      if (lease.isEmpty()) return Main.FAILED;
      int made = 0;
      try {
        if (one) {
          PollerKey source = cursors.get(0).source();
          InvocationRow row = o.effects().loadInvocation(name, source, position).orElse(null);
          if (row == null || row.status() != InvocationStatus.FAILED) {
            commands.refuseNotFailed(name, position, source, row, "retried");
            return Main.USAGE;
          }
          retry(o, row, lease.get());
          made = 1;
        } else {
          for (EffectCursor c : cursors) made += retryAbove(o, c, lease.get());
        }
      } finally {
        o.effects().releaseEffectLease(name, lease.get());
      }
      boolean quarantined =
          o.effects().loadEffect(name).filter(EffectRecord::quarantined).isPresent();
      cli.err.println(
          "watukuy: effect "
              + name
              + ": "
              + made
              + " failed position(s) due now; "
              + (quarantined
                  ? "it is quarantined, so nothing runs until `watukuy effects release` (the"
                      + " retry does not release it)"
                  : "the next engine start runs them at once"));
    }
    return Main.OK;
  }

  /** Every failed row above the cursor's watermark, page by page; returns how many. */
  private int retryAbove(Opened o, EffectCursor c, Lease lease) {
    int made = 0;
    long after = c.watermark();
    while (true) {
      List<InvocationRow> rows =
          o.effects()
              .listInvocations(
                  c.effect(), c.source(), after, Set.of(InvocationStatus.FAILED), PAGE);
      for (InvocationRow row : rows) {
        retry(o, row, lease);
        made++;
      }
      if (rows.size() < PAGE) return made;
      after = rows.get(rows.size() - 1).position();
    }
  }

  /** Sets one failed row's retry time to now, its attempt and error kept, and prints it. */
  private void retry(Opened o, InvocationRow row, Lease lease) {
    Instant now = now();
    o.effects().saveInvocation(row.withRetryAt(now, now), lease);
    cli.out.println(
        row.source()
            + "\t"
            + row.position()
            + "\t"
            + (row.lane().isEmpty() ? "(no key)" : row.lane())
            + "\tattempt "
            + row.attempt()
            + "\tdue "
            + now);
  }

  /** Now, to the millisecond: the row's retry time and what the line prints. */
  private Instant now() {
    return cli.clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }
}
