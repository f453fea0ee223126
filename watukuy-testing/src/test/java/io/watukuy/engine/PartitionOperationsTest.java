package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.CircuitPolicy;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.EventLog;
import io.watukuy.KeyReport;
import io.watukuy.Lane;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.TickReport;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.spi.PollerState;
import io.watukuy.testing.FakeApi;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * The per-key operations ({@code pause}, {@code resume}, {@code trigger}, {@code resetCursor},
 * {@code backfill}, {@code replay} on a {@link PollerKey}): the named partition is changed, the
 * poller's other partition is not.
 */
class PartitionOperationsTest {
  static final PollerKey EU = PollerKey.of("orders", "eu");
  static final PollerKey US = PollerKey.of("orders", "us");

  final Fixture f = new Fixture();
  final FakeApi eu = new FakeApi(f.clock);
  final FakeApi us = new FakeApi(f.clock);
  final Recorder r = new Recorder();

  /** One timestamp poller over two partitions, each its own API. */
  Poller.Builder<JsonNode, Watermark> orders(Supplier<List<String>> partitions) {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id"))
        .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
        .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
        .fetch(ctx -> (ctx.partition().equals("eu") ? eu : us).updatedSince(ctx.cursor(), 10))
        .partitions(partitions)
        .schedule(Fixture.FIXED);
  }

  Poller.Builder<JsonNode, Watermark> orders() {
    return orders(() -> List.of("eu", "us"));
  }

  Watukuy engine(Poller<JsonNode> p) {
    return f.engine("a").poller(p).build().on(p, r);
  }

  void seedBoth(int count) {
    for (int i = 1; i <= count; i++) {
      eu.put(String.format("o%03d", i), Map.of("n", i));
      us.put(String.format("o%03d", i), Map.of("n", i));
    }
  }

  static KeyReport.Outcome outcome(TickReport report, PollerKey key) {
    return report.key(key).orElseThrow().outcome();
  }

  /** "partition/identity:type" per delivered event, in delivery order. */
  List<String> delivered() {
    return r.events().stream()
        .map(e -> e.partition() + "/" + e.identity() + ":" + e.type().wire())
        .toList();
  }

  @Test
  void pausingOnePartitionSkipsItWhileTheOtherPollsAndResumeMakesItDueNow() {
    Watukuy w = engine(orders().build());
    w.tick();

    w.pause(EU);
    seedBoth(1);
    f.nextCycle();
    TickReport paused = w.tick();

    assertThat(outcome(paused, EU)).isEqualTo(KeyReport.Outcome.SKIPPED_PAUSED);
    assertThat(outcome(paused, US)).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(delivered()).containsExactly("us/o001:created");
    assertThat(w.inspect().key(EU).orElseThrow().paused())
        .isEqualTo(ScheduleState.PauseReason.MANUAL);
    assertThat(w.inspect().key(US).orElseThrow().paused()).isNull();

    w.resume(EU);
    TickReport resumed = w.tick();

    assertThat(outcome(resumed, EU)).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(outcome(resumed, US)).isEqualTo(KeyReport.Outcome.SKIPPED_NOT_DUE);
    assertThat(delivered()).containsExactly("us/o001:created", "eu/o001:created");
  }

  @Test
  void resumingOnePartitionLeavesTheOtherPaused() {
    Watukuy w = engine(orders().build());
    w.tick();
    w.pause("orders");

    w.resume(US);
    seedBoth(1);
    TickReport report = w.tick();

    assertThat(outcome(report, EU)).isEqualTo(KeyReport.Outcome.SKIPPED_PAUSED);
    assertThat(outcome(report, US)).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(delivered()).containsExactly("us/o001:created");
  }

  @Test
  void triggeringOnePartitionMakesOnlyThatKeyDue() {
    Watukuy w = engine(orders().build());
    w.tick();
    seedBoth(1);

    w.trigger(EU);
    TickReport report = w.tick();

    assertThat(outcome(report, EU)).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(outcome(report, US)).isEqualTo(KeyReport.Outcome.SKIPPED_NOT_DUE);
    assertThat(delivered()).containsExactly("eu/o001:created");
  }

