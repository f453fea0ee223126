package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Backoff;
import io.watukuy.CircuitPolicy;
import io.watukuy.HttpStatusException;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Schedule;
import io.watukuy.ScheduleState;
import io.watukuy.TickOptions;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The schedule state machine through the engine, at its edges (docs/architecture.md, "Poller state
 * machine"): jitter, throttles with and without Retry-After, a throttled probe, pause and resume
 * from every state, the states {@code inspect} shows during a cycle, and catch-up after a cut
 * cycle.
 */
class ScheduleStateTransitionsTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  final Fixture f = new Fixture();
  final Recorder r = new Recorder();
  final List<String> heard = new ArrayList<>();
  final WatukuyListener listener =
      new WatukuyListener() {
        @Override
        public void onThrottled(PollerKey key, Instant until) {
          heard.add("throttled " + until);
        }

        @Override
        public void onCircuitOpen(PollerKey key, Instant probeAt) {
          heard.add("open " + probeAt);
        }

        @Override
        public void onCircuitClose(PollerKey key) {
          heard.add("close");
        }

        @Override
        public void onError(PollerKey key, Throwable error) {
          heard.add("error " + error.getClass().getSimpleName());
        }
      };

  ScheduleState state() {
    return f.store.loadState(ORDERS).orElseThrow().schedule();
  }

  static HttpStatusException http(int status, Map<String, List<String>> headers) {
    return new HttpStatusException(status, "GET", "http://vendor/orders", headers, null);
  }

  /** Every wait gets ±10 % jitter by default; {@code adaptive: false} pins the interval at min. */
  @Test
  void waitsAreJitteredWithinTenPercentAndAdaptiveFalsePinsTheIntervalAtMin() {
    Schedule s = Schedule.every(Duration.ofSeconds(30)).withAdaptive(false); // default jitter 10 %
    Poller<JsonNode> orders = f.timestamp("orders", 10).schedule(s).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    long lo = Long.MAX_VALUE, hi = 0;
    for (int i = 0; i < 200; i++) {
      if (i % 3 == 0) f.api.put("x" + i, Map.of("n", i));
      assertThat(w.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
      assertThat(state().intervalMs()).isEqualTo(30_000);
      long wait = Duration.between(f.clock.now(), state().nextDueAt()).toMillis();
      lo = Math.min(lo, wait);
      hi = Math.max(hi, wait);
      f.clock.advance(Duration.ofMillis(wait));
    }
    assertThat(lo).isBetween(27_000L, 29_000L);
    assertThat(hi).isBetween(31_000L, 33_000L);
  }

  /**
   * A 429 without Retry-After or rate-limit fields waits one backoff step without jitter, growing
   * with each throttle in a row up to the backoff's max, and is never a failure
   * (docs/architecture.md, "Circuit"): a throttled vendor is asked ever more rarely, never in a hot
   * loop.
   */
  @Test
  void repeated429sWithoutRetryAfterWaitGrowingBackoffStepsAndCountNoFailure() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build(); // FIXED 30 s
    Watukuy w = f.engine("a").poller(orders).listener(listener).build().on(orders, r);
    w.tick();
    f.nextCycle();
    f.api.failNext(1000, () -> http(429, Map.of()));
    Backoff backoff = Fixture.FIXED.backoff(); // base 1 s, factor 2, max 10 min
    List<Long> expected = new ArrayList<>();
    List<Long> waits = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      expected.add(backoff.cap(i).toMillis());
      assertThat(w.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
      ScheduleState s = state();
      assertThat(s.state()).isEqualTo(ScheduleState.Status.THROTTLED);
      assertThat(s.consecutiveFailures()).isZero();
      waits.add(Duration.between(f.clock.now(), s.throttledUntil()).toMillis());
      f.clock.advanceTo(s.throttledUntil());
    }
    assertThat(waits).containsExactlyElementsOf(expected);
    assertThat(waits.get(waits.size() - 1)).isEqualTo(backoff.max().toMillis());
  }

  /**
   * A Retry-After is waited exactly, beyond {@code schedule.max} and despite a trigger, clamped to
   * one day; an HTTP date works too. A 503 without one is a failure (docs/architecture.md,
   * "Circuit").
   */
  @Test
  void aRetryAfterBeyondScheduleMaxIsWaitedExactlyAndA503WithoutOneIsAFailure() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10).schedule(Fixture.FIXED.withMax(Duration.ofMinutes(1))).build();
    Watukuy w = f.engine("a").poller(orders).listener(listener).build().on(orders, r);
    w.tick();
    f.nextCycle();
    f.api.failNext(1, () -> http(503, Map.of("retry-after", List.of("3600"))));
    w.tick();
    assertThat(state().state()).isEqualTo(ScheduleState.Status.THROTTLED);
    assertThat(state().throttledUntil()).isEqualTo(f.clock.now().plusSeconds(3600));
    assertThat(state().consecutiveFailures()).isZero();
    f.clock.advance(Duration.ofSeconds(3599));
    assertThat(w.tick().key(ORDERS).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_THROTTLED);
    w.trigger("orders"); // trigger does not override Retry-After
    assertThat(w.tick().key(ORDERS).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_THROTTLED);
    f.clock.advance(Duration.ofSeconds(1));
    f.api.failNext(1, () -> http(503, Map.of()));
    assertThat(w.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(state().state()).isEqualTo(ScheduleState.Status.BACKING_OFF);
    assertThat(state().consecutiveFailures()).isEqualTo(1);
    // Retry-After beyond 24 h clamped
    f.clock.advance(Duration.ofMinutes(20));
    f.api.failNext(1, () -> http(429, Map.of("retry-after", List.of("999999"))));
    w.tick();
    assertThat(state().throttledUntil()).isEqualTo(f.clock.now().plus(Duration.ofHours(24)));
    // HTTP date
    f.clock.advanceTo(Instant.parse("2026-10-21T07:00:00Z"));
    f.api.failNext(
        1, () -> http(429, Map.of("retry-after", List.of("Wed, 21 Oct 2026 07:28:00 GMT"))));
    w.tick();
    assertThat(state().state()).isEqualTo(ScheduleState.Status.THROTTLED);
    assertThat(state().throttledUntil()).isEqualTo(Instant.parse("2026-10-21T07:28:00Z"));
    assertThat(state().consecutiveFailures()).isEqualTo(1); // kept: a throttle is no failure
  }

  /**
   * A throttle never counts as a failure and leaves the circuit alone; a throttled probe is retried
   * as a probe after the wait (docs/architecture.md, "Circuit").
   */
  @Test
  void aThrottledProbeLeavesTheCircuitOpenAndProbesAgainOnceTheWaitIsOver() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .schedule(
                Fixture.FIXED.withBackoff(
                    new Backoff(Duration.ofSeconds(1), 2, Duration.ofSeconds(8))))
            .circuit(new CircuitPolicy(2, Duration.ofMinutes(5)))
            .build();
    Watukuy w = f.engine("a").poller(orders).listener(listener).build().on(orders, r);
    f.api.failNext(2, () -> new IllegalStateException("down"));
    w.tick();
    f.clock.advance(Duration.ofSeconds(1));
    w.tick();
    assertThat(state().state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    f.clock.advance(Duration.ofMinutes(5));
    f.api.failNext(1, () -> http(429, Map.of("retry-after", List.of("60"))));
    Instant probeAt = state().circuit().probeAt();
    Instant throttledAt = f.clock.now();
    w.tick();
    assertThat(state().state()).isEqualTo(ScheduleState.Status.THROTTLED);
    assertThat(state().circuit()).isNotNull();
    assertThat(state().circuit().probeAt()).isEqualTo(probeAt);
    assertThat(state().consecutiveFailures()).isEqualTo(2);
    f.clock.advance(Duration.ofSeconds(60));
    f.seed(1);
    assertThat(w.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(state().circuit()).isNull();
    assertThat(state().consecutiveFailures()).isZero();
    assertThat(heard)
        .containsExactly(
            "error FetchException",
            "error FetchException",
            "open " + probeAt,
            "error FetchException",
            "throttled " + throttledAt.plusSeconds(60),
            "close");
  }

  /**
   * Pause is legal from every state; resume keeps an unexpired Retry-After and an open circuit
   * (docs/architecture.md, "ScheduleState").
   */
  @Test
  void pauseIsLegalFromEveryStateAndResumeRestoresAThrottleOrAnOpenCircuit() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10).circuit(new CircuitPolicy(1, Duration.ofMinutes(5))).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    // throttled
    f.api.failNext(1, () -> http(429, Map.of("retry-after", List.of("120"))));
    w.tick();
    Instant until = state().throttledUntil();
    w.pause("orders");
    assertThat(state().state()).isEqualTo(ScheduleState.Status.PAUSED);
    w.resume("orders");
    assertThat(state().state()).isEqualTo(ScheduleState.Status.THROTTLED);
    assertThat(state().throttledUntil()).isEqualTo(until);
    f.clock.advance(Duration.ofSeconds(120));
    // circuit open
    f.api.failNext(1, () -> new IllegalStateException("down"));
    w.tick();
    assertThat(state().state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    Instant probeAt = state().circuit().probeAt();
    w.pause("orders");
    w.pause("orders"); // twice
    w.resume("orders");
    assertThat(state().state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    assertThat(state().circuit().probeAt()).isEqualTo(probeAt);
    w.resume("orders"); // not paused: no-op
    assertThat(state().state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
  }

  /**
   * {@code polling} and {@code halfOpen} are written when a cycle starts, for {@code inspect}
   * (docs/architecture.md, "ScheduleState"): a fetch that inspects its own key sees them.
   */
  @Test
  void inspectDuringACycleShowsPollingAndHalfOpenDuringAProbe() {
    Watukuy[] ref = new Watukuy[1];
    List<ScheduleState.Status> seen = new ArrayList<>();
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .fetch(
                ctx -> {
                  ref[0].inspect().key(ORDERS).ifPresent(k -> seen.add(k.state()));
                  return f.api.updatedSince(ctx.cursor(), 10);
                })
            .circuit(new CircuitPolicy(1, Duration.ofMinutes(5)))
            .build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    ref[0] = w;
    w.tick();
    f.nextCycle();
    w.tick();
    f.api.failNext(1, () -> new IllegalStateException("down")); // the fetch inspects first
    f.nextCycle();
    w.tick(); // fails: the circuit opens
    f.clock.advance(Duration.ofMinutes(5));
    w.tick(); // the probe
    assertThat(seen)
        .containsExactly(
            ScheduleState.Status.POLLING,
            ScheduleState.Status.POLLING,
            ScheduleState.Status.POLLING,
            ScheduleState.Status.HALF_OPEN);
  }

  /**
   * A cycle cut by the tick deadline keeps what it committed and is due again at once, reason
   * {@code catch-up} (docs/architecture.md, "Commit protocol", rule 6); the next cycle goes on from
   * its cursor.
   */
  @Test
  void aCycleCutByTheTickDeadlineIsDueAgainAtOnceForCatchUp() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 1)
            .fetch(
                ctx -> {
                  f.clock.advance(Duration.ofSeconds(2));
                  return f.api.updatedSince(ctx.cursor(), 1);
                })
            .build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(5);

    KeyReport cut = w.tick(TickOptions.deadline(Duration.ofSeconds(3))).key(ORDERS).orElseThrow();

    assertThat(cut.truncated()).isTrue();
    assertThat(cut.pages()).isEqualTo(2);
    assertThat(r.changes()).containsExactly("o001:created", "o002:created");
    assertThat(state().dueReason()).isEqualTo(ScheduleState.DueReason.CATCH_UP);
    assertThat(state().nextDueAt()).isEqualTo(f.clock.now());
    assertThat(w.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(r.changes())
        .containsExactly(
            "o001:created", "o002:created", "o003:created", "o004:created", "o005:created");
  }
}
