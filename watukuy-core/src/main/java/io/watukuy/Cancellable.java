package io.watukuy;

/**
 * A scheduled task that can be called off. Cancelling twice, or after the task ran, does nothing.
 *
 * @since 0.1
 */
@FunctionalInterface
public interface Cancellable {
  /** Calls the task off if it has not started. */
  void cancel();
}
