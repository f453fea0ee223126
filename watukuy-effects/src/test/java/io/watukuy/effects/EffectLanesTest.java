package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.ORDERS;
import static io.watukuy.effects.EffectFixture.byCustomer;
import static io.watukuy.effects.EffectFixture.drain;
import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.Cursors;
import io.watukuy.EventLog;
import io.watukuy.EventType;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.store.memory.MemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Lanes, the low-water mark, backoff, skip, terminal failures and states (docs/effects.md,
 * "Position", "States", "Skip", "Terminal failures"), on a memory store and a virtual clock.
 */
class EffectLanesTest {
  private final EffectFixture<MemoryStore> f = EffectFixture.memory();
  private final EffectFixture.FailingArm arm = new EffectFixture.FailingArm("boom");
  private final Set<Long> failing = arm.failing;
  private final List<Long> ran = arm.ran;

  private Effects notify(Key<Order> key) {
    return f.effects(f.effect("Notify").on(EventType.CREATED, arm, key).build());
  }

  private InvocationStatus status(long position) {
    return f.row("Notify", position).map(InvocationRow::status).orElse(null);
  }

  @Test
  void aWedgeAtThreeReadsPositionTwoAndLagThreeWithFourAndFiveDone() {
    f.created("a", "b", "c", "d", "e");
    failing.add(3L);
    Effects effects = notify(byCustomer());
    drain(effects, "Notify");

    EffectStatus st = effects.status("Notify");
    SourceStatus s = st.sources().get(0);
    assertThat(s.position()).isEqualTo(2);
    assertThat(s.lag()).isEqualTo(3);
    assertThat(s.head()).isEqualTo(5);
    assertThat(status(4)).isEqualTo(InvocationStatus.DONE);
    assertThat(status(5)).isEqualTo(InvocationStatus.DONE);
    assertThat(status(3)).isEqualTo(InvocationStatus.FAILED);
    assertThat(st.state()).isEqualTo(EffectState.WEDGED);
    assertThat(s.wedgedLanes()).isEqualTo(1);
    assertThat(s.pinningKey()).isEqualTo("customer:c");
    assertThat(s.pinningPosition()).isEqualTo(3);
    assertThat(s.stuckLanes())
        .containsExactly(
            new StuckLane("customer:c", 3, 1, "IllegalStateException: boom at 3", 200));
    // the watermark is persisted: 2, not 5
    assertThat(f.effects.loadCursors("Notify").get(0).watermark()).isEqualTo(2);
  }

  @Test
  void theLagCountsTheWholeBacklogBeyondTheReadAhead() {
    int readAhead = 4;
    int backlog = 7;
    for (int i = 0; i < readAhead + backlog; i++) f.created("c");
    failing.add(1L);
    Effects effects =
        f.effects(
            f.effect("Notify")
                .on(EventType.CREATED, arm, byCustomer())
                .batchSize(2)
                .readAhead(readAhead)
                .build());
    drain(effects, "Notify");

    // The reader holds only positions 1..4 (one lane, wedged at 1), but the log's head is 11:
    // the store's lastSequence of the key is the sequence of its last logged event.
    long logHead = readAhead + backlog;
    assertThat(f.store.readLog(ORDERS, LogRange.after(logHead - 1), 10))
        .extracting(LoggedEvent::sequence)
        .containsExactly(logHead);
    assertThat(f.store.loadState(ORDERS).orElseThrow().lastSequence()).isEqualTo(logHead);
    assertThat(ran).containsOnly(1L);
    SourceStatus s = effects.status("Notify").sources().get(0);
    assertThat(s.position()).isZero();
    assertThat(s.head()).isEqualTo(logHead);
    assertThat(s.lag()).isEqualTo(logHead);
    assertThat(effects.status("Notify").state()).isEqualTo(EffectState.WEDGED);
  }

