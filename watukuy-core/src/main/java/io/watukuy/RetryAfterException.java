package io.watukuy;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A handler's failure of an event that also says how long to wait before the next attempt: a
 * webhook receiver's {@code 429 Too Many Requests} or {@code 503} with a {@code Retry-After}
 * header, a broker's throttle (docs/guarantees.md, G7). It counts an attempt like any other failure
 * and parks the event after the last one; the next attempt is due no earlier than {@link
 * #retryAfter()} after the failure is recorded, or after the retry policy's backoff when that is
 * later. Throw it, or report it as the cause of {@code BatchResult.failed} (it may also be found
 * further down a cause chain).
 *
 * <p>Not an outage: a destination that is down throws {@link HandlerUnavailableException}, which
 * counts nothing and never parks.
 *
 * <p>Thrown by fetch code (or found in the cause chain of what it threw), for a vendor's client of
 * its own that was told to wait, it throttles the key as a 429 with {@code Retry-After} would: the
 * key is {@code throttled} until {@link #retryAfter()} from the cycle's end, no failure is counted,
 * and the key stays healthy until {@code stale} (docs/operations.md, "Health").
 *
 * @since 0.2
 */
public final class RetryAfterException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The wait asked for; a {@link Duration} is serializable. */
  private final Duration retryAfter;

  /**
   * @param message why the event failed, e.g. {@code webhook ... answered 429 Too Many Requests}
   * @param retryAfter the least wait before the next attempt, from when the engine records this
   *     failure; zero or more
   * @param cause the underlying failure, or null
   * @throws NullPointerException if {@code retryAfter} is null
   * @throws IllegalArgumentException if {@code retryAfter} is negative
   */
  public RetryAfterException(String message, Duration retryAfter, @Nullable Throwable cause) {
    super(message, cause);
    Objects.requireNonNull(retryAfter, "retryAfter");
    if (retryAfter.isNegative())
      throw new IllegalArgumentException("retryAfter must be zero or more, but was " + retryAfter);
    this.retryAfter = retryAfter;
  }

  /**
   * The least wait before the next attempt.
   *
   * @return zero or more
   */
  public Duration retryAfter() {
    return retryAfter;
  }
}
