package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * Root of every exception watukuy throws on purpose. Unchecked: the engine's callers decide where
 * to catch, and SPI methods never declare {@code throws Exception}.
 *
 * <p>{@link #retryable()} tells whether repeating the same call later may succeed without a change
 * of configuration or code.
 *
 * @since 0.1
 */
public abstract sealed class WatukuyException extends RuntimeException
    permits LeaseLostException,
        ConfigException,
        StoreException,
        BudgetTimeoutException,
        FetchException,
        HttpStatusException,
        CredentialRevokedException {

  /**
   * Creates the exception.
   *
   * @param message subject, problem, numbers and next step
   * @param cause the underlying failure, or {@code null}
   */
  protected WatukuyException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  /**
   * Whether the same call may succeed later without a change of configuration or code.
   *
   * @return {@code true} for transient failures (store outage, HTTP 5xx, budget wait), {@code
   *     false} for configuration errors and lost leases
   */
  public abstract boolean retryable();

  /**
   * The short name {@code lastError.name} records for this failure, what {@code inspect} shows and
   * monitoring matches on.
   *
   * @return the simple class name unless a subclass names the cause more precisely (a {@link
   *     FetchException} of a stalled lane says {@code PageRepeated} or {@code TokenNotAdvancing})
   */
  public String kind() {
    return getClass().getSimpleName();
  }
}
