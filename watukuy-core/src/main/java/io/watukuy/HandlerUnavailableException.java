package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by a {@link Handler} whose destination is down (a closed pipe, a full disk, a broker that
 * refuses connections): the event was not handled, and no attempt is counted against it. The
 * dispatcher stops delivering for the rest of the cycle, leaves this event and every later one
 * pending in the outbox, and ends the cycle with this exception as its error, so the next cycle
 * tries again. Unlike any other exception, it never leads to a park.
 *
 * @since 0.1
 */
public final class HandlerUnavailableException extends RuntimeException {
  /**
   * @param message what is unavailable, e.g. {@code output file:events.ndjson: No space left}
   * @param cause the underlying failure, or null
   */
  public HandlerUnavailableException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
