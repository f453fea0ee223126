package io.watukuy.effects.internal;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The run of failed attempts across an effect's lanes since its last success, for the automatic
 * quarantine (docs/effects.md, "Automatic quarantine"). Not thread-safe: the effect's reader owns
 * it.
 */
final class FailureRun {
  private int attempts;
  private final Set<String> lanes = new HashSet<>();
  private long firstPosition;
  private @Nullable Instant since;

  /** Adds a failed attempt; returns the attempts in the run now. */
  int add(String lane, long position, Instant now) {
    if (attempts == 0) {
      firstPosition = position;
      since = now;
    }
    lanes.add(lane);
    return ++attempts;
  }

  /** A success, a new lease or a trip: the run starts over. */
  void reset() {
    attempts = 0;
    lanes.clear();
    since = null;
  }

  int lanes() {
    return lanes.size();
  }

  long firstPosition() {
    return firstPosition;
  }

  @Nullable Instant since() {
    return since;
  }
}
