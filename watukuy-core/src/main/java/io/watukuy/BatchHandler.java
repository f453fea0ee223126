package io.watukuy;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The user's code that receives the events of one poller several at a time (docs/guarantees.md,
 * "Batches"): attach it with {@link Watukuy#onBatch}, in place of a {@link Handler}. A batch writes
 * its events to the destination together and is acknowledged with one store write, where a {@link
 * Handler} costs one hand-off per event and an ack write per few events.
 *
 * <p><b>What a batch holds.</b> Up to {@link DeliveryOptions#batchSize()} events of one key (one
 * poller and partition), in sequence order. It may hold several events of one ordering key, in
 * order, but never an event whose ordering key has an earlier event waiting for a retry, parked
 * with {@link PoisonPolicy#holdKey()}, or in another batch still in flight (G3). At most {@link
 * DeliveryOptions#concurrency()} batches are in flight engine-wide (each counts as one handler
 * call), and the engine never hands over two batches of one key with a shared ordering key at once.
 * A handler whose destination is one stream (a file) asks for one batch of a key at a time with
 * {@link #inSequenceOrder()}.
 *
 * <p><b>What returning means.</b> Return {@link BatchResult#ok()} when every event was handled: the
 * whole batch is acknowledged in one store write. Return {@link BatchResult#failed} naming the
 * events that failed: for each ordering key, its first failed event counts an attempt and follows
 * the retry and park rules of a single event ({@link RetryPolicy}, {@link PoisonPolicy}); every
 * later event of that ordering key in the batch is not acknowledged, whatever the result says of
 * it, and is delivered again after the failed one; the events of other ordering keys, and the
 * events of that ordering key before the failed one, are acknowledged (G3, G7). So a handler should
 * stop an ordering key at its first failure: report that event and skip the key's later events in
 * the batch, since they will come again. Throwing (any exception but the two below) fails every
 * event of the batch: each ordering key's first event counts an attempt, nothing is acknowledged.
 *
 * <p>{@link HandlerUnavailableException} (thrown, or as a reported failure's cause) and a JVM
 * {@link Error} keep their meaning for a {@link Handler}: delivery of the key stops for the cycle,
 * no attempt is counted, nothing is parked, and the events stay pending. Events the result reports
 * handled are still acknowledged.
 *
 * <p><b>What a crash can repeat (G9).</b> A batch is acknowledged after the handler returns, so a
 * crash (or a lost lease) in between delivers the whole batch again. At most {@code concurrency}
 * batches are in flight, so a crash repeats at most {@code concurrency × batchSize} events, each at
 * most once per crash. Make the handler idempotent (see {@link Handler} on deduplicating by id and
 * sequence).
 *
 * <p>{@link Handler#checkLease()} works inside a batch handler too: call it once, right before the
 * batch's write that cannot be taken back. The engine checks the lease, as for a single event,
 * right before each batch is handed over; a refusal ends the key's delivery with the whole batch
 * pending, nothing acknowledged and no attempt counted (G5).
 *
 * @param <T> the item type
 * @since 0.2
 */
@FunctionalInterface
public interface BatchHandler<T> {
  /**
   * Handles one batch. Runs on the engine's handler executor; the cycle that dispatched the batch
   * waits for it to return.
   *
   * @param events one to {@link DeliveryOptions#batchSize()} events of one key, in sequence order;
   *     unmodifiable
   * @return which events failed, {@link BatchResult#ok()} when none did; never null (a null result
   *     fails the whole batch)
   * @throws Exception to fail every event of the batch: each ordering key's first event is retried
   *     after a backoff, and parked after the last attempt
   */
  BatchResult handle(List<ChangeEvent<T>> events) throws Exception;

  /**
   * Whether the engine hands this handler one batch of a key at a time, so that a key's events
   * reach it in sequence order across ordering keys (docs/guarantees.md, "Batches"): for a
   * destination with one stream, such as a file or standard output, where two batches written at
   * once would interleave out of order. The next batch starts only after the last one returned and
   * was acknowledged; batches of other keys (pollers, partitions) may still run at once, up to
   * {@code concurrency}. An event that waits for a retry or is parked still comes after later
   * events of other ordering keys: sequence order holds among the events delivered together, and
   * per ordering key always (G3).
   *
   * <p>Default {@code false}: up to {@link DeliveryOptions#concurrency()} batches of one key in
   * flight at once, with order per ordering key only.
   *
   * @return true for one batch of a key at a time
   * @since 0.2
   */
  default boolean inSequenceOrder() {
    return false;
  }

  /**
   * {@code handler} with {@link #inSequenceOrder()} true: its batches of one key are handed over
   * one at a time, in sequence order.
   *
   * @param handler the handler
   * @param <T> the item type
   * @return a handler that calls {@code handler}
   * @throws NullPointerException if {@code handler} is null
   * @since 0.2
   */
  static <T> BatchHandler<T> inSequenceOrder(BatchHandler<T> handler) {
    Objects.requireNonNull(handler, "handler");
    return new BatchHandler<>() {
      @Override
      public BatchResult handle(List<ChangeEvent<T>> events) throws Exception {
        return handler.handle(events);
      }

      @Override
      public boolean inSequenceOrder() {
        return true;
      }
    };
  }

  /**
   * What a {@link BatchHandler} did with a batch: the events that failed, with their causes, in the
   * order reported. Immutable. An event is matched to the batch by its {@link
   * ChangeEvent#sequence()} and {@link ChangeEvent#id()} together (an id may repeat within a key,
   * G2, and a sequence across keys); naming an event that is not in the batch, such as one of
   * another poller or partition, is a handler bug and fails the whole batch.
   *
   * @param failures the failed events and why; empty when every event was handled
   * @since 0.2
   */
  record BatchResult(List<Failure> failures) {
    private static final BatchResult OK = new BatchResult(List.of());

    /**
     * Copies the failures.
     *
     * @param failures the failed events and why
     * @throws NullPointerException if {@code failures} or one of them is null
     */
    public BatchResult {
      failures = List.copyOf(failures);
    }

    /**
     * Every event of the batch was handled: the batch is acknowledged in one store write.
     *
     * @return the result with no failures
     */
    public static BatchResult ok() {
      return OK;
    }

    /**
     * One event failed; the others were handled (but see {@link BatchHandler}: the later events of
     * the failed one's ordering key are delivered again after it).
     *
     * @param event the event that failed, as received in the batch
     * @param cause why; its message and stack are stored in the event's attempt history (G7)
     * @return a result with this failure
     * @throws NullPointerException if an argument is null
     */
    public static BatchResult failed(ChangeEvent<?> event, Throwable cause) {
      return new BatchResult(List.of(new Failure(event, cause)));
    }

    /**
     * This result with one more failed event, for a handler that reports several ordering keys.
     *
     * @param event another event that failed
     * @param cause why
     * @return a new result; this one is unchanged
     * @throws NullPointerException if an argument is null
     */
    public BatchResult andFailed(ChangeEvent<?> event, Throwable cause) {
      List<Failure> all = new ArrayList<>(failures);
      all.add(new Failure(event, cause));
      return new BatchResult(all);
    }

    /**
     * Whether every event was handled.
     *
     * @return true when no failure was reported
     */
    public boolean allHandled() {
      return failures.isEmpty();
    }

    /**
     * One failed event of a batch.
     *
     * @param event the event, as received in the batch
     * @param cause why it failed
     * @since 0.2
     */
    public record Failure(ChangeEvent<?> event, Throwable cause) {
      /**
       * Checks the arguments.
       *
       * @param event the event
       * @param cause why it failed
       * @throws NullPointerException if an argument is null
       */
      public Failure {
        // The handler's own call fails with this, and its message is what gets parked: it says
        // what to fix rather than naming a parameter.
        Objects.requireNonNull(
            event, "BatchResult.failed: the event is null; name an event of the batch");
        Objects.requireNonNull(
            cause, "BatchResult.failed: the cause is null; pass why the event failed");
      }
    }
  }
}
