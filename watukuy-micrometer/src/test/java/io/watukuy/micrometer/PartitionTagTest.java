package io.watukuy.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.watukuy.Cursors;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.SeededRandom;
import io.watukuy.testing.VirtualClock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The {@code partition} tag (docs/operations.md, "Metrics"): a poller with at most 20 partitions
 * gets per-partition meters; past 20 its meters are the whole poller's ({@code partition=""}), from
 * then on, even when it falls back to 20; the partition then reaches the cycle's observation as a
 * high-cardinality value only. No handler is attached, so every event stays pending: each
 * partition's outbox gauge reads 1.
 */
class PartitionTagTest {
  static final Schedule FIXED =
      Schedule.every(Duration.ofSeconds(30)).withAdaptive(false).withJitter(0);

  final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  final SimpleMeterRegistry registry =
      new SimpleMeterRegistry(SimpleConfig.DEFAULT, new EngineClock(clock));
  final TestObservationRegistry observations = TestObservationRegistry.create();
  final AtomicReference<List<String>> partitions = new AtomicReference<>();
  final WatukuyMetrics metrics;
  final Watukuy engine;

  PartitionTagTest() {
    observations
        .observationConfig()
        .observationHandler(new DefaultMeterObservationHandler(registry));
    metrics = new WatukuyMetrics(registry, observations, Duration.ZERO);
    Poller<JsonNode> p =
        Poller.builder("shops", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .partitions(partitions::get)
            .fetch(
                ctx ->
                    Page.of(
                        List.<JsonNode>of(
                            JsonNodeFactory.instance.objectNode().put("id", ctx.partition()))))
            .schedule(FIXED)
            .build();
    engine =
        Watukuy.builder()
            .store(new MemoryStore())
            .time(clock)
            .random(SeededRandom.of(7))
            .instanceId("a")
            .executor(Runnable::run)
            .handlerExecutor(Runnable::run)
            .poller(p)
            .listener(metrics)
            .build();
  }

  static List<String> shops(int n) {
    return IntStream.rangeClosed(1, n).mapToObj(i -> String.format("s%02d", i)).toList();
  }

  /** The partition tags of a meter name's meters. */
  Set<String> tags(String name) {
    return registry.find(name).meters().stream()
        .map(m -> m.getId().getTag("partition"))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  double pending(String partition) {
    return registry
        .get(WatukuyMetrics.OUTBOX_PENDING)
        .tags("poller", "shops", "partition", partition)
        .gauge()
        .value();
  }

  @Test
  void threePartitionsGetPerPartitionMeters() {
    partitions.set(List.of("eu", "us", "ap"));
    metrics.watch(engine);

    engine.tick();

    Set<String> three = Set.of("ap", "eu", "us");
    assertThat(tags(WatukuyMetrics.EVENTS)).isEqualTo(three);
    assertThat(tags(WatukuyMetrics.POLL)).isEqualTo(three);
    for (String name : InspectionGauges.NAMES) assertThat(tags(name)).isEqualTo(three);
    assertThat(pending("eu")).isEqualTo(1.0);
    assertThat(
            registry
                .get(WatukuyMetrics.EVENTS)
                .tags("poller", "shops", "partition", "us", "type", "created")
                .counter()
                .count())
        .isEqualTo(1.0);
  }

  @Test
  void past20PartitionsThePollerAggregatesForGood() {
    partitions.set(shops(20));
    metrics.watch(engine);
    engine.tick();
    assertThat(tags(WatukuyMetrics.OUTBOX_PENDING)).isEqualTo(new TreeSet<>(shops(20)));
    assertThat(pending("s20")).isEqualTo(1.0);

    // A 21st partition: the per-partition gauges go, one whole-poller gauge sums all 21.
    partitions.set(shops(21));
    clock.advance(Duration.ofSeconds(30));
    engine.tick();
    for (String name : InspectionGauges.NAMES) assertThat(tags(name)).containsExactly("");
    assertThat(pending("")).isEqualTo(21.0);
    // Counters and timers keep their per-partition series from before; new counts go to "".
    assertThat(tags(WatukuyMetrics.EVENTS)).contains("", "s01", "s20");
    assertThat(
            registry
                .get(WatukuyMetrics.EVENTS)
                .tags("poller", "shops", "partition", "")
                .counter()
                .count())
        .isEqualTo(1.0); // s21's item; the others' items did not change
    // The 20 known keys polled before s21 was first seen, still under their own tags.
    assertThat(registry.get(WatukuyMetrics.POLL).tag("partition", "").timer().count()).isEqualTo(1);

    // Back to 20: the poller stays aggregated, no per-partition meter comes back.
    partitions.set(shops(20));
    clock.advance(Duration.ofSeconds(30));
    engine.tick();
    for (String name : InspectionGauges.NAMES) assertThat(tags(name)).containsExactly("");
    assertThat(registry.get(WatukuyMetrics.POLL).tag("partition", "").timer().count())
        .isEqualTo(21);

    // An aggregated cycle's observation still names its partition, for a span only.
    TestObservationRegistryAssert.assertThat(observations)
        .hasHandledContextsThatSatisfy(
            contexts -> {
              Observation.Context last = contexts.get(contexts.size() - 1);
              assertThat(last.getName()).isEqualTo(WatukuyMetrics.POLL);
              assertThat(last.getLowCardinalityKeyValue("partition").getValue()).isEmpty();
              assertThat(last.getHighCardinalityKeyValue("partition").getValue())
                  .matches("s\\d\\d");
            });
    assertThat(registry.getMeters().stream().map(Meter::getId).map(id -> id.getTag("partition")))
        .doesNotContain("s21");
    assertThat(registry.find(WatukuyMetrics.PARKED).gauges())
        .extracting(Gauge::value)
        .containsExactly(0.0);
  }
}
