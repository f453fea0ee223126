package io.watukuy.bench;

import io.watukuy.DeliveryOptions;
import io.watukuy.Watukuy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The end-to-end bench of one store, in four groups of phases ({@link Group}), each on its own
 * poller over the same fresh store:
 *
 * <ul>
 *   <li>{@code snapshot}: first sync, idle re-scan and 1% changed of a {@code snapshotDiff} poller
 *       ({@link SnapshotPhases}), then the first sync's commit floor ({@link CommitFloor});
 *   <li>{@code timestamp}: the same listing read incrementally ({@link TimestampPhases});
 *   <li>{@code live}: the live lane's latency on a running daemon ({@link LiveLatency});
 *   <li>{@code idle}: the CPU of many idle keys on one engine ({@link IdleKeys}).
 * </ul>
 *
 * A listing phase is one {@link Watukuy#tick()} ({@link MeasuredTick}): it lists every page of a
 * {@link ListingServer} of {@code n} items in 500-item pages, diffs, commits, delivers every event
 * to a handler that counts them, and (for snapshotDiff) emits the deletes; its events and pages are
 * checked against what the phase must produce, so a number is never reported for a run that did the
 * wrong thing. {@code ratio} is watukuy's items/s over the store's raw baseline's for the same
 * items ({@link RawBaseline}). The fetch + parse of the whole listing with a plain {@link
 * java.net.http.HttpClient} is the best of {@value #FLOOR_PASSES} timed passes after one warm-up
 * pass ({@link ListingFetch}); added to the raw baseline it gives each phase's physical floor (no
 * watukuy logic at all), and {@code floorRatio} is watukuy's items/s over the floor's.
 *
 * <p>The phases never assert timing: {@link Settings#tiny()} is the smoke pass of {@code ./mvnw
 * verify}.
 */
final class EndToEnd {
  /** Items per page, as the server serves them. */
  static final int PAGE = ListingServer.PAGE;

  /** Timed passes of a plain client's fetch of a listing, after one warm-up pass. */
  static final int FLOOR_PASSES = ListingFetch.PASSES;

  /** The groups of phases, as {@code --phases} names them. */
  enum Group {
    SNAPSHOT,
    TIMESTAMP,
    LIVE,
    IDLE;

    /** The name on the command line and in the results. */
    String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code --phases}.
     *
     * @param list comma-separated labels, such as {@code snapshot,timestamp}
     * @return the groups, in run order
     * @throws IllegalArgumentException for an unknown or missing label
     */
    static Set<Group> parse(String list) {
      Set<Group> out = EnumSet.noneOf(Group.class);
      for (String part : list.split(",")) {
        String label = part.trim();
        if (label.isEmpty()) continue;
        Group g =
            Arrays.stream(values())
                .filter(v -> v.label().equals(label))
                .findFirst()
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            "--phases: unknown phase '"
                                + label
                                + "'; expected snapshot, timestamp, live or idle"));
        out.add(g);
      }
      if (out.isEmpty())
        throw new IllegalArgumentException(
            "--phases needs at least one of snapshot,timestamp,live,idle");
      return out;
    }
  }

  /**
   * What to run.
   *
   * @param items items in the listing of the snapshot and timestamp phases; at least 1000
   * @param groups the groups to run, in {@link Group} order
   * @param live the live-latency phase's settings
   * @param idle the idle-keys phase's settings
   * @param concurrency {@code delivery.concurrency} of the snapshot and timestamp engines (default
   *     {@value io.watukuy.DeliveryOptions#DEFAULT_CONCURRENCY}): it bounds the handled events
   *     waiting for their ack, so it sets how many acks share one store write
   * @param handler how those engines deliver: {@code batch} (default: a {@link
   *     io.watukuy.BatchHandler} of {@code delivery.batchSize} events, one ack write per batch) or
   *     {@code single} (a {@link io.watukuy.Handler} per event)
   * @param batchSize {@code delivery.batchSize} of those engines with the batch handler (default
   *     {@value io.watukuy.DeliveryOptions#DEFAULT_BATCH_SIZE})
   */
  record Settings(
      int items,
      Set<Group> groups,
      LiveLatency.Settings live,
      IdleKeys.Settings idle,
      int concurrency,
      String handler,
      int batchSize) {
    /** Every group at full length over {@code items} items. */
    static Settings full(int items) {
      return new Settings(
          items,
          EnumSet.allOf(Group.class),
          LiveLatency.Settings.full(),
          IdleKeys.Settings.full(),
          DeliveryOptions.DEFAULT_CONCURRENCY,
          EventCounter.BATCH,
          DeliveryOptions.DEFAULT_BATCH_SIZE);
    }

    /** The smoke pass: 2 000 items, a few live changes, 200 idle keys for 1 s. */
    static Settings tiny() {
      return new Settings(
          2_000,
          EnumSet.allOf(Group.class),
          LiveLatency.Settings.tiny(),
          IdleKeys.Settings.tiny(),
          DeliveryOptions.DEFAULT_CONCURRENCY,
          EventCounter.BATCH,
          DeliveryOptions.DEFAULT_BATCH_SIZE);
    }

    Settings withGroups(Set<Group> groups) {
      return new Settings(
          items, EnumSet.copyOf(groups), live, idle, concurrency, handler, batchSize);
    }

    Settings withLive(LiveLatency.Settings live) {
      return new Settings(items, groups, live, idle, concurrency, handler, batchSize);
    }

    Settings withConcurrency(int concurrency) {
      return new Settings(items, groups, live, idle, concurrency, handler, batchSize);
    }

    Settings withHandler(String handler, int batchSize) {
      return new Settings(items, groups, live, idle, concurrency, handler, batchSize);
    }

    /** The snapshot and timestamp engines' delivery options. */
    DeliveryOptions delivery() {
      return new DeliveryOptions(
          concurrency, DeliveryOptions.DEFAULT_DISPATCH_BATCH_SIZE, batchSize);
    }

    Settings withIdle(IdleKeys.Settings idle) {
      return new Settings(items, groups, live, idle, concurrency, handler, batchSize);
    }
  }

  /**
   * One phase's numbers.
   *
   * @param name the phase
   * @param strategy the poller's cursor strategy
   * @param items items the phase listed
   * @param events events delivered, checked
   * @param runs ticks measured (seconds is their total); 1 but for repeated idle polls
   * @param seconds wall time of the ticks
   * @param peakHeap the highest heap in use while it ran, bytes
   * @param retained the heap after a full collection at its end, bytes
   * @param storeCalls time inside each store method
   * @param baselineWhat what the baseline did
   * @param baselineSeconds the baseline's wall time for the same work
   * @param fetchSeconds a plain client's fetch + parse of the same listing, seconds
   * @param cpuSeconds the process's CPU time over the same span as {@code seconds} (every thread,
   *     the listing server's too); NaN where not measured
   */
  record Phase(
      String name,
      String strategy,
      int items,
      long events,
      int runs,
      double seconds,
      long peakHeap,
      long retained,
      Map<String, TimedStore.Usage> storeCalls,
      String baselineWhat,
      double baselineSeconds,
      double fetchSeconds,
      double cpuSeconds) {
    /** Seconds spent inside store calls. */
    double storeSeconds() {
      return storeCalls.values().stream().mapToDouble(TimedStore.Usage::seconds).sum();
    }

    double itemsPerSecond() {
      return items / seconds;
    }

    double eventsPerSecond() {
      return events / seconds;
    }

    double baselineItemsPerSecond() {
      return items / baselineSeconds;
    }

    /**
     * watukuy's throughput over the baseline's: the baseline's time over watukuy's for the same
     * work.
     */
    double ratio() {
      return baselineSeconds / seconds;
    }

    /**
     * The physical floor of the phase with no watukuy logic: fetch + parse of the listing with a
     * plain client, then the raw store work, one after the other; items per second.
     */
    double floorItemsPerSecond() {
      return items / (fetchSeconds + baselineSeconds);
    }

    /** watukuy's items/s over the floor's (its time over the floor's, for a phase of no items). */
    double floorRatio() {
      return (fetchSeconds + baselineSeconds) / seconds;
    }

    /** This phase beside its baseline and its plain fetch. */
    Phase withBaseline(String what, double baselineSeconds, double fetchSeconds) {
      return new Phase(
          name,
          strategy,
          items,
          events,
          runs,
          seconds,
          peakHeap,
          retained,
          storeCalls,
          what,
          baselineSeconds,
          fetchSeconds,
          cpuSeconds);
    }
  }

  /**
   * The whole run's numbers.
   *
   * @param groups the groups that ran
   * @param n items in the listing of the snapshot and timestamp phases (the live phase has its own)
   * @param concurrency {@code delivery.concurrency} of the snapshot and timestamp engines
   * @param handler {@code batch} or {@code single}: how those engines delivered
   * @param batchSize their {@code delivery.batchSize}
   * @param fetchSeconds the plain fetch + parse of the page listing; NaN without the snapshot
   *     phases
   * @param phases the snapshot and timestamp phases that ran
   * @param live the live-latency phase, or null when it did not run
   * @param idle the idle-keys phase, or null when it did not run
   * @param commitFloor the first sync's commit floor, or null when the snapshot phases did not run
   *     or the store has none
   */
  record Result(
      String store,
      String storeVersion,
      String note,
      Set<Group> groups,
      int n,
      int concurrency,
      String handler,
      int batchSize,
      double fetchSeconds,
      List<Phase> phases,
      LiveLatency.@Nullable Result live,
      IdleKeys.@Nullable Result idle,
      CommitFloor.@Nullable Result commitFloor,
      String loadBefore,
      String loadAfter) {
    /** Whether the snapshot or timestamp phases ran, the ones over {@link #n()} items. */
    boolean listed() {
      return groups.contains(Group.SNAPSHOT) || groups.contains(Group.TIMESTAMP);
    }
  }

  private EndToEnd() {}

  /**
   * Runs the selected groups of phases, with their baselines, on a fresh store.
   *
   * @param kind {@code memory}, {@code sqlite}, {@code postgres} or {@code redis}
   * @param settings what to run; {@code items} at least 1000, so that 0.1% is at least one item
   * @param where the servers of the persistent stores
   * @return the numbers
   * @throws IllegalStateException if a phase did not produce exactly the events it must
   */
  static Result run(String kind, Settings settings, BenchStore.Where where) throws Exception {
    try (BenchStore bench = BenchStore.open(kind, where)) {
      return run(kind, bench, settings);
    }
  }

  /**
   * Runs the selected groups of phases, with their baselines, on a store the caller opened and
   * closes.
   *
   * @param kind the store's name, for the results
   * @param bench the fresh store
   * @param settings what to run; {@code items} at least 1000, so that 0.1% is at least one item
   * @return the numbers
   * @throws IllegalStateException if a phase did not produce exactly the events it must
   */
  static Result run(String kind, BenchStore bench, Settings settings) throws Exception {
    int n = settings.items();
    if (n < 1000) throw new IllegalArgumentException("--items must be >= 1000, but was " + n);
    String loadBefore = Machine.loadAverage();
    List<Phase> phases = new ArrayList<>();
    double fetchSeconds = Double.NaN;
    LiveLatency.Result live = null;
    IdleKeys.Result idle = null;
    CommitFloor.Result commitFloor = null;
    String version;
    String note;
    try (RawStore raw = bench.raw()) {
      version = bench.version();
      note = bench.note();
      // The raw upsert of the n rows, measured once when the snapshot phases run and reused.
      double upsertSeconds = Double.NaN;
      if (settings.groups().contains(Group.SNAPSHOT)) {
        fetchSeconds = SnapshotPhases.run(bench, raw, n, settings, phases);
        upsertSeconds = phases.get(0).baselineSeconds();
        commitFloor = CommitFloor.measure(kind, bench, n);
      }
      if (settings.groups().contains(Group.TIMESTAMP))
        phases.addAll(TimestampPhases.run(bench.store(), raw, n, upsertSeconds, settings));
      if (settings.groups().contains(Group.LIVE))
        live = LiveLatency.run(bench.store(), settings.live());
      if (settings.groups().contains(Group.IDLE))
        idle = IdleKeys.run(bench.store(), settings.idle(), ServerCpu.of(kind));
    }
    return new Result(
        kind,
        version,
        note,
        settings.groups(),
        n,
        settings.concurrency(),
        settings.handler(),
        settings.batchSize(),
        fetchSeconds,
        phases,
        live,
        idle,
        commitFloor,
        loadBefore,
        Machine.loadAverage());
  }

  /** The pages a listing of {@code items} items takes: at least one, empty or not. */
  static int pages(int items) {
    return Math.max(1, (items + PAGE - 1) / PAGE);
  }

  /** The {@code id} of item {@code index}, as the store keeps it. */
  static String identity(int index) {
    return Long.toString(1_000_000L + index);
  }
}
