package io.watukuy.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.watukuy.CycleInfo;
import io.watukuy.DeliveryOutcome;
import io.watukuy.EventType;
import io.watukuy.Inspection;
import io.watukuy.KeyInspection;
import io.watukuy.KeyReport;
import io.watukuy.Lane;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.RequestInfo;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToDoubleBiFunction;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's Micrometer meters (docs/operations.md, "Metrics"): a {@link WatukuyListener} that
 * records timers and counters from the engine's callbacks, and gauges that read {@link
 * Watukuy#inspect()}.
 *
 * <pre>{@code
 * WatukuyMetrics metrics = new WatukuyMetrics(registry);
 * Watukuy engine = Watukuy.builder().listener(metrics) ... .build();
 * metrics.watch(engine); // the outbox, parked, lag and freshness gauges
 * }</pre>
 *
 * <p>Every tag is bounded: poller and budget names come from the configuration, lanes, event types
 * and outcomes are enums, an HTTP status is its three-digit code ({@code UNKNOWN} without an answer
 * or outside 100–599), a method outside {@code GET}, {@code POST}, {@code PUT} is {@code OTHER}; no
 * URL path, query, partition or event id becomes a tag. Per-poller gauges aggregate the poller's
 * partitions (sum for counts, the worst partition for lag and freshness).
 *
 * <p>Durations are the ones the engine measured on its {@link io.watukuy.TimeSource}, so a virtual
 * clock gives exact timer values. Timings are plain {@link Timer}s for now, not the Observation
 * API. Thread-safe, as a listener must be.
 *
 * @since 0.3
 */
public final class WatukuyMetrics implements WatukuyListener {
  /** Timer of cycles: tags {@code poller}, {@code lane}, {@code outcome}. */
  public static final String POLL = "watukuy.poll";

  /**
   * Timer of HTTP attempts of the engine's helper: tags {@code method}, {@code status}, {@code
   * outcome}, {@code server.address}.
   */
  public static final String HTTP = "watukuy.http.client.requests";

  /** Counter of events committed to the outbox: tags {@code poller}, {@code type}, {@code lane}. */
  public static final String EVENTS = "watukuy.events";

  /** Counter of events by delivery outcome: tags {@code poller}, {@code outcome}. */
  public static final String DELIVERIES = "watukuy.deliveries";

  /** Gauge of pending outbox rows, per poller. */
  public static final String OUTBOX_PENDING = "watukuy.outbox.pending";

  /** Gauge of parked rows, per poller. */
  public static final String PARKED = "watukuy.parked";

  /** Gauge of the live watermark's lag in seconds, per timestamp poller, worst partition. */
  public static final String LAG = "watukuy.lag";

  /** Gauge of seconds since the last successful poll, per poller, worst partition. */
  public static final String FRESHNESS = "watukuy.freshness";

  /** Timer of expected rate-budget waits: tag {@code budget}. */
  public static final String BUDGET_WAIT = "watukuy.budget.wait";

  /** Counter of leases lost at a fenced write: tag {@code poller}. */
  public static final String LEASES_LOST = "watukuy.leases.lost";

  /** How long one inspection serves the gauges, on the registry's clock. */
  public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(1);

  private static final Logger LOG = LoggerFactory.getLogger(WatukuyMetrics.class);

  private static final Set<String> METHODS = Set.of("GET", "POST", "PUT");

  private final MeterRegistry registry;
  private final Duration refresh;
  private final Set<String> gauged = ConcurrentHashMap.newKeySet();
  private volatile @Nullable Supplier<Inspection> inspector;
  private volatile @Nullable Inspection last;
  private volatile long lastAtNanos;
  private volatile boolean failing;

  /**
   * Meters in a registry, gauges refreshed every {@link #DEFAULT_REFRESH}.
   *
   * @param registry where the meters go
   * @throws NullPointerException if registry is null
   */
  public WatukuyMetrics(MeterRegistry registry) {
    this(registry, DEFAULT_REFRESH);
  }

