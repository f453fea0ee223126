package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ConfigException;
import io.watukuy.DeliveryPolicy;
import io.watukuy.Health;
import io.watukuy.HttpStatusException;
import io.watukuy.KeyHealth;
import io.watukuy.KeyInspection;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryAfterException;
import io.watukuy.RetryPolicy;
import io.watukuy.Schedule;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Watukuy#health()} over a real engine (docs/operations.md, "Health"): {@code staleAfter}
 * and its default, a stale key, a paused stale key, a throttled key, a poison halt, {@code
 * maxParked}, and the variant that takes an inspection.
 */
class HealthTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  final Fixture f = new Fixture();
  final Recorder r = new Recorder();

  @Test
  void staleAfterDefaultsToThreeTimesTheScheduleMaxAndRefusesZeroOrLess() {
    Poller<JsonNode> byDefault = f.timestamp("orders", 10).build();
    Poller<JsonNode> longMax =
        f.timestamp("orders", 10)
            .schedule(Schedule.every(Duration.ofSeconds(30)).withMax(Duration.ofHours(1)))
            .build();

    assertThat(byDefault.staleAfter()).isEqualTo(Fixture.FIXED.max().multipliedBy(3));
    assertThat(longMax.staleAfter()).isEqualTo(Duration.ofHours(3));
    assertThat(f.timestamp("orders", 10).staleAfter(Duration.ofMinutes(5)).build().staleAfter())
        .isEqualTo(Duration.ofMinutes(5));
    assertThatThrownBy(() -> f.timestamp("orders", 10).staleAfter(Duration.ZERO))
        .isInstanceOf(ConfigException.class)
        .hasMessage("poller orders: staleAfter must be > 0, but was PT0S");
    assertThatThrownBy(() -> f.timestamp("orders", 10).staleAfter(Duration.ofSeconds(-1)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("staleAfter must be > 0, but was PT-1S");
    assertThatThrownBy(() -> f.timestamp("orders", 10).maxParked(-1))
        .isInstanceOf(ConfigException.class)
        .hasMessage("poller orders: maxParked must be >= 0, but was -1");
  }

  /**
   * A key polled once and then not again (nobody ticks) turns stale exactly when more than
   * staleAfter has passed since its last success, and healthy again with the next success.
   */
  @Test
  void aKeyWithoutASuccessForLongerThanStaleAfterIsStale() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 10).staleAfter(Duration.ofMinutes(5)).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    w.tick();

    f.clock.advance(Duration.ofMinutes(5));
    assertThat(w.health().healthy()).as("at staleAfter exactly: not yet").isTrue();

    f.clock.advance(Duration.ofMillis(1));
    Health h = w.health();
    assertThat(h.healthy()).isFalse();
    assertThat(h.key(ORDERS).orElseThrow().reasons()).containsExactly(KeyHealth.Reason.STALE);
    KeyInspection k = w.inspect().key(ORDERS).orElseThrow();
    assertThat(k.stale()).isTrue();
    assertThat(k.staleAfterMs()).isEqualTo(Duration.ofMinutes(5).toMillis());

    w.tick();
    assertThat(w.health().healthy()).isTrue();
    assertThat(w.inspect().key(ORDERS).orElseThrow().stale()).isFalse();
  }

  @Test
  void aPausedStaleKeyIsHealthy() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    w.tick();
    w.pause("orders");

    f.clock.advance(orders.staleAfter().plusSeconds(1));

    assertThat(w.inspect().key(ORDERS).orElseThrow().stale()).isTrue();
    assertThat(w.health().healthy()).isTrue();
  }

  @Test
  void aPoisonHaltIsUnhealthyAndParkedOverMaxParkedToo() {
    f.seed(3);
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .delivery(
                new DeliveryPolicy(
                    RetryPolicy.attempts(1), new PoisonPolicy(PoisonPolicy.Action.HALT, false)))
            .maxParked(0)
            .build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    r.failWhen(e -> e.identity().equals("o002"));

    w.tick();

    assertThat(w.health().key(ORDERS).orElseThrow().reasons())
        .containsExactly(KeyHealth.Reason.POISON_HALT, KeyHealth.Reason.PARKED_OVER);
  }

  @Test
  void healthOfAnInspectionIsTheVerdictOfThatSnapshot() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 10).staleAfter(Duration.ofMinutes(1)).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    w.tick();
    var before = w.inspect();

    f.clock.advance(Duration.ofMinutes(2));

    assertThat(w.health(before).healthy()).isTrue();
    assertThat(w.health(before).at()).isEqualTo(before.at());
    assertThat(w.health().healthy()).isFalse();
  }

  static HttpStatusException answered(int status, String retryAfter) {
    Map<String, List<String>> headers =
        retryAfter == null ? Map.of() : Map.of("retry-after", List.of(retryAfter));
    return new HttpStatusException(status, "GET", "http://vendor/orders", headers, null);
  }

  /**
   * A vendor's 429 with Retry-After is a throttle, not a failure: the key reads throttled, keeps
   * the 429 as its last error and stays healthy; only staleAfter without a success makes it
   * unhealthy, and then for being stale alone.
   */
  @Test
  void aThrottledKeyIsHealthyUntilItTurnsStale() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 10).staleAfter(Duration.ofMinutes(5)).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    w.tick();
    f.api.failNext(100, () -> answered(429, "60"));

    for (int minute = 1; minute <= 5; minute++) {
      f.clock.advance(Duration.ofMinutes(1));
      w.tick();
      KeyInspection k = w.inspect().key(ORDERS).orElseThrow();
      assertThat(k.state()).isEqualTo(ScheduleState.Status.THROTTLED);
      assertThat(k.consecutiveFailures()).isZero();
      assertThat(k.lastError()).isNotNull();
      assertThat(k.lastError().message()).contains("429");
      assertThat(w.health().healthy()).as("throttled for %d min of staleAfter 5m", minute).isTrue();
    }

    f.clock.advance(Duration.ofMillis(1));
    KeyHealth h = w.health().key(ORDERS).orElseThrow();
    assertThat(h.reasons()).containsExactly(KeyHealth.Reason.STALE);
    assertThat(h.problem()).startsWith("stale: no successful poll since 2026-03-01T10:00:00Z");
  }

  /** A 503 with Retry-After throttles like a 429; a 503 without one, or a 500, fails at once. */
  @Test
  void a503WithRetryAfterThrottlesButA500IsFailingAtTheFirstCycle() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.api.failNext(1, () -> answered(503, "120"));
    w.tick();
    assertThat(w.inspect().key(ORDERS).orElseThrow().state())
        .isEqualTo(ScheduleState.Status.THROTTLED);
    assertThat(w.health().healthy()).isTrue();

    f.clock.advance(Duration.ofMinutes(2));
    f.api.failNext(1, () -> answered(500, null));
    w.tick();

    KeyHealth h = w.health().key(ORDERS).orElseThrow();
    assertThat(h.reasons()).containsExactly(KeyHealth.Reason.FAILING);
    assertThat(h.problem()).startsWith("1 failed cycle(s) in a row since 2026-03-01T10:02:00Z");
  }

  /**
   * A throttle after failed cycles ends the failing streak for health: the vendor answered and said
   * when to come back. The failure count is kept (a later failure still opens the circuit).
   */
  @Test
  void aThrottleAfterAFailureIsNotFailing() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.api.failNext(1, () -> answered(500, null));
    w.tick();
    assertThat(w.health().healthy()).isFalse();

    f.clock.advance(Duration.ofMinutes(10));
    f.api.failNext(1, () -> answered(429, "60"));
    w.tick();

    KeyInspection k = w.inspect().key(ORDERS).orElseThrow();
    assertThat(k.state()).isEqualTo(ScheduleState.Status.THROTTLED);
    assertThat(k.consecutiveFailures()).isEqualTo(1);
    assertThat(k.health().healthy()).isTrue();
  }

  /**
   * Fetch code on a client of its own (a vendor SDK) that throws {@link RetryAfterException}
   * throttles the key for that wait, as a 429 would: no failure counted, healthy.
   */
  @Test
  void aRetryAfterExceptionFromFetchThrottlesTheKey() {
    f.seed(1);
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.api.failNext(
        1,
        () -> new IllegalStateException("sdk", new RetryAfterException("slow down", HOUR, null)));

    w.tick();

    KeyInspection k = w.inspect().key(ORDERS).orElseThrow();
    assertThat(k.state()).isEqualTo(ScheduleState.Status.THROTTLED);
    assertThat(k.throttledUntil()).isEqualTo(f.clock.now().plus(HOUR));
    assertThat(k.consecutiveFailures()).isZero();
    assertThat(k.health().healthy()).isTrue();
  }

  static final Duration HOUR = Duration.ofHours(1);
}
