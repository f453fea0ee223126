package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.DeliveryOptions;
import io.watukuy.DeliveryPolicy;
import io.watukuy.KeyReport;
import io.watukuy.ParkedEvent;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.spi.Lease;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.ForwardingStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** G1, G2, G3, G5, G7, G8 and G10 (docs/guarantees.md), on MemoryStore. */
class GuaranteesTest {
  static final PollerKey ORDERS = PollerKey.of("orders");

  @Test
  void g1CrashBetweenCommitAndAckLosesNothing() {
    Fixture f = new Fixture();
    f.seed(5);
    CrashingStore dying = new CrashingStore(f.store, CrashingStore.At.AFTER_COMMIT);
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Recorder first = new Recorder();
    Watukuy a =
        Watukuy.builder()
            .store(dying)
            .time(f.clock)
            .instanceId("a")
            .executor(Runnable::run)
            .handlerExecutor(Runnable::run)
            .poller(orders)
            .build()
            .on(orders, first);

    TickReport crashed = a.tick();

    assertThat(crashed.failed()).isTrue();
    assertThat(first.events()).isEmpty();
    List<String> committed =
        f.store.loadPending(ORDERS, 0, 100).stream().map(OutboxRow::eventId).toList();
    assertThat(committed).hasSize(5);

    // The dead process never released its lease: the next instance waits for it to expire.
    Recorder second = new Recorder();
    Watukuy b = f.engine("b").poller(orders).build().on(orders, second);
    assertThat(b.tick().key(ORDERS).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_LEASED);
    f.clock.advance(Watukuy.DEFAULT_LEASE_TTL);
    b.tick();

    assertThat(second.ids()).containsExactlyElementsOf(committed);
    assertThat(second.changes())
        .containsExactly(
            "o001:created", "o002:created", "o003:created", "o004:created", "o005:created");
    assertThat(f.store.countPending(ORDERS)).isZero();
  }

  @Test
  void g1CrashMidDispatchRedeliversOnlyTheUnackedEvents() {
    Fixture f = new Fixture();
    f.seed(3);
    CrashingStore dying = new CrashingStore(f.store, CrashingStore.At.AFTER_FIRST_ACK);
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Recorder first = new Recorder();
    Watukuy a =
        Watukuy.builder()
            .store(dying)
            .time(f.clock)
            .instanceId("a")
            .executor(Runnable::run)
            .handlerExecutor(Runnable::run)
            .delivery(new DeliveryOptions(1, 100))
            .poller(orders)
            .build()
            .on(orders, first);
    a.tick();
    assertThat(first.changes()).containsExactly("o001:created");

    f.clock.advance(Watukuy.DEFAULT_LEASE_TTL);
    Recorder second = new Recorder();
    f.engine("b").poller(orders).build().on(orders, second).tick();

    assertThat(second.changes()).containsExactly("o002:created", "o003:created");
  }

  @Test
  void g2TwoIndependentWorldsProduceIdenticalIdLists() {
    List<List<String>> worlds = new ArrayList<>();
    for (int world = 0; world < 2; world++) {
      Fixture f = new Fixture(new MemoryStore());
      Poller<JsonNode> orders = f.timestamp("orders", 3).build();
      Poller<JsonNode> catalog = f.snapshot("catalog", 3).build();
      Recorder r = new Recorder();
      Watukuy w =
          f.engine("world-" + world)
              .poller(orders)
              .poller(catalog)
              .build()
              .on(orders, r)
              .on(catalog, r);
      f.seed(7);
      w.tick();
      f.nextCycle();
      f.api.put("o002", Map.of("n", 22));
      f.api.delete("o005");
      w.tick();
      worlds.add(r.ids());
    }
    assertThat(worlds.get(0)).hasSize(7 + 7 + 1 + 1 + 1).doesNotHaveDuplicates();
    assertThat(worlds.get(1)).isEqualTo(worlds.get(0));
  }

