package io.watukuy;

import io.watukuy.spi.ParkedRow;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Callbacks about what the engine does, for metrics and alerts. Every method has a no-op default.
 * Called synchronously on engine threads (the thread running {@code tick()}, or a daemon cycle
 * thread), possibly from several at once: keep them fast and thread-safe, and never throw (a {@code
 * RuntimeException} is logged and ignored).
 *
 * @since 0.1
 */
public interface WatukuyListener {
  /** A listener that does nothing. */
  WatukuyListener NONE = new WatukuyListener() {};

  /**
   * A fenced write was rejected: another instance holds the key now; the cycle was dropped (G5).
   *
   * @param key the key whose lease was lost
   * @param error the rejection, with the held and current epochs
   */
  default void onLeaseLost(PollerKey key, LeaseLostException error) {}

  /**
   * A request found no token of its poller's rate budget and starts to wait (G6). Called once per
   * such request, on the thread that waits, before it waits; not called for a request that gets a
   * token at once. The wait then ends with a token, or with a {@link BudgetTimeoutException} after
   * the poller's {@link Poller#maxWait()} (or at the tick deadline).
   *
   * @param key the key whose request waits
   * @param budget the budget name
   * @param wait the expected wait, measured on the engine's {@link TimeSource}: until the budget
   *     store's next token, plus {@code per / requests} for each request ahead in the fair order.
   *     Exact for the in-memory store unless a request of higher priority arrives meanwhile; may
   *     exceed {@code maxWait}
   */
  default void onBudgetWait(PollerKey key, String budget, Duration wait) {}

  /**
   * The wait that {@link #onBudgetWait} announced ended: called exactly once after each {@code
   * onBudgetWait}, on the same thread, whether the request got its token or not.
   *
   * @param key the key whose request waited
   * @param budget the budget name
   * @param waited how long the request waited, on the engine's {@link TimeSource}
   * @param failure null when the token came; else why the wait ended without one: a {@link
   *     BudgetTimeoutException} after {@link Poller#maxWait()}, or an {@link
   *     java.io.UncheckedIOException} when the cycle stopped or the thread was interrupted
   * @since 0.3
   */
  default void onBudgetWaitEnd(
      PollerKey key, String budget, Duration waited, @Nullable Throwable failure) {}

  /**
   * An event or invalid item was parked (G7). Called after the park is stored.
   *
   * @param key the key
   * @param row the parked row
   */
  default void onParked(PollerKey key, ParkedRow row) {}

  /**
   * A handler (or sink) failed an event (G7): the attempt is counted, and the event is retried at
   * {@code retryAt} or, after the last attempt, parked ({@link #onParked} follows). Not called for
   * a destination that is down ({@link HandlerUnavailableException}), which counts nothing. Called
   * after the attempt is stored; for a command line or a monitor that must not stay silent while an
   * event keeps failing.
   *
   * @param key the key
   * @param eventId the event's id
   * @param sequence the event's sequence in the key's outbox
   * @param attempt the attempt that failed, from 1
   * @param retryAt when the event is tried again, or null when it was parked
   * @param cause the handler's failure; its message may hold what the handler wrote, redact it
   *     before printing
   * @since 0.2
   */
  default void onDeliveryFailed(
      PollerKey key,
      String eventId,
      long sequence,
      int attempt,
      @Nullable Instant retryAt,
      Throwable cause) {}

  /**
   * The API throttled the key (429, or 503 with Retry-After); the key is not polled before {@code
   * until}.
   *
   * @param key the key
   * @param until the Retry-After instant; without one (a 429), the rate-limit reset when one lies
   *     ahead, else now plus the next step of {@link Schedule#backoff()}, without jitter, growing
   *     with each throttle in a row (docs/architecture.md, "Circuit")
   */
  default void onThrottled(PollerKey key, Instant until) {}

  /**
   * The key's circuit opened, or stayed open after a failed probe: repeated failures or a poison
   * halt.
   *
   * @param key the key
   * @param probeAt when the probe cycle is due
   */
  default void onCircuitOpen(PollerKey key, Instant probeAt) {}

  /**
   * The key's circuit closed after a successful probe.
   *
   * @param key the key
   */
  default void onCircuitClose(PollerKey key) {}

  /**
   * A page of a running cycle was committed: how far the cycle has come, for a progress line on a
   * long first sync (the command line prints one every 10 s; docs/operations.md, "Progress").
   * Called on the cycle's thread after every page, so it must be cheap.
   *
   * @param key the key
   * @param pages pages fetched so far in this cycle, all lanes
   * @param items items read so far
   * @param events events committed so far
   * @param elapsed time since the cycle started, on the engine's {@link TimeSource}
   * @since 0.2
   */
  default void onPage(PollerKey key, int pages, int items, int events, Duration elapsed) {}

  /**
   * Events were committed to the key's outbox with a page (or with the deletes after a full
   * listing): called after the commit, on the cycle's thread, once per event type the commit held,
   * before the events are handed to delivery. For a counter of events by type and lane.
   *
   * @param key the key
   * @param lane the lane whose page committed them
   * @param type the events' type
   * @param count how many events of that type, at least 1
   * @since 0.3
   */
  default void onEvents(PollerKey key, Lane lane, EventType type, int count) {}

  /**
   * A run of a key ended, polled or skipped; called once per key per {@code tick()} and per daemon
   * run.
   *
   * @param report what the run did
   */
  default void onCycle(KeyReport report) {}

  /**
   * A cycle failed with an error other than a lost lease. When the cycle was polling, the key then
   * backs off, throttles or opens its circuit.
   *
   * @param key the key
   * @param error the error, usually a {@link FetchException} or {@link StoreException}
   */
  default void onError(PollerKey key, Throwable error) {}

