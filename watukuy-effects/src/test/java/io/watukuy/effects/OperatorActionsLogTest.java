package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.ORDERS;
import static io.watukuy.effects.EffectFixture.byCustomer;
import static io.watukuy.effects.EffectFixture.drain;
import static io.watukuy.effects.LogCapture.logged;
import static io.watukuy.effects.LogCapture.onlyLine;
import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.EventType;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.store.memory.MemoryStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the running engine logs of an operator's skip, quarantine and release (docs/effects.md,
 * "Skip", "States"): one line per action it honours or notices, on a memory store and a virtual
 * clock.
 */
class OperatorActionsLogTest {
  private final EffectFixture<MemoryStore> f = EffectFixture.memory();
  private final EffectFixture.FailingArm arm = new EffectFixture.FailingArm("down");

  private Effect<Order> notifyEffect() {
    return f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build();
  }

  private long watermark() {
    return f.effects.loadCursors("Notify").get(0).watermark();
  }

  @Test
  void aSkipThatFreesTheLowestPositionLogsTheWatermarkMoving() {
    f.created("a", "b");
    arm.failing.add(1L);
    Effects effects = f.effects(notifyEffect());
    drain(effects, "Notify"); // 1 failed (lane customer:a), 2 done: the watermark stays at 0
    assertThat(watermark()).isZero();

    assertThat(effects.skip("Notify", ORDERS, 1)).isTrue();
    List<String> lines = logged(() -> drain(effects, "Notify"));

    // 2 is done, so skipping 1 moves the watermark past both
    assertThat(watermark()).isEqualTo(2);
    assertThat(f.row("Notify", 1).orElseThrow().status()).isEqualTo(InvocationStatus.SKIPPED);
    assertThat(onlyLine(lines, "skipped by request"))
        .contains("INFO")
        .contains(
            "effect Notify on orders: position 1 in lane customer:a skipped by"
                + " request; the watermark moves from 0 to 2");
  }

  @Test
  void aRetryNowNamesItsPositionsAndARecoveredLaneSaysSo() {
    f.created("a", "b");
    arm.failing.add(1L);
    Effects effects = f.effects(notifyEffect());
    drain(effects, "Notify"); // 1 failed in lane customer:a, waiting 200 ms

    arm.failing.clear(); // the cause is fixed
    List<String> lines =
        logged(
            () -> {
              assertThat(effects.retryNow("Notify")).isEqualTo(1);
              drain(effects, "Notify");
            });

    assertThat(onlyLine(lines, "made due now"))
        .contains("effect Notify: 1 parked lane(s) made due now by request (position(s) [1])");
    assertThat(onlyLine(lines, "the lane runs on"))
        .contains("INFO")
        .contains("effect Notify on orders: position 1 in lane customer:a done at attempt 2");
    assertThat(watermark()).isEqualTo(2);
  }

  @Test
  void aSkipAboveAnotherFailedLaneLogsThatOnlyItsLaneWasReleased() {
    f.created("a", "b", "b");
    arm.failing.add(1L);
    arm.failing.add(2L);
    Effects effects = f.effects(notifyEffect());
    drain(effects, "Notify"); // 1 (lane a) and 2 (lane b) failed, 3 waits behind 2

    assertThat(effects.skip("Notify", ORDERS, 2)).isTrue();
    List<String> lines = logged(() -> drain(effects, "Notify"));

    assertThat(arm.ran).contains(3L); // lane b goes on
    assertThat(watermark()).isZero(); // held by 1, still failed
    assertThat(onlyLine(lines, "skipped by request"))
        .contains("INFO")
        .contains(
            "effect Notify on orders: position 2 in lane customer:b skipped by"
                + " request; only its lane was released, the watermark stays at 0"
                + " (held by position 1)");
  }

  @Test
  void aQuarantineAndAReleaseMadeOnTheStoreAreLoggedOnceEach() {
    f.created("a");
    Effects effects =
        f.builder("engine-1").secrets(List.of("s3cr3t-token")).add(notifyEffect()).build();
    drain(effects, "Notify");
    Instant since = f.clock.now();
    // as `watukuy effects quarantine` writes it while the daemon runs; a reason kept with a
    // secret in clear (as by a store written before the reason was redacted) is logged hidden
    f.effects.setQuarantine("Notify", "vendor down, token s3cr3t-token refused", since);
    f.created("b");

    List<String> quarantined =
        logged(
            () -> {
              for (int i = 0; i < 5; i++) {
                effects.run("Notify").pass();
                f.clock.advance(Duration.ofSeconds(1));
              }
            });
    assertThat(arm.ran).containsExactly(1L); // 2 is not dispatched while quarantined
    assertThat(quarantined.stream().filter(l -> l.contains("Notify")))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .contains("WARN")
                    .contains("effect Notify quarantined (since " + since + "): vendor down")
                    .doesNotContain("s3cr3t-token"));

    f.effects.setQuarantine("Notify", null, f.clock.now());
    List<String> released =
        logged(
            () -> {
              for (int i = 0; i < 5; i++) effects.run("Notify").pass();
            });
    assertThat(arm.ran).containsExactly(1L, 2L);
    assertThat(released.stream().filter(l -> l.contains("quarantin") || l.contains("released")))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .contains("INFO")
                    .contains(
                        "effect Notify released (it was quarantined since "
                            + since
                            + "): dispatching again"));
  }

  @Test
  void anEngineThatStartsWithAQuarantinedEffectSaysSoOnceWithHowToRelease() {
    Instant since = f.clock.now();
    f.effects.setQuarantine("Notify", "quarantined by an operator", since);
    f.clock.advance(Duration.ofHours(2));
    f.created("a");
    // readers that never run: start() itself must say it, before any pass
    Effects effects = f.builder("engine-1").readers(r -> {}).add(notifyEffect()).build();

    List<String> atStart = logged(effects::start);
    assertThat(atStart)
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .contains("WARN")
                    .contains("effect Notify starts quarantined (since " + since + ")")
                    .contains("quarantined by an operator")
                    .contains("watukuy effects release CONFIG Notify")
                    .contains("Effects.release"));

    List<String> passes = logged(() -> drain(effects, "Notify"));
    assertThat(passes).noneSatisfy(l -> assertThat(l).contains("quarantined"));
    assertThat(arm.ran).isEmpty();
  }

  @Test
  void anAutomaticQuarantineIsLoggedOnceNotAgainAsAChangeSeenInTheStore() {
    f.created("a", "b");
    arm.failing.add(1L);
    arm.failing.add(2L);
    Effects effects = f.builder("engine-1").quarantineAfter(2).add(notifyEffect()).build();

    List<String> lines =
        logged(
            () -> {
              for (int i = 0; i < 5; i++) {
                drain(effects, "Notify");
                f.clock.advance(Duration.ofSeconds(1));
              }
            });
    assertThat(effects.status("Notify").state()).isEqualTo(EffectState.QUARANTINED);
    assertThat(lines.stream().filter(l -> l.contains("quarantined")))
        .singleElement()
        .satisfies(l -> assertThat(l).contains("effect Notify quarantined: automatic: 2 failed"));
  }
}
