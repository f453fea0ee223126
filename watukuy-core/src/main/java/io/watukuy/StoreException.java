package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * A store could not complete an operation (driver error, lock timeout, corrupt row). The driver's
 * exception is the cause. After a failed {@code commitPoll} the transaction was rolled back; the
 * engine reloads the key's state on its next run.
 *
 * @since 0.1
 */
public final class StoreException extends WatukuyException {
  /**
   * Creates the exception.
   *
   * @param message names the store, the operation and the key, and what failed
   * @param cause the driver's exception, or {@code null} when the store itself detected the problem
   */
  public StoreException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  /** {@inheritDoc} Always {@code true}: a store outage or lock timeout may pass. */
  @Override
  public boolean retryable() {
    return true;
  }
}
