package io.watukuy.effects.internal;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The run of failed attempts across an effect's lanes since its last success, for the automatic
 * quarantine (docs/effects.md, "Automatic quarantine"): failures to be retried and terminal
 * failures alike. Not thread-safe: the effect's reader owns it.
 */
final class FailureRun {
  private int attempts;
  private int terminal;
  private final Set<String> lanes = new HashSet<>();
  private long firstPosition;
  private @Nullable Instant since;

  /**
   * Adds a failed attempt; returns the attempts in the run now.
   *
   * @param terminal whether the attempt was a terminal failure (its position completed)
   */
  int add(String lane, long position, boolean terminal, Instant now) {
    if (attempts == 0) {
      firstPosition = position;
      since = now;
    }
    lanes.add(lane);
    if (terminal) this.terminal++;
    return ++attempts;
  }

  /** A success, a new lease or a trip: the run starts over. */
  void reset() {
    attempts = 0;
    terminal = 0;
    lanes.clear();
    since = null;
  }

  /** The terminal failures among the attempts of the run. */
  int terminal() {
    return terminal;
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
