package io.watukuy;

import java.util.Objects;

/**
 * What happens to an event whose handler failed every attempt (guarantee G7).
 *
 * @param action {@code PARK} (default) quarantines the event; {@code HALT} also opens the key's
 *     circuit
 * @param holdKey when true, later events of the same ordering key wait until the parked event is
 *     retried or discarded (G3 across a park); default false
 * @since 0.1
 */
public record PoisonPolicy(Action action, boolean holdKey) {
  public static final PoisonPolicy DEFAULT = new PoisonPolicy(Action.PARK, false);

  public PoisonPolicy {
    Objects.requireNonNull(action, "action");
  }

  /** Park, and hold the ordering key. */
  public static PoisonPolicy parkAndHoldKey() {
    return new PoisonPolicy(Action.PARK, true);
  }

  public enum Action {
    PARK,
    HALT
  }
}
