package io.watukuy;

import java.util.concurrent.CancellationException;

/**
 * Tells a running fetch that its cycle should end: the engine is stopping without drain, or the
 * {@code tick()} deadline passed. Fetch code that loops or waits should check it.
 *
 * @since 0.1
 */
public interface CancellationToken {
  /**
   * Whether the cycle should end as soon as possible. Cheap and non-blocking; safe from any thread.
   *
   * @return {@code true} when the engine stops without drain or the tick deadline has passed
   */
  boolean isCancelled();

  /**
   * Throws when cancelled.
   *
   * @throws java.util.concurrent.CancellationException if {@link #isCancelled()}
   */
  default void throwIfCancelled() {
    if (isCancelled()) throw new CancellationException("cycle cancelled");
  }
}
