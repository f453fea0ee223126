package io.watukuy.effects;

import io.watukuy.ChangeEvent;

/**
 * The code an effect runs for one event (docs/effects.md, "The model"). Its side effects go through
 * {@link EffectContext#call}, which journals them: when the invocation is retried or replayed after
 * a restart, a call already completed returns its recorded result instead of running again.
 *
 * <p>Returning completes the event's position in its lane. Throwing fails the invocation: it is
 * recorded, its lane waits out its backoff (200 ms doubling to 60 s, forever) and it runs again.
 * {@link EffectContext#fail(String)} completes the position as a terminal failure instead.
 *
 * @param <T> the source poller's item type
 * @since 0.1
 */
@FunctionalInterface
public interface Arm<T> {
  /**
   * Runs the effect for one event.
   *
   * @param ctx the invocation's context: journaled calls, terminal failure, log
   * @param event the event at the invocation's log position; {@link ChangeEvent#attempt()} is the
   *     invocation's attempt, from 1
   * @throws Exception to fail this attempt; it is retried under backoff
   */
  void run(EffectContext ctx, ChangeEvent<T> event) throws Exception;
}
