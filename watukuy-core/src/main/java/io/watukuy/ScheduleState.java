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
 * The persisted schedule of one {@link PollerKey} (docs/architecture.md, "ScheduleState"). Stored
 * as JSON in the poller row with a format version {@code v} so later releases can migrate it.
 * {@code POLLING} is informational: the lease alone decides who polls, so a key left {@code
 * POLLING} by a killed process is due once its lease has expired.
 *
 * @param v stored-format version, currently {@value #FORMAT_VERSION}
 * @param state the state-machine state
 * @param paused why the key is paused, or {@code null}
 * @param nextDueAt when the live lane is next due; {@code null} means due now
 * @param dueReason why it is due then
 * @param intervalMs the current polling interval in milliseconds, before jitter and pacing: AIMD
 *     between {@link Schedule#min()} and {@link Schedule#max()}
 * @param consecutiveFailures failed cycles in a row; a throttle does not count, a success resets it
 *     to 0
 * @param throttledUntil a Retry-After not yet passed, or {@code null}
 * @param circuit the open circuit, or {@code null} when closed
 * @param lastPoll summary of the last cycle, or {@code null} before the first
 * @param lastError the last cycle's error, or {@code null}
 * @param lastReconcileAt when the last reconcile listing completed, or {@code null}
 * @param backfill the active backfill, or {@code null}
 * @param listing what the full listings said that a later one must know (held deletes, their
 *     confirmation, inconsistent listings in a row), or {@code null} when there is nothing
 * @param lastSuccessAt when a cycle of the live lane last succeeded, or {@code null} before the
 *     first success
 * @since 0.1
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({
  "v",
  "state",
  "paused",
  "nextDueAt",
  "dueReason",
  "intervalMs",
  "consecutiveFailures",
  "throttledUntil",
  "circuit",
  "lastPoll",
  "lastError",
  "lastReconcileAt",
  "backfill",
  "listing",
  "lastSuccessAt"
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
    @Nullable Backfill backfill,
    @Nullable Listing listing,
    @Nullable Instant lastSuccessAt) {

  /**
   * The stored-format version this release writes: 2 added {@code listing}, {@code lastSuccessAt}
   * and {@code lastPoll.inconsistent}; a state stored in format 1 reads with them empty.
   */
  public static final int FORMAT_VERSION = 2;

  /**
   * Creates a schedule state.
   *
   * @param v stored-format version
   * @param state the state-machine state
   * @param paused why the key is paused, or {@code null}
   * @param nextDueAt when the live lane is next due, or {@code null} for now
   * @param dueReason why it is due then, or {@code null}
   * @param intervalMs the polling interval in milliseconds
   * @param consecutiveFailures failed cycles in a row
   * @param throttledUntil a Retry-After not yet passed, or {@code null}
   * @param circuit the open circuit, or {@code null}
   * @param lastPoll the last cycle's summary, or {@code null}
   * @param lastError the last error, or {@code null}
   * @param lastReconcileAt the last completed reconcile, or {@code null}
   * @param backfill the active backfill, or {@code null}
   * @param listing held deletes and inconsistent listings, or {@code null}
   * @param lastSuccessAt the last successful cycle, or {@code null}
   * @throws NullPointerException if {@code state} is null
   */
  public ScheduleState {
    Objects.requireNonNull(state, "state");
  }

  /**
   * Creates a schedule state without the fields that format 2 added ({@code listing}, {@code
   * lastSuccessAt}), as 0.1 did.
   *
   * @param v stored-format version
   * @param state the state-machine state
   * @param paused why the key is paused, or {@code null}
   * @param nextDueAt when the live lane is next due, or {@code null} for now
   * @param dueReason why it is due then, or {@code null}
   * @param intervalMs the polling interval in milliseconds
   * @param consecutiveFailures failed cycles in a row
   * @param throttledUntil a Retry-After not yet passed, or {@code null}
   * @param circuit the open circuit, or {@code null}
   * @param lastPoll the last cycle's summary, or {@code null}
   * @param lastError the last error, or {@code null}
   * @param lastReconcileAt the last completed reconcile, or {@code null}
   * @param backfill the active backfill, or {@code null}
   * @throws NullPointerException if {@code state} is null
   */
  public ScheduleState(
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
    this(
        v,
        state,
        paused,
        nextDueAt,
        dueReason,
        intervalMs,
        consecutiveFailures,
        throttledUntil,
        circuit,
        lastPoll,
        lastError,
        lastReconcileAt,
        backfill,
        null,
        null);
  }

  /**
   * The state of a new key: idle, due now (reason schedule), no failures, nothing else set.
   *
   * @param intervalMs the polling interval in milliseconds
   * @return the state
   */
  public static ScheduleState initial(long intervalMs) {
    return new ScheduleState(
        FORMAT_VERSION,
        Status.IDLE,
        null,
        null,
        DueReason.SCHEDULE,
        intervalMs,
        0,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * This state with other full-listing facts.
   *
   * @param l held deletes and inconsistent listings, or {@code null} when there is nothing
   * @return a copy; this one is unchanged
   * @since 0.2
   */
  public ScheduleState withListing(@Nullable Listing l) {
    Copy c = new Copy(this);
    c.listing = l == null || l.isEmpty() ? null : l;
    return c.build();
  }

  /**
   * This state with another time of the last successful cycle.
   *
   * @param at when a cycle of the live lane last succeeded, or {@code null}
   * @return a copy; this one is unchanged
   * @since 0.2
   */
  public ScheduleState withLastSuccessAt(@Nullable Instant at) {
    Copy c = new Copy(this);
    c.lastSuccessAt = at;
    return c.build();
  }

  /**
   * What the full listings left for the next one (docs/operations.md, "False deletes"), never all
   * empty (then {@link ScheduleState#listing()} is {@code null}).
   *
   * @param heldDeletes deletes the delete guard holds, from the last complete listing; 0 when none
   * @param deletesConfirmed whether an operator confirmed them, so the next complete listing emits
   *     its deletes once whatever the guard says
   * @param inconsistentInARow full listings in a row whose totals disagreed; 0 after a consistent
   *     one
   * @since 0.2
   */
  public record Listing(int heldDeletes, boolean deletesConfirmed, int inconsistentInARow) {
    /** Nothing to remember. */
    public static final Listing NONE = new Listing(0, false, 0);

    /**
     * Whether there is nothing to remember.
     *
     * @return whether every field is empty
     */
    public boolean isEmpty() {
      return heldDeletes == 0 && !deletesConfirmed && inconsistentInARow == 0;
    }
  }

  /**
   * This state with another state-machine state.
   *
   * @param s the new state
   * @return a copy; this one is unchanged
   */
  public ScheduleState withState(Status s) {
    Copy c = new Copy(this);
    c.state = s;
    return c.build();
  }

  /**
   * This state with another due time.
   *
   * @param at when the live lane is next due, or {@code null} for now
   * @param reason why it is due then, or {@code null}
   * @return a copy; this one is unchanged
   */
  public ScheduleState withNextDue(@Nullable Instant at, @Nullable DueReason reason) {
    Copy c = new Copy(this);
    c.nextDueAt = at;
    c.dueReason = reason;
    return c.build();
  }

  /**
   * This state with another polling interval.
   *
   * @param ms the interval in milliseconds
   * @return a copy; this one is unchanged
   */
  public ScheduleState withInterval(long ms) {
    Copy c = new Copy(this);
    c.intervalMs = ms;
    return c.build();
  }

  /**
   * This state with another failure count and last error.
   *
   * @param n failed cycles in a row
   * @param error the last error, or {@code null}
   * @return a copy; this one is unchanged
   */
  public ScheduleState withFailures(int n, @Nullable LastError error) {
    Copy c = new Copy(this);
    c.consecutiveFailures = n;
    c.lastError = error;
    return c.build();
  }

  /**
   * This state with another last-cycle summary.
   *
   * @param p the summary, or {@code null}
   * @return a copy; this one is unchanged
   */
  public ScheduleState withLastPoll(@Nullable LastPoll p) {
    Copy c = new Copy(this);
    c.lastPoll = p;
    return c.build();
  }

  /**
   * This state in another stored-format version; a transition computed by this release writes
   * {@link #FORMAT_VERSION}, so a state read in an older format is stored in the current one.
   *
   * @param version the stored-format version
   * @return a copy; this one is unchanged
   * @since 0.1
   */
  public ScheduleState withVersion(int version) {
    Copy c = new Copy(this);
    c.v = version;
    return c.build();
  }

  /**
   * This state with another throttle end.
   *
   * @param until a Retry-After (or rate-limit reset) not yet passed, or {@code null} for none
   * @return a copy; this one is unchanged; {@link #state()} is not changed with it
   * @since 0.1
   */
  public ScheduleState withThrottledUntil(@Nullable Instant until) {
    Copy c = new Copy(this);
    c.throttledUntil = until;
    return c.build();
  }

  /**
   * This state with another circuit.
   *
   * @param c the open circuit, or {@code null} for a closed one
   * @return a copy; this one is unchanged; {@link #state()} is not changed with it
   * @since 0.1
   */
  public ScheduleState withCircuit(@Nullable Circuit c) {
    Copy copy = new Copy(this);
    copy.circuit = c;
    return copy.build();
  }

  /**
   * This state with another last error; the failure count is kept (see {@link #withFailures} to
   * change both).
   *
   * @param error the last error, or {@code null}
   * @return a copy; this one is unchanged
   * @since 0.1
   */
  public ScheduleState withLastError(@Nullable LastError error) {
    Copy c = new Copy(this);
    c.lastError = error;
    return c.build();
  }

  /**
   * This state with another reconcile time.
   *
   * @param at when the last reconcile listing completed, or {@code null} for never
   * @return a copy; this one is unchanged
   * @since 0.1
   */
  public ScheduleState withLastReconcileAt(@Nullable Instant at) {
    Copy c = new Copy(this);
    c.lastReconcileAt = at;
    return c.build();
  }

  /**
   * This state with another backfill.
   *
   * @param b the active backfill, or {@code null} for none
   * @return a copy; this one is unchanged
   * @since 0.1
   */
  public ScheduleState withBackfill(@Nullable Backfill b) {
    Copy c = new Copy(this);
    c.backfill = b;
    return c.build();
  }

  /**
   * This state paused or resumed: a reason sets {@link Status#PAUSED}; {@code null} sets the state
   * that still applies: {@link Status#CIRCUIT_OPEN} with an open circuit, else {@link
   * Status#THROTTLED} with a throttle, else {@link Status#IDLE}. Everything else is kept.
   *
   * @param reason why the key is paused, or {@code null} to resume
   * @return a copy; this one is unchanged
   */
  public ScheduleState withPaused(@Nullable PauseReason reason) {
    // Unpaused, the state follows what still applies: an open circuit, a throttle, or idle.
    Status unpaused =
        circuit != null
            ? Status.CIRCUIT_OPEN
            : throttledUntil != null ? Status.THROTTLED : Status.IDLE;
    Copy c = new Copy(this);
    c.state = reason == null ? unpaused : Status.PAUSED;
    c.paused = reason;
    return c.build();
  }

  /** A mutable copy of a state, so that each wither names only the fields it changes. */
  private static final class Copy {
    int v;
    Status state;
    @Nullable PauseReason paused;
    @Nullable Instant nextDueAt;
    @Nullable DueReason dueReason;
    long intervalMs;
    int consecutiveFailures;
    @Nullable Instant throttledUntil;
    @Nullable Circuit circuit;
    @Nullable LastPoll lastPoll;
    @Nullable LastError lastError;
    @Nullable Instant lastReconcileAt;
    @Nullable Backfill backfill;
    @Nullable Listing listing;
    @Nullable Instant lastSuccessAt;

    Copy(ScheduleState s) {
      v = s.v;
      state = s.state;
      paused = s.paused;
      nextDueAt = s.nextDueAt;
      dueReason = s.dueReason;
      intervalMs = s.intervalMs;
      consecutiveFailures = s.consecutiveFailures;
      throttledUntil = s.throttledUntil;
      circuit = s.circuit;
      lastPoll = s.lastPoll;
      lastError = s.lastError;
      lastReconcileAt = s.lastReconcileAt;
      backfill = s.backfill;
      listing = s.listing;
      lastSuccessAt = s.lastSuccessAt;
    }

    ScheduleState build() {
      return new ScheduleState(
          v,
          state,
          paused,
          nextDueAt,
          dueReason,
          intervalMs,
          consecutiveFailures,
          throttledUntil,
          circuit,
          lastPoll,
          lastError,
          lastReconcileAt,
          backfill,
          listing,
          lastSuccessAt);
    }
  }

  /** The states of the poller state machine (docs/architecture.md, "Poller state machine"). */
  public enum Status {
    /** Waiting for the next due time. */
    IDLE("idle"),
    /**
     * A cycle is running; informational, since the lease decides who polls. Not written by this
     * release.
     */
    POLLING("polling"),
    /** Waiting out a 429 or a 503 with Retry-After until {@code throttledUntil}. */
    THROTTLED("throttled"),
    /** Waiting out the backoff after a failed cycle. */
    BACKING_OFF("backingOff"),
    /** Failing repeatedly, or halted by a poison event; waiting for the probe. */
    CIRCUIT_OPEN("circuitOpen"),
    /** Running the probe cycle of an open circuit (informational, like {@code POLLING}). */
    HALF_OPEN("halfOpen"),
    /** Not polled until resumed. */
    PAUSED("paused");

    private final String wire;

    Status(String wire) {
      this.wire = wire;
    }

    /**
     * The name used in the stored JSON.
     *
     * @return the wire name, e.g. {@code backingOff}
     */
    @JsonValue
    public String wire() {
      return wire;
    }

    /**
     * Parses a stored name.
     *
     * @param s a name returned by {@link #wire()}; case-sensitive
     * @return the constant
     * @throws IllegalArgumentException for an unknown name
     */
    @JsonCreator
    public static Status fromWire(String s) {
      for (Status v : values()) if (v.wire.equals(s)) return v;
      throw new IllegalArgumentException("unknown schedule state '" + s + "'");
    }
  }

  /** Why a key is paused. */
  public enum PauseReason {
    /** Paused by an operator; stays paused until resumed. */
    MANUAL("manual"),
    /** The partition is no longer listed; resumes by itself when it returns. */
    PARTITION_REMOVED("partitionRemoved");

    private final String wire;

    PauseReason(String wire) {
      this.wire = wire;
    }

    /**
     * The name used in the stored JSON.
     *
     * @return the wire name, e.g. {@code partitionRemoved}
     */
    @JsonValue
    public String wire() {
      return wire;
    }

    /**
     * Parses a stored name.
     *
     * @param s a name returned by {@link #wire()}; case-sensitive
     * @return the constant
     * @throws IllegalArgumentException for an unknown name
     */
    @JsonCreator
    public static PauseReason fromWire(String s) {
      for (PauseReason v : values()) if (v.wire.equals(s)) return v;
      throw new IllegalArgumentException("unknown pause reason '" + s + "'");
    }
  }

  /** Why the key is due at {@code nextDueAt}. */
  public enum DueReason {
    /** The regular interval after a completed cycle. */
    SCHEDULE("schedule"),
    /** A truncated incremental listing continues at once. */
    CATCH_UP("catch-up"),
    /** An operator asked for a poll now ({@code trigger()}). */
    TRIGGER("trigger"),
    /** The backoff after a failed cycle. */
    BACKOFF("backoff"),
    /** The end of a Retry-After. */
    THROTTLE("throttle"),
    /** The half-open probe of an open circuit. */
    PROBE("probe");

    private final String wire;

    DueReason(String wire) {
      this.wire = wire;
    }

    /**
     * The name used in the stored JSON.
     *
     * @return the wire name, e.g. {@code catch-up}
     */
    @JsonValue
    public String wire() {
      return wire;
    }

    /**
     * Parses a stored name.
     *
     * @param s a name returned by {@link #wire()}; case-sensitive
     * @return the constant
     * @throws IllegalArgumentException for an unknown name
     */
    @JsonCreator
    public static DueReason fromWire(String s) {
      for (DueReason v : values()) if (v.wire.equals(s)) return v;
      throw new IllegalArgumentException("unknown due reason '" + s + "'");
    }
  }

  /**
   * An open circuit: opened at {@code openedAt}, half-open probe due at {@code probeAt}.
   *
   * @param openedAt when the circuit opened
   * @param probeAt when the probe cycle is due: {@code openedAt} plus the circuit's {@code
   *     probeEvery} ({@link Schedule#max()} by default), or now after a {@code trigger()}
   */
  public record Circuit(Instant openedAt, Instant probeAt) {}

  /**
   * Summary of the last cycle.
   *
   * @param at when the cycle ended
   * @param pages pages fetched
   * @param items items fetched in the cycle, all pages, duplicates and invalid items included
   * @param events events committed
   * @param truncated whether the listing was cut by the page cap or the tick deadline; also {@code
   *     true} after a failed cycle
   * @param notModified whether the cycle ended on a trusted 304
   * @param inconsistent whether the full listing was inconsistent (its pages' totals disagreed, or
   *     the identities it listed differ from the total of its last page), so it emitted no deletes
   *     (docs/operations.md, "False deletes"); false in format 1
   * @param durationMs elapsed time of the cycle in milliseconds, measured on {@link
   *     TimeSource#nanoTime()}
   */
  public record LastPoll(
      Instant at,
      int pages,
      int items,
      int events,
      boolean truncated,
      boolean notModified,
      long durationMs,
      boolean inconsistent) {

    /**
     * A summary without {@code inconsistent} (format 1).
     *
     * @param at when the cycle ended
     * @param pages pages fetched
     * @param items items read
     * @param events events committed
     * @param truncated whether the lane was cut short or failed
     * @param notModified whether a trusted 304 answered
     * @param durationMs how long the cycle took
     */
    public LastPoll(
        Instant at,
        int pages,
        int items,
        int events,
        boolean truncated,
        boolean notModified,
        long durationMs) {
      this(at, pages, items, events, truncated, notModified, durationMs, false);
    }
  }

  /**
   * The last error of the key.
   *
   * @param name the exception's {@link WatukuyException#kind() kind} (its simple class name unless
   *     it names the cause: {@code PageRepeated}, {@code TokenNotAdvancing}, {@code
   *     ListingTruncated}), or {@code PoisonHalt} after a poison halt
   * @param message the exception's message; messages built by the HTTP helper carry redacted URLs
   *     and headers, but a message thrown by fetch code is stored as it is
   * @param at when the error was recorded
   */
  public record LastError(String name, String message, Instant at) {}

  /**
   * An active backfill: raw cursor strings as the user gave them, and progress.
   *
   * @param from the raw cursor the backfill started from, or {@code null} for the initial cursor
   * @param to the raw cursor it stops at, or {@code null} for the live cursor at the start
   * @param force whether known items are re-emitted as updated
   * @param cursor the backfill lane's cursor JSON so far, or {@code null} before its first page
   * @param startedAt when the backfill was asked for, so that a forced one re-emits each known item
   *     once (an item written since has been emitted since); {@code null} in format 1
   */
  public record Backfill(
      @JsonProperty("from") @Nullable String from,
      @JsonProperty("to") @Nullable String to,
      boolean force,
      @Nullable String cursor,
      @Nullable Instant startedAt) {

    /**
     * A backfill without {@code startedAt} (format 1).
     *
     * @param from the raw cursor the backfill starts from, or {@code null}
     * @param to the raw cursor it stops at, or {@code null}
     * @param force whether known items are re-emitted as updated
     * @param cursor the backfill lane's cursor JSON so far, or {@code null}
     */
    public Backfill(
        @Nullable String from, @Nullable String to, boolean force, @Nullable String cursor) {
      this(from, to, force, cursor, null);
    }
  }
}
