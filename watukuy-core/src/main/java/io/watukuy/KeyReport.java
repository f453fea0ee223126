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
 * @param error the error that ended the cycle, or null
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

  public KeyReport {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(outcome, "outcome");
  }

  /** A skip with nothing done. */
  public static KeyReport skipped(PollerKey key, Outcome outcome) {
    return new KeyReport(key, outcome, 0, 0, 0, 0, false, false, null);
  }

  /** Whether the run ended with an error. */
  public boolean failed() {
    return error != null;
  }

  /** How a key's run ended (DESIGN.md "tick(options)"). */
  public enum Outcome {
    POLLED,
    SKIPPED_NOT_DUE,
    SKIPPED_LEASED,
    SKIPPED_PAUSED,
    SKIPPED_THROTTLED,
    SKIPPED_CIRCUIT_OPEN
  }
}
