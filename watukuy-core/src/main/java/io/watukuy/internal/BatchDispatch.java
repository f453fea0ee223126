package io.watukuy.internal;

import io.watukuy.BatchHandler;
import io.watukuy.ChangeEvent;
import io.watukuy.DeliveryCall;
import io.watukuy.DeliveryOutcome;
import io.watukuy.LeaseLostException;
import io.watukuy.TimeSource;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import org.jspecify.annotations.Nullable;

/**
 * Delivers outbox rows of one key to a {@link BatchHandler} (docs/guarantees.md, "Batches"): up to
 * {@code batchSize} events per call, in sequence order, at most {@code concurrency} batches in
 * flight engine-wide (one permit each, shared with single-event handlers), and only one of the key
 * at a time for a handler that asks for sequence order ({@link BatchHandler#inSequenceOrder()}).
 *
 * <p>A batch takes, in sequence order, the loaded events of every ordering key that is neither
 * blocked (an earlier event waits for its retry, or is parked with holdKey) nor in another batch in
 * flight; it may take several events of one ordering key. When the handler returns, the events it
 * handled are acked in one {@code ackEvents} call, before any other store write of the batch. Then,
 * for each ordering key with a failed event, the first failed one counts an attempt ({@link
 * Failures}: retry or park) and the key's later events of the batch stay pending: they come again
 * after it (G3, G7). A throwing handler fails every event of the batch. A crash between the return
 * and the ack repeats the batch: at most {@code concurrency × batchSize} events (G9).
 *
 * <p>Right before each batch is handed over the lease is checked, as for a single event ({@link
 * LeaseKeeper#checkHandOff()}); the first refusal ends the key's delivery with a {@link
 * LeaseLostException}, the batch pending, nothing acked and no attempt counted (G3, G5).
 */
final class BatchDispatch {
  private final StateStore store;
  private final TimeSource time;
  private final Executor executor;
  private final Semaphore permits;
  private final Failures failures;
  // Guarded (GuardedListener): a callback that throws cannot end a delivery.
  private final WatukuyListener listener;
  private final int batchSize;

  BatchDispatch(
      StateStore store,
      TimeSource time,
      Executor executor,
      Semaphore permits,
      Failures failures,
      WatukuyListener listener,
      int batchSize) {
    this.store = store;
    this.time = time;
    this.executor = executor;
    this.permits = permits;
    this.failures = failures;
    this.listener = listener;
    this.batchSize = batchSize;
  }

  /** Delivers the given rows (sequence order) of one key in batches. */
  void deliver(Delivery d, List<OutboxRow> rows) throws InterruptedException {
    // Each ordering key's rows not yet acked or dropped, in order; rows in flight stay at the head.
    Map<String, ArrayDeque<OutboxRow>> queues = new LinkedHashMap<>();
    for (OutboxRow r : rows) {
      if (d.blocked.contains(r.orderingKey())) continue;
      queues.computeIfAbsent(r.orderingKey(), k -> new ArrayDeque<>()).add(r);
    }
    LinkedBlockingQueue<Outcome> done = new LinkedBlockingQueue<>();
    Set<String> inFlight = new HashSet<>();
    // One stream (a file): the next batch starts after the last one's outcome was applied, so a
    // failure stops delivery before anything later is written (BatchHandler.inSequenceOrder).
    int most = Objects.requireNonNull(d.batch).inSequenceOrder() ? 1 : Integer.MAX_VALUE;
    int running = 0;
    try {
      while (true) {
        while (running < most
            && !d.cancelled.getAsBoolean()
            && d.unavailable == null
            && d.stale == null) {
          List<OutboxRow> batch = next(d, queues, inFlight);
          if (batch.isEmpty()) break;
          if (!permits.tryAcquire()) {
            if (running > 0) break; // a batch of this key returns first and frees its permit
            permits.acquire(); // other keys' handlers hold every permit: wait for one
          }
          for (OutboxRow r : batch) inFlight.add(r.orderingKey());
          running++;
          start(d, batch, done);
        }
        if (running == 0) return; // what is left stays pending (G1)
        Outcome o = done.take();
        running--;
        for (OutboxRow r : o.batch) inFlight.remove(r.orderingKey());
        finish(d, o, queues);
      }
    } finally {
      // Delivery ended early (stop, lease lost, store down): batches in flight finish without
      // being acked; they are delivered again (G1).
      while (running > 0) {
        done.take();
        permits.release();
        running--;
      }
    }
  }

