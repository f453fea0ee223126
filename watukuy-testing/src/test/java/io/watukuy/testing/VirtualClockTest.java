package io.watukuy.testing;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.Cancellable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class VirtualClockTest {

  private static final Instant START = Instant.parse("2024-01-01T00:00:00Z");
  // Bounds real waits on another thread; never reached when the clock behaves.
  private static final Duration WAIT = Duration.ofSeconds(5);

  private final VirtualClock clock = VirtualClock.at(START);

  @Test
  void newClockStartsAtTheDefaultInstant() {
    assertThat(new VirtualClock().now()).isEqualTo(VirtualClock.DEFAULT_START).isEqualTo(START);
    assertThat(VirtualClock.at("2030-06-01T12:00:00Z").now())
        .isEqualTo(Instant.parse("2030-06-01T12:00:00Z"));
    assertThat(new VirtualClock().timeSkipping()).isTrue();
  }

  @Test
  void advanceRunsTimersInDueOrderWithNowAtEachDueTime() {
    List<String> ran = new ArrayList<>();
    clock.schedule(Duration.ofSeconds(3), () -> ran.add("c@" + clock.now()));
    clock.schedule(Duration.ofSeconds(1), () -> ran.add("a@" + clock.now()));
    clock.schedule(Duration.ofSeconds(2), () -> ran.add("b1@" + clock.now()));
    clock.schedule(Duration.ofSeconds(2), () -> ran.add("b2@" + clock.now()));

    clock.advance(Duration.ofSeconds(5));

    assertThat(ran)
        .containsExactly(
            "a@2024-01-01T00:00:01Z",
            "b1@2024-01-01T00:00:02Z",
            "b2@2024-01-01T00:00:02Z",
            "c@2024-01-01T00:00:03Z");
    assertThat(clock.now()).isEqualTo(START.plusSeconds(5));
    assertThat(clock.pendingTimers()).isZero();
  }

  @Test
  void timersDueAfterTheWindowStayPending() {
    List<String> ran = new ArrayList<>();
    clock.schedule(Duration.ofSeconds(10), () -> ran.add("late"));

    clock.advance(Duration.ofSeconds(9));

    assertThat(ran).isEmpty();
    assertThat(clock.pendingTimers()).isEqualTo(1);

    clock.advanceTo(START.plusSeconds(10));

    assertThat(ran).containsExactly("late");
    assertThat(clock.pendingTimers()).isZero();
  }

  @Test
  void timersScheduledByATimerRunIfDueWithinTheWindow() {
    List<String> ran = new ArrayList<>();
    clock.schedule(
        Duration.ofSeconds(1),
        () -> {
          ran.add("first@" + clock.now());
          clock.schedule(Duration.ofSeconds(2), () -> ran.add("inside@" + clock.now()));
          clock.schedule(Duration.ofSeconds(10), () -> ran.add("outside@" + clock.now()));
        });

    clock.advance(Duration.ofSeconds(5));

    assertThat(ran).containsExactly("first@2024-01-01T00:00:01Z", "inside@2024-01-01T00:00:03Z");
    assertThat(clock.pendingTimers()).isEqualTo(1);
  }

  @Test
  void cancelledTimerNeitherRunsNorCountsAsPending() {
    List<String> ran = new ArrayList<>();
    Cancellable cancelled = clock.schedule(Duration.ofSeconds(1), () -> ran.add("cancelled"));
    clock.schedule(Duration.ofSeconds(2), () -> ran.add("kept"));

    cancelled.cancel();

    assertThat(clock.pendingTimers()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(3));
    assertThat(ran).containsExactly("kept");
    cancelled.cancel(); // a second cancel does nothing
    assertThat(clock.pendingTimers()).isZero();
  }

  @Test
  void runDueRunsTimersDueNowWithoutMovingTime() {
    List<String> ran = new ArrayList<>();
    clock.schedule(Duration.ZERO, () -> ran.add("now"));
    clock.schedule(Duration.ofSeconds(-5), () -> ran.add("overdue"));
    clock.schedule(Duration.ofNanos(1), () -> ran.add("later"));

    assertThat(ran).isEmpty();
    clock.runDue();

    assertThat(ran).containsExactly("now", "overdue");
    assertThat(clock.now()).isEqualTo(START);
    assertThat(clock.pendingTimers()).isEqualTo(1);
  }

  @Test
  void nanoTimeTracksAdvance() {
    assertThat(clock.nanoTime()).isZero();

    clock.advance(Duration.ofMillis(1_500));
    clock.advance(Duration.ofNanos(7));

    assertThat(clock.nanoTime()).isEqualTo(1_500_000_007L);
    assertThat(clock.now()).isEqualTo(START.plusNanos(clock.nanoTime()));
  }

  @Test
  void advancingByANegativeDurationIsRejected() {
    clock.advance(Duration.ofSeconds(1));

    assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be negative");
    assertThatThrownBy(() -> clock.advanceTo(START))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot move the clock back");
    assertThat(clock.now()).isEqualTo(START.plusSeconds(1));
  }

  @Test
  void failingTimerPropagatesAndLeavesLaterTimersScheduled() {
    List<String> ran = new ArrayList<>();
    clock.schedule(
        Duration.ofSeconds(1),
        () -> {
          throw new IllegalStateException("boom");
        });
    clock.schedule(Duration.ofSeconds(2), () -> ran.add("later"));

    assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(5)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("boom");

    assertThat(clock.now()).isEqualTo(START.plusSeconds(1));
    assertThat(clock.pendingTimers()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(4));
    assertThat(ran).containsExactly("later");
  }

  @Test
  void sleepOnALoneThreadSkipsExactlyTheDurationAndRunsTimersOnTheWay() throws Exception {
    List<String> ran = new ArrayList<>();
    clock.schedule(
        Duration.ofSeconds(2), () -> ran.add(Thread.currentThread().getName() + "@" + clock.now()));

    clock.sleep(Duration.ofSeconds(30));

    assertThat(clock.now()).isEqualTo(START.plusSeconds(30));
    assertThat(ran).containsExactly(Thread.currentThread().getName() + "@2024-01-01T00:00:02Z");
    assertThat(clock.pendingTimers()).isZero();
  }

  @Test
  void zeroOrNegativeSleepReturnsAtOnceWithoutMovingTime() throws Exception {
    clock.withoutTimeSkipping();

    clock.sleep(Duration.ZERO);
    clock.sleep(Duration.ofSeconds(-1));

    assertThat(clock.now()).isEqualTo(START);
  }

  @Test
  void sleepOfAnInterruptedThreadThrowsAndClearsTheFlag() {
    Thread.currentThread().interrupt();

    assertThatThrownBy(() -> clock.sleep(Duration.ofSeconds(1)))
        .isInstanceOf(InterruptedException.class);

    assertThat(Thread.interrupted()).isFalse();
    assertThat(clock.now()).isEqualTo(START);
    assertThat(clock.pendingTimers()).isZero();
  }

  @Test
  void pendingTimersCountsSleepingThreads() throws Exception {
    clock.withoutTimeSkipping();
    clock.schedule(Duration.ofMinutes(5), () -> {});
    Worker sleeper = inThread(() -> clock.sleep(Duration.ofSeconds(10)));

    assertThat(clock.awaitSleepers(1, WAIT)).isTrue();
    assertThat(clock.pendingTimers()).isEqualTo(2);

    clock.advance(Duration.ofSeconds(10));
    sleeper.done().get(WAIT.toSeconds(), SECONDS);

    assertThat(clock.pendingTimers()).isEqualTo(1);
  }

  @Test
  void sleepWithoutTimeSkippingWakesWhenAnotherThreadAdvancesPastTheWakeTime() throws Exception {
    clock.withoutTimeSkipping();
    AtomicReference<Instant> wokeAt = new AtomicReference<>();
    Worker sleeper =
        inThread(
            () -> {
              clock.sleep(Duration.ofSeconds(10));
              wokeAt.set(clock.now());
            });
    assertThat(clock.awaitSleepers(1, WAIT)).isTrue();

    clock.advance(Duration.ofSeconds(6));

    // The wake-up instant is still 4 s away, so the sleeper cannot have left sleep().
    assertThat(clock.pendingTimers()).isEqualTo(1);
    assertThat(sleeper.done()).isNotDone();

    clock.advance(Duration.ofSeconds(6));
    sleeper.done().get(WAIT.toSeconds(), SECONDS);

    assertThat(wokeAt.get()).isEqualTo(START.plusSeconds(12));
    assertThat(clock.pendingTimers()).isZero();
  }

  @Test
  void interruptDuringSleepWithoutTimeSkippingThrowsInterruptedException() throws Exception {
    clock.withoutTimeSkipping();
    Worker sleeper = inThread(() -> clock.sleep(Duration.ofSeconds(10)));
    assertThat(clock.awaitSleepers(1, WAIT)).isTrue();

    sleeper.thread().interrupt();

    assertThatThrownBy(() -> sleeper.done().get(WAIT.toSeconds(), SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(InterruptedException.class);
    assertThat(clock.now()).isEqualTo(START);
    assertThat(clock.pendingTimers()).isZero();
  }

  @Test
  void turningTimeSkippingOnLetsAWaitingSleeperMoveTheClock() throws Exception {
    clock.withoutTimeSkipping();
    Worker sleeper = inThread(() -> clock.sleep(Duration.ofSeconds(10)));
    assertThat(clock.awaitSleepers(1, WAIT)).isTrue();

    clock.setTimeSkipping(true);
    sleeper.done().get(WAIT.toSeconds(), SECONDS);

    assertThat(clock.now()).isEqualTo(START.plusSeconds(10));
  }

  @Test
  void sleepWaitsForAnotherThreadsAdvanceInsteadOfSkipping() throws Exception {
    CountDownLatch inTask = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    clock.schedule(Duration.ofSeconds(1), () -> holdUntil(inTask, release));
    Worker advancer = inThread(() -> clock.advance(Duration.ofSeconds(10)));
    assertThat(inTask.await(WAIT.toSeconds(), SECONDS)).isTrue();

    AtomicReference<Instant> wokeAt = new AtomicReference<>();
    Worker sleeper =
        inThread(
            () -> {
              clock.sleep(Duration.ofSeconds(3));
              wokeAt.set(clock.now());
            });
    assertThat(clock.awaitSleepers(1, WAIT)).isTrue();

    // The advancing thread owns the clock, so the sleeper has not jumped ahead on its own.
    assertThat(clock.now()).isEqualTo(START.plusSeconds(1));
    assertThat(sleeper.done()).isNotDone();

    release.countDown();
    advancer.done().get(WAIT.toSeconds(), SECONDS);
    sleeper.done().get(WAIT.toSeconds(), SECONDS);

    assertThat(clock.now()).isEqualTo(START.plusSeconds(10));
    assertThat(wokeAt.get()).isAfterOrEqualTo(START.plusSeconds(4));
  }

  @Test
  void sleeperSkipsTheRestItselfWhenAnotherAdvanceStopsShort() throws Exception {
    CountDownLatch inTask = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    clock.schedule(Duration.ofSeconds(1), () -> holdUntil(inTask, release));
    Worker advancer = inThread(() -> clock.advance(Duration.ofSeconds(2)));
    assertThat(inTask.await(WAIT.toSeconds(), SECONDS)).isTrue();
    Worker sleeper = inThread(() -> clock.sleep(Duration.ofSeconds(10)));
    assertThat(clock.awaitSleepers(1, WAIT)).isTrue();

    release.countDown();
    advancer.done().get(WAIT.toSeconds(), SECONDS);
    sleeper.done().get(WAIT.toSeconds(), SECONDS);

    // Slept from 1 s to 11 s; the other advance alone would have stopped at 2 s.
    assertThat(clock.now()).isEqualTo(START.plusSeconds(11));
    assertThat(clock.pendingTimers()).isZero();
  }

  @Test
  void concurrentAdvancesAddUp() throws Exception {
    List<Worker> workers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      workers.add(
          inThread(
              () -> {
                for (int step = 0; step < 250; step++) {
                  clock.advance(Duration.ofSeconds(1));
                }
              }));
    }
    for (Worker worker : workers) {
      worker.done().get(WAIT.toSeconds(), SECONDS);
    }

    assertThat(clock.now()).isEqualTo(START.plusSeconds(1_000));
  }

  @Test
  void sleepUntilADeadlineTheClockAlreadyPassedReturnsAtOnce() throws Exception {
    // A waiter read the clock and fixed its wake-up; another thread moved the clock past it
    // before the waiter slept. Sleeping "for the difference it read" would wake 2 s too late,
    // at a moment nobody moves the clock to; sleeping until the deadline returns at once.
    clock.withoutTimeSkipping();
    long deadline = clock.nanoTime() + Duration.ofSeconds(1).toNanos();
    clock.advance(Duration.ofSeconds(2));

    clock.sleepUntil(deadline);

    assertThat(clock.now()).isEqualTo(START.plusSeconds(2));
    assertThat(clock.pendingTimers()).isZero();
  }

  @Test
  void sleepUntilWakesWhenAnotherThreadAdvancesToTheDeadline() throws Exception {
    clock.withoutTimeSkipping();
    long deadline = clock.nanoTime() + Duration.ofSeconds(5).toNanos();
    AtomicReference<Instant> wokeAt = new AtomicReference<>();
    Worker sleeper =
        inThread(
            () -> {
              clock.sleepUntil(deadline);
              wokeAt.set(clock.now());
            });
    assertThat(clock.awaitSleepers(1, WAIT)).isTrue();

    clock.advance(Duration.ofSeconds(4));
    assertThat(sleeper.done()).isNotDone();
    clock.advance(Duration.ofSeconds(1));
    sleeper.done().get(WAIT.toSeconds(), SECONDS);

    assertThat(wokeAt.get()).isEqualTo(START.plusSeconds(5));
  }

  @Test
  void awaitSleepersGivesUpAfterItsTimeout() throws Exception {
    assertThat(clock.awaitSleepers(1, Duration.ofMillis(1))).isFalse();
  }

  private static void holdUntil(CountDownLatch entered, CountDownLatch release) {
    entered.countDown();
    try {
      if (!release.await(WAIT.toSeconds(), SECONDS)) {
        throw new IllegalStateException("test never released the timer task");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private interface Body {
    void run() throws Exception;
  }

  private record Worker(Thread thread, CompletableFuture<Void> done) {}

  private static Worker inThread(Body body) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                body.run();
                done.complete(null);
              } catch (Throwable e) {
                done.completeExceptionally(e);
              }
            },
            "virtual-clock-test");
    thread.setDaemon(true);
    thread.start();
    return new Worker(thread, done);
  }
}
