package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.byCustomer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.EventType;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.store.memory.MemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The started runtime (docs/effects.md, "The model"): a reader thread per effect and a shared
 * worker pool, woken by finished invocations and by its poll timer on the injected clock. The waits
 * here are for real threads, bounded, never sleeps.
 */
class EffectsThreadsTest {
  private final EffectFixture<MemoryStore> f = EffectFixture.memory();

  @Test
  void aStartedEffectRunsOnThePoolPicksUpNewEventsOnItsTimerAndCloseGivesItsLeaseUp()
      throws Exception {
    f.created("a");
    LinkedBlockingQueue<Long> ran = new LinkedBlockingQueue<>();
    List<String> threads = new CopyOnWriteArrayList<>();
    Effect<Order> effect =
        f.effect("Notify")
            .on(
                EventType.CREATED,
                (ctx, e) -> {
                  threads.add(Thread.currentThread().getName());
                  ran.add(e.sequence());
                },
                byCustomer())
            .build();
    Effects effects =
        Effects.builder(f.store)
            .time(f.clock)
            .poolSize(1)
            .instanceId("engine-1")
            .add(effect)
            .build();
    effects.start();
    assertThat(ran.poll(10, TimeUnit.SECONDS)).isEqualTo(1L);
    assertThat(threads).containsExactly("watukuy-effect-worker-1");
    assertThat(f.effects.effectLease("Notify"))
        .hasValueSatisfying(l -> assertThat(l.owner()).isEqualTo("engine-1"));

    // a new event is seen when the poll timer fires on the virtual clock
    f.created("b");
    Long next = null;
    for (int i = 0; i < 100 && next == null; i++) {
      f.clock.advance(Effects.DEFAULT_POLL_INTERVAL);
      next = ran.poll(100, TimeUnit.MILLISECONDS);
    }
    assertThat(next).isEqualTo(2L);

    effects.close();
    assertThat(f.effects.effectLease("Notify")).isEmpty();
    assertThat(effects.status("Notify").running()).isFalse();
    assertThatThrownBy(effects::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("effects are closed");
    assertThat(Duration.ofSeconds(30)).isEqualTo(Effects.SHUTDOWN_WAIT);
  }

  @Test
  void aWedgedLaneHoldsNoWorkerSoOtherLanesRunEvenWithAPoolOfOne() throws Exception {
    f.created("a", "b", "c");
    LinkedBlockingQueue<Long> done = new LinkedBlockingQueue<>();
    Effect<Order> effect =
        f.effect("Notify")
            .on(
                EventType.CREATED,
                (ctx, e) -> {
                  if (e.sequence() == 1) throw new IllegalStateException("vendor down");
                  done.add(e.sequence());
                },
                byCustomer())
            .build();
    try (Effects effects = Effects.builder(f.store).time(f.clock).poolSize(1).add(effect).build()) {
      effects.start();
      assertThat(done.poll(10, TimeUnit.SECONDS)).isEqualTo(2L);
      assertThat(done.poll(10, TimeUnit.SECONDS)).isEqualTo(3L);
    }
    assertThat(f.row("Notify", 1).orElseThrow().status())
        .isEqualTo(io.watukuy.spi.InvocationStatus.FAILED);
  }
}
