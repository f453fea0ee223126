package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.ORDERS;
import static io.watukuy.effects.EffectFixture.byCustomer;
import static io.watukuy.effects.EffectFixture.drain;
import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.EventType;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.Lease;
import io.watukuy.store.memory.MemoryStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The store-side status (docs/effects.md, "States"): the rule {@code effects list|show} and an
 * engine without the effect's lease read, which must say what the lease holder says.
 */
class StoredStatusTest {
  private final EffectFixture<MemoryStore> f = EffectFixture.memory();

  @Test
  void aSecondEngineWithoutTheLeaseReportsTheHoldersWedgeFromTheStore() {
    EffectFixture.FailingArm arm = new EffectFixture.FailingArm("boom");
    f.created("a", "b", "c", "d", "e");
    arm.failing.add(3L);
    Effects first = f.effects(f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build());
    Effects second =
        f.effects("engine-2", f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build());
    drain(first, "Notify");
    drain(second, "Notify"); // the lease is the first's: the second runs nothing

    EffectStatus holder = first.status("Notify");
    EffectStatus other = second.status("Notify");
    assertThat(other.running()).isFalse();
    assertThat(other.state()).isEqualTo(EffectState.WEDGED);
    SourceStatus s = other.sources().get(0);
    // wedged at 3 with 4 and 5 done: position 2, head 5, lag 3 (docs/effects.md, "Position")
    assertThat(s.position()).isEqualTo(2);
    assertThat(s.head()).isEqualTo(5);
    assertThat(s.lag()).isEqualTo(3);
    assertThat(s.wedgedLanes()).isEqualTo(1);
    assertThat(s.stuckLanes())
        .containsExactly(
            new StuckLane("customer:c", 3, 1, "IllegalStateException: boom at 3", 200, null));
    assertThat(s.pinningKey()).isEqualTo("customer:c");
    assertThat(s.pinningPosition()).isEqualTo(3);
    assertThat(s.inFlightLanes()).isEmpty();
    // the same view as the engine that holds the lease
    assertThat(holder.running()).isTrue();
    assertThat(other.state()).isEqualTo(holder.state());
    assertThat(other.sources()).isEqualTo(holder.sources());
  }

  @Test
  void aSecondEngineWithoutTheLeaseJudgesTheHoldersBlockedKeyAsTheHolderDoes() {
    EffectFixture.FailingArm arm = new EffectFixture.FailingArm("boom");
    f.created("a", "b", "c");
    arm.failing.add(1L);
    Effects old = f.effects(f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build());
    drain(old, "Notify"); // 1 failed, 2 and 3 done: rows above position 0 under customer
    old.run("Notify").stop();

    // both daemons are deployed with the key renamed; the first to start holds the lease
    Key<EffectFixture.Order> account = Key.of("account", e -> e.data().customer());
    Effects holder =
        f.effects("engine-2", f.effect("Notify").on(EventType.CREATED, arm, account).build());
    Effects other =
        f.effects("engine-3", f.effect("Notify").on(EventType.CREATED, arm, account).build());
    f.clock.advance(Duration.ofSeconds(31)); // the stopped engine's lease has lapsed
    drain(holder, "Notify");
    drain(other, "Notify");

    EffectStatus held = holder.status("Notify");
    EffectStatus read = other.status("Notify");
    assertThat(held.state()).isEqualTo(EffectState.BLOCKED);
    assertThat(read.running()).isFalse();
    assertThat(read.state()).isEqualTo(EffectState.BLOCKED);
    SourceStatus s = read.sources().get(0);
    assertThat(s.blocked()).isTrue();
    assertThat(s.lastError())
        .isEqualTo(held.sources().get(0).lastError())
        .contains("the key scheme of created (customer → account) changed while 3 lanes are");
    // a blocked key runs nothing: no stuck lane, as the holder lists none
    assertThat(s.stuckLanes()).isEqualTo(held.sources().get(0).stuckLanes()).isEmpty();
  }

