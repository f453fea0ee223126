package io.watukuy.effects;

/**
 * Thrown by {@link EffectContext#fail(String)}: the invocation ends as a terminal failure, its
 * position is completed instead of retried, {@code terminal_skips} counts it and {@code
 * last_terminal_error} keeps its message (docs/effects.md, "Terminal failures"). Catching it inside
 * the arm does not undo it: the context remembers the failure.
 *
 * @since 0.1
 */
public final class TerminalFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the failure.
   *
   * @param message why the event can never succeed
   */
  public TerminalFailure(String message) {
    super(message, null, false, false);
  }
}
