package io.watukuy.cli;

import io.watukuy.PollerKey;
import io.watukuy.effects.EffectPlan;
import io.watukuy.effects.EffectState;
import io.watukuy.effects.InFlightLane;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectRecord;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * An effect's state as {@code effects list} and {@code show} derive it from the store
 * (docs/effects.md, "States"; docs/config.md, "Effects commands"), in the engine's precedence
 * ({@link EffectState#derive}): quarantined from the effect's record; blocked from the plan of the
 * config that declares the effect ({@link EffectPlanCommand#plans}, the judgement {@code effects
 * plan} makes); wedged from failed invocation rows above the watermark; lagging from the log head
 * ({@link PollerState#lastSequence()}) above the watermark.
 *
 * <p>A key scheme lives in the program that declares the effect, not in the store: for an effect no
 * config at hand declares (a Java effect, or {@code --store URI}) blocked cannot be judged here,
 * and {@link View#blockedJudged()} says so rather than let {@code ok} pass for it.
 */
final class EffectStates {
  /** Where blocked is judged for an effect the command cannot judge: shown with its state. */
  static final String NOT_JUDGED =
      "blocked is judged against the declaring program: Effects.plan() or GET /admin/effects/";

  private EffectStates() {}

  /**
   * One source key's standing.
   *
   * @param cursor the effect's cursor on the key
   * @param head the log head of the key (the poller's last sequence), 0 before its first event
   * @param lag {@code head - watermark}, never below 0
   * @param failed failed invocation rows above the watermark, counted up to {@link
   *     EffectCommands#SHOW_LIMIT}
   * @param blocked why a deploy of the declaring config starts the key blocked, or null
   * @param inFlight running invocations above the watermark whose attempt started at least {@link
   *     InFlightLane#THRESHOLD} ago, lowest position first, at most {@link InFlightLane#MAX}
   */
  record Source(
      EffectCursor cursor,
      long head,
      long lag,
      int failed,
      @Nullable String blocked,
      List<InvocationRow> inFlight) {}

  /**
   * One effect's state.
   *
   * @param state derived in precedence order
   * @param blockedJudged false when blocked could not be judged (no config at hand declares the
   *     effect, it is not quarantined, and rows above a watermark exist)
   * @param sources one entry per cursor, in the store's order
   */
  record View(EffectState state, boolean blockedJudged, List<Source> sources) {}

  /**
   * The plans of the config's {@code effects:}, or none with {@code --store URI}.
   *
   * @param cli the command line, which loads the config with its secrets
   * @param config the config file the command was given, or null for {@code --store}
   * @param store the opened store the plans read, without a lease
   * @throws io.watukuy.ConfigException when the config's effects or pollers cannot be built
   */
  static Map<String, List<EffectPlan>> declared(
      Cli cli, @Nullable String config, StateStore store) {
    if (config == null) return Map.of();
    return EffectPlanCommand.plans(cli.loadWithoutSinks(java.nio.file.Path.of(config)), store);
  }

  /**
   * Derives the state of {@code effect}.
   *
   * @param store the store, for each source's log head
   * @param effects its effect tables
   * @param effect the effect's name
   * @param rec the effect's record (quarantine), if it has one
   * @param cursors the effect's cursors, one per source key
   * @param declared the plans of the effects a config declares ({@link #declared})
   * @param now the command's clock, for the in-flight age
   * @throws io.watukuy.StoreException when the store cannot be reached
   */
  static View of(
      StateStore store,
      EffectStore effects,
      String effect,
      Optional<EffectRecord> rec,
      List<EffectCursor> cursors,
      Map<String, List<EffectPlan>> declared,
      Instant now) {
    List<EffectPlan> plans = declared.get(effect);
    boolean quarantined = rec.map(EffectRecord::quarantined).orElse(false);
    boolean blocked = false;
    boolean rowsAbove = false;
    int failed = 0;
    long lag = 0;
    List<Source> sources = new ArrayList<>();
    for (EffectCursor c : cursors) {
      long head = store.loadState(c.source()).map(PollerState::lastSequence).orElse(0L);
      long keyLag = Math.max(0, head - c.watermark());
      int keyFailed =
          effects
              .listInvocations(
                  effect,
                  c.source(),
                  c.watermark(),
                  Set.of(InvocationStatus.FAILED),
                  EffectCommands.SHOW_LIMIT)
              .size();
      String reason = plans == null ? null : blockedReason(effects, plans, c.source());
      rowsAbove |= effects.countInvocations(effect, c.source(), c.watermark()) > 0;
      blocked |= reason != null;
      failed += keyFailed;
      lag += keyLag;
      sources.add(new Source(c, head, keyLag, keyFailed, reason, inFlight(effects, c, now)));
    }
    boolean judged = quarantined || plans != null || !rowsAbove;
    return new View(EffectState.derive(quarantined, blocked, failed, lag), judged, sources);
  }

  private static @Nullable String blockedReason(
      EffectStore effects, List<EffectPlan> plans, PollerKey source) {
    for (EffectPlan p : plans)
      if (p.source().equals(source) && p.blocked())
        return EffectPlanCommand.blockedReason(
            p, effects.countInvocations(p.effect(), source, p.watermark()));
    return null;
  }

  /** The running rows above the watermark whose attempt started at least 30 s before now. */
  private static List<InvocationRow> inFlight(EffectStore effects, EffectCursor c, Instant now) {
    List<InvocationRow> out = new ArrayList<>();
    for (InvocationRow row :
        effects.listInvocations(
            c.effect(),
            c.source(),
            c.watermark(),
            Set.of(InvocationStatus.RUNNING),
            InFlightLane.MAX))
      if (runningFor(row, now).compareTo(InFlightLane.THRESHOLD) >= 0) out.add(row);
    return out;
  }

  /** How long the row's attempt has run: since its {@code startedAt}, never negative. */
  static Duration runningFor(InvocationRow row, Instant now) {
    return now.isAfter(row.startedAt()) ? Duration.between(row.startedAt(), now) : Duration.ZERO;
  }
}