  @Test
  void aFailedLaneParksUntilItsBackoffDoublingFrom200msAndThenRunsAgain() {
    f.created("a");
    failing.add(1L);
    Effects effects = notify(byCustomer());
    drain(effects, "Notify");
    assertThat(ran).containsExactly(1L);

    f.clock.advance(Duration.ofMillis(199));
    drain(effects, "Notify");
    assertThat(ran).containsExactly(1L); // not yet due

    f.clock.advance(Duration.ofMillis(1));
    drain(effects, "Notify");
    assertThat(ran).containsExactly(1L, 1L);
    assertThat(f.row("Notify", 1).orElseThrow().attempt()).isEqualTo(2);
    assertThat(effects.status("Notify").sources().get(0).stuckLanes().get(0).retryInMs())
        .isEqualTo(400);

    failing.clear();
    f.clock.advance(Duration.ofMillis(400));
    drain(effects, "Notify");
    assertThat(status(1)).isEqualTo(InvocationStatus.DONE);
    assertThat(effects.status("Notify").state()).isEqualTo(EffectState.OK);
    assertThat(effects.status("Notify").position()).isEqualTo(1);
  }

  @Test
  void theBackoffIsCappedAt60Seconds() {
    assertThat(io.watukuy.effects.internal.EffectRun.BACKOFF.cap(1)).hasMillis(200);
    assertThat(io.watukuy.effects.internal.EffectRun.BACKOFF.cap(9)).hasMillis(51_200);
    assertThat(io.watukuy.effects.internal.EffectRun.BACKOFF.cap(10)).hasSeconds(60);
    assertThat(io.watukuy.effects.internal.EffectRun.BACKOFF.cap(1000)).hasSeconds(60);
  }

  @Test
  void oneLaneRunsInLogOrderAndWaitsBehindItsFailedHeadWhileOtherLanesGoOn() {
    f.created("a", "b", "a", "b");
    failing.add(1L);
    Effects effects = notify(byCustomer());
    drain(effects, "Notify");
    assertThat(ran).containsExactly(1L, 2L, 4L);
    assertThat(status(3)).isNull(); // queued behind 1 in lane customer:a
  }

  @Test
  void aSkipOfAPositionThatHasNotFailedIsRefused() {
    f.created("a", "b", "c");
    failing.add(1L);
    Effects effects = notify(byCustomer());
    drain(effects, "Notify");

    assertThat(effects.skip("Notify", ORDERS, 2)).isFalse(); // done
    assertThat(effects.skip("Notify", ORDERS, 9)).isFalse(); // never read
    assertThat(f.row("Notify", 2).orElseThrow().skipRequested()).isFalse();
    drain(effects, "Notify");
    assertThat(status(1)).isEqualTo(InvocationStatus.FAILED);
    assertThat(effects.status("Notify").position()).isZero();
  }

  @Test
  void aSkipOfAStuckLanesPositionReleasesOnlyThatLaneAndOfThePinningPositionMovesTheWatermark() {
    // lane a wedged at 2 (the pinning position), lane b wedged at 4 with 5 queued behind it
    f.created("x", "a", "c", "b", "b");
    failing.addAll(Set.of(2L, 4L));
    Effects effects = notify(byCustomer());
    drain(effects, "Notify");
    assertThat(effects.status("Notify").sources().get(0).wedgedLanes()).isEqualTo(2);

    assertThat(effects.skip("Notify", ORDERS, 4)).isTrue();
    drain(effects, "Notify");
    assertThat(status(4)).isEqualTo(InvocationStatus.SKIPPED);
    assertThat(status(5)).isEqualTo(InvocationStatus.DONE);
    SourceStatus s = effects.status("Notify").sources().get(0);
    assertThat(s.position()).isEqualTo(1); // still pinned by 2
    assertThat(s.wedgedLanes()).isEqualTo(1);
    assertThat(s.pinningPosition()).isEqualTo(2);
    assertThat(ran.stream().filter(p -> p == 4L).count()).isEqualTo(1);

    assertThat(effects.skip("Notify", ORDERS, 2)).isTrue();
    drain(effects, "Notify");
    assertThat(status(2)).isEqualTo(InvocationStatus.SKIPPED);
    s = effects.status("Notify").sources().get(0);
    assertThat(s.position()).isEqualTo(5);
    assertThat(s.lag()).isZero();
    assertThat(effects.status("Notify").state()).isEqualTo(EffectState.OK);
    assertThat(f.effects.loadCursors("Notify").get(0).watermark()).isEqualTo(5);
    // a skip completes: position 2's arm is not run again
    assertThat(ran.stream().filter(p -> p == 2L).count()).isEqualTo(1);
  }

