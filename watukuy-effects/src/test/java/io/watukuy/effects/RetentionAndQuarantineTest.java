package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.ORDERS;
import static io.watukuy.effects.EffectFixture.byCustomer;
import static io.watukuy.effects.EffectFixture.drain;
import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.EventType;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.Lease;
import io.watukuy.store.memory.MemoryStore;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hourly retention sweep and the automatic quarantine (docs/effects.md, "Retention", "Automatic
 * quarantine"), on a memory store and a virtual clock.
 */
class RetentionAndQuarantineTest {
  private final EffectFixture<MemoryStore> f = EffectFixture.memory();
  private final EffectFixture.FailingArm arm = new EffectFixture.FailingArm("down");
  private final Set<Long> failing = arm.failing;
  private final List<Long> ran = arm.ran;

  private Effect<Order> notifyEffect() {
    return f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build();
  }

  private boolean kept(long position) {
    return f.row("Notify", position).isPresent();
  }

  @Test
  void theHourlySweepDeletesOldCompletedInvocationsButNeverAboveThePersistedWatermark() {
    f.created("a", "b", "c", "d", "e");
    failing.add(3L);
    Effects effects = f.effects(notifyEffect()); // the first pass sweeps, the next an hour later
    drain(effects, "Notify");
    assertThat(f.effects.loadCursors("Notify").get(0).watermark()).isEqualTo(2);

    f.clock.advance(Duration.ofDays(7).minusMinutes(30));
    drain(effects, "Notify"); // sweeps: nothing is 7 days old yet
    f.clock.advance(Duration.ofMinutes(31));
    drain(effects, "Notify"); // 7 days and a minute: old enough, but the hour is not up
    assertThat(kept(1)).isTrue();

    f.clock.advance(Duration.ofMinutes(29));
    drain(effects, "Notify");
    assertThat(kept(1)).isFalse();
    assertThat(kept(2)).isFalse();
    // above the watermark 2: done, but still what tells the lanes apart
    assertThat(kept(3)).isTrue();
    assertThat(kept(4)).isTrue();
    assertThat(kept(5)).isTrue();
  }

  @Test
  void nothingIsSweptForAnEffectWithoutAPersistedWatermark() {
    // rows an engine wrote before any cursor of the effect was kept
    Lease lease =
        f.effects.acquireEffectLease("Notify", "old", Duration.ofMinutes(1), f.clock.now()).get();
    for (long p = 1; p <= 2; p++)
      f.effects.saveInvocation(
          new InvocationRow(
              "Notify",
              ORDERS,
              p,
              "customer:a",
              "created",
              InvocationStatus.DONE,
              1,
              null,
              null,
              false,
              "v1",
              f.clock.now(),
              f.clock.now()),
          lease);
    f.effects.releaseEffectLease("Notify", lease);
    f.clock.advance(Duration.ofDays(30));

    Effects effects = f.effects(notifyEffect());
    assertThat(effects.run("Notify").sweep(f.clock.now())).isZero();
    assertThat(kept(1)).isTrue();
    assertThat(kept(2)).isTrue();
  }

  @Test
  void nothingIsSweptWhileTheWatermarkIsStillAtZero() {
    f.created("a", "b");
    failing.add(1L);
    Effects effects = f.builder("engine-1").add(notifyEffect()).quarantineAfter(0).build();
    drain(effects, "Notify");
    assertThat(f.row("Notify", 2).orElseThrow().status()).isEqualTo(InvocationStatus.DONE);

    f.clock.advance(Duration.ofDays(8));
    drain(effects, "Notify"); // a sweep is due, and lane a fails once more
    assertThat(f.effects.loadCursors("Notify").get(0).watermark()).isZero();
    assertThat(kept(2)).isTrue();
  }

  @Test
  void aRunOfFailuresAcrossLanesQuarantinesTheEffectAndANewEngineKeepsItUntilReleased() {
    f.created("a", "b", "c");
    failing.addAll(List.of(1L, 2L, 3L));
    Effects effects = f.builder("engine-1").add(notifyEffect()).quarantineAfter(5).build();
    drain(effects, "Notify"); // 3 failures
    assertThat(effects.status("Notify").state()).isEqualTo(EffectState.WEDGED);
    f.clock.advance(Duration.ofMillis(200));
    drain(effects, "Notify"); // 3 more: the fifth trips it

    EffectStatus st = effects.status("Notify");
    assertThat(st.state()).isEqualTo(EffectState.QUARANTINED);
    assertThat(st.quarantineReason())
        .startsWith("automatic: 5 failed attempts in a row across 3 lanes with no success between")
        .contains("from position 1")
        .contains("IllegalStateException: down at");
    int attempts = ran.size();
    f.clock.advance(Duration.ofMinutes(10));
    drain(effects, "Notify");
    assertThat(ran).hasSize(attempts); // nothing dispatched
    effects.close();

    failing.clear();
    Effects next = f.builder("engine-2").add(notifyEffect()).quarantineAfter(5).build();
    drain(next, "Notify");
    assertThat(next.status("Notify").state()).isEqualTo(EffectState.QUARANTINED);
    assertThat(ran).hasSize(attempts);

    next.release("Notify");
    drain(next, "Notify");
    assertThat(next.status("Notify").state()).isEqualTo(EffectState.OK);
    assertThat(next.status("Notify").position()).isEqualTo(3);
    next.close();
  }

  @Test
  void aQuarantineReasonIsStoredWithTheSecretsHidden() {
    Effects effects =
        f.builder("engine-1").secrets(List.of("crm-T0ken-5f1c9a")).add(notifyEffect()).build();
    effects.quarantine("Notify", "the CRM refuses crm-T0ken-5f1c9a");

    assertThat(f.effects.loadEffect("Notify").orElseThrow().quarantineReason())
        .isEqualTo("the CRM refuses [redacted]");
  }

  @Test
  void aRunOfTerminalFailuresQuarantinesTheEffectNamingTheLastTerminalError() {
    // an arm that can never succeed, as a template pointing at a field no event has
    f.created("a", "b", "a", "b", "a", "b");
    String typo = "effect Notify: the created event has no value at /item/custmer";
    Arm<Order> broken =
        (ctx, e) -> {
          ran.add(e.sequence());
          throw ctx.fail(typo);
        };
    Effect<Order> notify = f.effect("Notify").on(EventType.CREATED, broken, byCustomer()).build();
    Effects effects = f.builder("engine-1").add(notify).quarantineAfter(3).build();
    // 1 and 2, then 3 and 4 handed over together: the third terminal failure trips it, and 4,
    // not started yet, goes back to its lane instead of running after the quarantine
    drain(effects, "Notify");

    EffectStatus st = effects.status("Notify");
    assertThat(st.state()).isEqualTo(EffectState.QUARANTINED);
    assertThat(st.quarantineReason())
        .startsWith(
            "automatic: 3 failed attempts in a row (3 of them terminal) across 2 lanes with no"
                + " success between, from position 1 at ")
        .contains("to position 3 at ")
        .endsWith("; the last (terminal): " + typo);
    assertThat(ran).containsExactly(1L, 2L, 3L);
    assertThat(st.terminalSkips()).isEqualTo(3);
    f.clock.advance(Duration.ofMinutes(10));
    drain(effects, "Notify");
    assertThat(ran).hasSize(3); // 4, 5 and 6 wait for the fix
    effects.close();

    Effects fixed = f.builder("engine-2").add(notifyEffect()).quarantineAfter(3).build();
    fixed.release("Notify");
    drain(fixed, "Notify");
    assertThat(ran).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
    assertThat(fixed.status("Notify").state()).isEqualTo(EffectState.OK);
    assertThat(fixed.status("Notify").position()).isEqualTo(6);
    fixed.close();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void invocationsHandedToThePoolBeforeTheQuarantineTripsGoBackToTheirLanesUnstarted() {
    // 100 customers, each its own lane, all dispatched at once to a pool that has not started any
    String[] customers = new String[100];
    for (int i = 0; i < customers.length; i++) customers[i] = "c" + i;
    f.created(customers);
    Deque<Runnable> pool = new ArrayDeque<>();
    Arm<Order> refused =
        (ctx, e) -> {
          ran.add(e.sequence());
          throw ctx.fail("HTTP 400 from the CRM");
        };
    Effect<Order> notify = f.effect("Notify").on(EventType.CREATED, refused, byCustomer()).build();
    Effects effects =
        Effects.builder(f.store)
            .time(f.clock)
            .workers(pool::add)
            .instanceId("engine-1")
            .add(notify)
            .quarantineAfter(10)
            .build();

    List<String> log =
        LogCapture.logged(
            () -> {
              effects.run("Notify").pass(); // reads all 100 and hands them to the pool
              assertThat(pool).hasSize(100);
              while (!pool.isEmpty()) pool.poll().run();
              drain(effects, "Notify");
            });

    // the tenth failure trips it; the 90 the pool still held never ran and were not completed
    assertThat(ran).hasSize(10);
    EffectStatus st = effects.status("Notify");
    assertThat(st.state()).isEqualTo(EffectState.QUARANTINED);
    assertThat(st.terminalSkips()).isEqualTo(10);
    assertThat(st.position()).isEqualTo(10);
    assertThat(st.lag()).isEqualTo(90);
    assertThat(log.stream().filter(l -> l.contains("effect Notify quarantined: automatic")))
        .hasSize(1);

    effects.release("Notify");
    effects.run("Notify").pass();
    assertThat(pool).hasSize(90); // the rest run once released
    while (!pool.isEmpty()) pool.poll().run();
    assertThat(ran).hasSize(20); // ten more refused, and the quarantine trips again
    effects.close();
  }

  @Test
  void aSuccessBetweenTerminalFailuresStartsTheRunOver() {
    f.created("a", "b", "c", "d", "e");
    Arm<Order> odd =
        (ctx, e) -> {
          ran.add(e.sequence());
          if (e.sequence() % 2 == 1) throw ctx.fail("odd " + e.sequence());
        };
    Effects effects =
        f.builder("engine-1")
            .add(f.effect("Notify").on(EventType.CREATED, odd, byCustomer()).build())
            .quarantineAfter(2)
            .build();
    drain(effects, "Notify"); // terminal, done, terminal, done, terminal: never two in a row
    assertThat(ran).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(effects.status("Notify").state()).isEqualTo(EffectState.OK);
    assertThat(effects.status("Notify").terminalSkips()).isEqualTo(3);
  }

  @Test
  void aSuccessStartsTheRunOfFailuresOver() {
    f.created("a", "b", "c");
    failing.addAll(List.of(1L, 3L));
    Effects effects = f.builder("engine-1").add(notifyEffect()).quarantineAfter(2).build();
    drain(effects, "Notify"); // failed, done, failed: a run of one, not two
    assertThat(effects.status("Notify").state()).isEqualTo(EffectState.WEDGED);
  }
}
