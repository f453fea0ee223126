package io.watukuy.micrometer;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.watukuy.Inspection;
import io.watukuy.KeyInspection;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToDoubleBiFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outbox, parked, lag and freshness gauges, read from one cached {@link Inspection} per refresh
 * interval: per key for a poller whose partitions are tagged, else per poller (the sum of its keys
 * for counts, the worst key for lag and freshness).
 */
final class InspectionGauges {
  private static final Logger LOG = LoggerFactory.getLogger(InspectionGauges.class);

  /** The gauge names, for removing a poller's per-partition gauges. */
  static final List<String> NAMES =
      List.of(
          WatukuyMetrics.OUTBOX_PENDING,
          WatukuyMetrics.PARKED,
          WatukuyMetrics.LAG,
          WatukuyMetrics.FRESHNESS);

  private final MeterRegistry registry;
  private final Duration refresh;
  private final PartitionTags partitions;
  private final Set<String> gauged = ConcurrentHashMap.newKeySet();
  private volatile @Nullable Supplier<Inspection> inspector;
  private volatile @Nullable Inspection last;
  private volatile long lastAtNanos;
  private volatile boolean failing;

  InspectionGauges(MeterRegistry registry, Duration refresh, PartitionTags partitions) {
    this.registry = registry;
    this.refresh = refresh;
    this.partitions = partitions;
  }

  /** Reads from this source from now on, and registers the gauges of the keys it shows now. */
  void watch(Supplier<Inspection> inspections) {
    inspector = inspections;
    last = null;
    failing = false;
    keys(inspections.get());
  }

  boolean watching() {
    return inspector != null;
  }

  /** Registers the gauges of a key (or of its poller, when aggregated) unless already there. */
  void register(PollerKey key) {
    String poller = key.poller();
    String partition = partitions.tag(key);
    if (!gauged.add(poller + '\n' + partition)) return;
    gauge(
        WatukuyMetrics.OUTBOX_PENDING,
        poller,
        partition,
        "pending outbox rows",
        null,
        true,
        (at, k) -> k.outboxPending());
    gauge(
        WatukuyMetrics.PARKED, poller, partition, "parked rows", null, true, (at, k) -> k.parked());
    gauge(
        WatukuyMetrics.LAG,
        poller,
        partition,
        "now minus the live watermark (timestamp pollers), the worst key of a whole poller",
        "seconds",
        false,
        (at, k) -> k.lagMs() == null ? Double.NaN : k.lagMs() / 1000.0);
    gauge(
        WatukuyMetrics.FRESHNESS,
        poller,
        partition,
        "time since the last successful poll, the worst key of a whole poller",
        "seconds",
        false,
        InspectionGauges::freshness);
    // The poller may have crossed the limit while these were registered: drop them again.
    if (!partition.isEmpty() && partitions.aggregated(poller)) dropPartitions(poller);
  }

  /**
   * Removes a poller's per-partition gauges, which its whole-poller gauges replace: read together
   * they would count its outbox twice.
   */
  void dropPartitions(String poller) {
    for (String name : NAMES)
      for (Gauge g : registry.find(name).tag("poller", poller).gauges()) {
        String partition = g.getId().getTag("partition");
        if (partition == null || partition.isEmpty()) continue;
        registry.remove(g);
        gauged.remove(poller + '\n' + partition);
      }
  }

  private void keys(Inspection in) {
    for (KeyInspection k : in.pollers())
      if (k.paused() != ScheduleState.PauseReason.PARTITION_REMOVED) register(k.key());
  }

  private void gauge(
      String name,
      String poller,
      String partition,
      String description,
      @Nullable String unit,
      boolean sum,
      ToDoubleBiFunction<Instant, KeyInspection> value) {
    Gauge.builder(name, this, g -> g.read(poller, partition, value, sum))
        .description(description)
        .baseUnit(unit)
        .tags(Tags.of("poller", poller, "partition", partition))
        .strongReference(true)
        .register(registry);
  }

  /**
   * The gauge's value: the key's for a tagged partition; for {@code ""} (the whole poller) the sum
   * or the maximum over the poller's keys; NaN when none has one.
   */
  private double read(
      String poller,
      String partition,
      ToDoubleBiFunction<Instant, KeyInspection> value,
      boolean sum) {
    Inspection in = inspection();
    if (in == null) return Double.NaN;
    double result = Double.NaN;
    for (KeyInspection k : in.pollers()) {
      if (!k.poller().equals(poller)) continue;
      if (!partition.isEmpty() && !k.partition().equals(partition)) continue;
      double v = value.applyAsDouble(in.at(), k);
      if (Double.isNaN(v)) continue;
      result = Double.isNaN(result) ? v : sum ? result + v : Math.max(result, v);
    }
    return result;
  }

  /** Seconds from the key's last success to the inspection, NaN before the first success. */
  private static double freshness(Instant at, KeyInspection k) {
    Instant success = k.lastSuccessAt();
    if (success == null) return Double.NaN;
    return Math.max(0, Duration.between(success, at).toMillis() / 1000.0);
  }

  /**
   * A cycle of the key succeeded. When the cached inspection predates the key's first success (a
   * scrape during the first cycle of a new key), it is dropped, so that freshness does not read NaN
   * until the refresh interval passes; later successes keep the cache (it ages one interval at
   * most), so a busy engine does not inspect once per gauge read.
   */
  void succeeded(PollerKey key) {
    Inspection cached = last;
    if (cached == null) return;
    for (KeyInspection k : cached.pollers())
      if (k.key().equals(key) && k.lastSuccessAt() != null) return;
    synchronized (this) {
      if (last == cached) last = null;
    }
  }

  private @Nullable Inspection inspection() {
    Supplier<Inspection> source = inspector;
    if (source == null) return null;
    long now = registry.config().clock().monotonicTime();
    Inspection cached = last;
    if ((cached != null || failing) && now - lastAtNanos < refresh.toNanos()) return cached;
    Inspection fresh;
    synchronized (this) {
      if ((last != null || failing) && now - lastAtNanos < refresh.toNanos()) return last;
      try {
        fresh = source.get();
      } catch (RuntimeException e) {
        // A scrape must not fail on a store that is down: the gauges read NaN, and the reason is
        // logged once per failure in a row, not once per gauge.
        if (!failing) LOG.warn("watukuy gauges read NaN: inspect() failed: {}", e.toString());
        failing = true;
        last = null;
        lastAtNanos = now;
        return null;
      }
      failing = false;
      last = fresh;
      lastAtNanos = now;
    }
    // Keys that appeared since (a new partition, a key another instance polls) get their gauges;
    // outside the lock, as registering may call into the registry.
    keys(fresh);
    return fresh;
  }
}
