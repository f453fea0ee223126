package io.watukuy;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A request of a poller that names a rate budget got no token in time (guarantee G6): it waited its
 * poller's {@link Poller#maxWait()}, or the {@code tick()} deadline came first, or the engine
 * stopped without drain. The request was not sent. Retryable: the same request may get a token
 * later.
 *
 * <p>The HTTP helper throws it from {@code ctx.http()}; it reaches the cycle as it is (not wrapped
 * in a {@link FetchException}), and so does one thrown by fetch code or found in the cause chain of
 * what fetch threw. The cycle then ends as {@link KeyReport.Outcome#DEFERRED}: the pages committed
 * before stay committed, the key is due again at once, and it is not a failure: the failure count,
 * the backoff and the circuit are left alone. {@code watukuy run --once} reports it as a skip.
 *
 * @since 0.1
 */
public final class BudgetTimeoutException extends WatukuyException {
  /** Why the wait for a token ended without one. */
  public enum Reason {
    /** The request waited its poller's {@link Poller#maxWait()}. */
    MAX_WAIT,
    /** The {@code tick()} deadline ({@link TickOptions#maxDuration()}) came before a token. */
    TICK_DEADLINE,
    /** The engine stopped without drain while the request waited. */
    STOPPED
  }

  private final @Nullable String budget;
  private final @Nullable PollerKey key;
  private final Duration waited;
  private final @Nullable Reason reason;

  /**
   * Creates the exception the engine throws; the message names the poller (and partition), the
   * budget, why the wait ended, the time waited and {@code maxWait}.
   *
   * @param budget the budget name
   * @param key the key whose request waited
   * @param waited how long the request waited, on the engine's {@link TimeSource}
   * @param maxWait the poller's {@link Poller#maxWait()}
   * @param reason why the wait ended
   * @throws NullPointerException if an argument is null
   */
  public BudgetTimeoutException(
      String budget, PollerKey key, Duration waited, Duration maxWait, Reason reason) {
    super(message(budget, key, waited, maxWait, reason), null);
    this.budget = budget;
    this.key = key;
    this.waited = waited;
    this.reason = reason;
  }

  /**
   * Creates the exception with a message only, for fetch code that enforces a budget of its own.
   * {@link #budget()}, {@link #key()} and {@link #reason()} are then {@code null} and {@link
   * #waited()} is zero.
   *
   * @param message names the budget, the key and the time waited
   */
  public BudgetTimeoutException(String message) {
    super(message, null);
    this.budget = null;
    this.key = null;
    this.waited = Duration.ZERO;
    this.reason = null;
  }

  private static String message(
      String budget, PollerKey key, Duration waited, Duration maxWait, Reason reason) {
    Objects.requireNonNull(budget, "budget");
    Objects.requireNonNull(waited, "waited");
    Objects.requireNonNull(maxWait, "maxWait");
    String who =
        "poller "
            + key.poller()
            + (key.partition().isEmpty() ? "" : " partition " + key.partition());
    String what =
        switch (reason) {
          case MAX_WAIT ->
              "no token within maxWait " + text(maxWait) + " (waited " + text(waited) + ")";
          case TICK_DEADLINE ->
              "the tick deadline ended the wait for a token (waited "
                  + text(waited)
                  + ", maxWait "
                  + text(maxWait)
                  + ")";
          case STOPPED ->
              "the engine stopped while the request waited for a token (waited "
                  + text(waited)
                  + ")";
        };
    return who
        + ": budget "
        + budget
        + ": "
        + what
        + "; the request was not sent and the cycle is deferred";
  }

  /** {@code 250 ms}, {@code 2.5 s}, {@code 90 s}, {@code 10 min}, {@code 2 h}. */
  static String text(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) return ms + " ms";
    if (ms % 3_600_000 == 0) return (ms / 3_600_000) + " h";
    if (ms % 60_000 == 0) return (ms / 60_000) + " min";
    return BigDecimal.valueOf(ms, 3).stripTrailingZeros().toPlainString() + " s";
  }

  /**
   * The budget whose token the request waited for.
   *
   * @return the budget name, or {@code null} for an exception created from a message only
   */
  public @Nullable String budget() {
    return budget;
  }

  /**
   * The key whose request waited.
   *
   * @return the key, or {@code null} for an exception created from a message only
   */
  public @Nullable PollerKey key() {
    return key;
  }

  /**
   * How long the request waited, measured on the engine's {@link TimeSource}.
   *
   * @return zero or more; zero for an exception created from a message only
   */
  public Duration waited() {
    return waited;
  }

  /**
   * Why the wait ended.
   *
   * @return the reason, or {@code null} for an exception created from a message only
   */
  public @Nullable Reason reason() {
    return reason;
  }

  /** {@inheritDoc} Always {@code true}. */
  @Override
  public boolean retryable() {
    return true;
  }
}