  /**
   * Events were committed for a poller that has no handler attached; they wait in the outbox.
   * Called once per cycle that committed events.
   *
   * @param key the key
   * @param pending the key's pending outbox rows after the cycle
   */
  default void onNoHandler(PollerKey key, long pending) {}

  /**
   * A request of the HTTP helper was answered or failed: called once per attempt (each redirect hop
   * and each retry included), on the thread that sent it (a page fetched ahead runs on the cycle
   * executor), after the response's body was read and before the helper returns or throws. Requests
   * that fetch code sends with its own client are not seen.
   *
   * @param key the key whose fetch sent it
   * @param request method, origin, status or failure, duration and attempt; no path or query
   * @since 0.3
   */
  default void onRequest(PollerKey key, RequestInfo request) {}

  /**
   * A request of the HTTP helper is about to be sent: called on the sending thread just before the
   * send, after its rate-budget token was taken, exactly once per attempt (each redirect hop and
   * each retry included). Exactly one {@link #onRequest} for the same attempt follows on the same
   * thread, with no other {@code onRequestStart} between, whether the request is answered or fails:
   * for a timing or a span that must start with the request.
   *
   * @param key the key whose fetch sends it
   * @param request method, origin, the URL with its secrets hidden, and attempt
   * @since 0.3
   */
  default void onRequestStart(PollerKey key, RequestStart request) {}

  /**
   * A handler call's events were acked, retried or parked (G7): called after the outcome is stored,
   * on the cycle's thread, once per outcome ({@link DeliveryOutcome} says which calls give which).
   * A retry or park is also told to {@link #onDeliveryFailed} (and {@link #onParked}), event by
   * event.
   *
   * @param key the key
   * @param outcome what became of the events, how many, how long the handler took, which attempt
   * @since 0.3
   */
  default void onDelivery(PollerKey key, DeliveryOutcome outcome) {}

  /**
   * A cycle of the key started: the engine holds its lease and starts to drain the outbox and poll
   * the lanes due. Exactly one {@link #onCycleEnd} with the same {@link CycleInfo} follows on the
   * same thread, however the cycle ends (failed, deferred, lease lost, interrupted). A key skipped
   * without its lease (not due, paused, throttled, leased elsewhere) starts no cycle; {@link
   * #onCycle} still reports it.
   *
   * @param cycle the key, the cycle's id, when it started and the lanes due
   * @since 0.3
   */
  default void onCycleStart(CycleInfo cycle) {}

  /**
   * The cycle that {@link #onCycleStart} announced ended, its lease released (or lost). Called
   * before {@link #onCycle} with the same report.
   *
   * @param cycle the instance {@link #onCycleStart} got
   * @param report what the cycle did; {@link KeyReport#failed()} when it failed
   * @param elapsed from {@link CycleInfo#startedAt()} to the end, on the engine's {@link
   *     TimeSource}
   * @since 0.3
   */
  default void onCycleEnd(CycleInfo cycle, KeyReport report, Duration elapsed) {}

  /**
   * A commit of a running cycle wrote events to the key's outbox: a page's, or the deletes after a
   * full listing. Called after the commit, on the cycle's thread, after {@link #onEvents} and
   * before the events are handed to delivery; once per commit that holds events. A commit outside a
   * cycle (an operator's replay) is not told. For an instrumentation that relates a delivery to the
   * cycle that committed its events (a span link, docs/operations.md, "Traces").
   *
   * @param cycle the running cycle, the instance {@link #onCycleStart} got
   * @param firstSequence the first event's sequence in the key's outbox
   * @param lastSequence the last event's; the commit's events hold every sequence from the first to
   *     the last
   * @since 0.3
   */
  default void onCommit(CycleInfo cycle, long firstSequence, long lastSequence) {}

  /**
   * A handler (or sink) is about to get events: called on the handler's thread, after the lease
   * allowed the hand-off and right before the call. Exactly one {@link #onDeliveryEnd} with the
   * same {@link DeliveryCall} follows on the same thread, however the call ends. A listener may
   * return headers for the messages the call writes: a {@link io.watukuy.sink.Sink} reads them with
   * {@link io.watukuy.sink.Sink#headers()} and writes them on every message of the batch (the W3C
   * trace context {@code traceparent} and {@code tracestate}, for a trace that follows the events).
   *
   * @param call the key, the events' sequences, when and which attempt
   * @return headers to add, names in lower case, values US-ASCII; {@link Map#of()} (the default)
   *     for none. When two listeners name the same header, the first one's value is kept
   * @since 0.3
   */
  default Map<String, String> onDeliveryStart(DeliveryCall call) {
    return Map.of();
  }

  /**
   * The handler call that {@link #onDeliveryStart} announced returned or threw. Called on the
   * handler's thread before the outcome is stored ({@link #onDelivery} follows once it is); also
   * called for a call whose destination was down, or that {@link Handler#checkLease()} stopped,
   * which store nothing. A hand-off the lease refused before the call starts no call.
   *
   * @param call the instance {@link #onDeliveryStart} got
   * @param failed how many of the call's events failed: those a {@link BatchHandler} reported, or
   *     all of them when the call threw; 0 when every event was handled
   * @param error what the call threw, or null when it returned; its message may hold what the
   *     handler wrote, redact it before printing
   * @param elapsed from {@link DeliveryCall#startedAt()} to the return or throw, on the engine's
   *     {@link TimeSource}
   * @since 0.3
   */
  default void onDeliveryEnd(
      DeliveryCall call, int failed, @Nullable Throwable error, Duration elapsed) {}
}
