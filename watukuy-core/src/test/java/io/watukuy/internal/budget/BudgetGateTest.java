package io.watukuy.internal.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.BudgetLimit;
import io.watukuy.BudgetTimeoutException;
import io.watukuy.Lane;
import io.watukuy.PollerKey;
import io.watukuy.store.memory.MemoryBudgetStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The blocking side of a budget: a request waits on the engine's clock for its token, in fair
 * order, up to maxWait and never past the tick deadline; the listener hears the expected wait.
 */
class BudgetGateTest {
  static final PollerKey KEY = PollerKey.of("orders");
  static final Duration LONG = Duration.ofMinutes(10);
  final List<Duration> waits = new CopyOnWriteArrayList<>();
  final List<Thread> threads = new ArrayList<>();

  @AfterEach
  void joinThreads() throws InterruptedException {
    for (Thread t : threads) {
      t.join(10_000);
      assertThat(t.isAlive()).as(t.getName() + " still waits").isFalse();
    }
  }

  private static BudgetGate gate(StepClock clock, BudgetLimit limit) {
    return new BudgetGate("erp", limit, new MemoryBudgetStore(), clock);
  }

  private void acquire(BudgetGate gate, Duration maxWait, @Nullable Long deadline)
      throws InterruptedException {
    gate.acquire(KEY, Lane.LIVE, 1, maxWait, deadline, () -> false, waits::add);
  }