  @Test
  void triggerKeepsAPausedPartitionPaused() {
    Watukuy w = engine(orders().build());
    w.tick();
    w.pause(EU);

    w.trigger(EU);

    assertThat(outcome(w.tick(), EU)).isEqualTo(KeyReport.Outcome.SKIPPED_PAUSED);
  }

  @Test
  void resettingOnePartitionsCursorWithClearSnapshotReEmitsItsItemsOnlyWithTheSameIds() {
    Watukuy w = engine(orders().build());
    seedBoth(2);
    w.tick();
    List<String> euIds =
        r.events().stream().filter(e -> e.partition().equals("eu")).map(ChangeEvent::id).toList();
    Map<String, String> usCursors = f.store.loadState(US).orElseThrow().cursors();
    r.clear();

    w.resetCursor(EU, null, true);

    assertThat(w.inspect().key(EU).orElseThrow().cursors().get("live").get("value").isNull())
        .isTrue();
    assertThat(f.store.loadState(US).orElseThrow().cursors()).isEqualTo(usCursors);
    assertThat(w.inspect().key(EU).orElseThrow().items()).isZero();
    assertThat(w.inspect().key(US).orElseThrow().items()).isEqualTo(2);
    TickReport report = w.tick();
    assertThat(outcome(report, EU)).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(outcome(report, US)).isEqualTo(KeyReport.Outcome.SKIPPED_NOT_DUE);
    assertThat(delivered()).containsExactly("eu/o001:created", "eu/o002:created");
    assertThat(r.ids()).containsExactlyElementsOf(euIds);
  }

  @Test
  void backfillOfOnePartitionRunsOnThatKeyOnly() {
    Watukuy w = engine(orders().build());
    seedBoth(2);
    w.tick();
    r.clear();

    w.backfill(EU, null, null, true);

    assertThat(w.inspect().key(EU).orElseThrow().backfill()).isNotNull();
    assertThat(w.inspect().key(US).orElseThrow().backfill()).isNull();
    w.trigger("orders"); // both keys run: only eu has a backfill lane
    TickReport report = w.tick();
    assertThat(outcome(report, EU)).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(outcome(report, US)).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(delivered()).containsExactly("eu/o001:updated", "eu/o002:updated");
    assertThat(r.events()).extracting(ChangeEvent::lane).containsOnly(Lane.BACKFILL);
    assertThat(w.inspect().key(EU).orElseThrow().backfill()).isNull();
  }

  @Test
  void replayOfOnePartitionCopiesThatKeysLogOnly() {
    Watukuy w = engine(orders().log(EventLog.keep(Duration.ofDays(7))).build());
    Instant start = f.clock.now();
    seedBoth(2);
    w.tick();
    List<String> euIds =
        r.events().stream().filter(e -> e.partition().equals("eu")).map(ChangeEvent::id).toList();
    r.clear();

    int copied = w.replay(EU, start, null);

    assertThat(copied).isEqualTo(2);
    assertThat(f.store.loadState(EU).orElseThrow().lastSequence()).isEqualTo(4);
    assertThat(f.store.loadState(US).orElseThrow().lastSequence()).isEqualTo(2);
    w.tick();
    assertThat(delivered()).containsExactly("eu/o001:created", "eu/o002:created");
    assertThat(r.ids()).containsExactlyElementsOf(euIds);
    assertThat(r.events()).extracting(ChangeEvent::lane).containsOnly(Lane.REPLAY);
    assertThat(r.events()).extracting(ChangeEvent::sequence).containsExactly(3L, 4L);
  }

  @Test
  void anUndeclaredPartitionIsAConfigErrorNamingPollerPartitionAndTheKnownOnesAndWritesNothing() {
    Watukuy w = engine(orders().log(EventLog.keep(Duration.ofDays(7))).build());
    w.tick();
    PollerKey ap = PollerKey.of("orders", "ap");
    List<ThrowingCallable> calls =
        List.of(
            () -> w.pause(ap),
            () -> w.resume(ap),
            () -> w.trigger(ap),
            () -> w.resetCursor(ap, null, true),
            () -> w.backfill(ap, null, null, false),
            () -> w.replay(ap, f.clock.now(), null));

    for (ThrowingCallable call : calls) {
      assertThatThrownBy(call)
          .isInstanceOf(ConfigException.class)
          .hasMessage("poller orders: no partition 'ap' (known: eu, us)");
    }
    assertThat(f.store.listKeys("orders")).containsExactly(EU, US);
  }

