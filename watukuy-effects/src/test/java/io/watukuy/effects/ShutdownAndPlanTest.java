package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.ORDERS;
import static io.watukuy.effects.EffectFixture.byCustomer;
import static io.watukuy.effects.EffectFixture.drain;
import static io.watukuy.effects.LogCapture.logged;
import static io.watukuy.effects.LogCapture.onlyLine;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.watukuy.EventType;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.Lease;
import io.watukuy.store.memory.MemoryStore;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Shutdown, the in-flight version warning and the repartition plan (docs/effects.md, "Shutdown",
 * "Plan"). The shutdown tests run the arm on a real worker thread held by a latch; the 30 s wait
 * runs on the virtual clock.
 */
class ShutdownAndPlanTest {
  private final EffectFixture<MemoryStore> f = EffectFixture.memory();
  private final List<Long> ran = new CopyOnWriteArrayList<>();
  private final Set<Long> failing = ConcurrentHashMap.newKeySet();
  private final CountDownLatch started = new CountDownLatch(1);
  private final CountDownLatch proceed = new CountDownLatch(1);
  private final ExecutorService worker = Executors.newSingleThreadExecutor();

  private final Arm<Order> held =
      (ctx, e) -> {
        ran.add(e.sequence());
        started.countDown();
        proceed.await();
      };

  private final Arm<Order> plain =
      (ctx, e) -> {
        ran.add(e.sequence());
        if (failing.contains(e.sequence())) throw new IllegalStateException("no");
      };

  @AfterEach
  void stopWorker() {
    proceed.countDown();
    worker.shutdownNow();
  }

  private Effects heldEngine() {
    Effect<Order> e = f.effect("Notify").on(EventType.CREATED, held, byCustomer()).build();
    return f.builder("engine-1").workers(worker).add(e).build();
  }

  /** Closes on another thread; returns once close waits on the clock for the invocation. */
  private Thread closeWhileInFlight(Effects effects) throws InterruptedException {
    return closeWhileInFlight(effects, started);
  }

  private Thread closeWhileInFlight(Effects effects, CountDownLatch started)
      throws InterruptedException {
    effects.run("Notify").pass();
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    Thread closer = new Thread(effects::close, "closer");
    closer.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (f.clock.pendingTimers() == 0 && System.nanoTime() < deadline) Thread.onSpinWait();
    assertThat(f.clock.pendingTimers()).isEqualTo(1); // the 30 s wait
    return closer;
  }

  private InvocationStatus status(long position) {
    return f.row("Notify", position).map(InvocationRow::status).orElse(null);
  }

  @Test
  void closeWaitsForAnInvocationInFlightThatFinishes() throws Exception {
    f.created("a");
    Effects effects = heldEngine();
    Instant start = f.clock.now();
    Thread closer = closeWhileInFlight(effects);

    proceed.countDown();
    closer.join(10_000);
    assertThat(closer.isAlive()).isFalse();
    assertThat(f.clock.now()).isEqualTo(start); // no timeout was needed
    assertThat(status(1)).isEqualTo(InvocationStatus.DONE);
    assertThat(f.effects.effectLease("Notify")).isEmpty(); // given up after the wait
  }