  /**
   * Meters in a registry.
   *
   * @param registry where the meters go
   * @param refresh how long one {@link Watukuy#inspect()} serves every gauge, measured on the
   *     registry's clock: a scrape reads the store once, not once per gauge; {@link Duration#ZERO}
   *     inspects at every gauge read
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if refresh is negative
   */
  public WatukuyMetrics(MeterRegistry registry, Duration refresh) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.refresh = Objects.requireNonNull(refresh, "refresh");
    if (refresh.isNegative())
      throw new IllegalArgumentException("refresh must not be negative, but was " + refresh);
  }

  /**
   * Registers the per-poller gauges, read from this engine's {@link Watukuy#inspect()}: for the
   * pollers with stored state now, and for each further poller when its first cycle starts.
   *
   * @param engine the engine this listener was given to
   * @return this
   * @throws NullPointerException if engine is null
   * @throws io.watukuy.StoreException if the store cannot be read now
   */
  public WatukuyMetrics watch(Watukuy engine) {
    Objects.requireNonNull(engine, "engine");
    return watch(engine::inspect);
  }

  /**
   * Registers the per-poller gauges, read from an inspection source (for an engine wrapped by the
   * application, or a test).
   *
   * @param inspections takes a snapshot; called at most once per refresh interval. When it throws
   *     (a store that is down), every gauge reads {@code NaN} until the next interval, and a
   *     warning names the error once per run of failures: a scrape never fails on it
   * @return this
   * @throws NullPointerException if inspections is null
   */
  public WatukuyMetrics watch(Supplier<Inspection> inspections) {
    this.inspector = Objects.requireNonNull(inspections, "inspections");
    last = null;
    for (KeyInspection k : inspections.get().pollers()) gauges(k.poller());
    return this;
  }

  @Override
  public void onCycleStart(CycleInfo cycle) {
    if (inspector != null) gauges(cycle.key().poller());
  }

  @Override
  public void onCycleEnd(CycleInfo cycle, KeyReport report, Duration elapsed) {
    Timer.builder(POLL)
        .description("cycles of a key under its lease, from start to end")
        .tags(
            "poller",
            cycle.key().poller(),
            "lane",
            lanes(cycle.lanes()),
            "outcome",
            outcome(report))
        .register(registry)
        .record(elapsed);
  }

  @Override
  public void onRequest(PollerKey key, RequestInfo request) {
    Timer.builder(HTTP)
        .description("HTTP attempts of the engine's helper, until the body was read or failed")
        .tags(
            "method",
            METHODS.contains(request.method()) ? request.method() : "OTHER",
            "status",
            request.status() >= 100 && request.status() < 600
                ? Integer.toString(request.status())
                : "UNKNOWN",
            "outcome",
            request.outcome(),
            "server.address",
            address(request))
        .register(registry)
        .record(request.duration());
  }

  @Override
  public void onEvents(PollerKey key, Lane lane, EventType type, int count) {
    Counter.builder(EVENTS)
        .description("events committed to the outbox")
        .tags(
            "poller",
            key.poller(),
            "type",
            type.name().toLowerCase(Locale.ROOT),
            "lane",
            lane.wire())
        .register(registry)
        .increment(count);
  }

  @Override
  public void onDelivery(PollerKey key, DeliveryOutcome outcome) {
    Counter.builder(DELIVERIES)
        .description("events by what a handler call did to them")
        .tags("poller", key.poller(), "outcome", outcome.result().name().toLowerCase(Locale.ROOT))
        .register(registry)
        .increment(outcome.events());
  }

  @Override
  public void onBudgetWait(PollerKey key, String budget, Duration wait) {
    Timer.builder(BUDGET_WAIT)
        .description("expected waits for a rate-budget token")
        .tags("budget", budget)
        .register(registry)
        .record(wait);
  }

  @Override
  public void onLeaseLost(PollerKey key, LeaseLostException error) {
    Counter.builder(LEASES_LOST)
        .description("fenced writes rejected because another instance holds the key")
        .tags("poller", key.poller())
        .register(registry)
        .increment();
  }

  private void gauges(String poller) {
    if (!gauged.add(poller)) return;
    gauge(OUTBOX_PENDING, poller, "pending outbox rows", null, (at, k) -> k.outboxPending(), true);
    gauge(PARKED, poller, "parked rows", null, (at, k) -> k.parked(), true);
    gauge(
        LAG,
        poller,
        "now minus the live watermark, timestamp pollers, worst partition",
        "seconds",
        (at, k) -> k.lagMs() == null ? Double.NaN : k.lagMs() / 1000.0,
        false);
    gauge(
        FRESHNESS,
        poller,
        "time since the last successful poll, worst partition",
        "seconds",
        WatukuyMetrics::freshness,
        false);
  }

  private void gauge(
      String name,
      String poller,
      String description,
      @Nullable String unit,
      ToDoubleBiFunction<Instant, KeyInspection> value,
      boolean sum) {
    Gauge.builder(name, this, m -> m.read(poller, value, sum))
        .description(description)
        .baseUnit(unit)
        .tags(Tags.of("poller", poller))
        .strongReference(true)
        .register(registry);
  }

  /** The gauge's value: the sum or the maximum over the poller's keys, NaN when none has one. */
  private double read(
      String poller, ToDoubleBiFunction<Instant, KeyInspection> value, boolean sum) {
    Inspection in = inspection();
    if (in == null) return Double.NaN;
    double result = Double.NaN;
    for (KeyInspection k : in.pollers()) {
      if (!k.poller().equals(poller)) continue;
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

  private @Nullable Inspection inspection() {
    Supplier<Inspection> source = inspector;
    if (source == null) return null;
    long now = registry.config().clock().monotonicTime();
    Inspection cached = last;
    if ((cached != null || failing) && now - lastAtNanos < refresh.toNanos()) return cached;
    synchronized (this) {
      if ((last != null || failing) && now - lastAtNanos < refresh.toNanos()) return last;
      Inspection fresh;
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
      return fresh;
    }
  }

  private static String lanes(Set<Lane> lanes) {
    if (lanes.isEmpty()) return "none";
    return lanes.stream().map(Lane::wire).sorted().collect(Collectors.joining("+"));
  }

  private static String outcome(KeyReport report) {
    if (report.error() instanceof LeaseLostException) return "lease_lost";
    if (report.outcome() == KeyReport.Outcome.DEFERRED) return "deferred";
    return report.failed() ? "failure" : "success";
  }

  private static String address(RequestInfo request) {
    try {
      String host = request.serverAddress();
      return host == null ? "UNKNOWN" : host;
    } catch (IllegalArgumentException e) {
      return "UNKNOWN";
    }
  }
}
