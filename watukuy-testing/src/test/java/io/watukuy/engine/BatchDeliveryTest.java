package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BatchHandler;
import io.watukuy.BatchHandler.BatchResult;
import io.watukuy.Cancellable;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.DeliveryOptions;
import io.watukuy.DeliveryPolicy;
import io.watukuy.HandlerUnavailableException;
import io.watukuy.KeyReport;
import io.watukuy.LeaseLostException;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.TimeSource;
import io.watukuy.Watukuy;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.ForwardingStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Batch delivery (docs/guarantees.md, "Batches"): a batch holds up to {@code batchSize} events in
 * sequence order, is acked in one store write, keeps the order per ordering key (G3) and isolates a
 * failed event to its ordering key (G7); {@code concurrency} counts batches.
 */
class BatchDeliveryTest {
  private static final PollerKey ORDERS = PollerKey.of("orders");

  /** Records every ackEvents call. */
  private static final class AckLog extends ForwardingStore {
    final List<List<Long>> calls = new ArrayList<>();

    AckLog() {
      super(new MemoryStore());
    }

    @Override
    public synchronized void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
      super.ackEvents(key, lease, sequences);
      calls.add(List.copyOf(sequences));
    }
  }

  /** A batch handler that records each batch as its items' numbers and answers with a function. */
  private static final class Batches implements BatchHandler<JsonNode> {
    final List<List<Integer>> received = new ArrayList<>();
    Function<List<ChangeEvent<JsonNode>>, BatchResult> answer = events -> BatchResult.ok();

    @Override
    public synchronized BatchResult handle(List<ChangeEvent<JsonNode>> events) {
      received.add(events.stream().map(e -> n(e)).toList());
      return answer.apply(events);
    }

    synchronized List<List<Integer>> received() {
      return List.copyOf(received);
    }
  }

  private final AckLog store = new AckLog();
  private final Fixture f = new Fixture(store);

  private static int n(ChangeEvent<JsonNode> e) {
    return e.data().get("n").asInt();
  }

  private static ChangeEvent<JsonNode> item(List<ChangeEvent<JsonNode>> events, int n) {
    return events.stream().filter(e -> n(e) == n).findFirst().orElseThrow();
  }

  /** Odd items share one ordering key, even items another. */
  private Poller.Builder<JsonNode, ?> oddAndEven() {
    return f.timestamp("orders", 50).orderingKey(i -> i.get("n").asInt() % 2 == 0 ? "even" : "odd");
  }

  private Watukuy engine(Poller<JsonNode> orders, int concurrency, int batchSize) {
    return f.engine("a")
        .delivery(new DeliveryOptions(concurrency, 100, batchSize))
        .poller(orders)
        .build();
  }

  @Test
  void aBatchHoldsUpToBatchSizeEventsInSequenceOrderAndIsAckedInOneWrite() {
    f.seed(7);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Batches h = new Batches();
    Watukuy w = engine(orders, 1, 3).onBatch(orders, h);

    assertThat(w.tick().delivered()).isEqualTo(7);

    assertThat(h.received()).containsExactly(List.of(1, 2, 3), List.of(4, 5, 6), List.of(7));
    assertThat(store.calls).containsExactly(List.of(1L, 2L, 3L), List.of(4L, 5L, 6L), List.of(7L));
    assertThat(store.countPending(ORDERS)).isZero();
  }

  @Test
  void severalEventsOfOneOrderingKeyGoInOneBatchInOrder() {
    f.seed(5);
    Poller<JsonNode> orders = f.timestamp("orders", 50).orderingKey(i -> "all").build();
    Batches h = new Batches();
    Watukuy w = engine(orders, 1, 10).onBatch(orders, h);
    w.tick();
    f.nextCycle();
    f.api.put("o002", Map.of("n", 2, "v", 2));
    f.clock.advance(Duration.ofSeconds(1));
    f.api.put("o001", Map.of("n", 1, "v", 2));
    w.tick();

    assertThat(h.received()).containsExactly(List.of(1, 2, 3, 4, 5), List.of(2, 1));
    assertThat(store.calls).containsExactly(List.of(1L, 2L, 3L, 4L, 5L), List.of(6L, 7L));
  }

  @Test
  void aFailedEventRetriesAndItsKeysLaterEventsWaitWhileTheOtherKeyIsAcked() {
    f.seed(6);
    Poller<JsonNode> orders = oddAndEven().build();
    Batches h = new Batches();
    // Reports 3 and, against the advice, 5 as failed too: only 3 counts an attempt.
    h.answer =
        events ->
            events.size() == 6
                ? BatchResult.failed(item(events, 3), new IllegalStateException("no 3"))
                    .andFailed(item(events, 5), new IllegalStateException("no 5"))
                : BatchResult.ok();
    Watukuy w = engine(orders, 1, 10).onBatch(orders, h);

    KeyReport first = w.tick().key(ORDERS).orElseThrow();

    assertThat(first.delivered()).isEqualTo(4);
    assertThat(store.calls).containsExactly(List.of(1L, 2L, 4L, 6L));
    List<OutboxRow> pending = store.loadPending(ORDERS, 0, 10);
    assertThat(pending).extracting(OutboxRow::sequence).containsExactly(3L, 5L);
    assertThat(pending).extracting(OutboxRow::attempts).containsExactly(1, 0);
    assertThat(pending.get(0).nextAttemptAt()).isAfter(f.clock.now());

    f.nextCycle(); // past the first backoff (1 s)
    w.tick();

    assertThat(h.received()).containsExactly(List.of(1, 2, 3, 4, 5, 6), List.of(3, 5));
    assertThat(store.countPending(ORDERS)).isZero();
  }

  @Test
  void anEventFailingItsLastAttemptIsParkedAndItsKeysNextEventGoesOnInTheSameCycle() {
    f.seed(6);
    Poller<JsonNode> orders =
        oddAndEven().delivery(DeliveryPolicy.DEFAULT.withRetry(RetryPolicy.attempts(1))).build();
    Batches h = new Batches();
    h.answer =
        events ->
            events.stream().anyMatch(e -> n(e) == 3)
                ? BatchResult.failed(item(events, 3), new IllegalStateException("no 3"))
                : BatchResult.ok();
    Watukuy w = engine(orders, 1, 10).onBatch(orders, h);

    assertThat(w.tick().key(ORDERS).orElseThrow().parked()).isEqualTo(1);

    assertThat(h.received()).containsExactly(List.of(1, 2, 3, 4, 5, 6), List.of(5));
    assertThat(store.calls).containsExactly(List.of(1L, 2L, 4L, 6L), List.of(5L));
    assertThat(store.countParked(ORDERS)).isEqualTo(1);
    assertThat(store.countPending(ORDERS)).isZero();
  }

  @Test
  void withHoldKeyAParkedEventHoldsItsKeysLaterEventsAndNotTheOtherKey() {
    f.seed(6);
    Poller<JsonNode> orders =
        oddAndEven()
            .delivery(new DeliveryPolicy(RetryPolicy.attempts(1), PoisonPolicy.parkAndHoldKey()))
            .build();
    Batches h = new Batches();
    h.answer =
        events ->
            events.stream().anyMatch(e -> n(e) == 3)
                ? BatchResult.failed(item(events, 3), new IllegalStateException("no 3"))
                : BatchResult.ok();
    Watukuy w = engine(orders, 1, 10).onBatch(orders, h);

    w.tick();
    f.nextCycle();
    f.api.put("o008", Map.of("n", 8));
    f.clock.advance(Duration.ofSeconds(1));
    f.api.put("o007", Map.of("n", 7));
    w.tick();

    assertThat(h.received()).containsExactly(List.of(1, 2, 3, 4, 5, 6), List.of(8));
    assertThat(store.calls).containsExactly(List.of(1L, 2L, 4L, 6L), List.of(7L));
    assertThat(store.loadPending(ORDERS, 0, 10))
        .extracting(OutboxRow::sequence)
        .containsExactly(5L, 8L);
  }

  @Test
  void aThrowingHandlerCountsAnAttemptOnEachKeysFirstEventAndAcksNothing() {
    f.seed(4);
    Poller<JsonNode> orders = oddAndEven().build();
    Watukuy w =
        engine(orders, 1, 10)
            .onBatch(
                orders,
                events -> {
                  throw new IllegalStateException("destination refused the batch");
                });

    assertThat(w.tick().delivered()).isZero();

    assertThat(store.calls).isEmpty();
    assertThat(store.loadPending(ORDERS, 0, 10))
        .extracting(OutboxRow::attempts)
        .containsExactly(1, 1, 0, 0);
    assertThat(store.loadPending(ORDERS, 0, 1).get(0).lastError())
        .contains("destination refused the batch");
  }

  @Test
  void aDownDestinationOrAJvmErrorLeavesTheBatchPendingUncounted() {
    f.seed(3);
    Poller<JsonNode> orders =
        f.timestamp("orders", 50)
            .delivery(DeliveryPolicy.DEFAULT.withRetry(RetryPolicy.attempts(1)))
            .build();
    Throwable[] failure = {new HandlerUnavailableException("sink is down", null)};
    Batches h = new Batches();
    Watukuy w =
        engine(orders, 1, 10)
            .onBatch(
                orders,
                events -> {
                  if (failure[0] instanceof Error e) throw e;
                  if (failure[0] != null) throw (RuntimeException) failure[0];
                  return h.handle(events);
                });

    KeyReport down = w.tick().key(ORDERS).orElseThrow();
    failure[0] = new StackOverflowError("deep");
    f.nextCycle();
    KeyReport error = w.tick().key(ORDERS).orElseThrow();

    assertThat(down.error()).isInstanceOf(HandlerUnavailableException.class);
    assertThat(error.error()).isInstanceOf(HandlerUnavailableException.class);
    assertThat(error.error().getCause()).isInstanceOf(StackOverflowError.class);
    assertThat(store.calls).isEmpty();
    assertThat(store.loadPending(ORDERS, 0, 10)).extracting(OutboxRow::attempts).containsOnly(0);
    assertThat(store.countParked(ORDERS)).isZero();

    failure[0] = null;
    f.nextCycle();
    w.tick();
    assertThat(h.received()).containsExactly(List.of(1, 2, 3));
  }

  @Test
  void aFailureReportedAsUnavailableStopsDeliveryAndStillAcksTheHandledEvents() {
    f.seed(4);
    Poller<JsonNode> orders = oddAndEven().build();
    Watukuy w =
        engine(orders, 1, 2)
            .onBatch(
                orders,
                events ->
                    BatchResult.failed(
                        item(events, 2), new HandlerUnavailableException("queue full", null)));

    KeyReport report = w.tick().key(ORDERS).orElseThrow();

    assertThat(report.error()).isInstanceOf(HandlerUnavailableException.class);
    assertThat(store.calls).as("1 was handled; no second batch").containsExactly(List.of(1L));
    assertThat(store.loadPending(ORDERS, 0, 10)).extracting(OutboxRow::attempts).containsOnly(0);
  }

  @Test
  void aResultNamingAnEventOutsideTheBatchFailsTheWholeBatch() {
    f.seed(2);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    List<ChangeEvent<JsonNode>> firstBatch = new ArrayList<>();
    Watukuy w =
        engine(orders, 1, 1)
            .onBatch(
                orders,
                events -> {
                  if (firstBatch.isEmpty()) {
                    firstBatch.addAll(events);
                    return BatchResult.ok();
                  }
                  return BatchResult.failed(firstBatch.get(0), new IllegalStateException("x"));
                });

    w.tick();

    List<OutboxRow> pending = store.loadPending(ORDERS, 0, 10);
    assertThat(pending).extracting(OutboxRow::sequence).containsExactly(2L);
    assertThat(pending.get(0).attempts()).isEqualTo(1);
    assertThat(pending.get(0).lastError())
        .contains("reported a failure of event " + firstBatch.get(0).id())
        .contains("which is not in the batch (sequences 2 to 2)");
  }

  @Test
  void
      aResultNamingAnotherKeysEventWithTheSameSequenceFailsTheWholeBatchNotTheEventOfThatSequence() {
    // Sequences are per key: a handler shared by two pollers that reports an orders event while
    // handling customers names sequence 1 of another key, not customers' own event 1.
    f.seed(2);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Poller<JsonNode> customers = f.timestamp("customers", 50).build();
    Watukuy w =
        f.engine("a")
            .delivery(new DeliveryOptions(1, 100, 10))
            .poller(orders)
            .poller(customers)
            .build();
    List<ChangeEvent<JsonNode>> ordersBatch = new ArrayList<>();
    w.onBatch(
        orders,
        events -> {
          ordersBatch.addAll(events);
          return BatchResult.ok();
        });
    w.tick(); // customers' events wait in its outbox: no handler yet
    w.onBatch(
        customers,
        events -> BatchResult.failed(ordersBatch.get(0), new IllegalStateException("order 1")));

    w.tick();

    PollerKey customersKey = PollerKey.of("customers");
    List<OutboxRow> pending = store.loadPending(customersKey, 0, 10);
    assertThat(ordersBatch.get(0).sequence()).isEqualTo(1L);
    assertThat(pending).extracting(OutboxRow::sequence).containsExactly(1L, 2L);
    assertThat(pending).extracting(OutboxRow::attempts).containsExactly(1, 1);
    assertThat(pending.get(1).lastError())
        .contains("reported a failure of event " + ordersBatch.get(0).id())
        .contains("which is not in the batch (sequences 1 to 2)");
  }

  @Test
  void aFailureWithoutACauseFailsTheBatchWithAMessageThatSaysWhatToFix() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Watukuy w =
        engine(orders, 1, 10).onBatch(orders, events -> BatchResult.failed(events.get(0), null));

    w.tick();

    List<OutboxRow> pending = store.loadPending(ORDERS, 0, 10);
    assertThat(pending).extracting(OutboxRow::attempts).containsExactly(1);
    assertThat(pending.get(0).lastError())
        .contains("BatchResult.failed: the cause is null; pass why the event failed");
  }

  @Test
  void aBatchNeverTakesAnEventOfAKeyInAnotherBatchInFlightAndConcurrencyCountsBatches()
      throws Exception {
    // Items 1-3 share key A, 4-5 key B, 6 key C. Three permits: three batches start at once.
    f.seed(6);
    Poller<JsonNode> orders =
        f.timestamp("orders", 50)
            .orderingKey(
                i -> {
                  int n = i.get("n").asInt();
                  return n <= 3 ? "A" : n <= 5 ? "B" : "C";
                })
            .build();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      CyclicBarrier allThree = new CyclicBarrier(3);
      AtomicInteger calls = new AtomicInteger();
      AtomicInteger inFlight = new AtomicInteger();
      AtomicInteger most = new AtomicInteger();
      Batches h = new Batches();
      Watukuy w =
          f.engine("a")
              .handlerExecutor(pool)
              .delivery(new DeliveryOptions(3, 100, 2))
              .poller(orders)
              .build()
              .onBatch(
                  orders,
                  events -> {
                    most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    try {
                      // The first three batches are in flight together (bounded wait).
                      if (calls.incrementAndGet() <= 3) allThree.await(10, TimeUnit.SECONDS);
                      return h.handle(events);
                    } finally {
                      inFlight.decrementAndGet();
                    }
                  });

      assertThat(w.tick().delivered()).isEqualTo(6);

      assertThat(most.get()).isEqualTo(3);
      List<List<Integer>> got = h.received();
      assertThat(got)
          .containsExactlyInAnyOrder(List.of(1, 2), List.of(4, 5), List.of(6), List.of(3));
      assertThat(got.indexOf(List.of(3)))
          .as("3 waited for the batch of 1 and 2")
          .isGreaterThan(got.indexOf(List.of(1, 2)));
      assertThat(store.calls).hasSize(4);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aHandlerInSequenceOrderGetsOneBatchOfAKeyAtATimeAndADownDestinationStopsTheRest()
      throws Exception {
    // Six items, each its own ordering key: with three permits and three threads, a plain batch
    // handler could get three batches at once; one in sequence order gets them one by one.
    f.seed(6);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      AtomicInteger inFlight = new AtomicInteger();
      AtomicInteger most = new AtomicInteger();
      AtomicInteger calls = new AtomicInteger();
      Batches h = new Batches();
      Watukuy w =
          f.engine("a")
              .handlerExecutor(pool)
              .delivery(new DeliveryOptions(3, 100, 2))
              .poller(orders)
              .build()
              .onBatch(
                  orders,
                  BatchHandler.inSequenceOrder(
                      events -> {
                        most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                        try {
                          if (calls.incrementAndGet() == 2)
                            throw new HandlerUnavailableException("disk full", null);
                          return h.handle(events);
                        } finally {
                          inFlight.decrementAndGet();
                        }
                      }));

      KeyReport down = w.tick().key(ORDERS).orElseThrow();

      assertThat(down.error()).isInstanceOf(HandlerUnavailableException.class);
      assertThat(calls.get()).as("nothing after the failed batch was handed over").isEqualTo(2);
      assertThat(h.received()).containsExactly(List.of(1, 2));

      f.nextCycle();
      assertThat(w.tick().delivered()).isEqualTo(4);

      assertThat(most.get()).isEqualTo(1);
      assertThat(h.received()).containsExactly(List.of(1, 2), List.of(3, 4), List.of(5, 6));
      assertThat(store.calls).containsExactly(List.of(1L, 2L), List.of(3L, 4L), List.of(5L, 6L));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theLeaseIsCheckedBeforeEachBatchAndARefusalHandsNothingOverAndCountsNothing() {
    f.seed(4);
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    // No timers run: the lease is not renewed behind the handler's back.
    TimeSource noTimers =
        new TimeSource() {
          @Override
          public Instant now() {
            return f.clock.now();
          }

          @Override
          public long nanoTime() {
            return f.clock.nanoTime();
          }

          @Override
          public void sleep(Duration d) {}

          @Override
          public Cancellable schedule(Duration delay, Runnable task) {
            return () -> {};
          }
        };
    Watukuy w =
        f.engine("a")
            .time(noTimers)
            .delivery(new DeliveryOptions(1, 100, 2))
            .poller(orders)
            .build();
    w.tick(); // no handler yet: four events wait
    Batches h = new Batches();
    h.answer =
        events -> {
          // The first batch takes the margin: two thirds of the TTL, and a millisecond.
          Duration ttl = Watukuy.DEFAULT_LEASE_TTL;
          f.clock.advance(ttl.minus(ttl.dividedBy(3)).plusMillis(1));
          return BatchResult.ok();
        };
    w.onBatch(orders, h);

    f.nextCycle();
    KeyReport report = w.tick().key(ORDERS).orElseThrow();

    assertThat(report.error()).isInstanceOf(LeaseLostException.class);
    assertThat(h.received()).containsExactly(List.of(1, 2));
    assertThat(store.calls).containsExactly(List.of(1L, 2L));
    assertThat(store.loadPending(ORDERS, 0, 10)).extracting(OutboxRow::attempts).containsOnly(0, 0);
    assertThat(store.countParked(ORDERS)).isZero();
  }

  @Test
  void aPollerHasAHandlerOrABatchHandlerNotBoth() {
    Poller<JsonNode> orders = f.timestamp("orders", 50).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, e -> {});

    assertThatThrownBy(() -> w.onBatch(orders, events -> BatchResult.ok()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("poller orders has a handler attached with on()");

    Watukuy v = f.engine("b").poller(orders).build().onBatch(orders, events -> BatchResult.ok());
    v.onBatch(orders, events -> BatchResult.ok()); // a batch handler replaces a batch handler
    assertThatThrownBy(() -> v.on(orders, e -> {}))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("poller orders has a batch handler attached with onBatch()");
  }

  @Test
  void batchSizeBelowOneIsRejectedNamingTheField() {
    assertThatThrownBy(() -> new DeliveryOptions(1, 100, 0))
        .isInstanceOf(ConfigException.class)
        .hasMessage("delivery.batchSize must be >= 1, but was 0");
    assertThat(new DeliveryOptions(8, 100).batchSize())
        .isEqualTo(DeliveryOptions.DEFAULT_BATCH_SIZE);
    assertThat(DeliveryOptions.DEFAULT.withBatchSize(7).batchSize()).isEqualTo(7);
  }
}