  @Test
  void anInvocationAbandonedAfterThirtySecondsReplaysAtTheNextStart() throws Exception {
    f.created("a");
    Effects effects = heldEngine();
    Thread closer = closeWhileInFlight(effects);

    f.clock.advance(Duration.ofSeconds(29));
    assertThat(closer.isAlive()).isTrue();
    f.clock.advance(Duration.ofSeconds(1));
    closer.join(10_000);
    assertThat(closer.isAlive()).isFalse();
    assertThat(status(1)).isEqualTo(InvocationStatus.RUNNING);

    // the abandoned arm finishes late: its outcome is refused by the lease it no longer holds
    proceed.countDown();
    worker.shutdown();
    assertThat(worker.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(status(1)).isEqualTo(InvocationStatus.RUNNING);

    Effect<Order> again = f.effect("Notify").on(EventType.CREATED, plain, byCustomer()).build();
    Effects next = f.effects("engine-2", again);
    drain(next, "Notify");
    assertThat(ran).containsExactly(1L, 1L);
    assertThat(f.row("Notify", 1).orElseThrow().attempt()).isEqualTo(2);
    assertThat(status(1)).isEqualTo(InvocationStatus.DONE);
    next.close();
  }

  @Test
  void aCallCutShortByTheShutdownIsNotRecordedAsAFailureAndReplaysAtTheNextStart()
      throws Exception {
    // A receiver that holds the first request until the test ends; later ones answer at once.
    List<String> keys = new CopyOnWriteArrayList<>();
    CountDownLatch arrived = new CountDownLatch(1);
    HttpServer receiver =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    ExecutorService handlers = Executors.newCachedThreadPool();
    receiver.setExecutor(handlers);
    receiver.createContext(
        "/",
        x -> {
          keys.add(x.getRequestHeaders().getFirst("Idempotency-Key"));
          if (keys.size() == 1) {
            arrived.countDown();
            try {
              proceed.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          x.sendResponseHeaders(204, -1);
          x.close();
        });
    receiver.start();
    String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/welcome";
    Arm<Order> post =
        (ctx, e) -> {
          ran.add(e.sequence());
          ctx.http().send(EffectHttp.Request.of("POST", url + "/" + e.data().customer()));
        };
    try {
      f.created("a");
      // the engine's own worker pool, which close interrupts after the 30 s wait
      Effects effects =
          Effects.builder(f.store)
              .time(f.clock)
              .instanceId("engine-1")
              .add(f.effect("Notify").on(EventType.CREATED, post, byCustomer()).build())
              .build();
      List<String> lines =
          logged(
              () -> {
                try {
                  Thread closer = closeWhileInFlight(effects, arrived);
                  f.clock.advance(Duration.ofSeconds(30));
                  closer.join(10_000);
                  assertThat(closer.isAlive()).isFalse();
                  long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                  while (effects.run("Notify").inFlight() > 0 && System.nanoTime() < deadline)
                    Thread.onSpinWait();
                  assertThat(effects.run("Notify").inFlight()).isZero();
                } catch (InterruptedException e) {
                  throw new AssertionError(e);
                }
              });

      // the interrupted call is the shutdown's doing: the row is as the attempt started it
      InvocationRow row = f.row("Notify", 1).orElseThrow();
      assertThat(row.status()).isEqualTo(InvocationStatus.RUNNING);
      assertThat(row.attempt()).isEqualTo(1);
      assertThat(row.error()).isNull();
      assertThat(row.retryAt()).isNull();
      assertThat(lines)
          .anySatisfy(
              line ->
                  assertThat(line)
                      .contains("effect Notify")
                      .contains("position 1")
                      .contains("abandoned by the shutdown"))
          .noneSatisfy(line -> assertThat(line).contains("failed (attempt 1)"));

      Effects next =
          f.effects(
              "engine-2", f.effect("Notify").on(EventType.CREATED, post, byCustomer()).build());
      drain(next, "Notify");
      assertThat(status(1)).isEqualTo(InvocationStatus.DONE);
      assertThat(f.row("Notify", 1).orElseThrow().attempt()).isEqualTo(2);
      assertThat(ran).containsExactly(1L, 1L);
      // sent again with the same key: the receiver can tell it is the same request
      assertThat(keys).hasSize(2);
      assertThat(keys.get(1)).isNotBlank().isEqualTo(keys.get(0));
      next.close();
    } finally {
      proceed.countDown();
      receiver.stop(0);
      handlers.shutdownNow();
    }
  }

  /**
   * Position 1 (lane customer:a) left RUNNING at {@code attempt} by a stopped engine of {@code
   * version}; an engine of version 2026.12.1 then starts and drains. Returns what it logs.
   */
  private List<String> replayLeftRunning(int attempt, String version) {
    f.created("a");
    Lease lease =
        f.effects
            .acquireEffectLease("Notify", "stopped", Duration.ofSeconds(30), f.clock.now())
            .get();
    f.effects.saveInvocation(
        new InvocationRow(
            "Notify",
            ORDERS,
            1,
            "customer:a",
            "created",
            InvocationStatus.RUNNING,
            attempt,
            null,
            null,
            false,
            version,
            f.clock.now(),
            f.clock.now()),
        lease);
    f.effects.releaseEffectLease("Notify", lease);
    Effect<Order> e =
        f.effect("Notify").on(EventType.CREATED, plain, byCustomer()).version("2026.12.1").build();
    Effects effects = f.effects(e);
    return logged(() -> drain(effects, "Notify"));
  }

  @Test
  void anInvocationLeftRunningByAnotherVersionIsLoggedByNameAtStart() {
    List<String> lines = replayLeftRunning(1, "2026.11.2");

    assertThat(lines)
        .anySatisfy(
            line ->
                assertThat(line)
                    .contains("WARN")
                    .contains("effect Notify")
                    .contains("position 1")
                    .contains("version 2026.11.2")
                    .contains("version 2026.12.1"));
    assertThat(f.row("Notify", 1).orElseThrow().version()).isEqualTo("2026.12.1");
  }

  @Test
  void anInvocationLeftRunningByAStoppedEngineIsLoggedAsItReplays() {
    List<String> lines = replayLeftRunning(3, "2026.12.1");

    assertThat(onlyLine(lines, "left in flight"))
        .contains(
            "effect Notify on orders: position 1 in lane customer:a was left in flight by a stopped"
                + " engine (attempt 3); it replays now");
    assertThat(f.row("Notify", 1).orElseThrow().status()).isEqualTo(InvocationStatus.DONE);
  }

  @Test
  void planReportsAChangedKeySchemeAndTheOutstandingLanesWithoutStartingAnything() {
    f.created("a", "b", "c", "a");
    failing.add(1L);
    Effects before =
        f.effects(f.effect("Notify").on(EventType.CREATED, plain, byCustomer()).build());
    drain(before, "Notify");
    before.close(); // 1 failed (lane a, with 4 behind it), 2 and 3 done: 3 lanes above 0

    Effect<Order> byAccount =
        f.effect("Notify")
            .on(EventType.CREATED, plain, Key.of("account", e -> e.data().id()))
            .build();
    Effect<Order> fresh = f.effect("Other").on(EventType.CREATED, plain, byCustomer()).build();
    Effects deploy = f.effects("engine-2", byAccount, fresh);
    List<EffectPlan> plan = deploy.plan();

    assertThat(plan).hasSize(2);
    EffectPlan moved = plan.get(0);
    assertThat(moved.effect()).isEqualTo("Notify");
    assertThat(moved.source()).isEqualTo(ORDERS);
    assertThat(moved.watermark()).isZero();
    assertThat(moved.movedSchemes()).containsExactly("created (customer → account)");
    assertThat(moved.outstandingLanes()).isEqualTo(3);
    assertThat(moved.blocked()).isTrue();

    EffectPlan other = plan.get(1);
    assertThat(other.effect()).isEqualTo("Other");
    assertThat(other.schemeChanged()).isFalse();
    assertThat(other.outstandingLanes()).isZero();
    assertThat(other.blocked()).isFalse();

    // nothing started: no lease taken, no cursor written
    assertThat(f.effects.effectLease("Notify")).isEmpty();
    assertThat(f.effects.loadCursors("Other")).isEmpty();
    assertThat(ran).containsExactly(1L, 2L, 3L);

    Effects same =
        f.effects(
            "engine-3", f.effect("Notify").on(EventType.CREATED, plain, byCustomer()).build());
    EffectPlan unchanged = same.plan().get(0);
    assertThat(unchanged.schemeChanged()).isFalse();
    assertThat(unchanged.outstandingLanes()).isEqualTo(3);
    assertThat(unchanged.blocked()).isFalse();
  }

  @Test
  void aFailedEventThatBelongsToNoKeyIsLoggedAsNoKey() {
    f.created("a");
    Key<Order> broken =
        Key.of(
            "customer",
            e -> {
              throw new IllegalStateException("no customer");
            });
    Effects effects = f.effects(f.effect("Notify").on(EventType.CREATED, plain, broken).build());
    List<String> lines = logged(() -> drain(effects, "Notify"));
    assertThat(status(1)).isEqualTo(InvocationStatus.FAILED);
    assertThat(f.row("Notify", 1).orElseThrow().lane()).isEmpty(); // as the store keeps it
    assertThat(lines)
        .anySatisfy(
            line ->
                assertThat(line)
                    .contains("effect Notify on ")
                    .contains("position 1 in lane (no key) failed (attempt 1)"))
        .noneSatisfy(line -> assertThat(line).contains("in lane  "));
  }
}
