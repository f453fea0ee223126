package io.watukuy.effects;

import static io.watukuy.effects.EffectFixture.ORDERS;
import static io.watukuy.effects.EffectFixture.byCustomer;
import static io.watukuy.effects.EffectFixture.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.EventType;
import io.watukuy.effects.EffectFixture.Order;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.JournalEntry;
import io.watukuy.spi.Lease;
import io.watukuy.store.memory.MemoryStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * docs/effects.md, "The journal": a journaled call that completed is never made again, across a
 * restart and across an edit of the arm. The restart here is an engine stopped and a new one on the
 * same store.
 */
class JournalReplayTest {
  private final EffectFixture<MemoryStore> f = EffectFixture.memory();
  private final Map<String, Integer> fired = new ConcurrentHashMap<>();
  private final AtomicBoolean crashAtThird = new AtomicBoolean(true);
  private final Map<Integer, String> receipts = new ConcurrentHashMap<>();

  private String fire(String call) {
    int n = fired.merge(call, 1, Integer::sum);
    return call + "#" + n;
  }

  private Effect<Order> effect(Arm<Order> arm) {
    return f.effect("Notify").on(EventType.CREATED, arm, byCustomer()).build();
  }

  /** First run: two calls complete, the process dies during the third; then a second engine. */
  private Effects crashAfterTwoCallsThenRestart(Arm<Order> before, Arm<Order> after) {
    f.created("a");
    Effects first = f.effects(effect(before));
    drain(first, "Notify");
    assertThat(fired).isEqualTo(Map.of("charge", 1, "email", 1));
    first.run("Notify").stop();

    crashAtThird.set(false);
    Effects second = f.effects("engine-2", effect(after));
    f.clock.advance(Duration.ofMillis(200)); // the failed attempt's backoff
    drain(second, "Notify");
    return second;
  }

  private final Arm<Order> threeCalls =
      (ctx, e) -> {
        String receipt =
            ctx.call("charge", Map.of("order", e.identity()), String.class, () -> fire("charge"));
        receipts.put(ctx.attempt(), receipt);
        ctx.call("email", e.data().customer(), String.class, () -> fire("email"));
        ctx.call(
            "crm",
            List.of(e.data().customer(), receipt),
            String.class,
            () -> {
              if (crashAtThird.get()) throw new IllegalStateException("process killed");
              return fire("crm");
            });
      };

