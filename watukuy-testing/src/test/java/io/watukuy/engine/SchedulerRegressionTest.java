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
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Review: scheduler state machine through the engine. */
class SchedulerRegressionTest {
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

  @Test
  void jitterStaysWithin10PercentAndAdaptiveFalsePinsMin() {
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
    System.out.println(" jitter range " + lo + ".." + hi);
    assertThat(lo).isBetween(27_000L, 29_000L);
    assertThat(hi).isBetween(31_000L, 33_000L);
  }

  /**
   * Issue: "A 429 without a usable Retry-After is throttled ... else for the next backoff delay".
   */
  @Test
  void repeated429WithoutRetryAfterNeverBacksOffFurther() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build(); // FIXED 30 s
    Watukuy w = f.engine("a").poller(orders).listener(listener).build().on(orders, r);
    w.tick();
    f.nextCycle();
    f.api.failNext(1000, () -> http(429, Map.of()));
    Instant start = f.clock.now();
    int polls = 0;
    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      KeyReport rep = w.tick().key(ORDERS).orElseThrow();
      if (rep.outcome() == KeyReport.Outcome.POLLED) polls++;
      ScheduleState s = state();
      waits.add(Duration.between(f.clock.now(), s.throttledUntil()).toMillis());
      f.clock.advance(Duration.between(f.clock.now(), s.throttledUntil()).plusMillis(1));
    }
    System.out.println(
        " 429-no-RA waits(ms) "
            + waits
            + " polls="
            + polls
            + " in "
            + Duration.between(start, f.clock.now())
            + " failures="
            + state().consecutiveFailures());
    // a throttled vendor is asked at least as rarely as an unthrottled one (30 s), and the wait
    // grows
    assertThat(Duration.between(start, f.clock.now())).isGreaterThan(Duration.ofMinutes(10));
  }

  @Test
  void retryAfterBeyondMaxIsHonouredExactlyAnd503WithoutIsAFailure() {
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
    System.out.println(" after date-throttle " + state());
  }

  @Test
  void throttledProbeLeavesCircuitAloneThenProbes() {
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
    w.tick();
    System.out.println(" throttled probe " + state());
    assertThat(state().state()).isEqualTo(ScheduleState.Status.THROTTLED);
    assertThat(state().circuit()).isNotNull();
    f.clock.advance(Duration.ofSeconds(60));
    f.seed(1);
    assertThat(w.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(state().circuit()).isNull();
    System.out.println(" heard " + heard);
  }

  @Test
  void pauseFromEveryStateAndResumeRestores() {
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

  /** The persisted state never says polling / halfOpen: inspect() during a cycle shows idle. */
  @Test
  void stateDuringACycleIsPolling() {
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
    f.api.failNext(
        1,
        () ->
            new IllegalStateException(
                "down")); // request counted before failure... fetch sees state first
    f.nextCycle();
    w.tick();
    f.clock.advance(Duration.ofMinutes(5));
    w.tick(); // probe
    System.out.println(" states seen during cycles " + seen);
    assertThat(seen).contains(ScheduleState.Status.POLLING, ScheduleState.Status.HALF_OPEN);
  }
}
