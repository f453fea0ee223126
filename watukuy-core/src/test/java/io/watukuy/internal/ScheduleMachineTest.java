package io.watukuy.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Backoff;
import io.watukuy.CircuitPolicy;
import io.watukuy.Cursors;
import io.watukuy.DeliveryPolicy;
import io.watukuy.FetchException;
import io.watukuy.HttpResult;
import io.watukuy.HttpStatusException;
import io.watukuy.KeyReport.Outcome;
import io.watukuy.Page;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.RateLimitInfo;
import io.watukuy.Schedule;
import io.watukuy.ScheduleState;
import io.watukuy.ScheduleState.Backfill;
import io.watukuy.ScheduleState.Circuit;
import io.watukuy.ScheduleState.DueReason;
import io.watukuy.ScheduleState.LastError;
import io.watukuy.ScheduleState.PauseReason;
import io.watukuy.ScheduleState.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Every transition and formula of the poller state machine (docs/architecture.md, "Poller state
 * machine"), with fixed instants and random values chosen so that each expected value is computed
 * by hand in the comments.
 */
class ScheduleMachineTest {

  private static final Instant NOW = Instant.parse("2026-10-21T07:26:30Z");
  private static final Instant OPENED = NOW.minus(Duration.ofMinutes(5));

  // min 10 s, max 80 s, no jitter unless a test sets it, default backoff (1 s, ×2, 10 min).
  private static final Schedule SCHEDULE =
      new Schedule(Duration.ofSeconds(10), Duration.ofSeconds(80), 0.0, true, Backoff.DEFAULT_POLL);
  // Opens after 3 failures, probes every 5 min.
  private static final CircuitPolicy CIRCUIT = new CircuitPolicy(3, Duration.ofMinutes(5));
  private static final Poller<JsonNode> POLLER = poller(SCHEDULE, CIRCUIT);

  /** Fails the test if a transition draws a random number when it must not. */
  private static final RandomGenerator NO_RANDOM =
      () -> {
        throw new AssertionError("no random draw expected");
      };

  /** nextDouble() is always d; nextLong(bound) is floor(d × bound). */
  private record FixedRandom(double d) implements RandomGenerator {
    @Override
    public long nextLong() {
      throw new UnsupportedOperationException("only nextDouble() and nextLong(bound)");
    }

    @Override
    public double nextDouble() {
      return d;
    }

    @Override
    public long nextLong(long bound) {
      return (long) (d * bound);
    }
  }

  // ---- initial, AIMD

  @Test
  void newKeyIsIdleDueNowAtScheduleMin() {
    ScheduleState s = ScheduleMachine.initial(POLLER);

    assertThat(s.state()).isEqualTo(Status.IDLE);
    assertThat(s.intervalMs()).isEqualTo(10_000);
    assertThat(ScheduleMachine.due(s, NOW, false))
        .isEqualTo(new ScheduleMachine.Due(true, null, false));
  }

  @Test
  void cycleWithEventsHalvesTheIntervalFlooredAtMin() {
    // 40 s / 2 = 20 s
    ScheduleState s = ScheduleMachine.afterCycle(POLLER, idle(40_000), events(3), NOW, NO_RANDOM);
    assertThat(s.intervalMs()).isEqualTo(20_000);
    assertThat(s.nextDueAt()).isEqualTo(NOW.plusSeconds(20));
    assertThat(s.dueReason()).isEqualTo(DueReason.SCHEDULE);
    assertThat(s.state()).isEqualTo(Status.IDLE);

    // 15 s / 2 = 7.5 s, floored at min 10 s
    assertThat(
            ScheduleMachine.afterCycle(POLLER, idle(15_000), events(1), NOW, NO_RANDOM)
                .intervalMs())
        .isEqualTo(10_000);
  }

  @Test
  void idleCycleMultipliesTheIntervalByOneAndAHalfCappedAtMax() {
    // 20 s × 1.5 = 30 s
    ScheduleState s = ScheduleMachine.afterCycle(POLLER, idle(20_000), events(0), NOW, NO_RANDOM);
    assertThat(s.intervalMs()).isEqualTo(30_000);
    assertThat(s.nextDueAt()).isEqualTo(NOW.plusSeconds(30));

    // 60 s × 1.5 = 90 s, capped at max 80 s
    assertThat(
            ScheduleMachine.afterCycle(POLLER, idle(60_000), events(0), NOW, NO_RANDOM)
                .intervalMs())
        .isEqualTo(80_000);
    // 10 001 ms × 1.5 = 15 001.5 ms, truncated
    assertThat(ScheduleMachine.aimd(SCHEDULE, 10_001, 0)).isEqualTo(15_001);
  }

  @Test
  void notModifiedCycleCountsAsIdle() {
    CycleOutcome notModified = new CycleOutcome(1, 0, 0, false, true, 5, false, null, null);

    ScheduleState s = ScheduleMachine.afterCycle(POLLER, idle(20_000), notModified, NOW, NO_RANDOM);

    // 20 s × 1.5 = 30 s
    assertThat(s.intervalMs()).isEqualTo(30_000);
    assertThat(s.lastPoll().notModified()).isTrue();
    assertThat(s.lastPoll().truncated()).isFalse();
  }

  @Test
  void nonAdaptiveSchedulePinsTheIntervalAtMin() {
    Poller<JsonNode> pinned = poller(SCHEDULE.withAdaptive(false), CIRCUIT);

    assertThat(
            ScheduleMachine.afterCycle(pinned, idle(40_000), events(5), NOW, NO_RANDOM)
                .intervalMs())
        .isEqualTo(10_000);
    ScheduleState afterIdle =
        ScheduleMachine.afterCycle(pinned, idle(10_000), events(0), NOW, NO_RANDOM);
    assertThat(afterIdle.intervalMs()).isEqualTo(10_000);
    assertThat(afterIdle.nextDueAt()).isEqualTo(NOW.plusSeconds(10));
  }

  // ---- jitter

  @Test
  void jitteredWaitIsIntervalTimesOnePlusJitterTimesU() {
    Poller<JsonNode> jittered = poller(SCHEDULE.withJitter(0.1), CIRCUIT);

    // nextDouble 0.75 -> u = 2 × 0.75 - 1 = 0.5; 30 s × (1 + 0.1 × 0.5) = 31.5 s
    ScheduleState up =
        ScheduleMachine.afterCycle(jittered, idle(20_000), events(0), NOW, new FixedRandom(0.75));
    assertThat(up.nextDueAt()).isEqualTo(NOW.plusMillis(31_500));
    assertThat(up.intervalMs()).as("jitter never changes the stored interval").isEqualTo(30_000);

    // nextDouble 0 -> u = -1; 30 s × 0.9 = 27 s
    ScheduleState down =
        ScheduleMachine.afterCycle(jittered, idle(20_000), events(0), NOW, new FixedRandom(0));
    assertThat(down.nextDueAt()).isEqualTo(NOW.plusSeconds(27));

    // nextDouble 0.5 -> u = 0: no change
    assertThat(ScheduleMachine.jitter(30_000, 0.1, new FixedRandom(0.5))).isEqualTo(30_000);
  }

  @Test
  void jitterStaysWithinTheConfiguredFraction() {
    Poller<JsonNode> jittered = poller(SCHEDULE.withJitter(0.1), CIRCUIT);
    for (long seed = 0; seed < 500; seed++) {
      ScheduleState s =
          ScheduleMachine.afterCycle(
              jittered, idle(20_000), events(0), NOW, new SplittableRandom(seed));
      // 30 s ± 10 % = [27 s, 33 s]
      assertThat(Duration.between(NOW, s.nextDueAt()).toMillis())
          .as("seed %d", seed)
          .isBetween(27_000L, 33_000L);
    }
  }

  // ---- pacing

  @Test
  void pacingFormulaSpreadsTheRemainingRequestsUntilTheReset() {
    // 100 s / 4 remaining = 25 s
    assertThat(ScheduleMachine.pacing(new RateLimitInfo(4, NOW.plusSeconds(100), null, null), NOW))
        .isEqualTo(25_000);
    // 0 remaining counts as 1: 100 s / 1
    assertThat(ScheduleMachine.pacing(new RateLimitInfo(0, NOW.plusSeconds(100), null, null), NOW))
        .isEqualTo(100_000);
    // a reset not after now paces nothing
    assertThat(ScheduleMachine.pacing(new RateLimitInfo(4, NOW, null, null), NOW)).isZero();
    assertThat(ScheduleMachine.pacing(null, NOW)).isZero();
  }

  @Test
  void pacingFromASuccessfulResponseStretchesTheWaitBeforeAny429() {
    HttpResult ok = response(200, "RateLimit-Remaining", "4", "RateLimit-Reset", "100");

    ScheduleState s =
        ScheduleMachine.afterCycle(POLLER, idle(10_000), success(0, ok), NOW, NO_RANDOM);

    // interval 10 s × 1.5 = 15 s; pacing 100 s / 4 = 25 s; wait = max(15 s, 25 s) = 25 s
    assertThat(s.intervalMs()).isEqualTo(15_000);
    assertThat(s.nextDueAt()).isEqualTo(NOW.plusSeconds(25));
    assertThat(s.state()).isEqualTo(Status.IDLE);
  }

  @Test
  void pacingWinsOnlyWhenLongerThanTheInterval() {
    HttpResult ok = response(200, "RateLimit-Remaining", "20", "RateLimit-Reset", "100");

    ScheduleState s =
        ScheduleMachine.afterCycle(POLLER, idle(20_000), success(0, ok), NOW, NO_RANDOM);

    // pacing 100 s / 20 = 5 s < interval 20 s × 1.5 = 30 s
    assertThat(s.nextDueAt()).isEqualTo(NOW.plusSeconds(30));
  }

  @Test
  void pacingWaitIsJitteredToo() {
    Poller<JsonNode> jittered = poller(SCHEDULE.withJitter(0.1), CIRCUIT);
    HttpResult ok = response(200, "RateLimit-Remaining", "4", "RateLimit-Reset", "100");

    ScheduleState s =
        ScheduleMachine.afterCycle(jittered, idle(10_000), success(0, ok), NOW, new FixedRandom(1));

    // u = 2 × 1 - 1 = 1; 25 s × 1.1 = 27.5 s
    assertThat(s.nextDueAt()).isEqualTo(NOW.plusMillis(27_500));
  }

  // ---- catch-up

  @Test
  void truncatedCycleIsDueAgainAtOnceAsCatchUp() {
    CycleOutcome truncated = new CycleOutcome(50, 5000, 120, true, false, 900, false, null, null);

    ScheduleState s = ScheduleMachine.afterCycle(POLLER, idle(40_000), truncated, NOW, NO_RANDOM);

    assertThat(s.nextDueAt()).isEqualTo(NOW);
    assertThat(s.dueReason()).isEqualTo(DueReason.CATCH_UP);
    assertThat(s.state()).isEqualTo(Status.IDLE);
    assertThat(s.intervalMs()).as("AIMD still runs: 40 s / 2").isEqualTo(20_000);
    assertThat(s.lastPoll().truncated()).isTrue();
    assertThat(ScheduleMachine.due(s, NOW, false).due()).isTrue();
  }

  @Test
  void catchUpStillHonoursPacing() {
    HttpResult last = response(200, "RateLimit-Remaining", "4", "RateLimit-Reset", "100");
    CycleOutcome truncated = new CycleOutcome(50, 5000, 120, true, false, 900, false, null, last);

    ScheduleState s = ScheduleMachine.afterCycle(POLLER, idle(40_000), truncated, NOW, NO_RANDOM);

    // the pacing wait alone: 100 s / 4 = 25 s, not the 20 s interval
    assertThat(s.nextDueAt()).isEqualTo(NOW.plusSeconds(25));
    assertThat(s.dueReason()).isEqualTo(DueReason.CATCH_UP);
  }

  // ---- throttle

  @Test
  void retryAfterSecondsThrottlesExactlyWithoutJitter() {
    Poller<JsonNode> jittered = poller(SCHEDULE.withJitter(0.1), CIRCUIT);

    ScheduleState s =
        ScheduleMachine.afterCycle(
            jittered, idle(10_000), failure(status(429, "Retry-After", "120")), NOW, NO_RANDOM);

    assertThat(s.state()).isEqualTo(Status.THROTTLED);
    assertThat(s.throttledUntil()).isEqualTo(NOW.plusSeconds(120));
    assertThat(s.nextDueAt()).isEqualTo(NOW.plusSeconds(120));
    assertThat(s.dueReason()).isEqualTo(DueReason.THROTTLE);
    assertThat(s.lastError().name()).isEqualTo("HttpStatusException");
    assertThat(ScheduleMachine.due(s, NOW.plusSeconds(119), false).skipped())
        .isEqualTo(Outcome.SKIPPED_THROTTLED);
    assertThat(ScheduleMachine.due(s, NOW.plusSeconds(120), false).due()).isTrue();
  }

  @Test
  void aThrottleTheHelperThrewIsReadFromTheResponseItObserved() {
    // The helper hands the 429 to the cycle (lastResponse) before throwing it: Retry-After is the
    // response's own value, counted from when it was received, not parsed again at the cycle end.
    Instant received = NOW.minusSeconds(10);
    HttpResult observed =
        HttpResult.of(
            429,
            "GET",
            "https://api.test/orders",
            Map.of("retry-after", List.of("60")),
            new byte[0],
            received);
    CycleOutcome o =
        new CycleOutcome(
            1, 0, 0, false, false, 50, false, status(429, "Retry-After", "60"), observed);

    ScheduleState s = ScheduleMachine.afterCycle(POLLER, idle(10_000), o, NOW, NO_RANDOM);

    assertThat(s.state()).isEqualTo(Status.THROTTLED);
    assertThat(s.throttledUntil()).isEqualTo(received.plusSeconds(60));
  }

  @Test
  void aThrottleFetchCodeThrewItselfIsReadFromItsHeaders() {
    // The last response the helper saw is another one (a 200 of another URL): the exception's own
    // headers decide, read as a response received now.
    HttpResult other =
        HttpResult.of(
            200,
            "GET",
            "https://api.test/other",
            Map.of("retry-after", List.of("5")),
            new byte[0],
            NOW.minusSeconds(10));
    CycleOutcome o =
        new CycleOutcome(1, 0, 0, false, false, 50, false, status(429, "Retry-After", "60"), other);

    ScheduleState s = ScheduleMachine.afterCycle(POLLER, idle(10_000), o, NOW, NO_RANDOM);

    assertThat(s.throttledUntil()).isEqualTo(NOW.plusSeconds(60));
  }

  @Test
  void retryAfterHttpDateIsReadAgainstNow() {
    // 07:28:00 - 07:26:30 = 90 s
    ScheduleState s =
        ScheduleMachine.afterCycle(
            POLLER,
            idle(10_000),
            failure(status(429, "Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT")),
            NOW,
            NO_RANDOM);

    assertThat(s.throttledUntil()).isEqualTo(NOW.plusSeconds(90));
  }

  @Test
  void retryAfterDateInThePastMeansNow() {
    ScheduleState s =
        ScheduleMachine.afterCycle(
            POLLER,
            idle(10_000),
            failure(status(429, "Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")),
            NOW,
            NO_RANDOM);

    assertThat(s.state()).isEqualTo(Status.THROTTLED);
    assertThat(s.throttledUntil()).isEqualTo(NOW);
    assertThat(ScheduleMachine.due(s, NOW, false).due()).isTrue();
  }

  @Test
  void retryAfterBeyondADayIsClampedToADay() {
    // 172 800 s = 48 h, clamped to 24 h = 86 400 s
    ScheduleState s =
        ScheduleMachine.afterCycle(
            POLLER, idle(10_000), failure(status(429, "Retry-After", "172800")), NOW, NO_RANDOM);

    assertThat(s.throttledUntil()).isEqualTo(NOW.plusSeconds(86_400));
  }

  @Test
  void throttleBeyondScheduleMaxIsKeptExact() {
    // 600 s, far beyond max 80 s
    ScheduleState s =
        ScheduleMachine.afterCycle(
            POLLER, idle(10_000), failure(status(503, "Retry-After", "600")), NOW, NO_RANDOM);

    assertThat(s.state()).isEqualTo(Status.THROTTLED);
    assertThat(s.nextDueAt()).isEqualTo(NOW.plusSeconds(600));
  }

  @Test
  void throttleLeavesFailuresIntervalAndCircuitAlone() {
    ScheduleState backingOff = withFailures(idle(40_000), Status.BACKING_OFF, 2);

    ScheduleState s =
        ScheduleMachine.afterCycle(
            POLLER, backingOff, failure(status(429, "Retry-After", "30")), NOW, NO_RANDOM);

    assertThat(s.consecutiveFailures()).isEqualTo(2);
    assertThat(s.intervalMs()).isEqualTo(40_000);
    assertThat(s.circuit()).isNull();
    assertThat(s.lastPoll().truncated()).isTrue();
  }

  @Test
  void throttledProbeKeepsTheCircuitAndIsProbedAgainAfterTheWait() {
    Circuit circuit = new Circuit(OPENED, NOW);
    ScheduleState open = open(circuit, 3);

    ScheduleState s =
        ScheduleMachine.afterCycle(
            POLLER, open, failure(status(429, "Retry-After", "30")), NOW, NO_RANDOM);

    assertThat(s.state()).isEqualTo(Status.THROTTLED);
    assertThat(s.circuit()).isEqualTo(circuit);
    assertThat(s.consecutiveFailures()).isEqualTo(3);
    assertThat(ScheduleMachine.due(s, NOW.plusSeconds(29), false).skipped())
        .isEqualTo(Outcome.SKIPPED_THROTTLED);
    assertThat(ScheduleMachine.due(s, NOW.plusSeconds(30), false))
        .isEqualTo(new ScheduleMachine.Due(true, null, true));
  }

  @Test
  void throttleInsideAFetchExceptionIsStillAThrottle() {
    FetchException wrapped =
        new FetchException(
            "orders", "", 1, -1, "GET returned 429", status(429, "Retry-After", "45"));

    ScheduleState s =
        ScheduleMachine.afterCycle(POLLER, idle(10_000), failure(wrapped), NOW, NO_RANDOM);

    assertThat(s.state()).isEqualTo(Status.THROTTLED);
    assertThat(s.throttledUntil()).isEqualTo(NOW.plusSeconds(45));
    assertThat(s.lastError().name()).isEqualTo("FetchException");
  }

  @Test
  void throttleThatFetchCodeCaughtIsSeenInTheLastResponse() {
    HttpResult tooMany = response(429, "Retry-After", "30");

    CycleOutcome rethrown =
        new CycleOutcome(
            1, 0, 0, false, false, 5, false, new IllegalStateException("no page"), tooMany);
    ScheduleState s = ScheduleMachine.afterCycle(POLLER, idle(10_000), rethrown, NOW, NO_RANDOM);
    assertThat(s.state()).isEqualTo(Status.THROTTLED);
    assertThat(s.throttledUntil()).isEqualTo(NOW.plusSeconds(30));
    assertThat(s.consecutiveFailures()).isZero();

    CycleOutcome swallowed = new CycleOutcome(1, 0, 0, false, false, 5, false, null, tooMany);
    ScheduleState t = ScheduleMachine.afterCycle(POLLER, idle(10_000), swallowed, NOW, NO_RANDOM);
    assertThat(t.state()).isEqualTo(Status.THROTTLED);
    assertThat(t.throttledUntil()).isEqualTo(NOW.plusSeconds(30));
    assertThat(t.lastError()).isNull();
  }

  @Test
  void tooManyRequestsWithoutRetryAfterWaitsForTheRateLimitReset() {
    ScheduleState s =
        ScheduleMachine.afterCycle(
            POLLER,
            withFailures(idle(10_000), Status.BACKING_OFF, 1),
            failure(status(429, "RateLimit-Remaining", "0", "RateLimit-Reset", "45")),
            NOW,
            NO_RANDOM);

    assertThat(s.state()).isEqualTo(Status.THROTTLED);
    assertThat(s.throttledUntil()).isEqualTo(NOW.plusSeconds(45));
    assertThat(s.consecutiveFailures()).as("not a failure").isEqualTo(1);
  }

  @Test
  void tooManyRequestsWithoutRetryAfterOrResetWaitsTheNextBackoffDelay() {
    ScheduleState s =
        ScheduleMachine.afterCycle(
            POLLER,
            withFailures(idle(10_000), Status.BACKING_OFF, 2),
            failure(status(429)),
            NOW,
            new FixedRandom(0.5));

    // the first throttle in a row waits backoff.base = 1 s, without jitter
    assertThat(s.state()).isEqualTo(Status.THROTTLED);
    assertThat(s.throttledUntil()).isEqualTo(NOW.plusMillis(1000));
    assertThat(s.dueReason()).isEqualTo(DueReason.THROTTLE);
    assertThat(s.consecutiveFailures()).as("not incremented").isEqualTo(2);

    // each further 429 in a row waits backoff.factor (2) times longer: 2 s, then 4 s
    ScheduleState again =
        ScheduleMachine.afterCycle(
            POLLER, s, failure(status(429)), s.throttledUntil(), new FixedRandom(0.5));
    assertThat(again.throttledUntil()).isEqualTo(s.throttledUntil().plusMillis(2000));
    ScheduleState third =
        ScheduleMachine.afterCycle(
            POLLER, again, failure(status(429)), again.throttledUntil(), new FixedRandom(0.5));
    assertThat(third.throttledUntil()).isEqualTo(again.throttledUntil().plusMillis(4000));
  }

  @Test
  void unparseableRetryAfterOnA429IsIgnored() {
    for (String bad : List.of("-1", "1.5", "120s", "Wed, 31 Feb 2026 07:28:00 GMT")) {
      ScheduleState s =
          ScheduleMachine.afterCycle(
              POLLER,
              idle(10_000),
              failure(status(429, "Retry-After", bad)),
              NOW,
              new FixedRandom(0.5));

      // falls back to the first backoff step: backoff.base = 1000 ms, no jitter
      assertThat(s.throttledUntil()).as(bad).isEqualTo(NOW.plusMillis(1000));
      assertThat(s.state()).as(bad).isEqualTo(Status.THROTTLED);
    }
  }

  @Test
  void serviceUnavailableWithRetryAfterIsAThrottle() {
    ScheduleState s =
        ScheduleMachine.afterCycle(
            POLLER, idle(10_000), failure(status(503, "Retry-After", "30")), NOW, NO_RANDOM);

    assertThat(s.state()).isEqualTo(Status.THROTTLED);
    assertThat(s.throttledUntil()).isEqualTo(NOW.plusSeconds(30));
    assertThat(s.consecutiveFailures()).isZero();
  }

  @Test
  void serviceUnavailableWithoutUsableRetryAfterIsAFailure() {
    for (HttpStatusException e : List.of(status(503), status(503, "Retry-After", "1.5"))) {
      ScheduleState s =
          ScheduleMachine.afterCycle(POLLER, idle(10_000), failure(e), NOW, new FixedRandom(0.5));

      // failure 1: cap 1000 ms, floor(0.5 × 1001) = 500 ms
      assertThat(s.state()).isEqualTo(Status.BACKING_OFF);
      assertThat(s.consecutiveFailures()).isEqualTo(1);
      assertThat(s.nextDueAt()).isEqualTo(NOW.plusMillis(500));
      assertThat(s.dueReason()).isEqualTo(DueReason.BACKOFF);
      assertThat(s.throttledUntil()).isNull();
    }
  }

  // ---- backoff, circuit

  @Test
  void backoffHasFullJitterUpToBaseTimesFactorPowerFailuresMinusOne() {
    Poller<JsonNode> fiveToOpen = poller(SCHEDULE, CircuitPolicy.DEFAULT);
    long[] caps = {1000, 2000, 4000, 8000}; // 1 s × 2^(n-1), n = 1..4
    for (int n = 1; n <= 4; n++) {
      ScheduleState before =
          withFailures(idle(10_000), n == 1 ? Status.IDLE : Status.BACKING_OFF, n - 1);
      long cap = caps[n - 1];

      ScheduleState low =
          ScheduleMachine.afterCycle(
              fiveToOpen, before, failure(new IllegalStateException("x")), NOW, new FixedRandom(0));
      ScheduleState high =
          ScheduleMachine.afterCycle(
              fiveToOpen,
              before,
              failure(new IllegalStateException("x")),
              NOW,
              new FixedRandom(0.999_999_9));
      assertThat(low.nextDueAt()).as("failure %d, lowest", n).isEqualTo(NOW);
      // floor(0.9999999 × (cap + 1)) = cap
      assertThat(high.nextDueAt()).as("failure %d, highest", n).isEqualTo(NOW.plusMillis(cap));
      assertThat(high.consecutiveFailures()).isEqualTo(n);
      assertThat(high.state()).isEqualTo(Status.BACKING_OFF);
      for (long seed = 0; seed < 200; seed++) {
        ScheduleState s =
            ScheduleMachine.afterCycle(
                fiveToOpen,
                before,
                failure(new IllegalStateException("x")),
                NOW,
                new SplittableRandom(seed));
        assertThat(Duration.between(NOW, s.nextDueAt()).toMillis())
            .as("failure %d seed %d", n, seed)
            .isBetween(0L, cap);
      }
    }
  }

  @Test
  void circuitOpensWhenFailuresReachCircuitFailures() {
    ScheduleState two =
        ScheduleMachine.afterCycle(
            POLLER,
            withFailures(idle(10_000), Status.BACKING_OFF, 1),
            failure(new IllegalStateException("down")),
            NOW,
            new FixedRandom(0));
    assertThat(two.state()).as("2 < 3 failures").isEqualTo(Status.BACKING_OFF);

    ScheduleState s =
        ScheduleMachine.afterCycle(
            POLLER,
            withFailures(idle(10_000), Status.BACKING_OFF, 2),
            failure(new IllegalStateException("down")),
            NOW,
            NO_RANDOM);

    assertThat(s.state()).isEqualTo(Status.CIRCUIT_OPEN);
    assertThat(s.consecutiveFailures()).isEqualTo(3);
    // probeEvery 5 min
    assertThat(s.circuit()).isEqualTo(new Circuit(NOW, NOW.plusSeconds(300)));
    assertThat(s.nextDueAt()).isEqualTo(NOW.plusSeconds(300));
    assertThat(s.dueReason()).isEqualTo(DueReason.PROBE);
    assertThat(s.lastError()).isEqualTo(new LastError("IllegalStateException", "down", NOW));
    assertThat(ScheduleMachine.due(s, NOW.plusSeconds(299), false).skipped())
        .isEqualTo(Outcome.SKIPPED_CIRCUIT_OPEN);
    assertThat(ScheduleMachine.due(s, NOW.plusSeconds(300), false))
        .isEqualTo(new ScheduleMachine.Due(true, null, true));
  }

  @Test
  void revokedCredentialOpensTheCircuitAtTheFirstFailure() {
    // The signer's exception arrives wrapped, as the HTTP helper and fetch code pass it on.
    RuntimeException wrapped =
        new IllegalStateException(
            "fetch failed",
            new io.watukuy.CredentialRevokedException(
                "credential crm: token endpoint refused the refresh token: invalid_grant"));

    ScheduleState s =
        ScheduleMachine.afterCycle(POLLER, idle(10_000), failure(wrapped), NOW, NO_RANDOM);

    assertThat(s.state())
        .as("1 failure of 3, but no retry can help")
        .isEqualTo(Status.CIRCUIT_OPEN);
    assertThat(s.consecutiveFailures()).isEqualTo(1);
    assertThat(s.circuit()).isEqualTo(new Circuit(NOW, NOW.plusSeconds(300)));
    assertThat(s.lastError()).isEqualTo(new LastError("CredentialRevoked", "fetch failed", NOW));
  }

  @Test
  void probeEveryDefaultsToScheduleMax() {
    Poller<JsonNode> defaultProbe = poller(SCHEDULE, new CircuitPolicy(1, null));

    ScheduleState s =
        ScheduleMachine.afterCycle(
            defaultProbe, idle(10_000), failure(new IllegalStateException("x")), NOW, NO_RANDOM);

    // max 80 s
    assertThat(s.circuit()).isEqualTo(new Circuit(NOW, NOW.plusSeconds(80)));
  }

  @Test
  void successfulHalfOpenProbeClosesTheCircuitAndResetsFailures() {
    ScheduleState open = open(new Circuit(OPENED, NOW), 3);
    assertThat(ScheduleMachine.polling(open).state()).isEqualTo(Status.HALF_OPEN);

    ScheduleState s =
        ScheduleMachine.afterCycle(
            POLLER, ScheduleMachine.polling(open), events(0), NOW, NO_RANDOM);

    assertThat(s.state()).isEqualTo(Status.IDLE);
    assertThat(s.circuit()).isNull();
    assertThat(s.consecutiveFailures()).isZero();
    assertThat(s.lastError()).as("kept for inspection").isEqualTo(open.lastError());
    // interval 10 s × 1.5
    assertThat(s.nextDueAt()).isEqualTo(NOW.plusSeconds(15));
  }

  @Test
  void failedHalfOpenProbeReopensTheCircuitForProbeEvery() {
    ScheduleState open = open(new Circuit(OPENED, NOW), 3);

    ScheduleState s =
        ScheduleMachine.afterCycle(
            POLLER, open, failure(new IllegalStateException("still down")), NOW, NO_RANDOM);

    assertThat(s.state()).isEqualTo(Status.CIRCUIT_OPEN);
    assertThat(s.circuit()).isEqualTo(new Circuit(OPENED, NOW.plusSeconds(300)));
    assertThat(s.consecutiveFailures()).isEqualTo(4);
    assertThat(s.nextDueAt()).isEqualTo(NOW.plusSeconds(300));
  }

  @Test
  void triggerOnAnOpenCircuitForcesAProbe() {
    ScheduleState open = open(new Circuit(NOW, NOW.plusSeconds(300)), 3);
    assertThat(ScheduleMachine.due(open, NOW, false).skipped())
        .isEqualTo(Outcome.SKIPPED_CIRCUIT_OPEN);

    ScheduleState t = ScheduleMachine.trigger(open, NOW);

    assertThat(t.circuit()).isEqualTo(new Circuit(NOW, NOW));
    assertThat(t.nextDueAt()).isEqualTo(NOW);
    assertThat(t.dueReason()).isEqualTo(DueReason.TRIGGER);
    assertThat(t.state()).isEqualTo(Status.CIRCUIT_OPEN);
    assertThat(ScheduleMachine.due(t, NOW, false))
        .isEqualTo(new ScheduleMachine.Due(true, null, true));
    assertThat(ScheduleMachine.due(open, NOW, true))
        .isEqualTo(new ScheduleMachine.Due(true, null, true));
  }

  @Test
  void forcedRunMakesIdleAndBackingOffKeysDueButNotPausedOrThrottledOnes() {
    ScheduleState idleLater = idle(10_000).withNextDue(NOW.plusSeconds(30), DueReason.SCHEDULE);
    ScheduleState backingOff = withFailures(idleLater, Status.BACKING_OFF, 1);
    ScheduleState throttled = throttledUntil(NOW.plusSeconds(30));
    ScheduleState paused = ScheduleMachine.pause(idleLater, PauseReason.MANUAL);

    assertThat(ScheduleMachine.due(idleLater, NOW, false).skipped())
        .isEqualTo(Outcome.SKIPPED_NOT_DUE);
    assertThat(ScheduleMachine.due(backingOff, NOW, false).skipped())
        .isEqualTo(Outcome.SKIPPED_NOT_DUE);
    assertThat(ScheduleMachine.due(idleLater, NOW, true).due()).isTrue();
    assertThat(ScheduleMachine.due(backingOff, NOW, true).due()).isTrue();
    assertThat(ScheduleMachine.due(throttled, NOW, true).skipped())
        .isEqualTo(Outcome.SKIPPED_THROTTLED);
    assertThat(ScheduleMachine.due(paused, NOW, true).skipped()).isEqualTo(Outcome.SKIPPED_PAUSED);
  }

  @Test
  void triggerMakesTheKeyDueNowWithReasonTrigger() {
    ScheduleState idleLater = idle(10_000).withNextDue(NOW.plusSeconds(30), DueReason.SCHEDULE);

    ScheduleState t = ScheduleMachine.trigger(idleLater, NOW);

    assertThat(t.state()).isEqualTo(Status.IDLE);
    assertThat(t.nextDueAt()).isEqualTo(NOW);
    assertThat(t.dueReason()).isEqualTo(DueReason.TRIGGER);
    assertThat(ScheduleMachine.due(t, NOW, false).due()).isTrue();
    assertThat(
            ScheduleMachine.due(
                    ScheduleMachine.trigger(throttledUntil(NOW.plusSeconds(30)), NOW), NOW, false)
                .skipped())
        .as("an unexpired Retry-After still applies")
        .isEqualTo(Outcome.SKIPPED_THROTTLED);
  }

  // ---- poison halt

  @Test
  void poisonHaltOpensTheCircuitWithPoisonHaltError() {
    Poller<JsonNode> halting =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id").asText())
            .cursor(Cursors.token())
            .fetch(ctx -> Page.empty())
            .schedule(SCHEDULE)
            .circuit(CIRCUIT)
            .delivery(
                DeliveryPolicy.DEFAULT.withPoison(
                    new PoisonPolicy(PoisonPolicy.Action.HALT, false)))
            .build();
    CycleOutcome halted = new CycleOutcome(1, 3, 3, false, false, 20, true, null, null);

    ScheduleState s = ScheduleMachine.afterCycle(halting, idle(40_000), halted, NOW, NO_RANDOM);

    assertThat(s.state()).isEqualTo(Status.CIRCUIT_OPEN);
    assertThat(s.lastError())
        .isEqualTo(new LastError("PoisonHalt", ScheduleMachine.POISON_HALT_MESSAGE, NOW));
    assertThat(s.circuit()).isEqualTo(new Circuit(NOW, NOW.plusSeconds(300)));
    assertThat(s.nextDueAt()).isEqualTo(NOW.plusSeconds(300));
    assertThat(s.dueReason()).isEqualTo(DueReason.PROBE);
    assertThat(s.consecutiveFailures()).as("the fetch itself succeeded").isZero();
    assertThat(s.intervalMs()).as("AIMD ran: 40 s / 2").isEqualTo(20_000);
  }

  @Test
  void poisonHaltAfterADrainOnlyRunKeepsTheLastPoll() {
    ScheduleState before =
        ScheduleMachine.afterCycle(POLLER, idle(20_000), events(0), NOW.minusSeconds(5), NO_RANDOM);

    ScheduleState s = ScheduleMachine.poisonHalt(POLLER, before, NOW);

    assertThat(s.state()).isEqualTo(Status.CIRCUIT_OPEN);
    assertThat(s.lastError().name()).isEqualTo("PoisonHalt");
    assertThat(s.lastPoll()).isEqualTo(before.lastPoll());
    assertThat(s.intervalMs()).isEqualTo(30_000);
  }

  // ---- pause, resume

  @Test
  void pauseIsLegalFromEveryState() {
    for (Status status : Status.values()) {
      ScheduleState s =
          ScheduleState.initial(10_000)
              .withState(status)
              .withNextDue(NOW.plusSeconds(7), DueReason.SCHEDULE)
              .withFailures(1, null);

      ScheduleState p = ScheduleMachine.pause(s, PauseReason.PARTITION_REMOVED);

      assertThat(p.state()).as("from %s", status).isEqualTo(Status.PAUSED);
      assertThat(p.paused()).isEqualTo(PauseReason.PARTITION_REMOVED);
      assertThat(p.nextDueAt()).isEqualTo(NOW.plusSeconds(7));
      assertThat(p.consecutiveFailures()).isEqualTo(1);
      assertThat(ScheduleMachine.due(p, NOW.plusSeconds(7), true).skipped())
          .isEqualTo(Outcome.SKIPPED_PAUSED);
      assertThat(ScheduleMachine.LEGAL.get(status)).contains(Status.PAUSED);
    }
  }

  @Test
  void resumeWithNothingPendingIsIdleAndDueNow() {
    ScheduleState backingOff =
        withFailures(
            idle(10_000).withNextDue(NOW.plusSeconds(60), DueReason.BACKOFF),
            Status.BACKING_OFF,
            2);

    ScheduleState r =
        ScheduleMachine.resume(ScheduleMachine.pause(backingOff, PauseReason.MANUAL), NOW);

    assertThat(r.state()).isEqualTo(Status.IDLE);
    assertThat(r.paused()).isNull();
    assertThat(r.nextDueAt()).isEqualTo(NOW);
    assertThat(r.consecutiveFailures()).isEqualTo(2);
    assertThat(ScheduleMachine.due(r, NOW, false).due()).isTrue();
  }

  @Test
  void resumeKeepsAPendingThrottle() {
    ScheduleState paused =
        ScheduleMachine.pause(throttledUntil(NOW.plusSeconds(60)), PauseReason.MANUAL);

    ScheduleState r = ScheduleMachine.resume(paused, NOW);

    assertThat(r.state()).isEqualTo(Status.THROTTLED);
    assertThat(r.throttledUntil()).isEqualTo(NOW.plusSeconds(60));
    assertThat(r.nextDueAt()).isEqualTo(NOW.plusSeconds(60));
    assertThat(r.dueReason()).isEqualTo(DueReason.THROTTLE);
    assertThat(ScheduleMachine.due(r, NOW, false).skipped()).isEqualTo(Outcome.SKIPPED_THROTTLED);

    ScheduleState later = ScheduleMachine.resume(paused, NOW.plusSeconds(61));
    assertThat(later.state()).as("the throttle has passed").isEqualTo(Status.IDLE);
    assertThat(later.throttledUntil()).isNull();
  }

  @Test
  void resumeKeepsAnOpenCircuit() {
    Circuit circuit = new Circuit(NOW, NOW.plusSeconds(300));
    ScheduleState paused = ScheduleMachine.pause(open(circuit, 3), PauseReason.MANUAL);

    ScheduleState r = ScheduleMachine.resume(paused, NOW);

    assertThat(r.state()).isEqualTo(Status.CIRCUIT_OPEN);
    assertThat(r.circuit()).isEqualTo(circuit);
    assertThat(r.nextDueAt()).isEqualTo(NOW.plusSeconds(300));
    assertThat(r.dueReason()).isEqualTo(DueReason.PROBE);
    assertThat(ScheduleMachine.due(r, NOW, false).skipped())
        .isEqualTo(Outcome.SKIPPED_CIRCUIT_OPEN);
  }

  @Test
  void cycleThatEndsOnAKeyPausedMeanwhileLeavesItPaused() {
    ScheduleState paused = ScheduleMachine.pause(idle(20_000), PauseReason.MANUAL);

    ScheduleState s = ScheduleMachine.afterCycle(POLLER, paused, events(0), NOW, NO_RANDOM);

    assertThat(s.state()).isEqualTo(Status.PAUSED);
    assertThat(s.paused()).isEqualTo(PauseReason.MANUAL);
    assertThat(s.intervalMs()).isEqualTo(30_000);
    assertThat(ScheduleMachine.resume(s, NOW).state()).isEqualTo(Status.IDLE);
  }

  @Test
  void cycleKeepsReconcileAndBackfillFields() {
    Backfill backfill = new Backfill("\"a\"", null, true, "\"b\"");
    Instant reconciled = NOW.minusSeconds(3600);
    ScheduleState before =
        ScheduleState.initial(10_000).withLastReconcileAt(reconciled).withBackfill(backfill);

    for (CycleOutcome o :
        List.of(
            events(1),
            failure(new IllegalStateException("x")),
            failure(status(429, "Retry-After", "5")))) {
      ScheduleState s = ScheduleMachine.afterCycle(POLLER, before, o, NOW, new FixedRandom(0.5));
      assertThat(s.lastReconcileAt()).isEqualTo(reconciled);
      assertThat(s.backfill()).isEqualTo(backfill);
      assertThat(s.paused()).isNull();
    }
  }

  // ---- legality

  @Test
  void illegalTransitionIsRejected() {
    assertThatThrownBy(() -> ScheduleMachine.check(Status.BACKING_OFF, Status.IDLE))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("illegal schedule transition backingOff -> idle");
    assertThatThrownBy(
            () -> ScheduleMachine.polling(ScheduleMachine.pause(idle(10_000), PauseReason.MANUAL)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("illegal schedule transition paused -> polling");
    // corrupt: circuitOpen without a circuit would have to poll without a probe
    ScheduleState corrupt = withFailures(idle(10_000), Status.CIRCUIT_OPEN, 5);
    assertThatThrownBy(() -> ScheduleMachine.afterCycle(POLLER, corrupt, events(0), NOW, NO_RANDOM))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("illegal schedule transition circuitOpen -> polling");
  }

  // ---- deferral (G6: a budget timeout is no failure)

  private static io.watukuy.BudgetTimeoutException budgetTimeout() {
    return new io.watukuy.BudgetTimeoutException(
        "erp",
        io.watukuy.PollerKey.of("orders"),
        Duration.ofSeconds(80),
        Duration.ofSeconds(80),
        io.watukuy.BudgetTimeoutException.Reason.MAX_WAIT);
  }

  @Test
  void aBudgetTimeoutDefersTheKeyDueAtOnceWithFailuresAndIntervalKept() {
    ScheduleState before = withFailures(idle(40_000), Status.BACKING_OFF, 2);
    CycleOutcome deferred =
        new CycleOutcome(0, 0, 0, false, false, 80_000, false, budgetTimeout(), null);
    ScheduleState s = ScheduleMachine.afterCycle(POLLER, before, deferred, NOW, NO_RANDOM);
    assertThat(s.state()).isEqualTo(Status.IDLE);
    assertThat(s.nextDueAt()).isEqualTo(NOW);
    assertThat(s.dueReason()).isEqualTo(DueReason.CATCH_UP);
    assertThat(s.consecutiveFailures()).isEqualTo(2);
    assertThat(s.intervalMs()).isEqualTo(40_000);
    assertThat(s.circuit()).isNull();
    assertThat(s.lastError().name()).isEqualTo("BudgetTimeoutException");
    // Three failures open this poller's circuit; deferrals never count.
    for (int i = 0; i < 5; i++) s = ScheduleMachine.afterCycle(POLLER, s, deferred, NOW, NO_RANDOM);
    assertThat(s.circuit()).isNull();
    assertThat(s.consecutiveFailures()).isEqualTo(2);
  }

  @Test
  void aDeferredCycleThatCommittedEventsHalvesTheIntervalAndRecordsItsPages() {
    CycleOutcome deferred =
        new CycleOutcome(
            2,
            40,
            7,
            false,
            false,
            900,
            false,
            new FetchException("orders", "", 3, -1, "wrapped", budgetTimeout()),
            null);
    ScheduleState s = ScheduleMachine.afterCycle(POLLER, idle(40_000), deferred, NOW, NO_RANDOM);
    assertThat(s.state()).isEqualTo(Status.IDLE);
    assertThat(s.intervalMs()).isEqualTo(20_000);
    assertThat(s.lastPoll().pages()).isEqualTo(2);
    assertThat(s.lastPoll().truncated()).isTrue();
    assertThat(s.consecutiveFailures()).isZero();
  }

  @Test
  void aDeferredProbeKeepsTheCircuitOpenWithTheProbeDueAtOnce() {
    ScheduleState before = open(new Circuit(OPENED, NOW), 3);
    CycleOutcome deferred =
        new CycleOutcome(0, 0, 0, false, false, 10, false, budgetTimeout(), null);
    ScheduleState s = ScheduleMachine.afterCycle(POLLER, before, deferred, NOW, NO_RANDOM);
    assertThat(s.state()).isEqualTo(Status.CIRCUIT_OPEN);
    assertThat(s.circuit()).isEqualTo(new Circuit(OPENED, NOW));
    assertThat(s.dueReason()).isEqualTo(DueReason.PROBE);
    assertThat(s.consecutiveFailures()).isEqualTo(3);
    assertThat(ScheduleMachine.due(s, NOW, false).probe()).isTrue();
  }

  @Test
  void legalTableFollowsTheDiagram() {
    assertThat(ScheduleMachine.LEGAL.get(Status.IDLE))
        .containsExactlyInAnyOrder(Status.POLLING, Status.PAUSED);
    assertThat(ScheduleMachine.LEGAL.get(Status.POLLING))
        .containsExactlyInAnyOrder(
            Status.IDLE, Status.THROTTLED, Status.BACKING_OFF, Status.CIRCUIT_OPEN, Status.PAUSED);
    assertThat(ScheduleMachine.LEGAL.get(Status.CIRCUIT_OPEN))
        .containsExactlyInAnyOrder(Status.HALF_OPEN, Status.PAUSED);
    assertThat(ScheduleMachine.LEGAL.get(Status.HALF_OPEN))
        .containsExactlyInAnyOrder(
            Status.IDLE, Status.THROTTLED, Status.CIRCUIT_OPEN, Status.PAUSED);
    assertThat(ScheduleMachine.LEGAL.get(Status.BACKING_OFF))
        .containsExactlyInAnyOrder(Status.POLLING, Status.PAUSED);
  }

  // ---- helpers

  private static Poller<JsonNode> poller(Schedule schedule, CircuitPolicy circuit) {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id").asText())
        .cursor(Cursors.token())
        .fetch(ctx -> Page.empty())
        .schedule(schedule)
        .circuit(circuit)
        .build();
  }

  private static ScheduleState idle(long intervalMs) {
    return ScheduleState.initial(intervalMs);
  }

  private static ScheduleState withFailures(ScheduleState s, Status status, int failures) {
    return s.withState(status)
        .withFailures(
            failures,
            failures == 0 ? null : new LastError("IllegalStateException", "earlier", OPENED));
  }

  private static ScheduleState open(Circuit circuit, int failures) {
    return ScheduleState.initial(10_000)
        .withState(Status.CIRCUIT_OPEN)
        .withNextDue(circuit.probeAt(), DueReason.PROBE)
        .withFailures(failures, new LastError("IllegalStateException", "down", circuit.openedAt()))
        .withCircuit(circuit);
  }

  private static ScheduleState throttledUntil(Instant until) {
    return ScheduleState.initial(10_000)
        .withState(Status.THROTTLED)
        .withNextDue(until, DueReason.THROTTLE)
        .withThrottledUntil(until);
  }

  private static CycleOutcome events(int events) {
    return new CycleOutcome(1, events, events, false, false, 120, false, null, null);
  }

  private static CycleOutcome success(int events, @Nullable HttpResult last) {
    return new CycleOutcome(1, events, events, false, false, 120, false, null, last);
  }

  private static CycleOutcome failure(RuntimeException e) {
    return new CycleOutcome(1, 0, 0, false, false, 50, false, e, null);
  }

  private static HttpStatusException status(int code, String... nameValues) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (int i = 0; i < nameValues.length; i += 2)
      headers.put(nameValues[i].toLowerCase(Locale.ROOT), List.of(nameValues[i + 1]));
    return new HttpStatusException(code, "GET", "https://api.test/orders", headers, null);
  }

  private static HttpResult response(int code, String... nameValues) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (int i = 0; i < nameValues.length; i += 2)
      headers.put(nameValues[i], List.of(nameValues[i + 1]));
    return HttpResult.of(code, "GET", "https://api.test/orders", headers, new byte[0], NOW);
  }
}
