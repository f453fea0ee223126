package io.watukuy.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.ChangeEvent;
import io.watukuy.OutboxRow;
import io.watukuy.ParkedKind;
import io.watukuy.ParkedRow;
import io.watukuy.PoisonPolicy;
import io.watukuy.StateStore;
import io.watukuy.TimeSource;
import io.watukuy.WatukuyListener;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers outbox rows to a handler (DESIGN.md "Delivery"): per ordering key in sequence order,
 * at most {@code concurrency} handlers engine-wide, ack per event by sequence, retries with
 * backoff, park after the last attempt. A failed event's ordering key waits for its retry
 * (recorded in the store) and every later event of that key waits with it; other keys keep
 * flowing (G3, G7). Never sleeps: a retry that is not yet due ends the key's delivery for this
 * cycle and is picked up by a later one.
 */
final class Dispatcher {
  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);
  private static final Logger errors = LoggerFactory.getLogger(io.watukuy.Watukuy.ERROR_LOGGER);

  private final StateStore store;
  private final TimeSource time;
  private final RandomGenerator random;
  private final Executor executor;
  private final Semaphore permits;
  private final WatukuyListener listener;
  private final int batchSize;

  Dispatcher(
      StateStore store,
      TimeSource time,
      RandomGenerator random,
      Executor executor,
      Semaphore permits,
      WatukuyListener listener,
      int batchSize) {
    this.store = store;
    this.time = time;
    this.random = random;
    this.executor = executor;
    this.permits = permits;
    this.listener = listener;
    this.batchSize = batchSize;
  }

  /** Delivers every pending row of the key, page by page ({@code dispatchBatchSize} at a time). */
  void drain(Delivery d) throws InterruptedException {
    long after = 0;
    while (true) {
      List<OutboxRow> rows = store.loadPending(d.key, after, batchSize);
      if (rows.isEmpty()) return;
      deliver(d, rows);
      after = rows.get(rows.size() - 1).sequence();
      if (rows.size() < batchSize) return;
    }
  }

  /** Delivers the given rows (sequence order) of one key. */
  void deliver(Delivery d, List<OutboxRow> rows) throws InterruptedException {
    Map<String, ArrayDeque<OutboxRow>> queues = new LinkedHashMap<>();
    for (OutboxRow r : rows) {
      if (d.blocked.contains(r.orderingKey())) continue;
      queues.computeIfAbsent(r.orderingKey(), k -> new ArrayDeque<>()).add(r);
    }
    LinkedBlockingQueue<Result> done = new LinkedBlockingQueue<>();
    Set<String> running = new HashSet<>();
    try {
      while (true) {
        Instant now = time.now();
        for (Map.Entry<String, ArrayDeque<OutboxRow>> e : queues.entrySet()) {
          String ok = e.getKey();
          ArrayDeque<OutboxRow> q = e.getValue();
          if (d.cancelled.getAsBoolean() || d.unavailable != null) break; // the rest stays pending (G1)
          if (running.contains(ok) || q.isEmpty() || d.blocked.contains(ok)) continue;
          OutboxRow head = q.peek();
          if (head.nextAttemptAt() != null && head.nextAttemptAt().isAfter(now)) {
            block(d, ok, q, head.nextAttemptAt());
            continue;
          }
          if (!permits.tryAcquire()) {
            if (!running.isEmpty()) break;
            permits.acquire(); // other keys' handlers hold every permit: wait for one
          }
          running.add(ok);
          start(d, head, done);
        }
        if (running.isEmpty()) return;
        Result r = done.take();
        permits.release();
        running.remove(r.row.orderingKey());
        finish(d, r, queues.get(r.row.orderingKey()));
      }
    } finally {
      // An ack or park failed (lease lost, store down): let handlers in flight finish, without
      // acking them; they are redelivered (G1).
      while (!running.isEmpty()) {
        Result r = done.take();
        permits.release();
        running.remove(r.row.orderingKey());
      }
    }
  }

  private void block(Delivery d, String orderingKey, ArrayDeque<OutboxRow> q, Instant retryAt) {
    d.blocked.add(orderingKey);
    d.retryAt(retryAt);
    q.clear();
  }

  private void start(Delivery d, OutboxRow row, LinkedBlockingQueue<Result> done) {
    Runnable task =
        () -> {
          Throwable failure = null;
          try {
            ChangeEvent<Object> event = Envelope.toEvent(row, d.type);
            d.handler.handle(event);
          } catch (Throwable t) {
            failure = t;
          }
          done.add(new Result(row, failure));
        };
    try {
      executor.execute(task);
    } catch (RuntimeException rejected) {
      done.add(new Result(row, rejected));
    }
  }

  private void finish(Delivery d, Result r, ArrayDeque<OutboxRow> q) {
    OutboxRow row = r.row;
    if (r.failure == null) {
      store.ackEvents(d.key, d.lease.lease(), List.of(row.sequence()));
      d.delivered++;
      q.poll();
      return;
    }
    io.watukuy.HandlerUnavailableException down = unavailable(r.failure);
    if (down != null) {
      // The destination is down, not the event: no attempt is counted and nothing is parked.
      d.unavailable = down;
      d.blocked.add(row.orderingKey());
      q.clear();
      errors.warn("{}: handler unavailable, delivery stops with {} pending: {}", d.key, row.eventId(), down.getMessage());
      return;
    }
    int attempt = row.attempts() + 1;
    Instant now = time.now();
    ArrayNode history = Errors.appendAttempt(row.lastError(), attempt, now, r.failure);
    if (attempt >= d.policy.retry().attempts()) {
      PoisonPolicy poison = d.policy.poison();
      boolean hold = poison.holdKey() || poison.action() == PoisonPolicy.Action.HALT;
      ObjectNode error = Json.MAPPER.createObjectNode();
      error.put("name", Errors.name(r.failure));
      error.put("message", Errors.message(r.failure));
      error.put("stack", Errors.stack(r.failure));
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
      log.warn("{}: event {} (sequence {}) parked after {} attempts: {}", d.key, row.eventId(),
          row.sequence(), attempt, Errors.message(r.failure));
      safe(() -> listener.onParked(d.key, parked));
      q.poll();
      if (hold) {
        d.blocked.add(row.orderingKey());
        q.clear();
      }
      if (poison.action() == PoisonPolicy.Action.HALT) d.halted = true;
      return;
    }
    Instant next = now.plus(d.policy.retry().backoff().delay(attempt, random));
    store.recordAttempt(d.key, d.lease.lease(), row.sequence(), history.toString(), next);
    log.debug("{}: event {} attempt {} failed, retry at {}: {}", d.key, row.eventId(), attempt,
        next, Errors.message(r.failure));
    block(d, row.orderingKey(), q, next);
  }

  private static io.watukuy.@Nullable HandlerUnavailableException unavailable(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause())
      if (c instanceof io.watukuy.HandlerUnavailableException h) return h;
    return null;
  }

  static void safe(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      log.warn("listener threw; ignored", e);
    }
  }

  private record Result(OutboxRow row, @Nullable Throwable failure) {}
}
