package io.watukuy.internal;

import io.watukuy.ChangeEvent;
import io.watukuy.DeliveryCall;
import io.watukuy.DeliveryOutcome;
import io.watukuy.LeaseLostException;
import io.watukuy.TimeSource;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers outbox rows to a handler (docs/architecture.md, "Delivery"): per ordering key in
 * sequence order, at most {@code concurrency} events in flight engine-wide, acks by sequence,
 * retries with backoff, park after the last attempt.
 *
 * <p>An event is in flight from the start of its handler until its ack is written, and holds one of
 * the {@code concurrency} permits all that time. Acks of handled events are written together in one
 * {@code ackEvents} call (one store transaction rather than one per event, which made the store
 * round trip the cost of a bulk sync) when the permits run out, before the next event of the same
 * ordering key starts, before any other store write of the dispatcher and when the batch ends. So a
 * crash redelivers at most {@code concurrency} handled events (G9: one duplicate per in-flight
 * event), and never an event after a later one of its ordering key (docs/architecture.md, "Kill
 * points", K4: acks per ordering key in sequence order). A failed event's ordering key waits for
 * its retry (recorded in the store) and every later event of that key waits with it; other keys
 * keep flowing (G3, G7). Never sleeps: a retry that is not yet due ends the key's delivery for this
 * cycle and is picked up by a later one.
 *
 * <p>Right before each handler call the lease is asked whether it still holds, by the process's
 * monotonic clock and with a margin ({@link LeaseKeeper#checkHandOff()}): a process frozen past its
 * TTL while another instance took the key and delivered newer events must not hand over the events
 * it loaded before the freeze (G3, G5). The first refusal ends the key's delivery at once with a
 * {@link LeaseLostException}; what was loaded stays pending for the new holder, with no ack, no
 * attempt and no park.
 *
 * <p>A key with a {@link io.watukuy.BatchHandler} is delivered by {@link BatchDispatch} instead;
 * both apply a failure through {@link Failures}.
 */
final class Dispatcher {
  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);
  private static final Logger errors = LoggerFactory.getLogger(Watukuy.ERROR_LOGGER);

  private final StateStore store;
  private final TimeSource time;
  private final Executor executor;
  private final Semaphore permits;
  private final Failures failures;
  // Guarded (GuardedListener): a callback that throws cannot end a delivery.
  private final WatukuyListener listener;
  private final BatchDispatch batches;
  private final int batchSize;
  private final int eventsPerBatch;

  Dispatcher(
      StateStore store,
      TimeSource time,
      RandomGenerator random,
      Executor executor,
      Semaphore permits,
      WatukuyListener listener,
      int batchSize,
      int eventsPerBatch) {
    this.store = store;
    this.time = time;
    this.executor = executor;
    this.permits = permits;
    this.listener = listener;
    this.failures = new Failures(store, time, random, listener);
    this.batches =
        new BatchDispatch(store, time, executor, permits, failures, listener, eventsPerBatch);
    this.batchSize = batchSize;
    this.eventsPerBatch = eventsPerBatch;
  }

  /**
   * Delivers every pending row of the key, page by page ({@code dispatchBatchSize} at a time, or
   * {@code batchSize} for a batch handler when that is larger, so that one read can fill a batch).
   */
  void drain(Delivery d) throws InterruptedException {
    int readSize = d.batch == null ? batchSize : Math.max(batchSize, eventsPerBatch);
    long after = 0;
    while (true) {
      List<OutboxRow> rows = store.loadPending(d.key, after, readSize);
      if (rows.isEmpty()) return;
      deliver(d, rows);
      after = rows.get(rows.size() - 1).sequence();
      if (rows.size() < readSize) return;
    }
  }

  /** Delivers the given rows (sequence order) of one key, one by one or in batches. */
  void deliver(Delivery d, List<OutboxRow> rows) throws InterruptedException {
    d.loadHeld();
    if (d.batch != null) {
      batches.deliver(d, rows);
      return;
    }
    Map<String, ArrayDeque<OutboxRow>> queues = new LinkedHashMap<>();
    for (OutboxRow r : rows) {
      if (d.blocked.contains(r.orderingKey())) continue;
      queues.computeIfAbsent(r.orderingKey(), k -> new ArrayDeque<>()).add(r);
    }
    LinkedBlockingQueue<Result> done = new LinkedBlockingQueue<>();
    Set<String> running = new HashSet<>();
    Acks acks = new Acks(d);
    try {
      while (true) {
        Instant now = time.now();
        for (Map.Entry<String, ArrayDeque<OutboxRow>> e : queues.entrySet()) {
          String ok = e.getKey();
          ArrayDeque<OutboxRow> q = e.getValue();
          if (d.cancelled.getAsBoolean() || d.unavailable != null || d.stale != null)
            break; // the rest stays pending (G1)
          if (running.contains(ok) || q.isEmpty() || d.blocked.contains(ok)) continue;
          OutboxRow head = q.peek();
          if (head.nextAttemptAt() != null && head.nextAttemptAt().isAfter(now)) {
            block(d, ok, q, head.nextAttemptAt());
            continue;
          }
          if (acks.holds(ok))
            acks.flush(); // the earlier event of this ordering key is acked first (K4)
          if (!permits.tryAcquire()) {
            // Half or more of this key's permits wait for their ack: write them, which frees them.
            if (acks.size() > 0 && acks.size() >= running.size()) acks.flush();
            if (!permits.tryAcquire()) {
              if (!running.isEmpty()) break;
              permits.acquire(); // other keys' events hold every permit: wait for one
            }
          }
          running.add(ok);
          start(d, head, done);
        }
        if (running.isEmpty()) {
          acks.flush();
          return;
        }
        Result r = done.take();
        running.remove(r.row.orderingKey());
        finish(d, r, queues.get(r.row.orderingKey()), acks);
      }
    } finally {
      // Delivery ended early (stop, lease lost, store down): ack what was handled if the store
      // still takes it, let handlers in flight finish without acking them; they are redelivered
      // (G1).
      acks.flushQuietly();
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
          HandOffs.HandOff handOff = new HandOffs.HandOff(d);
          Instant started = time.now();
          DeliveryCall call = null;
          try {
            ChangeEvent<Object> event = d.fresh.toEvent(row, d.type);
            // Here, on the handler's thread, after the decoding; a handler may check again right
            // before its own write (Handler.checkLease), which the command line's output does.
            handOff.check();
            call = new DeliveryCall(d.key, started, List.of(row.sequence()), row.attempts() + 1);
            handOff.headers = HandOffs.checked(listener.onDeliveryStart(call));
            HandOffs.set(handOff);
            Objects.requireNonNull(d.handler).handle(event);
          } catch (Throwable t) {
            failure = t;
          } finally {
            HandOffs.set(null);
          }
          Duration took = Failures.since(time, started);
          if (call != null) listener.onDeliveryEnd(call, failure == null ? 0 : 1, failure, took);
          done.add(new Result(row, failure, handOff.refused, took));
        };
    try {
      executor.execute(task);
    } catch (RuntimeException rejected) {
      done.add(new Result(row, rejected, false, Duration.ZERO));
    }
  }

  /** Takes a handler's result; a handled event keeps its permit until its ack is written. */
  private void finish(Delivery d, Result r, ArrayDeque<OutboxRow> q, Acks acks) {
    OutboxRow row = r.row;
    if (r.refused) {
      // Not the event's failure: the key's delivery ends, everything loaded stays pending.
      permits.release();
      // A handler that wrapped the refusal of Handler.checkLease still ends the delivery with it.
      throw r.failure instanceof LeaseLostException stale ? stale : Objects.requireNonNull(d.stale);
    }
    if (r.failure == null) {
      acks.add(row, r.took);
      q.poll();
      return;
    }
    permits.release();
    acks.flush(); // the failure's writes come after the acks of the events handled before it
    if (!failures.stops(d, row, r.failure)) {
      DeliveryOutcome.Result result = failures.count(d, row, r.failure);
      listener.onDelivery(d.key, new DeliveryOutcome(result, 1, r.took, row.attempts() + 1));
    }
    if (d.blocked.contains(row.orderingKey())) q.clear();
    else q.poll(); // parked without holding its key: the key's next event goes on
  }

  /**
   * A handler's outcome; {@code refused} when the lease refused the hand-off, before the handler
   * ran or at its {@code Handler.checkLease} ({@code failure} is then the {@link
   * LeaseLostException}, unless the handler wrapped or swallowed it).
   */
  private record Result(
      OutboxRow row, @Nullable Throwable failure, boolean refused, Duration took) {}

  /**
   * Handled events of one key whose ack is not written yet, in the order they were handled; each
   * holds the permit its handler ran under.
   */
  private final class Acks {
    private final Delivery d;
    private final List<Long> sequences = new ArrayList<>();
    // What each handled event's outcome reports once its ack is written (onDelivery).
    private final List<DeliveryOutcome> outcomes = new ArrayList<>();
    private final Set<String> orderingKeys = new HashSet<>();

    Acks(Delivery d) {
      this.d = d;
    }

    void add(OutboxRow row, Duration took) {
      sequences.add(row.sequence());
      outcomes.add(new DeliveryOutcome(DeliveryOutcome.Result.ACKED, 1, took, row.attempts() + 1));
      orderingKeys.add(row.orderingKey());
    }

    boolean holds(String orderingKey) {
      return orderingKeys.contains(orderingKey);
    }

    int size() {
      return sequences.size();
    }

    /**
     * Writes the acks in one call and frees their permits, whether the store takes them or not (a
     * refused ack leaves the rows pending: they are redelivered, G1). {@code delivered} counts only
     * what the store took.
     */
    void flush() {
      if (sequences.isEmpty()) return;
      List<Long> batch = List.copyOf(sequences);
      List<DeliveryOutcome> acked = List.copyOf(outcomes);
      sequences.clear();
      outcomes.clear();
      orderingKeys.clear();
      try {
        store.ackEvents(d.key, d.lease.lease(), batch);
        d.delivered += batch.size();
      } finally {
        permits.release(batch.size());
      }
      for (DeliveryOutcome o : acked) listener.onDelivery(d.key, o);
    }

    /**
     * {@link #flush()} on the way out of a failed delivery, where the first error is the one to
     * report.
     */
    void flushQuietly() {
      try {
        flush();
      } catch (RuntimeException e) {
        log.debug("{}: acks not written, the events stay pending: {}", d.key, e.toString());
      }
    }
  }
}
