package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.ORDERS;
import static io.watukuy.effects.EffectFixture.byCustomer;
import static io.watukuy.effects.EffectFixture.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.EventType;
import io.watukuy.effects.internal.EffectRun;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.store.memory.MemoryStore;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Retry now (docs/effects.md, "Retry now"): a parked lane becomes due at once, in memory and in its
 * stored row, keeping its attempt count; on a memory store and a virtual clock.
 */
class RetryNowTest {
  private final EffectFixture<MemoryStore> f = EffectFixture.memory();
  private final EffectFixture.FailingArm arm = new EffectFixture.FailingArm("down");
  private final List<Long> ran = arm.ran;

  private Effects notifyEffect() {
    return f.effects(f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build());
  }

  private InvocationRow row(long position) {
    return f.row("Notify", position).orElseThrow();
  }

  /**
   * Positions 1 (customer a) and 2 (customer b) fail ten times, so each waits the backoff's 60 s
   * cap (docs/effects.md, "Invocations": 200 ms doubling to 60 s); 3 (customer c) is done.
   */
  private Effects wedgedAtTheCap() {
    f.created("a", "b", "c");
    arm.failing.add(1L);
    arm.failing.add(2L);
    Effects effects = notifyEffect();
    drain(effects, "Notify");
    for (int attempt = 1; attempt < 10; attempt++) {
      f.clock.advance(EffectRun.BACKOFF.cap(attempt));
      drain(effects, "Notify");
    }
    assertThat(row(1).attempt()).isEqualTo(10);
    assertThat(row(2).attempt()).isEqualTo(10);
    assertThat(row(1).retryAt()).isEqualTo(f.clock.now().plusSeconds(60));
    return effects;
  }

  @Test
  void aLaneWaitingItsSixtySecondBackoffRunsRightAfterRetryNowAndTheOtherLaneWaits() {
    Effects effects = wedgedAtTheCap();
    Instant otherRetryAt = row(2).retryAt();
    arm.failing.remove(1L); // the cause is fixed
    ran.clear();

    assertThat(effects.retryNow("Notify", ORDERS, 1)).isEqualTo(1);
    assertThat(row(1).retryAt()).isEqualTo(f.clock.now());
    assertThat(row(1).status()).isEqualTo(InvocationStatus.FAILED);
    drain(effects, "Notify");

    assertThat(ran).containsExactly(1L);
    assertThat(row(1).status()).isEqualTo(InvocationStatus.DONE);
    assertThat(row(1).attempt()).isEqualTo(11);
    // the other lane is untouched: still failed, at its attempt and its stored retry time
    assertThat(row(2).status()).isEqualTo(InvocationStatus.FAILED);
    assertThat(row(2).attempt()).isEqualTo(10);
    assertThat(row(2).retryAt()).isEqualTo(otherRetryAt);
    assertThat(effects.status("Notify").sources().get(0).stuckLanes())
        .extracting(StuckLane::position, StuckLane::retryInMs)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(2L, 60_000L));
  }

  @Test
  void retryNowOfTheEffectMakesEveryParkedLaneDueAndTheBackoffGoesOnFromTheAttemptCount() {
    Effects effects = wedgedAtTheCap();
    ran.clear();

    assertThat(effects.retryNow("Notify")).isEqualTo(2);
    assertThat(row(1).retryAt()).isEqualTo(f.clock.now());
    assertThat(row(2).retryAt()).isEqualTo(f.clock.now());
    drain(effects, "Notify");

    assertThat(ran).containsExactly(1L, 2L);
    // both fail again at attempt 11: the wait is the cap again, not a fresh 200 ms
    assertThat(row(1).attempt()).isEqualTo(11);
    assertThat(row(1).retryAt()).isEqualTo(f.clock.now().plusSeconds(60));
    assertThat(row(2).retryAt()).isEqualTo(f.clock.now().plusSeconds(60));
  }

  @Test
  void aPositionThatIsNotParkedFailedIsNotMadeDueAndNothingIsWritten() {
    Effects effects = wedgedAtTheCap();
    InvocationRow done = row(3);

    assertThat(effects.retryNow("Notify", ORDERS, 3)).isZero(); // done
    assertThat(effects.retryNow("Notify", ORDERS, 9)).isZero(); // never read
    assertThat(row(3)).isEqualTo(done);
    assertThat(row(1).retryAt()).isEqualTo(f.clock.now().plusSeconds(60));
  }

  @Test
  void anUnknownEffectIsRefusedNamingItAndTheEffectsHere() {
    Effects effects = notifyEffect();
    assertThatThrownBy(() -> effects.retryNow("Nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no effect named 'Nope'; effects here: [Notify]");
    assertThatThrownBy(() -> effects.retryNow("Nope", ORDERS, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'Nope'");
  }

  @Test
  void aQuarantinedEffectStaysQuarantinedAndItsDueLanesRunOnceReleased() {
    Effects effects = wedgedAtTheCap();
    arm.failing.clear();
    effects.quarantine("Notify", "paused by hand");
    ran.clear();

    assertThat(effects.retryNow("Notify")).isEqualTo(2);
    drain(effects, "Notify");
    assertThat(ran).isEmpty();
    assertThat(effects.status("Notify").state()).isEqualTo(EffectState.QUARANTINED);

    effects.release("Notify");
    drain(effects, "Notify"); // no time passed: they run because retry now made them due
    assertThat(ran).containsExactly(1L, 2L);
    assertThat(row(1).status()).isEqualTo(InvocationStatus.DONE);
    assertThat(row(2).status()).isEqualTo(InvocationStatus.DONE);
  }

  @Test
  void theStoredRetryTimeHoldsAcrossARestart() {
    Effects first = wedgedAtTheCap();
    arm.failing.clear();
    assertThat(first.retryNow("Notify")).isEqualTo(2);
    first.close();
    ran.clear();

    Effects second =
        f.effects("engine-2", f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build());
    drain(second, "Notify"); // the lease was given up, so engine-2 takes it at once
    assertThat(ran).containsExactly(1L, 2L);
  }
}