  @Test
  void aRunningRetryIsStuckAndAFirstAttemptRunningThirtySecondsIsInFlight() {
    f.created("a", "b", "c", "d", "e");
    Instant now = f.clock.now();
    EffectCursor cursor = new EffectCursor("Rows", ORDERS, 0, null, Map.of(), now);
    Lease lease =
        f.effects.acquireEffectLease("Rows", "engine-1", Duration.ofSeconds(30), now).orElseThrow();
    f.effects.saveCursor(cursor, lease);
    // 1 done (a lane ran ahead of the saved watermark); 2 retrying after a failure for 43 s;
    // 3 on its first attempt for 31 s, its HTTP call re-sending; 4 on its first for 29 s;
    // 5 failed three times, due in 1.5 s.
    save(lease, 1, InvocationStatus.DONE, 1, null, null, now.minusSeconds(60));
    save(lease, 2, InvocationStatus.RUNNING, 2, "HTTP 503", null, now.minusSeconds(43));
    save(lease, 3, InvocationStatus.RUNNING, 1, "HTTP 503, re-sending", null, now.minusSeconds(31));
    save(lease, 4, InvocationStatus.RUNNING, 1, null, null, now.minusSeconds(29));
    save(lease, 5, InvocationStatus.FAILED, 3, "HTTP 400", now.plusMillis(1500), now);

    SourceStatus s = StoredStatus.of(f.store, f.effects, cursor, now);

    assertThat(s.position()).isZero();
    assertThat(s.head()).isEqualTo(5);
    assertThat(s.lag()).isEqualTo(5);
    assertThat(s.wedgedLanes()).isEqualTo(2);
    assertThat(s.stuckLanes())
        .containsExactly(
            new StuckLane("customer:2", 2, 2, "HTTP 503", 0, 43_000L),
            new StuckLane("customer:5", 5, 3, "HTTP 400", 1500, null));
    // each lane in one list: 2 is not in flight although it runs; 4 runs under 30 s
    assertThat(s.inFlightLanes())
        .containsExactly(new InFlightLane("customer:3", 3, 1, 31_000, "HTTP 503, re-sending"));
    // 1 is done, so the first incomplete position is 2
    assertThat(s.pinningPosition()).isEqualTo(2);
    assertThat(s.pinningKey()).isEqualTo("customer:2");
    assertThat(s.blocked()).isFalse();
  }

  @Test
  void theRuleCountsAFirstAttemptWithAReSendReasonAsNotStuck() {
    Instant now = f.clock.now();
    assertThat(StoredStatus.stuck(row(InvocationStatus.RUNNING, 1, "re-sending", now))).isFalse();
    assertThat(StoredStatus.stuck(row(InvocationStatus.RUNNING, 2, null, now))).isFalse();
    assertThat(StoredStatus.stuck(row(InvocationStatus.RUNNING, 2, "HTTP 503", now))).isTrue();
    assertThat(StoredStatus.stuck(row(InvocationStatus.FAILED, 1, "HTTP 503", now))).isTrue();
    assertThat(StoredStatus.stuck(row(InvocationStatus.DONE, 2, null, now))).isFalse();
  }

  private void save(
      Lease lease,
      long position,
      InvocationStatus status,
      int attempt,
      @Nullable String error,
      @Nullable Instant retryAt,
      Instant started) {
    f.effects.saveInvocation(
        new InvocationRow(
            "Rows",
            ORDERS,
            position,
            "customer:" + position,
            "created",
            status,
            attempt,
            error,
            retryAt,
            false,
            "1",
            started,
            started),
        lease);
  }

  private static InvocationRow row(
      InvocationStatus status, int attempt, @Nullable String error, Instant at) {
    return new InvocationRow(
        "Rows",
        ORDERS,
        1,
        "customer:1",
        "created",
        status,
        attempt,
        error,
        null,
        false,
        "1",
        at,
        at);
  }
}