  @Test
  void aPartitionOfAnUnpartitionedPollerAndAnUnknownPollerAreConfigErrors() {
    Poller<JsonNode> single = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(single).build();
    List<Consumer<PollerKey>> ops =
        List.of(
            w::pause,
            w::resume,
            w::trigger,
            k -> w.resetCursor(k, null, false),
            k -> w.backfill(k, null, null, false),
            k -> w.replay(k, f.clock.now(), null));

    for (Consumer<PollerKey> op : ops) {
      assertThatThrownBy(() -> op.accept(EU))
          .isInstanceOf(ConfigException.class)
          .hasMessage("poller orders: no partition 'eu' (the poller has no partitions)");
      assertThatThrownBy(() -> op.accept(PollerKey.of("invoices", "eu")))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("unknown poller 'invoices'");
    }
    assertThat(f.store.listKeys(null)).isEmpty();
  }

  @Test
  void theUnpartitionedKeyTakesTheKeyOperations() {
    Poller<JsonNode> single = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(single).build().on(single, r);
    w.tick();

    w.pause(PollerKey.of("orders"));

    assertThat(outcome(w.tick(), PollerKey.of("orders")))
        .isEqualTo(KeyReport.Outcome.SKIPPED_PAUSED);
  }

  @Test
  void aRemovedPartitionKeepsItsKeyAndAManualPauseOutlastsItsReturn() {
    List<String> partitions = new CopyOnWriteArrayList<>(List.of("eu", "us"));
    Watukuy w = engine(orders(() -> List.copyOf(partitions)).build());
    w.tick();
    partitions.remove("us");
    f.nextCycle();
    w.tick();
    assertThat(f.store.loadState(US).map(PollerState::schedule).orElseThrow().paused())
        .isEqualTo(ScheduleState.PauseReason.PARTITION_REMOVED);

    w.pause(US); // stored state makes it a known key though the supplier no longer lists it
    partitions.add("us");
    f.nextCycle();
    TickReport back = w.tick();

    assertThat(outcome(back, US)).isEqualTo(KeyReport.Outcome.SKIPPED_PAUSED);
    assertThat(outcome(back, EU)).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(f.store.loadState(US).map(PollerState::schedule).orElseThrow().paused())
        .isEqualTo(ScheduleState.PauseReason.MANUAL);
  }

  /**
   * A partition that disappears is paused ({@code partitionRemoved}) and resumed when it returns
   * (docs/architecture.md, "Partitions, tick, listeners"); resume keeps an open circuit and its
   * probe time (docs/architecture.md, "ScheduleState"), and the probe then closes it.
   */
  @Test
  void aPartitionRemovedWhileItsCircuitIsOpenGetsItsCircuitBackWhenItReturns() {
    List<String> partitions = new CopyOnWriteArrayList<>(List.of("eu", "us"));
    Watukuy w =
        engine(
            orders(() -> List.copyOf(partitions))
                .circuit(new CircuitPolicy(1, Duration.ofMinutes(5)))
                .build());
    eu.failNext(1, () -> new IllegalStateException("down"));
    w.tick(); // eu fails: its circuit opens for 5 min; us polls
    ScheduleState open = f.store.loadState(EU).orElseThrow().schedule();
    assertThat(open.state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);

    partitions.remove("eu");
    w.tick();
    ScheduleState removed = f.store.loadState(EU).orElseThrow().schedule();
    assertThat(removed.state()).isEqualTo(ScheduleState.Status.PAUSED);
    assertThat(removed.paused()).isEqualTo(ScheduleState.PauseReason.PARTITION_REMOVED);
    partitions.add("eu");
    w.tick();

    ScheduleState back = f.store.loadState(EU).orElseThrow().schedule();
    assertThat(back.paused()).isNull();
    assertThat(back.state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    assertThat(back.circuit()).isEqualTo(open.circuit());
    f.clock.advanceTo(open.circuit().probeAt());
    eu.put("o001", Map.of("n", 1));
    KeyReport probe = w.tick().key(EU).orElseThrow();
    assertThat(probe.outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(probe.error()).isNull();
    assertThat(f.store.loadState(EU).orElseThrow().schedule().circuit()).isNull();
    assertThat(delivered()).containsExactly("eu/o001:created");
  }
}
