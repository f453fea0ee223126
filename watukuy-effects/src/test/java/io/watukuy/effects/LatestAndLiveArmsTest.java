package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.byCustomer;
import static io.watukuy.effects.EffectFixture.drain;
import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.EventType;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.spi.EffectRecord;
import io.watukuy.store.memory.MemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@code on latest} and {@code on live} arms (docs/effects.md, "Latest and live arms"). */
class LatestAndLiveArmsTest {
  private final EffectFixture<MemoryStore> f = EffectFixture.memory();
  private final List<Long> ran = new CopyOnWriteArrayList<>();
  private final Arm<Order> arm = (ctx, e) -> ran.add(e.sequence());

  private long collapsed(String effect) {
    return f.effects.loadEffect(effect).map(EffectRecord::latestCollapsed).orElse(0L);
  }

  private long watermark(String effect) {
    return f.effects.loadCursors(effect).get(0).watermark();
  }

  @Test
  void aBacklogOfOneHundredEventsOfOneKeyIsOneInvocationAtTheNewestAndTheWatermarkPassesAll() {
    for (int i = 0; i < 100; i++) f.created("a");
    Effects effects =
        f.effects(f.effect("Sync").onLatest(EventType.CREATED, arm, byCustomer()).build());
    drain(effects, "Sync");

    assertThat(ran).containsExactly(100L);
    assertThat(collapsed("Sync")).isEqualTo(99);
    assertThat(watermark("Sync")).isEqualTo(100);
    assertThat(effects.status("Sync").state()).isEqualTo(EffectState.OK);
    assertThat(effects.status("Sync").latestCollapsed()).isEqualTo(99);
    assertThat(f.row("Sync", 99)).isEmpty(); // a folded event leaves no row
  }

  @Test
  void eachLaneRunsOncePerReaderBatchAtItsNewestPosition() {
    f.created("a", "b", "a", "b", "a"); // batch 1: positions 1..3; batch 2: 4..5
    f.created("a");
    Effects effects =
        f.effects(
            f.effect("Sync").batchSize(3).onLatest(EventType.CREATED, arm, byCustomer()).build());
    drain(effects, "Sync");

    // batch 1 (1 a, 2 b, 3 a) → 2, 3; batch 2 (4 b, 5 a, 6 a) → 4, 6
    assertThat(ran).containsExactlyInAnyOrder(2L, 3L, 4L, 6L);
    assertThat(collapsed("Sync")).isEqualTo(2);
    assertThat(watermark("Sync")).isEqualTo(6);
  }

  @Test
  void aRestartBelowTheWatermarkNeitherRerunsNorRecountsFoldedEvents() {
    // 1 (b) fails and holds the watermark at 0; 2..4 (a) fold into 5, which completes.
    f.created("b", "a", "a", "a", "a");
    AtomicBoolean bFails = new AtomicBoolean(true);
    Arm<Order> failingB =
        (ctx, e) -> {
          if (e.data().customer().equals("b") && bFails.get()) throw new IllegalStateException();
          ran.add(e.sequence());
        };
    Effects first =
        f.effects(
            "engine-1",
            f.effect("Sync").onLatest(EventType.CREATED, failingB, byCustomer()).build());
    drain(first, "Sync");
    assertThat(ran).containsExactly(5L);
    assertThat(collapsed("Sync")).isEqualTo(3);
    assertThat(watermark("Sync")).isZero();
    first.close();

    // The next engine reads 1..5 again, cut into other batches: [1, 2], [3, 4], [5]. Each older
    // event of lane a is superseded by 5, which already ran: nothing runs again, nothing is
    // counted again.
    Effect<Order> sync =
        f.effect("Sync").batchSize(2).onLatest(EventType.CREATED, failingB, byCustomer()).build();
    Effects second = f.effects("engine-2", sync);
    drain(second, "Sync");
    assertThat(ran).containsExactly(5L);
    assertThat(collapsed("Sync")).isEqualTo(3);

    bFails.set(false);
    f.clock.advance(Duration.ofMinutes(2));
    drain(second, "Sync");
    assertThat(ran).containsExactly(5L, 1L);
    assertThat(collapsed("Sync")).isEqualTo(3);
    assertThat(watermark("Sync")).isEqualTo(5);
    second.close();
  }

  @Test
  void aRestartResumesAFailedNewestWithoutRunningTheEventsItFolded() {
    // 1 (b) fails and holds the watermark at 0; 2 and 3 (a) fold into 4, which fails too. The
    // restart must resume 4, not run 3 before it, and count 2 and 3 once.
    f.created("b", "a", "a", "a");
    AtomicBoolean fails = new AtomicBoolean(true);
    Arm<Order> failing =
        (ctx, e) -> {
          if ((e.sequence() == 1 || e.sequence() == 4) && fails.get())
            throw new IllegalStateException();
          ran.add(e.sequence());
        };
    Effect<Order> sync =
        f.effect("Sync").onLatest(EventType.CREATED, failing, byCustomer()).build();
    Effects first = f.effects("engine-1", sync);
    drain(first, "Sync");
    assertThat(ran).isEmpty();
    assertThat(collapsed("Sync")).isEqualTo(2);
    assertThat(watermark("Sync")).isZero();
    first.close();

    fails.set(false);
    f.clock.advance(Duration.ofMinutes(2));
    Effects second = f.effects("engine-2", sync);
    drain(second, "Sync");
    assertThat(ran).containsExactlyInAnyOrder(1L, 4L);
    assertThat(collapsed("Sync")).isEqualTo(2);
    assertThat(watermark("Sync")).isEqualTo(4);
    second.close();
  }

  @Test
  void historyBeforeTheFirstStartIsNotNewsAndTheBoundarySurvivesARestart() {
    f.created("a", "b", "c");
    Effect<Order> welcome =
        f.effect("Welcome").onLive(EventType.CREATED, arm, byCustomer()).build();
    Effects first = f.effects("engine-1", welcome);
    drain(first, "Welcome");
    assertThat(ran).isEmpty();
    assertThat(watermark("Welcome")).isEqualTo(3);
    assertThat(f.effects.loadCursors("Welcome").get(0).liveBoundary()).isEqualTo(3);

    f.created("d");
    drain(first, "Welcome");
    assertThat(ran).containsExactly(4L);
    first.close();

    // written while no engine ran: after the boundary, so news for the next engine
    f.created("e", "f");
    Effects second = f.effects("engine-2", welcome);
    drain(second, "Welcome");
    assertThat(ran).containsExactly(4L, 5L, 6L);
    assertThat(f.effects.loadCursors("Welcome").get(0).liveBoundary()).isEqualTo(3);
    second.close();
  }
}
