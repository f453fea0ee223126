package io.watukuy;

import io.watukuy.internal.HandOffs;

/**
 * The user's code that receives events of one poller. Called at most {@code
 * DeliveryOptions.concurrency()} at a time engine-wide, never concurrently for two events of one
 * ordering key, in sequence order per ordering key (guarantee G3). Delivery is at-least-once (G1):
 * make it idempotent. A redelivery carries the same {@link ChangeEvent#id()} and the same {@link
 * ChangeEvent#sequence()}.
 *
 * <p><b>Deduplicating.</b> An id names an observation (G2), and observations can recur: an item
 * tracked by hash that returns to an earlier state (A → B → A), or a snapshotDiff item that
 * disappears and is listed again, gets an event whose id equals an earlier one, with a higher
 * sequence. So drop an event as a duplicate only when its id was seen <em>and</em> its sequence is
 * not newer than the last one processed for its ordering key; or give the poller a {@code version}
 * function, which makes recurring states distinct.
 *
 * <p>Returning normally acknowledges the event. Throwing schedules a retry with backoff; after
 * {@code RetryPolicy.attempts()} failed attempts the event is parked (G7).
 *
 * <p>To take several events per call, acknowledged with one store write per batch, attach a {@link
 * BatchHandler} with {@link Watukuy#onBatch} instead; a poller has one or the other.
 *
 * @param <T> the item type
 * @since 0.1
 */
@FunctionalInterface
public interface Handler<T> {
  /**
   * Handles one event. Runs on the engine's handler executor; the cycle that dispatched the event
   * waits for it to return.
   *
   * @param event the event; {@link ChangeEvent#attempt()} counts the deliveries of this event
   * @throws Exception to fail this attempt: the event is retried after a backoff, and parked after
   *     the last attempt
   */
  void handle(ChangeEvent<T> event) throws Exception;

  /**
   * Checks again, from inside {@link #handle}, that the lease under which the engine handed over
   * the event still holds for the hand-off margin (a third of the lease TTL) by the process's
   * monotonic clock, as the engine checked right before the call (guarantees G3 and G5). Call it
   * right before a write that cannot be taken back, after the slow work (formatting, connecting),
   * so that a process frozen in between cannot write after the instance that took the key over: the
   * gap left is from this call to the write. Let the exception propagate: the key's delivery ends,
   * the event stays pending for the new holder, and no attempt is counted. Outside a handler call
   * made by the engine it does nothing.
   *
   * @throws LeaseLostException when the lease may no longer be this instance's by the time a write
   *     lands
   * @since 0.2
   */
  static void checkLease() {
    HandOffs.check();
  }
}
