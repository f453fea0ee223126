package io.watukuy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The persisted schedule of one {@link PollerKey} (DESIGN.md "ScheduleState"; How it works,
 * "Poller state machine"). Stored as JSON in the poller row with a format version {@code v} so
 * later releases can migrate it. {@code POLLING} is informational: the lease alone decides who
 * polls, so a key left {@code POLLING} by a killed process is due once its lease has expired.
 *
 * @param v stored-format version, currently {@value #FORMAT_VERSION}
 * @param state the state-machine state
 * @param paused why the key is paused, or {@code null}
 * @param nextDueAt when the live lane is next due; {@code null} means due now
 * @param dueReason why it is due then
 * @param intervalMs the current polling interval in milliseconds (AIMD), before jitter
 * @param consecutiveFailures failed cycles in a row
 * @param throttledUntil a Retry-After not yet passed, or {@code null}
 * @param circuit the open circuit, or {@code null} when closed
 * @param lastPoll summary of the last cycle, or {@code null} before the first
 * @param lastError the last cycle's error, or {@code null}
 * @param lastReconcileAt when the last reconcile listing completed, or {@code null}
 * @param backfill the active backfill, or {@code null}
 * @since 0.1
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({
  "v", "state", "paused", "nextDueAt", "dueReason", "intervalMs", "consecutiveFailures",
  "throttledUntil", "circuit", "lastPoll", "lastError", "lastReconcileAt", "backfill"
})
public record ScheduleState(
    int v,
    Status state,
    @Nullable PauseReason paused,
    @Nullable Instant nextDueAt,
    @Nullable DueReason dueReason,
    long intervalMs,
    int consecutiveFailures,
    @Nullable Instant throttledUntil,
    @Nullable Circuit circuit,
    @Nullable LastPoll lastPoll,
    @Nullable LastError lastError,
    @Nullable Instant lastReconcileAt,
    @Nullable Backfill backfill) {

  /** The stored-format version this release writes. */
  public static final int FORMAT_VERSION = 1;

  public ScheduleState {
    Objects.requireNonNull(state, "state");
  }

  /** The state of a new key: idle, due now, interval {@code intervalMs}. */
  public static ScheduleState initial(long intervalMs) {
    return new ScheduleState(
        FORMAT_VERSION, Status.IDLE, null, null, DueReason.SCHEDULE, intervalMs, 0, null, null, null,
        null, null, null);
  }

  public ScheduleState withState(Status s) {
    return new ScheduleState(v, s, paused, nextDueAt, dueReason, intervalMs, consecutiveFailures,
        throttledUntil, circuit, lastPoll, lastError, lastReconcileAt, backfill);
  }

  public ScheduleState withNextDue(@Nullable Instant at, @Nullable DueReason reason) {
    return new ScheduleState(v, state, paused, at, reason, intervalMs, consecutiveFailures,
        throttledUntil, circuit, lastPoll, lastError, lastReconcileAt, backfill);
  }

  public ScheduleState withInterval(long ms) {
    return new ScheduleState(v, state, paused, nextDueAt, dueReason, ms, consecutiveFailures,
        throttledUntil, circuit, lastPoll, lastError, lastReconcileAt, backfill);
  }

  public ScheduleState withFailures(int n, @Nullable LastError error) {
    return new ScheduleState(v, state, paused, nextDueAt, dueReason, intervalMs, n,
        throttledUntil, circuit, lastPoll, error, lastReconcileAt, backfill);
  }

  public ScheduleState withLastPoll(@Nullable LastPoll p) {
    return new ScheduleState(v, state, paused, nextDueAt, dueReason, intervalMs, consecutiveFailures,
        throttledUntil, circuit, p, lastError, lastReconcileAt, backfill);
  }

  public ScheduleState withPaused(@Nullable PauseReason reason) {
    return new ScheduleState(v, reason == null ? Status.IDLE : Status.PAUSED, reason, nextDueAt,
        dueReason, intervalMs, consecutiveFailures, throttledUntil, circuit, lastPoll, lastError,
        lastReconcileAt, backfill);
  }

  /** The states of How it works, "Poller state machine". */
  public enum Status {
    IDLE("idle"),
    POLLING("polling"),
    THROTTLED("throttled"),
    BACKING_OFF("backingOff"),
    CIRCUIT_OPEN("circuitOpen"),
    HALF_OPEN("halfOpen"),
    PAUSED("paused");

    private final String wire;

    Status(String wire) {
      this.wire = wire;
    }

    @JsonValue
    public String wire() {
      return wire;
    }

    @JsonCreator
    public static Status fromWire(String s) {
      for (Status v : values()) if (v.wire.equals(s)) return v;
      throw new IllegalArgumentException("unknown schedule state '" + s + "'");
    }
  }

  /** Why a key is paused. */
  public enum PauseReason {
    MANUAL("manual"),
    PARTITION_REMOVED("partitionRemoved");

    private final String wire;

    PauseReason(String wire) {
      this.wire = wire;
    }

    @JsonValue
    public String wire() {
      return wire;
    }

    @JsonCreator
    public static PauseReason fromWire(String s) {
      for (PauseReason v : values()) if (v.wire.equals(s)) return v;
      throw new IllegalArgumentException("unknown pause reason '" + s + "'");
    }
  }

  /** Why the key is due at {@code nextDueAt}. */
  public enum DueReason {
    SCHEDULE("schedule"),
    CATCH_UP("catch-up"),
    TRIGGER("trigger"),
    BACKOFF("backoff"),
    THROTTLE("throttle"),
    PROBE("probe");

    private final String wire;

    DueReason(String wire) {
      this.wire = wire;
    }

    @JsonValue
    public String wire() {
      return wire;
    }

    @JsonCreator
    public static DueReason fromWire(String s) {
      for (DueReason v : values()) if (v.wire.equals(s)) return v;
      throw new IllegalArgumentException("unknown due reason '" + s + "'");
    }
  }

  /** An open circuit: opened at {@code openedAt}, half-open probe due at {@code probeAt}. */
  public record Circuit(Instant openedAt, Instant probeAt) {}

  /**
   * Summary of the last cycle.
   *
   * @param durationMs wall-clock duration of the cycle in milliseconds
   */
  public record LastPoll(
      Instant at, int pages, int items, int events, boolean truncated, boolean notModified,
      long durationMs) {}

  /** The last error: exception simple name, redacted message, time. */
  public record LastError(String name, String message, Instant at) {}

  /** An active backfill: raw cursor strings as the user gave them, and progress. */
  public record Backfill(
      @JsonProperty("from") @Nullable String from,
      @JsonProperty("to") @Nullable String to,
      boolean force,
      @Nullable String cursor) {}
}
