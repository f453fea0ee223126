package io.watukuy.internal;

import static io.watukuy.ScheduleState.Status.BACKING_OFF;
import static io.watukuy.ScheduleState.Status.CIRCUIT_OPEN;
import static io.watukuy.ScheduleState.Status.HALF_OPEN;
import static io.watukuy.ScheduleState.Status.IDLE;
import static io.watukuy.ScheduleState.Status.PAUSED;
import static io.watukuy.ScheduleState.Status.POLLING;
import static io.watukuy.ScheduleState.Status.THROTTLED;

import io.watukuy.Backoff;
import io.watukuy.BudgetTimeoutException;
import io.watukuy.CredentialRevokedException;
import io.watukuy.HttpResult;
import io.watukuy.HttpStatusException;
import io.watukuy.KeyReport.Outcome;
import io.watukuy.Poller;
import io.watukuy.RateLimitInfo;
import io.watukuy.RetryAfterException;
import io.watukuy.Schedule;
import io.watukuy.ScheduleState;
import io.watukuy.ScheduleState.Circuit;
import io.watukuy.ScheduleState.DueReason;
import io.watukuy.ScheduleState.LastError;
import io.watukuy.ScheduleState.LastPoll;
import io.watukuy.ScheduleState.PauseReason;
import io.watukuy.ScheduleState.Status;
import io.watukuy.WatukuyException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poller state machine (docs/architecture.md, "Poller state machine") as pure functions over
 * the persisted {@link ScheduleState}: no clock reads, no store, no network. {@code now} and the
 * random generator are parameters, so daemon mode, {@code tick()} and every instance compute the
 * same next state from the same inputs.
 *
 * <p>The rules, each implemented by the method named:
 *
 * <ul>
 *   <li><b>AIMD</b> ({@link #afterCycle}): the interval starts at {@code schedule.min}; a cycle
 *       that committed events halves it (floored at {@code min}); an idle cycle, a trusted 304
 *       included, multiplies it by 1.5 (capped at {@code max}); {@code adaptive: false} pins it at
 *       {@code min}. Milliseconds are truncated.
 *   <li><b>Jitter</b>: every interval and pacing wait is multiplied by {@code 1 + jitter × u} with
 *       {@code u = 2 × random.nextDouble() − 1}, uniform in [−1, 1), then rounded to the nearest
 *       millisecond. Throttle waits are exact and backoff waits already have full jitter, so
 *       neither gets more.
 *   <li><b>Pacing</b>: when the last response reported {@code remaining} and a reset time after
 *       {@code now}, the wait is at least {@code (resetAt − now) / max(remaining, 1)}, so the
 *       remaining requests last until the window resets, before any 429.
 *   <li><b>Catch-up</b>: a truncated cycle is due again after the pacing wait alone (at once
 *       without rate-limit fields), reason {@code catch-up}.
 *   <li><b>Throttle</b>: a 429, or a 503 with a usable Retry-After, waits exactly until the
 *       Retry-After instant (even beyond {@code schedule.max}; the parser caps it at one day), does
 *       not count as a failure and leaves the circuit alone. A 429 without a usable Retry-After
 *       waits until the rate-limit reset when one lies ahead, else for the next backoff delay. A
 *       503 without one is a failure.
 *   <li><b>Deferral</b>: a cycle ended by a {@link BudgetTimeoutException} (no rate-budget token in
 *       time, G6) is no failure: it is due again like a truncated cycle (catch-up), with the
 *       failure count, throttle and circuit left alone.
 *   <li><b>Backoff</b>: other errors wait {@code schedule.backoff} with full jitter after the n-th
 *       consecutive failure.
 *   <li><b>Circuit</b>: after {@code circuit.failures} consecutive failures the circuit opens for
 *       {@code circuit.probeEvery}; the next run is a half-open probe; its success closes the
 *       circuit and resets the count, its failure keeps the circuit open for another {@code
 *       probeEvery}. {@link #trigger} on an open circuit makes the probe due now.
 *   <li><b>Poison halt</b>: a poison event parked under {@code delivery.poison.action = halt} opens
 *       the circuit directly with {@code lastError.name} {@value #POISON_HALT}.
 * </ul>
 *
 * <p>Every method checks its transition against {@link #LEGAL} and throws {@link
 * IllegalStateException} on an illegal one, which is a bug in the caller or corrupt state.
 */
final class ScheduleMachine {

  private static final Logger LOG = LoggerFactory.getLogger(ScheduleMachine.class);

  /** {@code lastError.name} after a poison halt (docs/architecture.md, "Poison halt"). */
  public static final String POISON_HALT = "PoisonHalt";

  /**
   * {@code lastError.name} while a handler or sink refuses events: an event's attempt failed and is
   * retried, or it was parked (docs/operations.md, "Health"). Cleared by a cycle that delivers
   * events without such a failure.
   */
  public static final String DELIVERY_FAILURE = "DeliveryFailure";

  /** {@code lastError.message} after a poison halt. */
  static final String POISON_HALT_MESSAGE = "a poison event halted the key";

  /**
   * AIMD (docs/architecture.md, "AIMD"): a cycle with events divides the interval by 2; an idle
   * cycle adds half of it, that is multiplies it by 1.5.
   */
  static final long AIMD_DIVISOR = 2;

  // Deep enough for any real wrapping (FetchException around an HttpStatusException); the bound
  // only guards against a cause loop.
  private static final int MAX_CAUSE_DEPTH = 32;

  private static final byte[] NO_BODY = new byte[0];

  /**
   * The legal transitions (docs/architecture.md, "Poller state machine"). {@code PAUSED} is
   * reachable from every state (a running cycle finishes first). A state may always stay what it is
   * (a trigger, a second pause). Beyond the diagram: {@code THROTTLED → POLLING} is the elapsed
   * throttle and the run that follows it in one step (idle is never stored in between); {@code
   * THROTTLED ↔ HALF_OPEN} is a probe that met a throttle and is retried after it, the circuit left
   * alone; {@code PAUSED → THROTTLED / CIRCUIT_OPEN} is a resume while a Retry-After or an open
   * circuit still applies.
   */
  static final Map<Status, Set<Status>> LEGAL = legal();

  private ScheduleMachine() {}

  private static Map<Status, Set<Status>> legal() {
    Map<Status, Set<Status>> m = new EnumMap<>(Status.class);
    m.put(IDLE, EnumSet.of(POLLING));
    m.put(POLLING, EnumSet.of(IDLE, THROTTLED, BACKING_OFF, CIRCUIT_OPEN));
    m.put(THROTTLED, EnumSet.of(IDLE, POLLING, HALF_OPEN));
    m.put(BACKING_OFF, EnumSet.of(POLLING));
    m.put(CIRCUIT_OPEN, EnumSet.of(HALF_OPEN));
    m.put(HALF_OPEN, EnumSet.of(IDLE, THROTTLED, CIRCUIT_OPEN));
    m.put(PAUSED, EnumSet.of(IDLE, THROTTLED, CIRCUIT_OPEN));
    for (Status s : Status.values()) m.get(s).add(PAUSED);
    for (Map.Entry<Status, Set<Status>> e : m.entrySet())
      e.setValue(Collections.unmodifiableSet(e.getValue()));
    return Collections.unmodifiableMap(m);
  }

  /**
   * Whether the live lane of a key is due, as computed by {@link #due}.
   *
   * @param due whether the live lane runs now
   * @param skipped why it does not, or {@code null} when it is due: {@link Outcome#SKIPPED_PAUSED},
   *     {@link Outcome#SKIPPED_THROTTLED}, {@link Outcome#SKIPPED_CIRCUIT_OPEN} or {@link
   *     Outcome#SKIPPED_NOT_DUE}
   * @param probe whether the run is the half-open probe of an open circuit
   */
  public record Due(boolean due, @Nullable Outcome skipped, boolean probe) {
    static final Due NOW = new Due(true, null, false);
    static final Due PROBE = new Due(true, null, true);

    static Due skip(Outcome why) {
      return new Due(false, why, false);
    }
  }

  /**
   * The state of a new key ({@code [*] --> Idle}): idle, due now, interval {@code schedule.min}.
   *
   * @param poller the key's poller
   * @return the state
   */
  public static ScheduleState initial(Poller<?> poller) {
    return ScheduleState.initial(poller.schedule().min().toMillis());
  }

  /**
   * Whether the live lane is due at {@code now} (docs/architecture.md, "ScheduleState" and
   * "Partitions, tick, listeners": a backoff or a Retry-After makes the key not due, it is never
   * waited out). In this order: a paused key is skipped; an unexpired {@code throttledUntil} is
   * skipped, forced or not; an open circuit is due as a half-open probe once its {@code probeAt}
   * has passed, or at once when forced ({@code trigger()} on an open circuit forces a probe);
   * otherwise the key is due at {@code nextDueAt} ({@code null} means now), or at once when forced,
   * which covers idle and backing-off keys.
   *
   * @param s the stored state
   * @param now the engine's current time
   * @param forced whether a trigger asks for a run now
   * @return whether the run is due, why not, and whether it is a probe
   */
  public static Due due(ScheduleState s, Instant now, boolean forced) {
    if (isPaused(s)) return Due.skip(Outcome.SKIPPED_PAUSED);
    if (s.throttledUntil() != null && s.throttledUntil().isAfter(now))
      return Due.skip(Outcome.SKIPPED_THROTTLED);
    if (s.circuit() != null)
      return forced || !s.circuit().probeAt().isAfter(now)
          ? Due.PROBE
          : Due.skip(Outcome.SKIPPED_CIRCUIT_OPEN);
    if (forced || s.nextDueAt() == null || !s.nextDueAt().isAfter(now)) return Due.NOW;
    return Due.skip(Outcome.SKIPPED_NOT_DUE);
  }

  /**
   * The informational running state a runner may store when its cycle starts ({@code Idle -->
   * Polling}, {@code CircuitOpen --> HalfOpen}): {@code HALF_OPEN} when the circuit is open (the
   * run is the probe), else {@code POLLING}. Nothing else changes. The lease alone decides who
   * polls, so a state left running by a killed process is harmless.
   *
   * @param s the stored state
   * @return a copy in the running state
   * @throws IllegalStateException if the key is paused, or the state cannot start a cycle
   */
  public static ScheduleState polling(ScheduleState s) {
    Status running = running(s);
    check(s.state(), running);
    return s.withState(running);
  }

  /**
   * The state after a live-lane cycle (docs/architecture.md, "Poller state machine": the
   * transitions out of Polling and HalfOpen). One of:
   *
   * <ul>
   *   <li><b>Success</b> (no error): {@code IDLE}; AIMD sets the interval; the wait is {@code
   *       max(interval, pacing)} with jitter (reason {@code schedule}), or, for a truncated cycle,
   *       the pacing wait alone with jitter (reason {@code catch-up}); the failure count resets,
   *       {@code throttledUntil} clears and an open circuit closes (a successful probe).
   *   <li><b>Throttle</b> (a 429; a 503 with a usable Retry-After; also such a response that fetch
   *       code caught, seen as {@link CycleOutcome#lastResponse()}; a {@link RetryAfterException}
   *       that fetch code threw, until its wait has passed): {@code THROTTLED} until the
   *       Retry-After instant exactly; without one (429 only) until the rate-limit reset when it
   *       lies ahead, else {@code now + schedule.backoff.delay(consecutiveFailures + 1)}. The
   *       failure count, the interval and the circuit are left alone (a throttled probe is retried
   *       as a probe after the wait).
   *   <li><b>Deferral</b> (a {@link BudgetTimeoutException} in the error's cause chain): {@code
   *       IDLE}, due after the pacing wait alone with jitter (reason {@code catch-up}); a deferred
   *       half-open probe stays {@code CIRCUIT_OPEN} with its probe due then. The failure count,
   *       {@code throttledUntil} and the circuit's {@code openedAt} are kept; the interval moves by
   *       AIMD only when the cycle committed events.
   *   <li><b>Failure</b> (any other error, a 503 without a usable Retry-After included): the
   *       failure count grows by one; a failed half-open probe re-opens the circuit for {@code
   *       circuit.probeEvery} (keeping its {@code openedAt}); reaching {@code circuit.failures}
   *       opens it ({@code CIRCUIT_OPEN}, reason {@code probe}), and so does a {@link
   *       io.watukuy.CredentialRevokedException} in the error's cause chain at once (its {@code
   *       kind} is then {@code lastError.name}); otherwise {@code BACKING_OFF} for {@code
   *       schedule.backoff.delay(failures)} (reason {@code backoff}).
   *   <li><b>Poison halt</b> ({@link CycleOutcome#halted()}), on top of any of the above: {@code
   *       CIRCUIT_OPEN} for {@code circuit.probeEvery} with {@code lastError.name} {@value
   *       #POISON_HALT}.
   * </ul>
   *
   * <p>{@code lastPoll} records the cycle ({@code truncated} is also true after an error). {@code
   * lastError} records the error, and is kept after a success. {@code paused}, {@code
   * lastReconcileAt} and {@code backfill} are kept; a key paused while its cycle ran stays {@code
   * PAUSED}, with the computed times and counts kept for {@link #resume}.
   *
   * @param poller the key's poller: schedule, circuit policy
   * @param before the state the cycle started from
   * @param outcome what the cycle did
   * @param now the engine's time at the end of the cycle
   * @param random the source of the interval jitter and the backoff's full jitter
   * @return the next state, to be stored under the cycle's lease
   * @throws IllegalStateException if {@code before} cannot start a cycle (corrupt state)
   */
  public static ScheduleState afterCycle(
      Poller<?> poller,
      ScheduleState before,
      CycleOutcome outcome,
      Instant now,
      RandomGenerator random) {
    boolean paused = isPaused(before);
    Status running = running(before);
    if (!paused) check(before.state(), running);
    ScheduleState next;
    @Nullable Throttle throttle = throttle(outcome, now);
    @Nullable Instant until =
        throttle == null ? null : throttleUntil(poller, before, throttle, now, random);
    if (until != null) {
      next = throttled(before, outcome, until, now);
    } else if (outcome.error() != null && budgetTimeout(outcome.error()) != null) {
      next = deferred(poller, before, outcome, now, random);
    } else if (outcome.error() != null) {
      next = failed(poller, before, outcome, outcome.error(), now, random);
    } else {
      next = succeeded(poller, before, outcome, now, random);
    }
    if (outcome.halted()) next = halt(poller, next, now);
    check(running, next.state());
    return paused ? next.withState(PAUSED) : next;
  }

  /**
   * The state after a run that only drained the outbox (the live lane was not due) and parked a
   * poison event under {@code delivery.poison.action = halt} (docs/architecture.md, "Poison halt"):
   * the circuit opens all the same, for {@code circuit.probeEvery}, with {@code lastError.name}
   * {@value #POISON_HALT}. Interval, failure count, throttle and last poll are kept.
   *
   * @param poller the key's poller
   * @param before the stored state
   * @param now the engine's current time
   * @return the next state
   * @throws IllegalStateException if {@code before} cannot start a run (corrupt state)
   */
  public static ScheduleState poisonHalt(Poller<?> poller, ScheduleState before, Instant now) {
    boolean paused = isPaused(before);
    Status running = running(before);
    if (!paused) check(before.state(), running);
    ScheduleState next = halt(poller, before, now);
    check(running, next.state());
    return paused ? next.withState(PAUSED) : next;
  }

  /**
   * An operator's {@code trigger()}: the live lane is due now, reason {@code trigger}; on an open
   * circuit {@code probeAt} becomes {@code now}, so the next run is the half-open probe (How it
   * works, "Circuit"). The state itself does not change: a pause or an unexpired Retry-After still
   * applies.
   *
   * @param s the stored state
   * @param now the engine's current time
   * @return the triggered state
   */
  public static ScheduleState trigger(ScheduleState s, Instant now) {
    @Nullable Circuit circuit =
        s.circuit() == null ? null : new Circuit(s.circuit().openedAt(), now);
    ScheduleState next =
        s.withVersion(ScheduleState.FORMAT_VERSION)
            .withNextDue(now, DueReason.TRIGGER)
            .withCircuit(circuit);
    check(s.state(), next.state());
    return next;
  }

  /**
   * Pauses the key ({@code Idle --> Paused}; docs/architecture.md, "ScheduleState": legal from
   * every state, a running cycle finishes first). Everything but the state and the reason is kept,
   * so {@link #resume} can restore a pending throttle or an open circuit.
   *
   * @param s the stored state
   * @param reason why: by an operator, or because the partition disappeared
   * @return the paused state
   */
  public static ScheduleState pause(ScheduleState s, PauseReason reason) {
    check(s.state(), PAUSED);
    return s.withPaused(reason);
  }

  /**
   * Resumes a paused key ({@code Paused --> Idle}; docs/architecture.md, "ScheduleState": resume
   * returns to idle, but a pending {@code throttledUntil} or an open circuit still applies): {@code
   * THROTTLED} until an unexpired {@code throttledUntil}, else {@code CIRCUIT_OPEN} until the
   * circuit's {@code probeAt}, else {@code IDLE} and due now. A pending backoff is dropped; the
   * failure count is kept. A key that is not paused is returned unchanged.
   *
   * @param s the stored state
   * @param now the engine's current time
   * @return the resumed state
   */
  public static ScheduleState resume(ScheduleState s, Instant now) {
    if (!isPaused(s)) return s;
    @Nullable Instant until =
        s.throttledUntil() != null && s.throttledUntil().isAfter(now) ? s.throttledUntil() : null;
    Status state;
    Instant nextDue;
    DueReason reason;
    if (until != null) {
      state = THROTTLED;
      nextDue = until;
      reason = DueReason.THROTTLE;
    } else if (s.circuit() != null) {
      state = CIRCUIT_OPEN;
      nextDue = s.circuit().probeAt();
      reason = DueReason.PROBE;
    } else {
      state = IDLE;
      nextDue = now;
      reason = DueReason.SCHEDULE;
    }
    check(PAUSED, state);
    return s.withVersion(ScheduleState.FORMAT_VERSION)
        .withPaused(null)
        .withState(state)
        .withNextDue(nextDue, reason)
        .withThrottledUntil(until);
  }

  /**
   * Checks one transition against {@link #LEGAL}; staying in the same state is always legal.
   *
   * @throws IllegalStateException if the transition is not legal
   */
  static void check(Status from, Status to) {
    if (from == to || LEGAL.get(from).contains(to)) return;
    throw new IllegalStateException(
        "illegal schedule transition "
            + from.wire()
            + " -> "
            + to.wire()
            + "; legal from "
            + from.wire()
            + ": "
            + LEGAL.get(from));
  }

  // ---- formulas

  /**
   * AIMD (docs/architecture.md, "AIMD"): events halve the interval (floor {@code min}), an idle
   * cycle multiplies it by 1.5 (cap {@code max}), {@code adaptive: false} pins {@code min}. A
   * stored interval outside [min, max] (the schedule changed) is first moved into it.
   */
  static long aimd(Schedule schedule, long currentMs, int events) {
    long min = schedule.min().toMillis();
    long max = schedule.max().toMillis();
    if (!schedule.adaptive()) return min;
    long current = Math.max(min, Math.min(max, currentMs));
    long half = current / AIMD_DIVISOR;
    if (events > 0) return Math.max(min, half);
    // current + half is floor(1.5 × current); current <= max, so max - current cannot overflow.
    return half >= max - current ? max : current + half;
  }

  /**
   * Symmetric jitter (docs/architecture.md, "AIMD"): {@code round(wait × (1 + jitter × u))}, {@code
   * u = 2 × nextDouble() − 1}. Draws nothing when the wait or the jitter is 0.
   */
  static long jitter(long waitMs, double jitter, RandomGenerator random) {
    if (waitMs <= 0) return 0;
    if (jitter == 0) return waitMs;
    double u = 2 * random.nextDouble() - 1;
    return Math.max(0, Math.round(waitMs * (1 + jitter * u)));
  }

  /**
   * Pacing (docs/architecture.md, "Pacing"): {@code (resetAt − now) / max(remaining, 1)} in whole
   * milliseconds, or 0 without rate-limit state or with a reset not after {@code now}.
   */
  static long pacing(@Nullable RateLimitInfo info, Instant now) {
    if (info == null || !info.resetAt().isAfter(now)) return 0;
    return Duration.between(now, info.resetAt()).toMillis() / Math.max(info.remaining(), 1);
  }

  // ---- transitions

  private static ScheduleState succeeded(
      Poller<?> poller, ScheduleState before, CycleOutcome o, Instant now, RandomGenerator random) {
    Schedule schedule = poller.schedule();
    long interval = aimd(schedule, before.intervalMs(), o.notModified() ? 0 : o.events());
    long paced = pacing(rateLimit(o.lastResponse()), now);
    long wait;
    DueReason reason;
    if (o.truncated()) {
      wait = jitter(paced, schedule.jitter(), random);
      reason = DueReason.CATCH_UP;
    } else {
      wait = jitter(Math.max(interval, paced), schedule.jitter(), random);
      reason = DueReason.SCHEDULE;
    }
    return before
        .withVersion(ScheduleState.FORMAT_VERSION)
        .withState(IDLE)
        .withNextDue(now.plusMillis(wait), reason)
        .withInterval(interval)
        .withFailures(0, before.lastError())
        .withThrottledUntil(null)
        .withCircuit(null)
        .withLastPoll(lastPoll(o, now))
        .withLastSuccessAt(now);
  }

  /**
   * A cycle cut short by a {@link BudgetTimeoutException} (G6): neither a success nor a failure.
   * Like a truncated cycle, it is due again after the pacing wait alone (at once without rate-limit
   * fields), reason {@code catch-up}; a deferred half-open probe stays open and its probe is due
   * then. The failure count, the throttle and the circuit's {@code openedAt} are kept; the interval
   * moves only when the cycle committed events. {@code lastPoll} records the cycle as truncated
   * (kept as it was when no page was fetched); {@code lastError} records the timeout.
   */
  private static ScheduleState deferred(
      Poller<?> poller, ScheduleState before, CycleOutcome o, Instant now, RandomGenerator random) {
    Schedule schedule = poller.schedule();
    long interval =
        o.events() > 0 ? aimd(schedule, before.intervalMs(), o.events()) : before.intervalMs();
    Instant next =
        now.plusMillis(jitter(pacing(rateLimit(o.lastResponse()), now), schedule.jitter(), random));
    @Nullable Circuit circuit =
        before.circuit() == null ? null : new Circuit(before.circuit().openedAt(), next);
    return before
        .withVersion(ScheduleState.FORMAT_VERSION)
        .withState(circuit != null ? CIRCUIT_OPEN : IDLE)
        .withNextDue(next, circuit != null ? DueReason.PROBE : DueReason.CATCH_UP)
        .withInterval(interval)
        .withCircuit(circuit)
        .withLastPoll(
            o.pages() == 0 && before.lastPoll() != null ? before.lastPoll() : lastPoll(o, now))
        .withLastError(o.error() == null ? before.lastError() : lastError(o.error(), now));
  }

  private static ScheduleState throttled(
      ScheduleState before, CycleOutcome o, Instant until, Instant now) {
    LastError error = o.error() == null ? before.lastError() : lastError(o.error(), now);
    return before
        .withVersion(ScheduleState.FORMAT_VERSION)
        .withState(THROTTLED)
        .withNextDue(until, DueReason.THROTTLE)
        .withThrottledUntil(until)
        .withLastPoll(lastPoll(o, now))
        .withLastError(error);
  }

  private static ScheduleState failed(
      Poller<?> poller,
      ScheduleState before,
      CycleOutcome o,
      RuntimeException e,
      Instant now,
      RandomGenerator random) {
    int failures = saturatedIncrement(before.consecutiveFailures());
    Duration probeEvery = poller.circuit().probeEvery(poller.schedule().max());
    @Nullable Circuit circuit = null;
    if (before.circuit() != null) {
      // A failed half-open probe: the circuit never closed, so it keeps its openedAt.
      circuit = new Circuit(before.circuit().openedAt(), now.plus(probeEvery));
    } else if (failures >= poller.circuit().failures() || revoked(e) != null) {
      // A revoked credential fails every retry the same way: open at once (no retry loop against
      // the authorization server), as CredentialRevokedException documents.
      circuit = new Circuit(now, now.plus(probeEvery));
    }
    Status state = circuit != null ? CIRCUIT_OPEN : BACKING_OFF;
    Instant next =
        circuit != null
            ? circuit.probeAt()
            : now.plus(poller.schedule().backoff().delay(failures, random));
    return before
        .withVersion(ScheduleState.FORMAT_VERSION)
        .withState(state)
        .withNextDue(next, circuit != null ? DueReason.PROBE : DueReason.BACKOFF)
        .withFailures(failures, lastError(e, now))
        .withThrottledUntil(null)
        .withCircuit(circuit)
        // A cycle that failed before its first page says nothing about the listing: keep the
        // last summary, which decides whether a 304 can be trusted.
        .withLastPoll(
            o.pages() == 0 && before.lastPoll() != null ? before.lastPoll() : lastPoll(o, now));
  }

  /** Opens the circuit of {@code next} for a poison halt. */
  private static ScheduleState halt(Poller<?> poller, ScheduleState next, Instant now) {
    Instant probe = now.plus(poller.circuit().probeEvery(poller.schedule().max()));
    // Still open (a failed probe, a throttle, a drain-only run): the circuit keeps its openedAt.
    Instant openedAt = next.circuit() != null ? next.circuit().openedAt() : now;
    return next.withVersion(ScheduleState.FORMAT_VERSION)
        .withState(CIRCUIT_OPEN)
        .withNextDue(probe, DueReason.PROBE)
        .withCircuit(new Circuit(openedAt, probe))
        .withLastError(new LastError(POISON_HALT, POISON_HALT_MESSAGE, now));
  }

  // ---- throttle detection

  /** The status and throttling fields of the response that may throttle the key. */
  private record Throttle(
      int status, Optional<Instant> retryAfter, Optional<RateLimitInfo> rateLimit) {}

  /**
   * The 429 or 503 behind the cycle: an {@link HttpStatusException} in the error's cause chain
   * first, else a {@link RetryAfterException} there (fetch code on a client of its own that was
   * told when to come back), else the last response the helper saw, which covers a throttle that
   * fetch code caught. Retry-After and the rate-limit fields are read from the {@link HttpResult},
   * where they are parsed once: the helper hands every response to the cycle before it throws, so
   * the exception's own response is the cycle's last one. An exception that fetch code built itself
   * carries only headers (redacted, Retry-After, Date and the rate-limit fields kept): they are
   * read as a response received now.
   */
  private static @Nullable Throttle throttle(CycleOutcome o, Instant now) {
    @Nullable HttpStatusException http = o.error() == null ? null : httpCause(o.error());
    @Nullable HttpResult response = o.lastResponse();
    @Nullable RetryAfterException later = o.error() == null ? null : retryAfterCause(o.error());
    if (http == null && later != null)
      // Fetch code on its own client (a vendor SDK) said when to come back: a throttle too.
      return new Throttle(
          429, Optional.of(now.plus(later.retryAfter())), Optional.<RateLimitInfo>empty());
    if (http != null) {
      if (http.status() != 429 && http.status() != 503) return null;
      if (response == null || !sameResponse(http, response))
        response =
            HttpResult.of(http.status(), http.method(), http.url(), http.headers(), NO_BODY, now);
    } else if (response == null || (response.status() != 429 && response.status() != 503)) {
      return null;
    }
    return new Throttle(
        response.status(), safely(response::retryAfter), safely(response::rateLimit));
  }

  /** Whether {@code response} is the one {@code e} was thrown for (status, method, URL). */
  private static boolean sameResponse(HttpStatusException e, HttpResult response) {
    return e.status() == response.status()
        && e.method().equals(response.method())
        && e.url().equals(response.url());
  }

  /**
   * When a throttle ends, or {@code null} when the response is a failure instead (a 503 without a
   * usable Retry-After). A Retry-After already passed means now.
   */
  private static @Nullable Instant throttleUntil(
      Poller<?> poller, ScheduleState before, Throttle t, Instant now, RandomGenerator random) {
    if (t.retryAfter().isPresent()) return latest(t.retryAfter().get(), now);
    if (t.status() != 429) return null;
    Optional<RateLimitInfo> rl = t.rateLimit();
    if (rl.isPresent() && rl.get().resetAt().isAfter(now)) return rl.get().resetAt();
    // The next backoff step, without counting a failure (a 429 is never one): the first throttle
    // waits backoff.base, each one in a row doubles... by backoff.factor, up to backoff.max. No
    // jitter: the wait must grow, or a throttled vendor is asked more often than a healthy one.
    Backoff b = poller.schedule().backoff();
    Duration wait = b.cap(1);
    // A throttle in a row: the previous one is still recorded (a success clears it).
    if (before.throttledUntil() != null && before.lastPoll() != null) {
      Duration previous = Duration.between(before.lastPoll().at(), before.throttledUntil());
      if (!previous.isNegative() && !previous.isZero()) {
        double grown = previous.toMillis() * b.factor();
        wait =
            grown >= b.max().toMillis()
                ? b.max()
                : Duration.ofMillis((long) Math.max(grown, b.cap(1).toMillis()));
      }
    }
    return now.plus(wait);
  }

  private static @Nullable RateLimitInfo rateLimit(@Nullable HttpResult response) {
    return response == null ? null : safely(response::rateLimit).orElse(null);
  }

  /**
   * Header parsing must never end a cycle: the parsers return empty for bad input and log it, and
   * anything a foreign {@link HttpResult} throws is ignored the same way.
   */
  private static <V> Optional<V> safely(Supplier<Optional<V>> read) {
    try {
      Optional<V> v = read.get();
      return v == null ? Optional.empty() : v;
    } catch (RuntimeException e) {
      LOG.debug("throttling fields could not be read and are ignored: {}", e.toString());
      return Optional.empty();
    }
  }

  /**
   * The {@link BudgetTimeoutException} in an error's cause chain, or null: a cycle that ended with
   * one is deferred, not failed, also when fetch code wrapped it.
   *
   * @param e the error that ended the cycle
   * @return the timeout, or {@code null}
   */
  public static @Nullable BudgetTimeoutException budgetTimeout(Throwable e) {
    Throwable t = e;
    for (int depth = 0; t != null && depth < MAX_CAUSE_DEPTH; depth++, t = t.getCause())
      if (t instanceof BudgetTimeoutException b) return b;
    return null;
  }

  /** The {@link CredentialRevokedException} in {@code e}'s cause chain, or null. */
  static @Nullable CredentialRevokedException revoked(Throwable e) {
    Throwable t = e;
    for (int depth = 0; t != null && depth < MAX_CAUSE_DEPTH; depth++, t = t.getCause())
      if (t instanceof CredentialRevokedException r) return r;
    return null;
  }

  private static @Nullable RetryAfterException retryAfterCause(Throwable e) {
    Throwable t = e;
    for (int depth = 0; t != null && depth < MAX_CAUSE_DEPTH; depth++, t = t.getCause())
      if (t instanceof RetryAfterException r) return r;
    return null;
  }

  private static @Nullable HttpStatusException httpCause(Throwable e) {
    Throwable t = e;
    for (int depth = 0; t != null && depth < MAX_CAUSE_DEPTH; depth++, t = t.getCause())
      if (t instanceof HttpStatusException h) return h;
    return null;
  }

  // ---- helpers

  static boolean isPaused(ScheduleState s) {
    return s.paused() != null || s.state() == PAUSED;
  }

  private static Status running(ScheduleState s) {
    return s.circuit() != null ? HALF_OPEN : POLLING;
  }

  private static LastPoll lastPoll(CycleOutcome o, Instant now) {
    boolean failed = o.error() != null;
    return new LastPoll(
        now,
        o.pages(),
        o.items(),
        o.events(),
        failed || o.truncated(),
        !failed && o.notModified(),
        o.durationMs());
  }

  static LastError lastError(RuntimeException e, Instant now) {
    CredentialRevokedException r = revoked(e);
    String name =
        r != null
            ? r.kind()
            : e instanceof WatukuyException w ? w.kind() : e.getClass().getSimpleName();
    return new LastError(name, String.valueOf(e.getMessage()), now);
  }

  private static Instant latest(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  private static int saturatedIncrement(int n) {
    return n == Integer.MAX_VALUE ? n : n + 1;
  }
}