  @Test
  void afterACrashAfterTheSecondOfThreeCallsOnlyTheThirdFires() {
    Effects second = crashAfterTwoCallsThenRestart(threeCalls, threeCalls);
    assertThat(fired).isEqualTo(Map.of("charge", 1, "email", 1, "crm", 1));
    assertThat(f.row("Notify", 1).orElseThrow().status()).isEqualTo(InvocationStatus.DONE);
    assertThat(f.row("Notify", 1).orElseThrow().attempt()).isEqualTo(2);
    assertThat(f.effects.listJournal("Notify", ORDERS, 1, 0, 10))
        .extracting(JournalEntry::label, JournalEntry::result)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("charge", "\"charge#1\""),
            org.assertj.core.groups.Tuple.tuple("email", "\"email#1\""),
            org.assertj.core.groups.Tuple.tuple("crm", "\"crm#1\""));
    assertThat(second.status("Notify").position()).isEqualTo(1);
  }

  @Test
  void
      aProcessKilledInItsThirdCallLeavesItRunningTheNextEngineFiresOnlyTheThirdAndTheDeadOneIsFenced()
          throws Exception {
    f.created("a");
    CountDownLatch inThird = new CountDownLatch(1);
    CountDownLatch killed = new CountDownLatch(1);
    AtomicBoolean firstProcess = new AtomicBoolean(true);
    Arm<Order> arm =
        (ctx, e) -> {
          ctx.call("charge", Map.of("order", e.identity()), String.class, () -> fire("charge"));
          ctx.call("email", e.data().customer(), String.class, () -> fire("email"));
          ctx.call(
              "crm",
              e.data().customer(),
              String.class,
              () -> {
                if (firstProcess.get()) {
                  inThird.countDown();
                  killed.await(); // the process is frozen here, then gone
                  throw new IllegalStateException("killed");
                }
                return fire("crm");
              });
        };
    ExecutorService deadProcess = Executors.newSingleThreadExecutor();
    try {
      Effects first =
          Effects.builder(f.store)
              .time(f.clock)
              .workers(deadProcess)
              .instanceId("engine-1")
              .add(effect(arm))
              .build();
      first.run("Notify").pass();
      assertThat(inThird.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(f.row("Notify", 1).orElseThrow().status()).isEqualTo(InvocationStatus.RUNNING);

      f.clock.advance(Duration.ofSeconds(31)); // the dead engine's lease expires
      firstProcess.set(false);
      Effects second = f.effects("engine-2", effect(arm));
      drain(second, "Notify");
      assertThat(fired).isEqualTo(Map.of("charge", 1, "email", 1, "crm", 1));
      assertThat(f.row("Notify", 1).orElseThrow().status()).isEqualTo(InvocationStatus.DONE);
      assertThat(f.row("Notify", 1).orElseThrow().attempt()).isEqualTo(2);
    } finally {
      killed.countDown();
      deadProcess.shutdown();
      assertThat(deadProcess.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    // the frozen attempt's late write was refused by the lease: the row stays done
    assertThat(f.row("Notify", 1).orElseThrow().status()).isEqualTo(InvocationStatus.DONE);
  }

  @Test
  void theRecordedResultComesBackOnReplay() {
    crashAfterTwoCallsThenRestart(threeCalls, threeCalls);
    assertThat(receipts).isEqualTo(Map.of(1, "charge#1", 2, "charge#1"));
  }

  @Test
  void anArmEditedBetweenRunsReplaysItsCallsByWhatTheyAreNotWhereTheyAre() {
    // the new arm makes the calls in another order, adds a log line and repeats one call
    Arm<Order> edited =
        (ctx, e) -> {
          ctx.log("edited arm");
          ctx.call("email", e.data().customer(), String.class, () -> fire("email"));
          ctx.call(
              "crm", List.of(e.data().customer(), "charge#1"), String.class, () -> fire("crm"));
          ctx.call("charge", Map.of("order", e.identity()), String.class, () -> fire("charge"));
          ctx.call("email", e.data().customer(), String.class, () -> fire("email"));
        };
    crashAfterTwoCallsThenRestart(threeCalls, edited);
    // charge and the first email come from the journal; the repeated email is a new call
    // (ordinal 1), so it fires; crm fires once
    assertThat(fired).isEqualTo(Map.of("charge", 1, "email", 2, "crm", 1));
  }

  @Test
  void aCallsArgumentsAreHashedNeverStoredAndItsIdempotencyKeyIsMadeFromItsKey() throws Exception {
    f.created("a");
    Map<String, String> keys = new ConcurrentHashMap<>();
    Arm<Order> arm =
        (ctx, e) ->
            ctx.call(
                "charge",
                Map.of("card", "4111-secret"),
                () -> keys.put("charge", ctx.idempotencyKey()));
    Effects effects = f.effects(effect(arm));
    drain(effects, "Notify");
    List<JournalEntry> journal = f.effects.listJournal("Notify", ORDERS, 1, 0, 10);
    assertThat(journal).hasSize(1);
    assertThat(keys.get("charge"))
        .hasSize(64)
        .isEqualTo(JournaledHttpTest.idempotencyKey(1, journal.get(0).callKey()));
    assertThat(journal.get(0).toString()).doesNotContain("4111-secret");
  }

  @Test
  void idempotencyKeyOutsideACallIsAnError() {
    f.created("a");
    Arm<Order> arm = (ctx, e) -> ctx.idempotencyKey();
    Effects effects = f.effects(effect(arm));
    drain(effects, "Notify");
    assertThat(f.row("Notify", 1).orElseThrow().error())
        .isEqualTo(
            "IllegalStateException: effect Notify: idempotencyKey() is only known inside a"
                + " journaled call");
  }

  @Test
  void aRecordedResultOfAnotherTypeWedgesTheLaneNamingTheCallAndType() {
    f.created("a");
    AtomicBoolean asNumber = new AtomicBoolean(false);
    Arm<Order> arm =
        (ctx, e) -> {
          if (asNumber.get()) ctx.call("charge", null, Integer.class, () -> 7);
          else ctx.call("charge", null, String.class, () -> "receipt-1");
          throw new IllegalStateException("later step fails");
        };
    Effects effects = f.effects(effect(arm));
    drain(effects, "Notify");
    asNumber.set(true);
    f.clock.advance(Duration.ofMillis(200));
    drain(effects, "Notify");
    assertThat(f.row("Notify", 1).orElseThrow().error())
        .contains("the recorded result of call 'charge' cannot be read as java.lang.Integer");
  }

  @Test
  void aRestartRunsOnlyThePositionsItsLanesHadNotCompleted() {
    f.created("a", "b", "c");
    Map<Long, Integer> runs = new ConcurrentHashMap<>();
    AtomicBoolean broken = new AtomicBoolean(true);
    Arm<Order> arm =
        (ctx, e) -> {
          runs.merge(e.sequence(), 1, Integer::sum);
          if (broken.get() && e.sequence() == 1) throw new IllegalStateException("bug");
        };
    Effects first = f.effects(effect(arm));
    drain(first, "Notify");
    assertThat(first.status("Notify").position()).isZero();
    first.run("Notify").stop();

    broken.set(false);
    Effects second = f.effects("engine-2", effect(arm));
    f.clock.advance(Duration.ofMillis(200));
    drain(second, "Notify");
    assertThat(runs).isEqualTo(Map.of(1L, 2, 2L, 1, 3L, 1));
    assertThat(second.status("Notify").position()).isEqualTo(3);
    assertThat(f.row("Notify", 1).orElseThrow().attempt()).isEqualTo(2);
  }

  @Test
  void aKeySchemeChangedWhileLanesAreOutstandingBlocksTheEffectAndRunsNothing() {
    f.created("a", "b");
    AtomicBoolean broken = new AtomicBoolean(true);
    Arm<Order> arm =
        (ctx, e) -> {
          if (broken.get() && e.sequence() == 1) throw new IllegalStateException("bug");
          fire("run" + e.sequence());
        };
    Effects first = f.effects(effect(arm));
    drain(first, "Notify");
    first.run("Notify").stop();

    broken.set(false);
    Effect<Order> rekeyed =
        f.effect("Notify")
            .on(EventType.CREATED, arm, Key.of("account", e -> e.data().customer()))
            .build();
    Effects second = f.effects("engine-2", rekeyed);
    f.clock.advance(Duration.ofMillis(200));
    drain(second, "Notify");
    EffectStatus st = second.status("Notify");
    assertThat(st.state()).isEqualTo(EffectState.BLOCKED);
    assertThat(st.sources().get(0).lastError())
        .contains(
            "the key scheme of created (customer → account) changed while 2 lanes are"
                + " outstanding above position 0");
    assertThat(fired).isEqualTo(Map.of("run2", 1));
  }

  @Test
  void afterARewindTheSchemeARunWritesUnderIsRecordedSoALaterChangeStillBlocks() {
    f.created("a", "b");
    Arm<Order> failsAtOne =
        (ctx, e) -> {
          if (e.sequence() == 1) throw new IllegalStateException("bug");
          fire("run" + e.sequence());
        };
    Effects first = f.effects(effect(failsAtOne));
    drain(first, "Notify");
    first.run("Notify").stop();
    // A rewind to 0 deletes the rows above it and forgets the schemes (docs/effects.md, "Rewind").
    Lease held =
        f.effects
            .acquireEffectLease("Notify", "operator", Duration.ofSeconds(30), f.clock.now())
            .orElseThrow();
    f.effects.rewind("Notify", ORDERS, 0, false, held, f.clock.now());
    f.effects.releaseEffectLease("Notify", held);
    assertThat(f.effects.loadCursors("Notify").get(0).schemes()).isEmpty();

    // The next run writes its rows under the customer scheme while position 1 keeps failing, so
    // the watermark never moves; the scheme is recorded at its start all the same.
    Effects second = f.effects("engine-2", effect(failsAtOne));
    drain(second, "Notify");
    second.run("Notify").stop();
    assertThat(f.effects.loadCursors("Notify").get(0).schemes())
        .isEqualTo(Map.of("created", "customer"));

    Effect<Order> rekeyed =
        f.effect("Notify")
            .on(EventType.CREATED, failsAtOne, Key.of("account", e -> e.data().customer()))
            .build();
    Effects third = f.effects("engine-3", rekeyed);
    f.clock.advance(Duration.ofMinutes(1));
    drain(third, "Notify");
    EffectStatus st = third.status("Notify");
    assertThat(st.state()).isEqualTo(EffectState.BLOCKED);
    assertThat(st.sources().get(0).lastError())
        .contains("the key scheme of created (customer → account) changed while 2 lanes are");
    assertThat(fired).isEqualTo(Map.of("run2", 2)); // once before the rewind, once after
  }

  @Test
  void argumentsThatCannotBeCanonicalFailTheInvocationNamingTheCall() {
    f.created("a");
    Arm<Order> arm = (ctx, e) -> ctx.call("ratio", Double.NaN, Double.class, () -> 1.0);
    Effects effects = f.effects(effect(arm));
    drain(effects, "Notify");
    assertThat(f.row("Notify", 1).orElseThrow().error())
        .startsWith(
            "IllegalArgumentException: effect Notify: the arguments of call 'ratio' cannot be"
                + " written as canonical JSON");
    assertThatThrownBy(() -> f.effects(effect(arm)).status("Other"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no effect named 'Other'");
  }
}