  @Test
  void aTerminalFailureCompletesThePositionCountsItAndKeepsItsMessageEvenWhenCaught() {
    f.created("a", "b");
    Arm<Order> refusing =
        (ctx, e) -> {
          if (e.sequence() == 1) throw ctx.fail("customer a has no address");
          try {
            ctx.fail("customer b is closed");
          } catch (TerminalFailure swallowed) {
            // an arm that catches it still ends terminal
          }
        };
    Effects effects =
        f.effects(f.effect("Notify").on(EventType.CREATED, refusing, byCustomer()).build());
    drain(effects, "Notify");

    assertThat(status(1)).isEqualTo(InvocationStatus.TERMINAL);
    assertThat(status(2)).isEqualTo(InvocationStatus.TERMINAL);
    assertThat(f.row("Notify", 1).orElseThrow().error()).isEqualTo("customer a has no address");
    EffectStatus st = effects.status("Notify");
    assertThat(st.terminalSkips()).isEqualTo(2);
    assertThat(st.lastTerminalError()).isEqualTo("customer b is closed");
    assertThat(st.position()).isEqualTo(2);
    assertThat(st.state()).isEqualTo(EffectState.OK);
  }

  @Test
  void theEnginesSecretsNeverReachTheRowOrTheStatus() {
    f.created("a", "b");
    Arm<Order> leaky =
        (ctx, e) -> {
          if (e.sequence() == 1)
            throw new IllegalStateException("GET https://crm.example/x?t=s3cr3t-token failed");
          throw ctx.fail("refused with key s3cr3t-token");
        };
    Effects effects =
        f.builder("engine-1")
            .secrets(List.of("s3cr3t-token"))
            .add(f.effect("Notify").on(EventType.CREATED, leaky, byCustomer()).build())
            .build();
    drain(effects, "Notify");
    assertThat(f.row("Notify", 1).orElseThrow().error())
        .isEqualTo("IllegalStateException: GET https://crm.example/x?t=[redacted] failed");
    assertThat(f.row("Notify", 2).orElseThrow().error()).isEqualTo("refused with key [redacted]");
    assertThat(effects.status("Notify").lastTerminalError())
        .isEqualTo("refused with key [redacted]");
    assertThat(effects.status("Notify").toString()).doesNotContain("s3cr3t");
  }

  @Test
  void anEventWhoseKeyFailsBelongsToNoLaneAndPinsTheWatermarkWithANullPinningKey() {
    f.created("a", "b");
    Key<Order> key =
        Key.of("customer", e -> e.data().customer().equals("a") ? null : e.data().customer());
    Effects effects = notify(key);
    drain(effects, "Notify");

    SourceStatus s = effects.status("Notify").sources().get(0);
    assertThat(s.pinningPosition()).isEqualTo(1);
    assertThat(s.pinningKey()).isNull();
    assertThat(s.stuckLanes().get(0).lane()).isNull();
    assertThat(s.stuckLanes().get(0).error())
        .contains("key 'customer' of the created arm failed")
        .contains("returned null");
    assertThat(ran).containsExactly(2L);
  }

  @Test
  void eventsOfATypeWithoutAnArmPassTheWatermarkWithoutAnInvocation() {
    f.append(EventType.UPDATED, "o1", "a");
    f.append(EventType.CREATED, "o2", "b");
    f.append(EventType.DELETED, "o1", "a");
    Effects effects = notify(byCustomer());
    drain(effects, "Notify");
    assertThat(ran).containsExactly(2L);
    assertThat(status(1)).isNull();
    assertThat(effects.status("Notify").position()).isEqualTo(3);
  }

