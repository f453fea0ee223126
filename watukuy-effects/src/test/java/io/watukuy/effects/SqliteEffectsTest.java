package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.ORDERS;
import static io.watukuy.effects.EffectFixture.byCustomer;
import static io.watukuy.effects.EffectFixture.drain;
import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.EventType;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime on a SQL store (SQLite, a file per test): the watermark, skip and journal replay
 * across engines hold where rows go through SQL, not only in memory.
 */
class SqliteEffectsTest {
  @TempDir Path dir;
  private EffectFixture<SqliteStore> f;
  private final Map<String, Integer> fired = new ConcurrentHashMap<>();

  @BeforeEach
  void open() {
    f = new EffectFixture<>(SqliteStore.open(dir.resolve("effects.db")));
  }

  @AfterEach
  void close() {
    f.store.close();
  }

  @Test
  void aWedgeHoldsTheWatermarkASkipOfThePinningPositionMovesItAndANewEngineResumesThere() {
    f.created("a", "b", "c", "d", "e");
    AtomicBoolean broken = new AtomicBoolean(true);
    Arm<Order> arm =
        (ctx, e) -> {
          fired.merge("run" + e.sequence(), 1, Integer::sum);
          if (broken.get() && e.sequence() == 3) throw new IllegalStateException("boom");
        };
    Effects first = f.effects(f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build());
    drain(first, "Notify");
    SourceStatus s = first.status("Notify").sources().get(0);
    assertThat(s.position()).isEqualTo(2);
    assertThat(s.lag()).isEqualTo(3);
    assertThat(f.effects.loadCursors("Notify").get(0).watermark()).isEqualTo(2);

    assertThat(first.skip("Notify", ORDERS, 4)).isFalse(); // done, not failed
    assertThat(first.skip("Notify", ORDERS, 3)).isTrue();
    drain(first, "Notify");
    assertThat(f.row("Notify", 3).orElseThrow().status()).isEqualTo(InvocationStatus.SKIPPED);
    assertThat(f.effects.loadCursors("Notify").get(0).watermark()).isEqualTo(5);
    first.run("Notify").stop();

    f.created("f");
    Effects second =
        f.effects("engine-2", f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build());
    drain(second, "Notify");
    assertThat(fired)
        .isEqualTo(Map.of("run1", 1, "run2", 1, "run3", 1, "run4", 1, "run5", 1, "run6", 1));
    assertThat(second.status("Notify").position()).isEqualTo(6);
  }

  @Test
  void afterACrashAfterTheSecondOfThreeCallsOnlyTheThirdFires() {
    f.created("a");
    AtomicBoolean crash = new AtomicBoolean(true);
    Arm<Order> arm =
        (ctx, e) -> {
          ctx.call("charge", Map.of("order", e.identity()), String.class, () -> fire("charge"));
          ctx.call("email", e.data().customer(), String.class, () -> fire("email"));
          ctx.call(
              "crm",
              e.data().customer(),
              String.class,
              () -> {
                if (crash.get()) throw new IllegalStateException("process killed");
                return fire("crm");
              });
        };
    Effects first = f.effects(f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build());
    drain(first, "Notify");
    first.run("Notify").stop();
    crash.set(false);
    Effects second =
        f.effects("engine-2", f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build());
    f.clock.advance(Duration.ofMillis(200));
    drain(second, "Notify");
    assertThat(fired).isEqualTo(Map.of("charge", 1, "email", 1, "crm", 1));
    assertThat(f.row("Notify", 1).orElseThrow().status()).isEqualTo(InvocationStatus.DONE);
  }

  @Test
  void theLiveBoundaryIsKeptInTheCursorTableForTheNextEngine() {
    f.created("a", "b");
    Arm<Order> arm = (ctx, e) -> fired.merge("run" + e.sequence(), 1, Integer::sum);
    Effects first =
        f.effects(f.effect("Welcome").onLive(EventType.CREATED, arm, byCustomer()).build());
    drain(first, "Welcome");
    first.close();
    assertThat(fired).isEmpty(); // history at the first start

    f.created("c", "d"); // while no engine runs: news
    Effects second =
        f.effects(
            "engine-2", f.effect("Welcome").onLive(EventType.CREATED, arm, byCustomer()).build());
    drain(second, "Welcome");
    assertThat(fired).isEqualTo(Map.of("run3", 1, "run4", 1));
    assertThat(f.effects.loadCursors("Welcome").get(0).liveBoundary()).isEqualTo(2);
    second.close();
  }

  private String fire(String call) {
    return call + "#" + fired.merge(call, 1, Integer::sum);
  }
}
