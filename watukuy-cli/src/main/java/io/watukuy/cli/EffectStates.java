package io.watukuy.cli;

import io.watukuy.PollerKey;
import io.watukuy.effects.EffectPlan;
import io.watukuy.effects.EffectState;
import io.watukuy.effects.InFlightLane;
import io.watukuy.effects.SourceStatus;
import io.watukuy.effects.StoredStatus;
import io.watukuy.effects.StuckLane;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectRecord;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * An effect's state as {@code effects list} and {@code show} derive it from the store
 * (docs/effects.md, "States"; docs/config.md, "Effects commands"), in the engine's precedence
 * ({@link EffectState#derive}): quarantined from the effect's record; blocked from the plan of the
 * config that declares the effect ({@link EffectPlanCommand#plans}, the judgement {@code effects
 * plan} makes); wedged from the stuck lanes above the watermark and lagging from the log head
 * ({@link PollerState#lastSequence()}) above it, both read by {@link StoredStatus}, the rule an
 * engine without the effect's lease applies too.
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
   * @param status the key's status as the store shows it ({@link StoredStatus#of}): head, lag,
   *     stuck lanes (failed rows and running retries) and in-flight lanes, by the engine's rule
   * @param blocked why a deploy of the declaring config starts the key blocked, or null
   */
  record Source(EffectCursor cursor, SourceStatus status, @Nullable String blocked) {
    /** The log head of the key (the poller's last sequence), never below the watermark. */
    long head() {
      return status.head();
    }

    /** {@code head - watermark}. */
    long lag() {
      return status.lag();
    }

    /**
     * The stuck lanes, at most {@link SourceStatus#MAX_STUCK_LANES}, lowest position first; none on
     * a blocked key, which runs nothing (no retry is due), as the engine's view lists none.
     */
    List<StuckLane> stuck() {
      return blocked != null ? List.of() : status.stuckLanes();
    }

    /**
     * The in-flight lanes (never a stuck one), at most {@link InFlightLane#MAX}; none if blocked.
     */
    List<InFlightLane> inFlight() {
      return blocked != null ? List.of() : status.inFlightLanes();
    }
  }

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
    int wedged = 0;
    long lag = 0;
    List<Source> sources = new ArrayList<>();
    for (EffectCursor c : cursors) {
      SourceStatus status = StoredStatus.of(store, effects, c, now);
      String reason = plans == null ? null : blockedReason(effects, plans, c.source());
      rowsAbove |= effects.countInvocations(effect, c.source(), c.watermark()) > 0;
      blocked |= reason != null;
      wedged += status.wedgedLanes();
      lag += status.lag();
      sources.add(new Source(c, status, reason));
    }
    boolean judged = quarantined || plans != null || !rowsAbove;
    return new View(EffectState.derive(quarantined, blocked, wedged, lag), judged, sources);
  }

  private static @Nullable String blockedReason(
      EffectStore effects, List<EffectPlan> plans, PollerKey source) {
    for (EffectPlan p : plans)
      if (p.source().equals(source) && p.blocked())
        return EffectPlanCommand.blockedReason(
            p, effects.countInvocations(p.effect(), source, p.watermark()));
    return null;
  }
}
