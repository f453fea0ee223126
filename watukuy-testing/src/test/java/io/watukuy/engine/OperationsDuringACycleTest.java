package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Backoff;
import io.watukuy.CircuitPolicy;
import io.watukuy.DeliveryPolicy;
import io.watukuy.KeyReport;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.ScheduleState;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Operations made while a key's cycle runs, by another instance or the operator's command line: a
 * pause, resume or trigger stored meanwhile outlasts the cycle, whose last write keeps it
 * (docs/architecture.md, "ScheduleState": {@code Operations.mergeConcurrent}). A leased operation
 * called from inside the key's own cycle is refused at once instead of waiting for a lease that
 * cycle holds.
 */
class OperationsDuringACycleTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  final Fixture f = new Fixture();
  final Recorder r = new Recorder();

  ScheduleState state() {
    return f.store.loadState(ORDERS).orElseThrow().schedule();
  }

  /** Handler failures retried after at most 1 s; the circuit opens after one failed cycle. */
  Poller.Builder<JsonNode, Watermark> withOpeningCircuit(Duration probeEvery) {
    return f.timestamp("orders", 10)
        .circuit(new CircuitPolicy(1, probeEvery))
        .delivery(
            new DeliveryPolicy(
                new RetryPolicy(3, new Backoff(Duration.ofSeconds(1), 2, Duration.ofSeconds(1))),
                PoisonPolicy.DEFAULT));
  }

  @Test
  void aPauseMadeWhileAFailingCycleRunsOutlastsTheCycleWhichStillCountsItsFailure() {
    AtomicReference<Watukuy> cli = new AtomicReference<>();
    AtomicBoolean pauseNow = new AtomicBoolean();
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .fetch(
                ctx -> {
                  if (pauseNow.getAndSet(false)) {
                    cli.get().pause("orders"); // while the fetch hangs
                    throw new IllegalStateException("vendor timed out");
                  }
                  return f.api.updatedSince(ctx.cursor(), 10);
                })
            .build();
    Watukuy a = f.engine("a").poller(orders).build().on(orders, r);
    cli.set(f.engine("cli").poller(orders).build());
    a.tick();
    f.nextCycle();
    pauseNow.set(true);

    assertThat(a.tick().key(ORDERS).orElseThrow().error()).isNotNull();

    assertThat(state().state()).isEqualTo(ScheduleState.Status.PAUSED);
    assertThat(state().paused()).isEqualTo(ScheduleState.PauseReason.MANUAL);
    assertThat(state().consecutiveFailures()).isEqualTo(1);
    assertThat(state().lastError().name()).isEqualTo("FetchException");
    f.clock.advance(Duration.ofMinutes(5));
    assertThat(a.tick().key(ORDERS).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_PAUSED);
  }

  @Test
  void aPauseMadeWhileASuccessfulCycleRunsOutlastsTheCycleUntilResumeMakesTheKeyDueNow() {
    Watukuy[] cli = new Watukuy[1];
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    r.during(() -> cli[0].pause("orders"));
    Watukuy a = f.engine("a").poller(orders).build().on(orders, r);
    cli[0] = f.engine("cli").poller(orders).build();
    f.seed(2);

    a.tick();

    assertThat(r.changes()).containsExactly("o001:created", "o002:created");
    assertThat(state().state()).isEqualTo(ScheduleState.Status.PAUSED);
    assertThat(state().paused()).isEqualTo(ScheduleState.PauseReason.MANUAL);
    assertThat(a.inspect().key(ORDERS).orElseThrow().state())
        .isEqualTo(ScheduleState.Status.PAUSED);
    r.during(() -> {});
    f.nextCycle();
    assertThat(a.tick().key(ORDERS).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_PAUSED);
    cli[0].resume("orders");
    assertThat(a.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
  }

  /**
   * {@code trigger()} on an open circuit makes the next run the probe (docs/architecture.md,
   * "Circuit"), also when it is made while a run that only drains the outbox is under way.
   */
  @Test
  void aTriggerMadeDuringTheDrainOfAnOpenCircuitMakesTheNextRunTheProbe() {
    Poller<JsonNode> orders = withOpeningCircuit(Duration.ofMinutes(30)).build();
    Watukuy a = f.engine("a").poller(orders).build().on(orders, r);
    Watukuy cli = f.engine("cli").poller(orders).build();
    f.seed(1);
    r.failWhen(e -> true); // the first attempt fails, its retry is due within 1 s
    a.tick();
    assertThat(f.store.countPending(ORDERS)).isEqualTo(1);
    f.api.failNext(1, () -> new IllegalStateException("down"));
    f.nextCycle();
    a.tick(); // the drain fails again, the fetch fails: the circuit opens for 30 min
    assertThat(state().state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    r.failWhen(e -> false);
    r.during(() -> cli.trigger("orders"));
    f.clock.advance(Duration.ofSeconds(5));
    Instant triggeredAt = f.clock.now();

    KeyReport drain = a.tick().key(ORDERS).orElseThrow();

    assertThat(drain.pages()).isZero(); // the circuit is open: no fetch
    assertThat(drain.delivered()).isEqualTo(1);
    assertThat(state().state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    assertThat(state().circuit().probeAt()).isEqualTo(triggeredAt);
    assertThat(state().dueReason()).isEqualTo(ScheduleState.DueReason.TRIGGER);
    r.during(() -> {});
    KeyReport probe = a.tick().key(ORDERS).orElseThrow();
    assertThat(probe.outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(probe.pages()).isEqualTo(1);
    assertThat(probe.error()).isNull();
    assertThat(state().state()).isEqualTo(ScheduleState.Status.IDLE);
    assertThat(state().circuit()).isNull();
  }

  @Test
  void aTriggerPauseAndResumeFromAnotherInstanceTakeEffectOnTheNextTick() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy a = f.engine("a").poller(orders).build().on(orders, r);
    Watukuy b = f.engine("b").poller(orders).build();
    a.tick();
    f.seed(1);
    assertThat(a.tick().key(ORDERS).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_NOT_DUE);
    b.trigger("orders");
    assertThat(a.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    b.pause("orders");
    f.nextCycle();
    assertThat(a.tick().key(ORDERS).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_PAUSED);
    b.resume("orders");
    assertThat(a.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(r.changes()).containsExactly("o001:created");
  }

  /**
   * A paused key still drains its outbox (docs/architecture.md, "The poll cycle"); a resume made
   * meanwhile is kept, and it keeps the open circuit with its probe time (docs/architecture.md,
   * "ScheduleState": resume keeps an open circuit). The probe then closes the circuit and the key
   * polls on schedule again.
   */
  @Test
  void aResumeMadeDuringTheDrainOfAPausedKeyKeepsItsOpenCircuitAndTheProbeClosesIt() {
    Poller<JsonNode> orders = withOpeningCircuit(Duration.ofMinutes(5)).build();
    Watukuy a = f.engine("a").poller(orders).build().on(orders, r);
    Watukuy cli = f.engine("cli").poller(orders).build();
    f.seed(1);
    r.failWhen(e -> true);
    a.tick();
    f.api.failNext(1, () -> new IllegalStateException("down"));
    f.nextCycle();
    a.tick();
    assertThat(state().circuit()).isNotNull();
    Instant probeAt = state().circuit().probeAt();
    cli.pause("orders");
    r.failWhen(e -> false);
    r.during(() -> cli.resume("orders"));
    f.clock.advance(Duration.ofSeconds(5));

    KeyReport drain = a.tick().key(ORDERS).orElseThrow();

    assertThat(drain.delivered()).isEqualTo(1);
    assertThat(drain.pages()).isZero();
    assertThat(r.changes()).containsExactly("o001:created");
    assertThat(state().paused()).isNull();
    assertThat(state().state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    assertThat(state().circuit().probeAt()).isEqualTo(probeAt);
    r.during(() -> {});
    f.clock.advanceTo(probeAt);
    KeyReport probe = a.tick().key(ORDERS).orElseThrow();
    assertThat(probe.outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(probe.error()).isNull();
    assertThat(state().state()).isEqualTo(ScheduleState.Status.IDLE);
    assertThat(state().circuit()).isNull();
    f.api.put("o009", Map.of("n", 9));
    f.nextCycle();
    a.tick();
    assertThat(r.changes()).containsExactly("o001:created", "o009:created");
  }

  /**
   * {@code resetCursor} takes the key's lease, waiting for a running cycle (docs/architecture.md,
   * "ScheduleState"); called from a handler of that very cycle the wait could never end, so it is
   * refused at once ({@code KeyOperations.withLease}: "called from its handler or fetch?"). The
   * cycle goes on: its events are delivered and its cursor is not reset.
   */
  @Test
  void resetCursorCalledFromAHandlerOfTheKeysOwnCycleIsRefusedAtOnceAndTheCycleGoesOn() {
    Watukuy[] engine = new Watukuy[1];
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy a = f.engine("a").poller(orders).build().on(orders, r);
    engine[0] = a;
    f.seed(2);
    AtomicBoolean once = new AtomicBoolean(true);
    List<RuntimeException> thrown = new ArrayList<>();
    r.during(
        () -> {
          if (once.getAndSet(false)) {
            try {
              engine[0].resetCursor("orders", null, false);
            } catch (RuntimeException e) {
              thrown.add(e);
            }
          }
        });
    Instant before = f.clock.now();

    KeyReport report = a.tick().key(ORDERS).orElseThrow();

    assertThat(thrown)
        .singleElement()
        .isInstanceOf(IllegalStateException.class)
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .contains("orders")
                    .contains("is in a cycle of this engine")
                    .contains("call this operation outside the cycle"));
    assertThat(f.clock.now()).isEqualTo(before); // refused, not waited for
    assertThat(report.error()).isNull();
    assertThat(r.changes()).containsExactly("o001:created", "o002:created");
    assertThat(a.inspect().key(ORDERS).orElseThrow().cursors().get("live").get("tieBreak").asText())
        .isEqualTo("o002");
  }
}
