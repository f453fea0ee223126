package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * Root of every exception watukuy throws on purpose. Unchecked: the engine's callers decide
 * where to catch, and SPI methods never declare {@code throws Exception}.
 *
 * <p>{@link #retryable()} tells whether repeating the same call later may succeed without a
 * change of configuration or code.
 *
 * @since 0.1
 */
public abstract sealed class WatukuyException extends RuntimeException
    permits LeaseLostException, ConfigException, StoreException, BudgetTimeoutException,
        FetchException, HttpStatusException {

  protected WatukuyException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  /** Whether the same call may succeed later without a change of configuration or code. */
  public abstract boolean retryable();
}