  @Test
  void aRequestWithoutTokenWaitsForTheRefillAndHearsTheExpectedWait() throws Exception {
    StepClock clock = StepClock.skipping();
    BudgetGate gate = gate(clock, BudgetLimit.of(2, Duration.ofSeconds(10)));
    acquire(gate, LONG, null);
    acquire(gate, LONG, null);
    assertThat(waits).isEmpty();
    assertThat(clock.elapsed()).isZero();
    acquire(gate, LONG, null);
    assertThat(waits).containsExactly(Duration.ofSeconds(5));
    assertThat(clock.elapsed()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void maxWaitEndsTheWaitWithoutTakingAToken() throws Exception {
    StepClock clock = StepClock.skipping();
    BudgetGate gate = gate(clock, BudgetLimit.of(1, Duration.ofMinutes(1)));
    acquire(gate, LONG, null);
    assertThatThrownBy(() -> acquire(gate, Duration.ofSeconds(10), null))
        .isInstanceOfSatisfying(
            BudgetTimeoutException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(BudgetTimeoutException.Reason.MAX_WAIT);
              assertThat(e.waited()).isEqualTo(Duration.ofSeconds(10));
              assertThat(e.budget()).isEqualTo("erp");
              assertThat(e.key()).isEqualTo(KEY);
              assertThat(e.retryable()).isTrue();
            })
        .hasMessage(
            "poller orders: budget erp: no token within maxWait 10 s (waited 10 s); the request was"
                + " not sent and the cycle is deferred");
    assertThat(waits).containsExactly(Duration.ofMinutes(1));
    assertThat(clock.elapsed()).isEqualTo(Duration.ofSeconds(10));
    // The token of minute 1 is still there for the next request.
    clock.advance(Duration.ofSeconds(50));
    acquire(gate, Duration.ZERO, null);
    assertThat(clock.elapsed()).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void aTokenDueExactlyAtMaxWaitIsGranted() throws Exception {
    StepClock clock = StepClock.skipping();
    BudgetGate gate = gate(clock, BudgetLimit.of(1, Duration.ofSeconds(10)));
    acquire(gate, LONG, null);
    acquire(gate, Duration.ofSeconds(10), null);
    assertThat(clock.elapsed()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void maxWaitZeroNeverWaits() throws Exception {
    StepClock clock = StepClock.skipping();
    BudgetGate gate = gate(clock, BudgetLimit.of(1, Duration.ofMinutes(1)));
    acquire(gate, Duration.ZERO, null);
    assertThatThrownBy(() -> acquire(gate, Duration.ZERO, null))
        .isInstanceOfSatisfying(BudgetTimeoutException.class, e -> assertThat(e.waited()).isZero());
    assertThat(waits).containsExactly(Duration.ofMinutes(1));
    assertThat(clock.elapsed()).isZero();
  }

  @Test
  void theTickDeadlineCutsTheWait() throws Exception {
    StepClock clock = StepClock.skipping();
    BudgetGate gate = gate(clock, BudgetLimit.of(1, Duration.ofMinutes(1)));
    acquire(gate, LONG, null);
    long deadline = clock.nanoTime() + Duration.ofMillis(3_500).toNanos();
    assertThatThrownBy(() -> acquire(gate, LONG, deadline))
        .isInstanceOfSatisfying(
            BudgetTimeoutException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(BudgetTimeoutException.Reason.TICK_DEADLINE);
              assertThat(e.waited()).isEqualTo(Duration.ofMillis(3_500));
            })
        .hasMessage(
            "poller orders: budget erp: the tick deadline ended the wait for a token (waited 3.5 s,"
                + " maxWait 10 min); the request was not sent and the cycle is deferred");
    assertThat(clock.elapsed()).isEqualTo(Duration.ofMillis(3_500));
  }

  @Test
  void aStoppedCycleStopsWaitingWithinOneCheck() throws Exception {
    StepClock clock = StepClock.skipping();
    BudgetGate gate = gate(clock, BudgetLimit.of(1, Duration.ofMinutes(1)));
    acquire(gate, LONG, null);
    assertThatThrownBy(
            () ->
                gate.acquire(
                    KEY,
                    Lane.LIVE,
                    1,
                    LONG,
                    null,
                    () -> clock.elapsed().compareTo(Duration.ofMillis(2_500)) >= 0,
                    waits::add))
        .isInstanceOfSatisfying(
            BudgetTimeoutException.class,
            e -> assertThat(e.reason()).isEqualTo(BudgetTimeoutException.Reason.STOPPED));
    // Checked every BudgetGate.CHECK_EVERY (1 s): seen at 3 s.
    assertThat(clock.elapsed()).isEqualTo(Duration.ofSeconds(3));
  }

  /** A thread that asks {@code times} tokens, records each, and signals each wait. */
  private void worker(
      BudgetGate gate,
      String name,
      Lane lane,
      int weight,
      int times,
      List<String> granted,
      Semaphore waiting,
      AtomicReference<Throwable> failure) {
    PollerKey key = PollerKey.of(name);
    Thread t =
        new Thread(
            () -> {
              try {
                for (int i = 0; i < times; i++) {
                  gate.acquire(key, lane, weight, LONG, null, () -> false, d -> waiting.release());
                  granted.add(name);
                }
              } catch (Throwable e) {
                failure.set(e);
              } finally {
                waiting.release(); // lets the test see a worker that is done
              }
            },
            "budget-" + name);
    threads.add(t);
    t.start();
  }

  private static void await(Semaphore s) throws InterruptedException {
    assertThat(s.tryAcquire(10, TimeUnit.SECONDS)).as("a worker waits within 10 s").isTrue();
  }

  @Test
  void waitingThreadsGetTokensRoundRobinWithLanePriorityFirst() throws Exception {
    StepClock clock = StepClock.stepping();
    BudgetGate gate = gate(clock, BudgetLimit.of(1, Duration.ofSeconds(2)));
    gate.acquire(PollerKey.of("first"), Lane.LIVE, 1, LONG, null, () -> false, d -> {});
    List<String> granted = new CopyOnWriteArrayList<>();
    Semaphore waiting = new Semaphore(0);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    // Lined up one by one: a reconcile request first, then a, b and c of the live lane; each
    // asks again as soon as it got a token.
    worker(gate, "r", Lane.RECONCILE, 1, 1, granted, waiting, failure);
    await(waiting);
    assertThat(clock.awaitSleeper()).isTrue();
    worker(gate, "a", Lane.LIVE, 1, 2, granted, waiting, failure);
    await(waiting);
    worker(gate, "b", Lane.LIVE, 2, 4, granted, waiting, failure);
    await(waiting);
    worker(gate, "c", Lane.LIVE, 1, 2, granted, waiting, failure);
    await(waiting);
    for (int token = 1; token <= 9; token++) {
      // The sleeper computes its wake-up from the clock, then sleeps: moving the clock in between
      // would push its wake-up one step later. So move it only once a thread sleeps.
      assertThat(clock.awaitSleeper()).isTrue();
      clock.advance(Duration.ofSeconds(2)); // one token
      await(waiting); // the granted worker waits again, or is done
      assertThat(granted).hasSize(token);
    }
    assertThat(failure.get()).isNull();
    // Round 0: a, b, c, then b's second turn (b has weight 2; its second request came after c's
    // first). Round 1: a, c, b, b. Reconcile gets the token the live lane leaves.
    assertThat(String.join("", granted)).isEqualTo("abcb" + "acbb" + "r");
  }
}