  /**
   * The next batch: up to {@code batchSize} loaded rows in sequence order, from ordering keys
   * neither blocked nor in flight, each key's rows from its first one on. A key whose first row
   * waits for its retry is blocked for the cycle; a key stops before a later row that waits.
   */
  private List<OutboxRow> next(
      Delivery d, Map<String, ArrayDeque<OutboxRow>> queues, Set<String> inFlight) {
    Instant now = time.now();
    PriorityQueue<Cursor> heads =
        new PriorityQueue<>(Comparator.comparingLong(c -> c.row.sequence()));
    for (Map.Entry<String, ArrayDeque<OutboxRow>> e : queues.entrySet()) {
      String ok = e.getKey();
      ArrayDeque<OutboxRow> q = e.getValue();
      if (q.isEmpty() || inFlight.contains(ok) || d.blocked.contains(ok)) continue;
      Instant retryAt = q.peek().nextAttemptAt();
      if (retryAt != null && retryAt.isAfter(now)) {
        d.blocked.add(ok);
        d.retryAt(retryAt);
        q.clear();
        continue;
      }
      heads.add(new Cursor(q.iterator()));
    }
    List<OutboxRow> batch = new ArrayList<>(Math.min(batchSize, 64));
    while (batch.size() < batchSize && !heads.isEmpty()) {
      Cursor c = heads.poll();
      batch.add(c.row);
      if (c.advance(now)) heads.add(c);
    }
    return batch;
  }

  private void start(Delivery d, List<OutboxRow> batch, LinkedBlockingQueue<Outcome> done) {
    Runnable task =
        () -> {
          List<OutboxRow> handed = new ArrayList<>(batch.size());
          Map<Long, Throwable> undecodable = new HashMap<>();
          BatchHandler.@Nullable BatchResult result = null;
          Throwable failure = null;
          HandOffs.HandOff handOff = new HandOffs.HandOff(d);
          Instant started = time.now();
          DeliveryCall call = null;
          try {
            List<ChangeEvent<Object>> events = decode(d, batch, handed, undecodable);
            if (!events.isEmpty()) {
              // Here, on the handler's thread, after the decoding; the handler may check again
              // right before its own write (Handler.checkLease), as the command line's output does.
              handOff.check();
              call = new DeliveryCall(d.key, started, sequences(handed), highestAttempt(handed));
              handOff.headers = HandOffs.checked(listener.onDeliveryStart(call));
              HandOffs.set(handOff);
              result = Objects.requireNonNull(d.batch).handle(Collections.unmodifiableList(events));
            } else {
              result = BatchHandler.BatchResult.ok();
            }
          } catch (Throwable t) {
            failure = t;
          } finally {
            HandOffs.set(null);
          }
          Duration took = Failures.since(time, started);
          if (call != null)
            listener.onDeliveryEnd(call, failedCount(call, result, failure), failure, took);
          done.add(new Outcome(batch, handed, undecodable, result, failure, handOff.refused, took));
        };
    try {
      executor.execute(task);
    } catch (RuntimeException rejected) {
      done.add(new Outcome(batch, batch, Map.of(), null, rejected, false, Duration.ZERO));
    }
  }

  /**
   * The batch's events. A row that cannot be read as the poller's type fails on its own (as it
   * would for a single-event handler), and the later rows of its ordering key are not handed over.
   */
  private static List<ChangeEvent<Object>> decode(
      Delivery d, List<OutboxRow> batch, List<OutboxRow> handed, Map<Long, Throwable> failed) {
    List<ChangeEvent<Object>> events = new ArrayList<>(batch.size());
    Set<String> stopped = new HashSet<>();
    for (OutboxRow r : batch) {
      if (stopped.contains(r.orderingKey())) continue;
      try {
        events.add(d.fresh.toEvent(r, d.type));
        handed.add(r);
      } catch (RuntimeException e) {
        failed.put(r.sequence(), e);
        stopped.add(r.orderingKey());
      }
    }
    return events;
  }

  /**
   * Takes a batch's outcome: acks what was handled in one store write, then applies each ordering
   * key's first failure. The batch's permit is freed whatever happens.
   */
  private void finish(Delivery d, Outcome o, Map<String, ArrayDeque<OutboxRow>> queues) {
    try {
      if (o.refused) {
        // Not the events' failure: the key's delivery ends, everything loaded stays pending. A
        // handler that wrapped the refusal of Handler.checkLease still ends the delivery with it.
        throw o.failure instanceof LeaseLostException stale
            ? stale
            : Objects.requireNonNull(d.stale);
      }
      Throwable whole = o.failure != null ? o.failure : misreport(d, o);
      if (whole != null
          && failures.stops(d, o.handed.isEmpty() ? o.batch.get(0) : o.handed.get(0), whole)) {
        // The JVM's or the destination's trouble: the whole batch stays pending, nothing counted.
        for (OutboxRow r : o.batch) {
          d.blocked.add(r.orderingKey());
          queues.get(r.orderingKey()).clear();
        }
        return;
      }
      Map<Long, Throwable> failed = new HashMap<>(o.undecodable);
      if (whole != null) for (OutboxRow r : o.handed) failed.putIfAbsent(r.sequence(), whole);
      else
        for (BatchHandler.BatchResult.Failure f : Objects.requireNonNull(o.result).failures())
          failed.putIfAbsent(f.event().sequence(), f.cause());
      List<Long> acks = new ArrayList<>(o.batch.size());
      List<OutboxRow> acked = new ArrayList<>(o.batch.size());
      Map<String, OutboxRow> firstFailed = new LinkedHashMap<>();
      for (OutboxRow r : o.batch) {
        if (firstFailed.containsKey(r.orderingKey())) continue; // comes again after the failed one
        if (failed.containsKey(r.sequence())) firstFailed.put(r.orderingKey(), r);
        else {
          acks.add(r.sequence());
          acked.add(r);
        }
      }
      if (!acks.isEmpty()) {
        // One write for the batch; a refused ack leaves the rows pending (G1). The failures'
        // writes come after it, as they would after the acks of earlier single events.
        store.ackEvents(d.key, d.lease.lease(), acks);
        d.delivered += acks.size();
        for (OutboxRow r : acked) queues.get(r.orderingKey()).poll();
        listener.onDelivery(
            d.key,
            new DeliveryOutcome(
                DeliveryOutcome.Result.ACKED, acked.size(), o.took, highestAttempt(acked)));
      }
      // One outcome per kind for the call, after every failure of it is stored.
      List<OutboxRow> retried = new ArrayList<>();
      List<OutboxRow> parked = new ArrayList<>();
      try {
        for (OutboxRow r : firstFailed.values()) {
          Throwable t = failed.get(r.sequence());
          if (!failures.stops(d, r, t))
            (failures.count(d, r, t) == DeliveryOutcome.Result.PARKED ? parked : retried).add(r);
          ArrayDeque<OutboxRow> q = queues.get(r.orderingKey());
          if (d.blocked.contains(r.orderingKey())) q.clear();
          else q.poll(); // parked without holding its key: the key's next event goes on
        }
      } finally {
        if (!retried.isEmpty())
          listener.onDelivery(
              d.key,
              new DeliveryOutcome(
                  DeliveryOutcome.Result.RETRIED, retried.size(), o.took, highestAttempt(retried)));
        if (!parked.isEmpty())
          listener.onDelivery(
              d.key,
              new DeliveryOutcome(
                  DeliveryOutcome.Result.PARKED, parked.size(), o.took, highestAttempt(parked)));
      }
    } finally {
      permits.release();
    }
  }

