package io.watukuy;

/**
 * A request waited longer than its {@code maxWait} for a rate-budget token; the cycle is
 * deferred, not failed (guarantee G6).
 *
 * @since 0.1
 */
public final class BudgetTimeoutException extends WatukuyException {
  public BudgetTimeoutException(String message) {
    super(message, null);
  }

  @Override
  public boolean retryable() {
    return true;
  }
}