  @Test
  void g3HeldKeyKeepsOrderAcrossAParkAndRetry() {
    Fixture f = new Fixture();
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .delivery(DeliveryPolicy.DEFAULT.withPoison(PoisonPolicy.parkAndHoldKey()))
            .build();
    Recorder r = new Recorder();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    r.failWhen(e -> e.identity().equals("x"));
    f.api.put("x", Map.of("v", 1));
    f.api.put("y", Map.of("v", 1));

    for (int i = 0; i < RetryPolicy.DEFAULT_ATTEMPTS; i++) {
      w.tick();
      f.clock.advance(RetryPolicy.DEFAULT_BACKOFF.max());
    }
    assertThat(f.store.countParked(ORDERS)).isEqualTo(1);
    assertThat(f.store.heldKeys(ORDERS)).containsExactly("x");

    r.failWhen(e -> false);
    f.api.put("x", Map.of("v", 2));
    f.api.put("y", Map.of("v", 2));
    f.nextCycle();
    w.tick();
    assertThat(r.changes())
        .containsExactly("y:created", "y:updated"); // x:updated waits behind the parked x:created
    assertThat(f.store.countPending(ORDERS)).isEqualTo(1);

    List<String> ids = w.parked().list("orders").stream().map(p -> p.row().id()).toList();
    assertThat(w.parked().retry(ORDERS, ids)).isEqualTo(1);
    w.tick();

    assertThat(r.of("x")).hasSize(2);
    assertThat(r.of("x").get(0)).startsWith("created@").endsWith("#1");
    assertThat(r.of("x").get(1)).startsWith("updated@").endsWith("#2");
    assertThat(r.changes()).containsExactly("y:created", "y:updated", "x:created", "x:updated");
    assertThat(f.store.countParked(ORDERS)).isZero();
    assertThat(f.store.countPending(ORDERS)).isZero();
  }

  @Test
  void g5SecondEngineOnTheSameStoreIsSkippedAndReceivesNothing() {
    Fixture f = new Fixture();
    f.seed(2);
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Recorder ra = new Recorder();
    Recorder rb = new Recorder();
    Watukuy b = f.engine("b").poller(orders).build().on(orders, rb);
    Watukuy a = f.engine("a").poller(orders).build().on(orders, ra);
    AtomicReference<TickReport> duringA = new AtomicReference<>();
    ra.during(
        () -> {
          if (duringA.get() == null) duringA.set(b.tick());
        });

    a.tick();

    assertThat(duringA.get().key(ORDERS).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_LEASED);
    assertThat(ra.changes()).containsExactly("o001:created", "o002:created");
    assertThat(rb.events()).isEmpty();
  }

  @Test
  void g7PoisonIsParkedAfterThreeAttemptsWhileOtherItemsFlow() {
    Fixture f = new Fixture();
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .delivery(DeliveryPolicy.DEFAULT.withPoison(PoisonPolicy.parkAndHoldKey()))
            .build();
    Recorder r = new Recorder();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    r.failWhen(e -> e.identity().equals("o002"));
    f.seed(4);

    w.tick();
    assertThat(r.changes()).containsExactly("o001:created", "o003:created", "o004:created");

    for (int i = 1; i < RetryPolicy.DEFAULT_ATTEMPTS; i++) {
      f.clock.advance(RetryPolicy.DEFAULT_BACKOFF.max());
      w.tick();
    }
    List<ParkedEvent> parked = w.parked().list("orders");
    assertThat(parked).hasSize(1);
    assertThat(parked.get(0).row().kind()).isEqualTo(ParkedKind.POISON);
    assertThat(parked.get(0).row().attempts()).isEqualTo(3);
    assertThat(parked.get(0).row().holdKey()).isEqualTo("o002");
    assertThat(parked.get(0).row().error())
        .contains("handler refused o002")
        .contains("\"history\"");
    assertThat(f.store.countParked(ORDERS)).isEqualTo(1);
    assertThat(f.store.countPending(ORDERS)).isZero();
  }

