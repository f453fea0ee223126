package io.watukuy.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.DeliveryOutcome;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.PoisonPolicy;
import io.watukuy.RetryAfterException;
import io.watukuy.TimeSource;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a handler's failure of one event does, for a single-event handler and a batch handler alike
 * (docs/guarantees.md, G7): a JVM {@link Error} or a {@link HandlerUnavailableException} stops the
 * key's delivery with the event pending and nothing counted; any other failure counts an attempt,
 * then records a retry with backoff (or later, when the failure is a {@link RetryAfterException})
 * or parks the event after the last attempt. The caller drops the ordering key's loaded events when
 * this leaves it in {@link Delivery#blocked}, and otherwise (a park that does not hold the key)
 * goes on with the key's next event.
 */
final class Failures {
  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);
  private static final Logger errors = LoggerFactory.getLogger(Watukuy.ERROR_LOGGER);

  private final StateStore store;
  private final TimeSource time;
  private final RandomGenerator random;
  // Guarded (GuardedListener): a callback that throws cannot end a delivery.
  private final WatukuyListener listener;

  Failures(StateStore store, TimeSource time, RandomGenerator random, WatukuyListener listener) {
    this.store = store;
    this.time = time;
    this.random = random;
    this.listener = listener;
  }

  /**
   * Stops the key's delivery when the failure is not the event's: a JVM error, or the destination
   * reported down. The event's ordering key is blocked, no attempt is counted, nothing is parked.
   *
   * @return true when delivery stopped; false for a failure that counts an attempt
   */
  boolean stops(Delivery d, OutboxRow row, Throwable failure) {
    if (failure instanceof Error error) {
      // An Error (out of memory, stack overflow) is the JVM's trouble, not the event's: counted as
      // a handler failure it would park a good event and let its later events overtake it (G3).
      // Delivery stops with the event pending; the next cycle delivers it again (G1).
      d.unavailable =
          new HandlerUnavailableException(
              "delivery stopped by " + error.getClass().getName() + ": " + error.getMessage(),
              error);
      d.blocked.add(row.orderingKey());
      errors.error(
          "{}: delivering {} threw {} (a JVM error, not a handler failure: no attempt counted,"
              + " nothing parked); delivery stops with the event pending: {}",
          Who.key(d.key),
          row.eventId(),
          error.getClass().getName(),
          error.getMessage());
      return true;
    }
    HandlerUnavailableException down = unavailable(failure);
    if (down != null) {
      // The destination is down, not the event: no attempt is counted and nothing is parked.
      d.unavailable = down;
      d.blocked.add(row.orderingKey());
      // At debug: the cycle's report carries it, tick() logs it as the cycle ends, and the daemon
      // once per change (Outages), not once per attempt.
      errors.debug(
          "{}: handler unavailable, delivery stops with {} pending: {}",
          Who.key(d.key),
          row.eventId(),
          down.getMessage());
      return true;
    }
    return false;
  }

  /**
   * Counts a failed attempt of the event: records its retry (blocking its ordering key until then)
   * or, after the last attempt, parks it (blocking the key when the poison policy holds it).
   *
   * @return {@code RETRIED} or {@code PARKED}
   */
  DeliveryOutcome.Result count(Delivery d, OutboxRow row, Throwable failure) {
    int attempt = row.attempts() + 1;
    Instant now = time.now();
    ArrayNode history = Errors.appendAttempt(row.lastError(), attempt, now, failure, d.redactor);
    if (attempt >= d.policy.retry().attempts()) {
      PoisonPolicy poison = d.policy.poison();
      boolean hold = poison.holdKey() || poison.action() == PoisonPolicy.Action.HALT;
      ObjectNode error = Json.MAPPER.createObjectNode();
      error.put("name", Errors.name(failure));
      error.put("message", Errors.message(failure, d.redactor));
      error.put("stack", Errors.stack(failure, d.redactor));
      error.set("history", history);
      ParkedRow parked =
          new ParkedRow(
              Long.toString(row.sequence()),
              ParkedKind.POISON,
              row.sequence(),
              row.eventId(),
              row.orderingKey(),
              row.event(),
              null,
              error.toString(),
              attempt,
              now,
              hold ? row.orderingKey() : null);
      store.parkEvent(d.key, d.lease.lease(), parked);
      d.parked++;
      log.warn(
          "{}: event {} (sequence {}) parked after {} attempts: {}",
          Who.key(d.key),
          row.eventId(),
          row.sequence(),
          attempt,
          Errors.message(failure, d.redactor));
      d.failure =
          "event "
              + row.eventId()
              + " (sequence "
              + row.sequence()
              + ") parked after "
              + attempt
              + " attempts: "
              + Errors.message(failure, d.redactor);
      listener.onDeliveryFailed(d.key, row.eventId(), row.sequence(), attempt, null, failure);
      listener.onParked(d.key, parked);
      if (hold) d.blocked.add(row.orderingKey());
      if (poison.action() == PoisonPolicy.Action.HALT) d.halted = true;
      return DeliveryOutcome.Result.PARKED;
    }
    Instant next = now.plus(d.policy.retry().backoff().delay(attempt, random));
    // A destination that said when to come back (Retry-After) is not tried before then: an
    // earlier attempt would only spend one of the event's attempts on a certain refusal.
    RetryAfterException later = retryAfter(failure);
    if (later != null && now.plus(later.retryAfter()).isAfter(next))
      next = now.plus(later.retryAfter());
    store.recordAttempt(d.key, d.lease.lease(), row.sequence(), history.toString(), next);
    log.debug(
        "{}: event {} attempt {} failed, retry at {}: {}",
        d.key,
        row.eventId(),
        attempt,
        next,
        Errors.message(failure, d.redactor));
    d.failure =
        "event "
            + row.eventId()
            + " (sequence "
            + row.sequence()
            + ") attempt "
            + attempt
            + " failed, retried at "
            + next
            + ": "
            + Errors.message(failure, d.redactor);
    listener.onDeliveryFailed(d.key, row.eventId(), row.sequence(), attempt, next, failure);
    d.blocked.add(row.orderingKey());
    d.retryAt(next);
    return DeliveryOutcome.Result.RETRIED;
  }

  /** Time since {@code from} on the engine's clock, never negative: a handler's duration. */
  static Duration since(TimeSource time, Instant from) {
    Duration d = Duration.between(from, time.now());
    return d.isNegative() ? Duration.ZERO : d;
  }

  private static @Nullable RetryAfterException retryAfter(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause())
      if (c instanceof RetryAfterException r) return r;
    return null;
  }

  private static @Nullable HandlerUnavailableException unavailable(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause())
      if (c instanceof HandlerUnavailableException h) return h;
    return null;
  }
}