  @Test
  void aQuarantinedEffectDispatchesNothingUntilReleasedAndAQuarantineOutranksAWedge() {
    f.created("a", "b");
    failing.add(1L);
    Effects effects = notify(byCustomer());
    drain(effects, "Notify");
    effects.quarantine("Notify", "operator: vendor outage");
    f.created("c");
    f.clock.advance(Duration.ofSeconds(1));
    drain(effects, "Notify");
    assertThat(ran).containsExactly(1L, 2L);
    EffectStatus st = effects.status("Notify");
    assertThat(st.state()).isEqualTo(EffectState.QUARANTINED);
    assertThat(st.quarantineReason()).isEqualTo("operator: vendor outage");

    // a new engine on the same store sees it too
    effects.run("Notify").stop();
    Effects next = notify(byCustomer());
    drain(next, "Notify");
    assertThat(ran).containsExactly(1L, 2L);
    assertThat(next.status("Notify").state()).isEqualTo(EffectState.QUARANTINED);

    failing.clear();
    next.release("Notify");
    drain(next, "Notify");
    assertThat(ran).containsExactly(1L, 2L, 1L, 3L);
    assertThat(next.status("Notify").state()).isEqualTo(EffectState.OK);
  }

  @Test
  void aSecondEngineRunsNothingWhileTheFirstHoldsTheLeaseAndTakesOverWhenItIsGiven() {
    f.created("a");
    Effects first = notify(byCustomer());
    Effects second =
        f.effects("engine-2", f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build());
    drain(first, "Notify");
    f.created("b");
    drain(second, "Notify");
    assertThat(ran).containsExactly(1L);
    assertThat(second.status("Notify").running()).isFalse();

    first.run("Notify").stop();
    drain(second, "Notify");
    assertThat(ran).containsExactly(1L, 2L);
    assertThat(second.status("Notify").running()).isTrue();
  }

  @Test
  void anEngineWhoseLeaseExpiredAndWasTakenStopsAndItsWritesAreFenced() {
    f.created("a");
    failing.add(1L);
    Effects first = notify(byCustomer());
    drain(first, "Notify");
    assertThat(first.status("Notify").running()).isTrue();

    f.clock.advance(Duration.ofSeconds(31)); // the first engine stalled past its lease
    Effects second =
        f.effects("engine-2", f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build());
    failing.clear();
    drain(second, "Notify");
    assertThat(status(1)).isEqualTo(InvocationStatus.DONE);

    drain(first, "Notify"); // its renewal fails: it stops without running anything
    assertThat(first.status("Notify").running()).isFalse();
    assertThat(ran).containsExactly(1L, 1L);
    assertThat(f.effects.effectLease("Notify").orElseThrow().owner()).isEqualTo("engine-2");
  }

  @Test
  void aPartitionedSourceHasAWatermarkAndLanesPerPartition() {
    Poller<Order> regional =
        Poller.builder("orders", Order.class)
            .identity(Order::id)
            .cursor(Cursors.token())
            .fetch(ctx -> Page.empty())
            .partitions(List.of("eu", "us"))
            .log(EventLog.keep(Duration.ofDays(7)))
            .build();
    PollerKey eu = PollerKey.of("orders", "eu");
    PollerKey us = PollerKey.of("orders", "us");
    f.append(eu, EventType.CREATED, "o1", "a");
    f.append(eu, EventType.CREATED, "o2", "b");
    f.append(us, EventType.CREATED, "o3", "a"); // the same customer, another partition's lane
    Arm<Order> euFirstFails =
        (ctx, e) -> {
          if (e.partition().equals("eu") && e.sequence() == 1)
            throw new IllegalStateException("eu vendor down");
        };
    Effects effects =
        f.effects(
            Effect.builder("Notify")
                .source(regional)
                .on(EventType.CREATED, euFirstFails, byCustomer())
                .build());
    drain(effects, "Notify");

    List<SourceStatus> sources = effects.status("Notify").sources();
    assertThat(sources).extracting(SourceStatus::source).containsExactly(eu, us);
    assertThat(sources).extracting(SourceStatus::position).containsExactly(0L, 1L);
    assertThat(sources).extracting(SourceStatus::lag).containsExactly(2L, 0L);
    assertThat(f.effects.lowestWatermark(eu)).hasValue(0);
    assertThat(f.effects.lowestWatermark(us)).hasValue(1);
  }

  @Test
  void withoutAnyEventTheEffectPersistsAWatermarkOfZeroSoTheLogIsHeldForIt() {
    Effects effects = notify(byCustomer());
    drain(effects, "Notify");
    assertThat(f.effects.lowestWatermark(ORDERS)).hasValue(0);
    assertThat(effects.status("Notify").state()).isEqualTo(EffectState.OK);
  }
}
