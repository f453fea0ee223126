package io.watukuy;

/**
 * The user's code that receives events of one poller. Called at most
 * {@code DeliveryOptions.concurrency()} at a time engine-wide, never concurrently for two events
 * of one ordering key, in sequence order per ordering key (guarantee G3). Delivery is
 * at-least-once (G1): make it idempotent, dedup by {@link ChangeEvent#id()}.
 *
 * <p>Returning normally acknowledges the event. Throwing schedules a retry with backoff; after
 * {@code RetryPolicy.attempts()} failed attempts the event is parked (G7).
 *
 * @param <T> the item type
 * @since 0.1
 */
@FunctionalInterface
public interface Handler<T> {
  /**
   * Handles one event.
   *
   * @throws Exception to fail this attempt
   */
  void handle(ChangeEvent<T> event) throws Exception;
}