  @Test
  void g8DaemonUnderVirtualTimeLeavesNoTimerAfterStop() {
    Fixture f = new Fixture();
    f.seed(3);
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Recorder r = new Recorder();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);

    w.start();
    f.clock.advance(Duration.ofSeconds(1));
    assertThat(r.events()).hasSize(3);
    f.api.put("o009", Map.of("n", 9));
    f.clock.advance(Fixture.MIN);
    assertThat(r.changes()).endsWith("o009:created");
    w.stop();

    assertThat(f.clock.pendingTimers()).isZero();
    w.close();
  }

  /**
   * 35 pending events, batch size 10, concurrency 2. Every handler waits (at most 10 s) until two
   * handlers have started, so two run at once whenever the engine lets them: the peak is the limit
   * exactly, and a dispatcher that ran handlers one at a time would leave the first one waiting out
   * its timeout. An event holds its permit until its ack is written (docs/architecture.md,
   * "Delivery"), so the events started and not yet acked, counted as each handler starts, never
   * exceed the limit either: a dispatcher that ignored it would start a third handler before any
   * ack.
   */
  @Test
  void g10DispatcherReadsBoundedBatchesAndRunsExactlyConcurrencyHandlersAtOnce() throws Exception {
    Fixture f = new Fixture();
    List<Integer> limits = new CopyOnWriteArrayList<>();
    AtomicInteger acked = new AtomicInteger();
    StateStore recording =
        new ForwardingStore(f.store) {
          @Override
          public List<OutboxRow> loadPending(PollerKey key, long afterSequence, int limit) {
            limits.add(limit);
            return super.loadPending(key, afterSequence, limit);
          }

          @Override
          public void ackEvents(PollerKey key, Lease lease, Collection<Long> sequences) {
            super.ackEvents(key, lease, sequences);
            acked.addAndGet(sequences.size());
          }
        };
    Poller<JsonNode> orders = f.timestamp("orders", 100).build();
    Watukuy quiet =
        Watukuy.builder()
            .store(recording)
            .time(f.clock)
            .instanceId("a")
            .executor(Runnable::run)
            .handlerExecutor(Runnable::run)
            .poller(orders)
            .build();
    f.seed(35);
    quiet.tick(); // no handler yet: 35 events wait in the outbox

    int concurrency = 2;
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch firstHandlersStarted = new CountDownLatch(concurrency);
      AtomicInteger started = new AtomicInteger();
      AtomicInteger running = new AtomicInteger();
      AtomicInteger peakRunning = new AtomicInteger();
      AtomicInteger peakUnacked = new AtomicInteger();
      AtomicInteger timedOut = new AtomicInteger();
      Watukuy w =
          Watukuy.builder()
              .store(recording)
              .time(f.clock)
              .instanceId("a")
              .handlerExecutor(pool)
              .delivery(new DeliveryOptions(concurrency, 10))
              .poller(orders)
              .build();
      w.on(
          orders,
          (ChangeEvent<JsonNode> e) -> {
            peakUnacked.accumulateAndGet(started.incrementAndGet() - acked.get(), Math::max);
            peakRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
              firstHandlersStarted.countDown();
              if (!firstHandlersStarted.await(10, TimeUnit.SECONDS)) timedOut.incrementAndGet();
            } finally {
              running.decrementAndGet();
            }
          });
      w.tick();

      assertThat(started.get()).isEqualTo(35);
      assertThat(acked.get()).isEqualTo(35);
      assertThat(timedOut.get()).as("handlers that waited in vain for a second one").isZero();
      assertThat(peakRunning.get()).as("handlers running at once").isEqualTo(concurrency);
      assertThat(peakUnacked.get()).as("events started and not acked").isEqualTo(concurrency);
      assertThat(limits).isNotEmpty().allMatch(l -> l == 10);
    } finally {
      pool.shutdownNow();
    }
  }
}
