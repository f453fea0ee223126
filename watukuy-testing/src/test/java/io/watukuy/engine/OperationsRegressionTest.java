package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Backoff;
import io.watukuy.CircuitPolicy;
import io.watukuy.Cursors;
import io.watukuy.DeliveryPolicy;
import io.watukuy.KeyReport;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Review: operations made while a cycle runs, and from another instance. */
class OperationsRegressionTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  final Fixture f = new Fixture();
  final Recorder r = new Recorder();

  ScheduleState state() {
    return f.store.loadState(ORDERS).orElseThrow().schedule();
  }

  /**
   * Issue: "pause (any state)". A running cycle finishes first, then the key is paused
   * (docs/architecture.md, "ScheduleState").
   */
  @Test
  void pauseMadeWhileAFailingCycleRunsIsKept() {
    AtomicReference<Watukuy> other = new AtomicReference<>();
    AtomicBoolean pauseNow = new AtomicBoolean();
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .fetch(
                ctx -> {
                  if (pauseNow.getAndSet(false)) {
                    other
                        .get()
                        .pause("orders"); // the operator's CLI, another instance, while the fetch
                    // hangs
                    throw new IllegalStateException("vendor timed out");
                  }
                  return f.api.updatedSince(ctx.cursor(), 10);
                })
            .build();
    Watukuy a = f.engine("a").poller(orders).build().on(orders, r);
    other.set(f.engine("cli").poller(orders).build());
    a.tick();
    f.nextCycle();
    pauseNow.set(true);
    a.tick();
    System.out.println(" after pause during failing cycle: " + state());
    assertThat(state().paused()).isEqualTo(ScheduleState.PauseReason.MANUAL);
    f.clock.advance(Duration.ofMinutes(5));
    assertThat(a.tick().key(ORDERS).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_PAUSED);
  }

  @Test
  void pauseMadeWhileASuccessfulCycleRunsIsKept() {
    Watukuy[] ref = new Watukuy[2];
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    r.during(() -> ref[1].pause("orders"));
    Watukuy a = f.engine("a").poller(orders).build().on(orders, r);
    ref[1] = f.engine("cli").poller(orders).build();
    f.seed(2);
    a.tick();
    System.out.println(" after pause during ok cycle: " + state());
    assertThat(state().paused()).isEqualTo(ScheduleState.PauseReason.MANUAL);
    assertThat(a.inspect().key(ORDERS).orElseThrow().state())
        .isEqualTo(ScheduleState.Status.PAUSED);
    r.during(() -> {});
    f.nextCycle();
    assertThat(a.tick().key(ORDERS).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_PAUSED);
    ref[1].resume("orders");
    assertThat(a.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
  }

  /**
   * Issue: "trigger() on an open circuit forces a probe" — made by another instance during a
   * drain-only run.
   */
  @Test
  void triggerOnOpenCircuitMadeDuringADrainOnlyRunIsKept() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .circuit(new CircuitPolicy(1, Duration.ofMinutes(30)))
            .delivery(
                new DeliveryPolicy(
                    new RetryPolicy(
                        3, new Backoff(Duration.ofSeconds(1), 2, Duration.ofSeconds(1))),
                    PoisonPolicy.DEFAULT))
            .build();
    Watukuy a = f.engine("a").poller(orders).build().on(orders, r);
    Watukuy cli = f.engine("cli").poller(orders).build();
    f.seed(1);
    r.failWhen(e -> true); // first attempt fails, retry due in <= 1 s
    a.tick();
    assertThat(f.store.countPending(ORDERS)).isEqualTo(1);
    f.api.failNext(1, () -> new IllegalStateException("down"));
    f.nextCycle();
    a.tick(); // fetch fails -> circuit open for 30 min (drain ran first; handler still failing)
    assertThat(state().state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    System.out.println(" pending before drain-only run: " + f.store.countPending(ORDERS));
    r.failWhen(e -> false);
    r.during(() -> cli.trigger("orders"));
    f.clock.advance(Duration.ofSeconds(5));
    KeyReport drain = a.tick().key(ORDERS).orElseThrow();
    System.out.println(" drain-only run " + drain + " state " + state());
    r.during(() -> {});
    KeyReport next = a.tick().key(ORDERS).orElseThrow();
    System.out.println(" after trigger " + next.outcome() + " state " + state());
    assertThat(next.outcome()).isEqualTo(KeyReport.Outcome.POLLED); // the forced probe
  }

  @Test
  void triggerFromAnotherInstanceTakesEffectOnTheNextTick() {
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
  }

  /** Trigger made while a (successful) triggered cycle runs: a second trigger is lost? */
  @Test
  void resetCursorFromInsideAHandler() {
    Watukuy[] ref = new Watukuy[1];
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy a = f.engine("a").poller(orders).build().on(orders, r);
    ref[0] = a;
    f.seed(2);
    AtomicBoolean once = new AtomicBoolean(true);
    List<Throwable> thrown = new ArrayList<>();
    r.during(
        () -> {
          if (once.getAndSet(false)) {
            try {
              ref[0].resetCursor("orders", null, false);
            } catch (RuntimeException e) {
              thrown.add(e);
            }
          }
        });
    java.time.Instant before = f.clock.now();
    KeyReport rep = a.tick().key(ORDERS).orElseThrow();
    System.out.println(
        " resetCursor from handler: report="
            + rep
            + " thrown="
            + thrown
            + " clock moved "
            + Duration.between(before, f.clock.now())
            + " changes="
            + r.changes());
    assertThat(rep.error()).isNull();
  }

  @Test
  void partitionRemovedWhileCircuitOpenThenReturned() {
    List<String> parts = new ArrayList<>(List.of("eu", "us"));
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .partitions(() -> List.copyOf(parts))
            .circuit(new CircuitPolicy(1, Duration.ofMinutes(5)))
            .build();
    Watukuy a = f.engine("a").poller(orders).build().on(orders, r);
    f.api.failNext(1, () -> new IllegalStateException("down"));
    a.tick(); // eu fails -> circuit open; us ok
    PollerKey eu = new PollerKey("orders", "eu");
    assertThat(f.store.loadState(eu).orElseThrow().schedule().state())
        .isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    parts.remove("eu");
    a.tick();
    parts.add("eu");
    a.tick();
    System.out.println(" eu after return " + f.store.loadState(eu).orElseThrow().schedule());
    f.clock.advance(Duration.ofMinutes(5));
    f.seed(1);
    KeyReport rep = a.tick().key(eu).orElseThrow();
    System.out.println(
        " eu probe " + rep + " state " + f.store.loadState(eu).orElseThrow().schedule());
    assertThat(rep.error()).isNull();
    assertThat(f.store.loadState(eu).orElseThrow().schedule().circuit()).isNull();
  }

  @Test
  void errorMessages() {
    Poller<JsonNode> pages =
        Poller.builder("pages", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.page())
            .fetch(f.api.pageFetcher(2))
            .schedule(Fixture.FIXED)
            .build();
    Poller<JsonNode> catalog = f.snapshot("catalog", 10).build();
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(pages).poller(catalog).poller(orders).build();
    List<String> msgs = new ArrayList<>();
    for (Runnable op :
        List.<Runnable>of(
            () -> w.resetCursor("pages", "abc", false),
            () -> w.resetCursor("pages", "-3", false),
            () -> w.resetCursor("pages", "0", false),
            () -> w.resetCursor("catalog", "x", false),
            () -> w.backfill("orders", "yesterday", null, false),
            () -> w.backfill("orders", "2026-03-01T10:00:00Z", "2026-02-01T00:00:00Z", false),
            () -> w.backfill("catalog", null, null, false),
            () -> w.replay("orders", f.clock.now(), null),
            () -> w.replay("nope", f.clock.now(), null),
            () -> w.pause("nope"))) {
      try {
        op.run();
        msgs.add("(accepted)");
      } catch (RuntimeException e) {
        msgs.add(e.getClass().getSimpleName() + ": " + e.getMessage());
      }
    }
    msgs.forEach(m -> System.out.println(" msg " + m));
  }
}
