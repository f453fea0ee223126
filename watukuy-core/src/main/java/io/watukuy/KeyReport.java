package io.watukuy;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What one run of one key did, as reported by {@code tick()} and {@link WatukuyListener#onCycle}.
 *
 * @param key the key
 * @param outcome polled, or why it was skipped
 * @param pages pages fetched, all lanes
 * @param eventsCommitted events committed to the outbox
 * @param delivered events whose handler returned (this run, drained ones included)
 * @param parked events and invalid items parked this run
 * @param truncated the listing was cut by the page cap or the tick deadline
 * @param notModified the cycle ended on a trusted 304
 * @param error the error that ended the cycle, or null; for {@link Outcome#DEFERRED} the {@link
 *     BudgetTimeoutException}
 * @since 0.1
 */
public record KeyReport(
    PollerKey key,
    Outcome outcome,
    int pages,
    int eventsCommitted,
    int delivered,
    int parked,
    boolean truncated,
    boolean notModified,
    @Nullable Throwable error) {

  /**
   * Creates a report.
   *
   * @param key the key
   * @param outcome polled, or why it was skipped
   * @param pages pages fetched
   * @param eventsCommitted events committed to the outbox
   * @param delivered events whose handler returned
   * @param parked events and invalid items parked
   * @param truncated whether the listing was cut
   * @param notModified whether the cycle ended on a trusted 304
   * @param error the error that ended the run, or {@code null}
   * @throws NullPointerException if {@code key} or {@code outcome} is null
   */
  public KeyReport {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(outcome, "outcome");
  }

  /**
   * A skip with nothing done: every count zero, no error.
   *
   * @param key the key
   * @param outcome why the key was skipped
   * @return the report
   */
  public static KeyReport skipped(PollerKey key, Outcome outcome) {
    return new KeyReport(key, outcome, 0, 0, 0, 0, false, false, null);
  }

  /**
   * Whether the run ended with an error. A {@link Outcome#DEFERRED} run carries its {@link
   * BudgetTimeoutException} in {@link #error()} but did not fail.
   *
   * @return {@code error() != null} unless the outcome is {@link Outcome#DEFERRED}
   */
  public boolean failed() {
    return error != null && outcome != Outcome.DEFERRED;
  }

  /** How a key's run ended (docs/architecture.md, "Partitions, tick, listeners"). */
  public enum Outcome {
    /**
     * The key ran under its lease: drained its outbox, and polled its live lane when due. Also
     * reported, with {@link KeyReport#error()}, when the store failed before the lease was
     * acquired.
     */
    POLLED,
    /** The live lane was not due and there was no outbox to drain (or no handler to drain to). */
    SKIPPED_NOT_DUE,
    /** Another instance holds the key's lease. */
    SKIPPED_LEASED,
    /** The key is paused, manually or because its partition was removed. */
    SKIPPED_PAUSED,
    /** A {@code Retry-After} has not passed yet, and there was no outbox to drain. */
    SKIPPED_THROTTLED,
    /** The circuit is open and its probe is not due yet, and there was no outbox to drain. */
    SKIPPED_CIRCUIT_OPEN,
    /**
     * The key ran, but a request got no rate-budget token within its poller's {@link
     * Poller#maxWait()} or before the tick deadline (G6): the request was not sent and the cycle
     * ended there. {@link KeyReport#error()} is the {@link BudgetTimeoutException}. Not a failure:
     * the pages committed before stay, the key is due again at once, its failure count, backoff and
     * circuit are left alone, and {@link WatukuyListener#onError} is not called.
     */
    DEFERRED
  }
}