  private static List<Long> sequences(List<OutboxRow> rows) {
    List<Long> sequences = new ArrayList<>(rows.size());
    for (OutboxRow r : rows) sequences.add(r.sequence());
    return sequences;
  }

  /**
   * How many of a call's events failed, for {@link WatukuyListener#onDeliveryEnd}: all when it
   * threw or returned null, else those it reported (a misreported one included: the call then fails
   * as a whole when its outcome is applied, and says why).
   */
  private static int failedCount(
      DeliveryCall call, BatchHandler.@Nullable BatchResult result, @Nullable Throwable failure) {
    if (failure != null || result == null) return call.events();
    long distinct = result.failures().stream().map(f -> f.event().sequence()).distinct().count();
    return (int) Math.min(call.events(), distinct);
  }

  /** The attempt a call was for the given events: the highest of theirs, from 1. */
  private static int highestAttempt(List<OutboxRow> rows) {
    int most = 0;
    for (OutboxRow r : rows) most = Math.max(most, r.attempts());
    return most + 1;
  }

  /**
   * A result the engine cannot apply (null, or naming an event that was not handed over): a handler
   * bug, which fails the whole batch with a message that says so.
   */
  private static @Nullable Throwable misreport(Delivery d, Outcome o) {
    if (o.result == null)
      return new IllegalStateException(
          "batch handler of "
              + Who.key(d.key)
              + " returned null; return BatchResult.ok() when every event was handled");
    // Sequences are per key: another key's event (a handler shared by pollers or partitions) can
    // carry a sequence of this batch, so the event id must match the row's too.
    Map<Long, String> handed = new HashMap<>();
    for (OutboxRow r : o.handed) handed.put(r.sequence(), r.eventId());
    for (BatchHandler.BatchResult.Failure f : o.result.failures())
      if (!f.event().id().equals(handed.get(f.event().sequence())))
        return new IllegalStateException(
            "batch handler of "
                + Who.key(d.key)
                + " reported a failure of event "
                + f.event().id()
                + " (sequence "
                + f.event().sequence()
                + "), which is not in the batch (sequences "
                + o.batch.get(0).sequence()
                + " to "
                + o.batch.get(o.batch.size() - 1).sequence()
                + ")",
            f.cause());
    return null;
  }

  /** An ordering key's loaded rows, walked from the first. */
  private static final class Cursor {
    private final Iterator<OutboxRow> rows;
    OutboxRow row;

    Cursor(Iterator<OutboxRow> rows) {
      this.rows = rows;
      this.row = rows.next();
    }

    /** Moves to the key's next row; false at the end or before a row that waits for its retry. */
    boolean advance(Instant now) {
      if (!rows.hasNext()) return false;
      row = rows.next();
      return row.nextAttemptAt() == null || !row.nextAttemptAt().isAfter(now);
    }
  }

  /**
   * A batch's outcome: the rows handed over ({@code handed}, the batch less the rows that could not
   * be read and their key's later ones), the handler's result, or its failure; {@code refused} when
   * the lease refused the hand-off; {@code took} how long the handler ran.
   */
  private record Outcome(
      List<OutboxRow> batch,
      List<OutboxRow> handed,
      Map<Long, Throwable> undecodable,
      BatchHandler.@Nullable BatchResult result,
      @Nullable Throwable failure,
      boolean refused,
      Duration took) {}
}
