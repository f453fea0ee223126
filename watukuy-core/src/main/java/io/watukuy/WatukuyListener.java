package io.watukuy;

import java.time.Duration;
import java.time.Instant;

/**
 * Callbacks about what the engine does, for metrics and alerts. Every method has a no-op
 * default. Called synchronously on engine threads: keep them fast and never throw (an exception
 * is logged and ignored).
 *
 * @since 0.1
 */
public interface WatukuyListener {
  /** A listener that does nothing. */
  WatukuyListener NONE = new WatukuyListener() {};

  /** A fenced write was rejected: another instance holds the key now; the cycle was dropped. */
  default void onLeaseLost(PollerKey key, LeaseLostException error) {}

  /** A request waits for a rate-budget token. */
  default void onBudgetWait(PollerKey key, String budget, Duration wait) {}

  /** An event or invalid item was parked. */
  default void onParked(PollerKey key, ParkedRow row) {}

  /** The API throttled the key (429, or 503 with Retry-After) until {@code until}. */
  default void onThrottled(PollerKey key, Instant until) {}

  /** The key's circuit opened after repeated failures or a poison halt. */
  default void onCircuitOpen(PollerKey key, Instant probeAt) {}

  /** The key's circuit closed after a successful probe. */
  default void onCircuitClose(PollerKey key) {}

  /** A cycle of a key ended (polled or skipped). */
  default void onCycle(KeyReport report) {}

  /** A cycle failed. */
  default void onError(PollerKey key, Throwable error) {}

  /** Events were committed for a poller that has no handler attached; they wait in the outbox. */
  default void onNoHandler(PollerKey key, long pending) {}
}
