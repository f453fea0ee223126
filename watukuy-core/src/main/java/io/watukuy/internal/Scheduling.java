package io.watukuy.internal;

import io.watukuy.HttpStatusException;
import io.watukuy.Poller;
import io.watukuy.ScheduleState;
import io.watukuy.ScheduleState.DueReason;
import io.watukuy.ScheduleState.Status;
import io.watukuy.WatukuyListener;
import java.time.Instant;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The next {@link ScheduleState} after a cycle, computed by pure functions. The polling interval
 * is fixed at {@code schedule.min} here; truncated listings are due again at once (catch-up);
 * fetch errors back off exponentially with full jitter and open the circuit after
 * {@value #CIRCUIT_FAILURES} failures in a row; a 429 or a 503 with Retry-After throttles
 * without counting as a failure.
 */
final class Scheduling {
  static final int CIRCUIT_FAILURES = 5;

  private Scheduling() {}

  static ScheduleState afterSuccess(
      Poller<?> poller, ScheduleState s, KeyCycle.Run run, Instant now, WatukuyListener listener) {
    long interval = poller.schedule().min().toMillis();
    ScheduleState.LastPoll last =
        new ScheduleState.LastPoll(now, run.pages, run.items, run.committed, run.truncated, run.notModified, run.durationMs());
    if (s.circuit() != null) Dispatcher.safe(() -> listener.onCircuitClose(run.key));
    Instant next = run.catchUp ? now : now.plusMillis(interval);
    Status status = Status.IDLE;
    ScheduleState.Circuit circuit = null;
    ScheduleState.LastError error = s.lastError();
    if (run.delivery != null && run.delivery.halted) {
      // A poison event with action halt opens the circuit directly.
      Instant probe = now.plus(poller.schedule().max());
      circuit = new ScheduleState.Circuit(now, probe);
      status = Status.CIRCUIT_OPEN;
      next = probe;
      error = new ScheduleState.LastError("PoisonHalt", "a poison event halted the key", now);
      Dispatcher.safe(() -> listener.onCircuitOpen(run.key, probe));
    }
    return new ScheduleState(
        ScheduleState.FORMAT_VERSION, status, s.paused(), next,
        status == Status.CIRCUIT_OPEN ? DueReason.PROBE : run.catchUp ? DueReason.CATCH_UP : DueReason.SCHEDULE,
        interval, 0, null, circuit, last, error, s.lastReconcileAt(), s.backfill());
  }

  /**
   * A poison event with action halt was parked while only the outbox was drained: the circuit
   * opens all the same.
   */
  static ScheduleState halted(Poller<?> poller, ScheduleState s, KeyCycle.Run run, Instant now, WatukuyListener listener) {
    Instant probe = now.plus(poller.schedule().max());
    Dispatcher.safe(() -> listener.onCircuitOpen(run.key, probe));
    return new ScheduleState(ScheduleState.FORMAT_VERSION, Status.CIRCUIT_OPEN, s.paused(), probe, DueReason.PROBE,
        s.intervalMs(), s.consecutiveFailures(), s.throttledUntil(), new ScheduleState.Circuit(now, probe), s.lastPoll(),
        new ScheduleState.LastError("PoisonHalt", "a poison event halted the key", now), s.lastReconcileAt(), s.backfill());
  }

  static ScheduleState afterFailure(
      Poller<?> poller,
      ScheduleState s,
      KeyCycle.Run run,
      RuntimeException e,
      Instant now,
      RandomGenerator random,
      WatukuyListener listener) {
    ScheduleState.LastError error =
        new ScheduleState.LastError(e.getClass().getSimpleName(), String.valueOf(e.getMessage()), now);
    ScheduleState.LastPoll last =
        new ScheduleState.LastPoll(now, run.pages, run.items, run.committed, true, false, run.durationMs());
    HttpStatusException http = httpCause(e);
    if (http != null && http.isThrottle()) {
      Instant until =
          io.watukuy.internal.http.RetryAfter.parse(http.header("retry-after"), http.header("date"), now)
              .orElse(now.plus(poller.schedule().min()));
      Dispatcher.safe(() -> listener.onThrottled(run.key, until));
      return new ScheduleState(ScheduleState.FORMAT_VERSION, Status.THROTTLED, s.paused(), until, DueReason.THROTTLE,
          s.intervalMs(), s.consecutiveFailures(), until, s.circuit(), last, error, s.lastReconcileAt(), s.backfill());
    }
    int failures = s.consecutiveFailures() + 1;
    if (failures >= CIRCUIT_FAILURES || s.circuit() != null) {
      Instant probe = now.plus(poller.schedule().max());
      Dispatcher.safe(() -> listener.onCircuitOpen(run.key, probe));
      return new ScheduleState(ScheduleState.FORMAT_VERSION, Status.CIRCUIT_OPEN, s.paused(), probe, DueReason.PROBE,
          s.intervalMs(), failures, null, new ScheduleState.Circuit(now, probe), last, error, s.lastReconcileAt(), s.backfill());
    }
    Instant next = now.plus(poller.schedule().backoff().delay(failures, random));
    return new ScheduleState(ScheduleState.FORMAT_VERSION, Status.BACKING_OFF, s.paused(), next, DueReason.BACKOFF,
        s.intervalMs(), failures, null, null, last, error, s.lastReconcileAt(), s.backfill());
  }

  private static @Nullable HttpStatusException httpCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) if (t instanceof HttpStatusException h) return h;
    return null;
  }


}
