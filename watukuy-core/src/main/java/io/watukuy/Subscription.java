package io.watukuy;

import java.util.Iterator;

/**
 * A pull consumer of one poller's events, the alternative to a {@link Handler} (Guarantees G10):
 * the next slice of the outbox ({@code dispatchBatchSize} rows) is loaded only when the consumer
 * asks, and an event is acknowledged when the consumer asks for the one after it ({@link #next()}
 * or {@link #hasNext()}), so closing leaves the last unacknowledged event, and everything after it,
 * in the outbox. Events of one ordering key come in sequence order. The engine keeps polling and
 * committing while a subscription is open; {@link #hasNext()} is false when nothing is pending
 * right now.
 *
 * <p>Not thread-safe: one consumer thread. Each acknowledgement takes the key's lease briefly;
 * while another instance holds it, the acknowledgement waits for it up to one lease TTL, and when
 * the lease is still held then, {@link #hasNext()} and {@link #next()} throw {@link
 * IllegalStateException} and the event stays unacknowledged.
 *
 * @param <T> the item type
 * @since 0.1
 */
public interface Subscription<T> extends Iterator<ChangeEvent<T>>, AutoCloseable {
  /**
   * Acknowledges the previous event, if any, and tells whether another is pending now.
   *
   * @return whether {@link #next()} has an event
   * @throws IllegalStateException when the previous event's key stays leased by another instance
   */
  @Override
  boolean hasNext();

  /**
   * Acknowledges the previous event, if any, and returns the next.
   *
   * @return the next pending event
   * @throws java.util.NoSuchElementException when none is pending
   * @throws IllegalStateException when the previous event's key stays leased by another instance
   */
  @Override
  ChangeEvent<T> next();

  /** Stops; the last event returned by {@link #next()} stays unacknowledged in the outbox. */
  @Override
  void close();
}
