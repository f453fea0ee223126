package io.watukuy.spi;

/**
 * Where one invocation of an effect's arm stands (docs/effects.md, "Invocations").
 *
 * @since 0.1
 */
public enum InvocationStatus {
  /** Started and not finished: in flight, or abandoned by a process that stopped or died. */
  RUNNING,
  /**
   * The last attempt failed; the lane waits for {@link InvocationRow#retryAt()} and tries again.
   */
  FAILED,
  /** The arm returned: the position is complete in its lane. */
  DONE,
  /**
   * Completed without success and never retried: the arm called {@code ctx.fail(..)} or revealed a
   * document of an erased subject. Counted in {@code terminal_skips}.
   */
  TERMINAL,
  /** Completed by an operator's skip of a failed position. */
  SKIPPED;

  /**
   * Whether the position is complete in its lane (the lane moves past it).
   *
   * @return true for {@link #DONE}, {@link #TERMINAL} and {@link #SKIPPED}
   */
  public boolean completed() {
    return this == DONE || this == TERMINAL || this == SKIPPED;
  }
}
