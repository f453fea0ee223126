package io.watukuy.effects;

/**
 * An effect's state (docs/effects.md, "States"), derived in this precedence: {@link #QUARANTINED}
 * over {@link #BLOCKED} over {@link #WEDGED} over {@link #LAGGING} over {@link #OK}. Serialized in
 * lower case.
 *
 * @since 0.1
 */
public enum EffectState {
  /**
   * An operator quarantined it: nothing is dispatched until released. Outranks the rest because a
   * quarantine restored after a restart has no failures of its own to show.
   */
  QUARANTINED,
  /**
   * An arm's key scheme changed while rows above the watermark were written under the old one:
   * nothing runs on that source key. Outranks a wedge because nothing is retrying.
   */
  BLOCKED,
  /** A lane is failing and retrying under backoff. Outranks lag, which a wedge causes. */
  WEDGED,
  /** Events read wait above the watermark. */
  LAGGING,
  /** Caught up. */
  OK;

  /**
   * The lower-case name used in JSON and the CLI.
   *
   * @return e.g. {@code wedged}
   */
  public String wire() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Derives the state from its inputs, in precedence order.
   *
   * @param quarantined whether the effect is quarantined
   * @param blocked whether a source key is blocked by a key scheme change
   * @param wedgedLanes stuck lanes: a head position failed, its retry waiting or running
   * @param lag positions read and not yet passed by the watermark
   * @return the state
   */
  public static EffectState derive(
      boolean quarantined, boolean blocked, int wedgedLanes, long lag) {
    if (quarantined) return QUARANTINED;
    if (blocked) return BLOCKED;
    if (wedgedLanes > 0) return WEDGED;
    if (lag > 0) return LAGGING;
    return OK;
  }
}
