package io.watukuy;

/**
 * A request waited longer than its {@code maxWait} for a rate-budget token (guarantee G6).
 * Retryable: the same request may get a token later.
 *
 * <p>This release has no rate budgets, so the engine never throws it itself. One thrown by fetch
 * code reaches the cycle as it is (not wrapped in a {@link FetchException}) and ends the cycle
 * like any other fetch error: the key backs off by its {@link Schedule#backoff()}.
 *
 * @since 0.1
 */
public final class BudgetTimeoutException extends WatukuyException {
  /**
   * Creates the exception.
   *
   * @param message names the budget, the tokens wanted and available, and the time waited
   */
  public BudgetTimeoutException(String message) {
    super(message, null);
  }

  /** {@inheritDoc} Always {@code true}. */
  @Override
  public boolean retryable() {
    return true;
  }
}
