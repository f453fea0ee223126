package io.watukuy;

import org.jspecify.annotations.Nullable;

/**
 * A store could not complete an operation (driver error, lock timeout, corrupt row). The
 * driver's exception is the cause. After a failed {@code commitPoll} the transaction was rolled
 * back; the engine reloads the key's state on its next run.
 *
 * @since 0.1
 */
public final class StoreException extends WatukuyException {
  public StoreException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  @Override
  public boolean retryable() {
    return true;
  }
}
