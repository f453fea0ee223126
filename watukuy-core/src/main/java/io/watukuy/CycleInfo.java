package io.watukuy;

import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * A cycle of one key that started under its lease: what {@link WatukuyListener#onCycleStart} gets,
 * and the same instance {@link WatukuyListener#onCycleEnd} gets when it ends, so that a timer or a
 * span can pair the two (by identity, or by {@link #id()}).
 *
 * @param key the key
 * @param id a number unique among the cycles of this engine instance, increasing from 1 in the
 *     order the cycles start
 * @param startedAt when the cycle started, on the engine's {@link TimeSource}
 * @param lanes the lanes due at the start; empty when the cycle only drains the outbox
 * @since 0.3
 */
public record CycleInfo(PollerKey key, long id, Instant startedAt, Set<Lane> lanes) {
  /**
   * Copies the lanes.
   *
   * @throws NullPointerException if key, startedAt or lanes is null
   */
  public CycleInfo {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(startedAt, "startedAt");
    lanes = Set.copyOf(lanes);
  }
}
