package io.watukuy;

import java.util.Objects;

/**
 * What happens to an event whose handler failed every attempt (guarantee G7).
 *
 * @param action {@code PARK} (default) quarantines the event; {@code HALT} also holds its ordering
 *     key and opens the key's circuit
 * @param holdKey when true, later events of the same ordering key wait until the parked event is
 *     retried or discarded (G3 across a park); default false; {@code HALT} holds the ordering key
 *     whatever this says
 * @since 0.1
 */
public record PoisonPolicy(Action action, boolean holdKey) {
  /** Park, without holding the ordering key (docs/architecture.md, "Defaults"). */
  public static final PoisonPolicy DEFAULT = new PoisonPolicy(Action.PARK, false);

  /**
   * Creates the policy.
   *
   * @param action park, or park and halt
   * @param holdKey whether later events of the ordering key wait for the parked one
   * @throws NullPointerException if {@code action} is null
   */
  public PoisonPolicy {
    Objects.requireNonNull(action, "action");
  }

  /**
   * Park, and hold the ordering key: per-key order holds across a park (G3).
   *
   * @return {@code new PoisonPolicy(Action.PARK, true)}
   */
  public static PoisonPolicy parkAndHoldKey() {
    return new PoisonPolicy(Action.PARK, true);
  }

  /** What happens to the key when one of its events is parked as poison. */
  public enum Action {
    /** Park the event; the key keeps polling and delivering. */
    PARK,
    /**
     * Park the event and hold its ordering key; at the end of the cycle, open the key's circuit
     * with a probe after {@link Schedule#max()} and record the last error as {@code PoisonHalt}.
     */
    HALT
  }
}
