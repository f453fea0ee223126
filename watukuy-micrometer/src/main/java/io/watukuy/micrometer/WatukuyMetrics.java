package io.watukuy.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.watukuy.CycleInfo;
import io.watukuy.DeliveryOutcome;
import io.watukuy.EventType;
import io.watukuy.Inspection;
import io.watukuy.KeyReport;
import io.watukuy.Lane;
import io.watukuy.LeaseLostException;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RequestInfo;
import io.watukuy.RequestStart;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The engine's Micrometer instrumentation (docs/operations.md, "Metrics"): a {@link
 * WatukuyListener} that times cycles, HTTP attempts and rate-budget waits as {@link Observation}s,
 * counts events, deliveries and lost leases, and registers gauges that read {@link
 * Watukuy#inspect()}.
 *
 * <pre>{@code
 * WatukuyMetrics metrics = new WatukuyMetrics(meterRegistry);           // meters only
 * WatukuyMetrics metrics = new WatukuyMetrics(meterRegistry, observationRegistry); // Spring Boot
 * Watukuy engine = Watukuy.builder().listener(metrics) ... .build();
 * metrics.watch(engine); // the outbox, parked, lag and freshness gauges
 * }</pre>
 *
 * <p><b>Observations.</b> {@code watukuy.poll} starts at {@link #onCycleStart} and stops at {@link
 * #onCycleEnd}, with a scope open on the cycle's thread in between; {@code
 * watukuy.http.client.requests} starts at {@link #onRequestStart} and stops at {@link #onRequest};
 * {@code watukuy.budget.wait} starts at {@link #onBudgetWait} and stops at {@link
 * #onBudgetWaitEnd}. The HTTP and budget observations are children of the key's running cycle.
 * Whatever handlers the observation registry holds see them: a {@link
 * DefaultMeterObservationHandler} makes the timers (with its {@code error} tag, and a {@code
 * .active} long task timer per name), micrometer-tracing makes spans. Timers are measured by the
 * meter registry's clock; build it on an {@link EngineClock} to measure on the engine's clock.
 *
 * <p><b>Tags.</b> Every tag is bounded: poller and budget names come from the configuration, lanes,
 * event types and outcomes are enums, an HTTP status is its three-digit code ({@code UNKNOWN}
 * without an answer or outside 100–599), a method outside {@code GET}, {@code POST}, {@code PUT} is
 * {@code OTHER}. Per-key meters carry {@code partition}: the partition's name while the poller has
 * had at most {@link #PARTITION_TAG_LIMIT} partitions in this process, else {@code ""}, the whole
 * poller, from then on (docs/operations.md, "Partitions as a tag"). URLs, and the partitions of a
 * poller measured as a whole, are high-cardinality key values only, for spans, never meter tags.
 *
 * <p>Thread-safe, as a listener must be.
 *
 * @since 0.3
 */
public final class WatukuyMetrics implements WatukuyListener {
  /**
   * Timer (Observation) of cycles: tags {@code poller}, {@code partition}, {@code lane}, {@code
   * outcome} ({@code success}, {@code failure}, {@code throttled} for a 429 or a 503 with
   * Retry-After, {@code deferred}, {@code lease_lost}).
   */
  public static final String POLL = "watukuy.poll";

  /**
   * Timer (Observation) of HTTP attempts of the engine's helper: tags {@code method}, {@code
   * status}, {@code outcome}, {@code server.address}.
   */
  public static final String HTTP = "watukuy.http.client.requests";

  /**
   * Counter of events committed to the outbox: tags {@code poller}, {@code partition}, {@code
   * type}, {@code lane}.
   */
  public static final String EVENTS = "watukuy.events";

  /**
   * Counter of events by delivery outcome: tags {@code poller}, {@code partition}, {@code outcome}.
   */
  public static final String DELIVERIES = "watukuy.deliveries";

  /** Gauge of pending outbox rows: tags {@code poller}, {@code partition}. */
  public static final String OUTBOX_PENDING = "watukuy.outbox.pending";

  /** Gauge of parked rows: tags {@code poller}, {@code partition}. */
  public static final String PARKED = "watukuy.parked";

  /**
   * Gauge of the live watermark's lag in seconds, timestamp pollers: tags {@code poller}, {@code
   * partition}.
   */
  public static final String LAG = "watukuy.lag";

  /** Gauge of seconds since the last successful poll: tags {@code poller}, {@code partition}. */
  public static final String FRESHNESS = "watukuy.freshness";

  /** Timer (Observation) of rate-budget waits: tag {@code budget}. */
  public static final String BUDGET_WAIT = "watukuy.budget.wait";

  /** Counter of leases lost at a fenced write: tag {@code poller}. */
  public static final String LEASES_LOST = "watukuy.leases.lost";

  /**
   * The most partitions a poller may have had in this process and still get a {@code partition} tag
   * per partition; past it the poller is measured as a whole, for good.
   */
  public static final int PARTITION_TAG_LIMIT = 20;

  /** How long one inspection serves the gauges, on the registry's clock. */
  public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(1);

  private static final Set<String> METHODS = Set.of("GET", "POST", "PUT");

  private final MeterRegistry registry;
  private final ObservationRegistry observations;
  private final PartitionTags partitions;
  private final InspectionGauges gauges;
  private final boolean ownObservations;
  // Keys throttled during their running cycle (onThrottled comes before onCycleEnd).
  private final Set<PollerKey> throttled = ConcurrentHashMap.newKeySet();
  private final Map<CycleInfo, Observation.Scope> cycles = new ConcurrentHashMap<>();
  // The running cycle of each key: the parent of its requests and budget waits, which may run on
  // another thread (a page fetched ahead).
  private final Map<PollerKey, Observation> running = new ConcurrentHashMap<>();
  // A request's and a budget wait's start and stop come on the same thread, with no other start of
  // the same kind between (WatukuyListener#onRequestStart, #onBudgetWaitEnd).
  private final ThreadLocal<@Nullable Observation> request = new ThreadLocal<>();
  private final ThreadLocal<@Nullable Observation> budgetWait = new ThreadLocal<>();

  /**
   * Meters in a registry, through an observation registry of its own that holds one {@link
   * DefaultMeterObservationHandler} on {@code registry}; gauges refreshed every {@link
   * #DEFAULT_REFRESH}.
   *
   * @param registry where the meters go
   * @throws NullPointerException if registry is null
   */
  public WatukuyMetrics(MeterRegistry registry) {
    this(registry, DEFAULT_REFRESH);
  }

  /**
   * Meters in a registry, through an observation registry of its own that holds one {@link
   * DefaultMeterObservationHandler} on {@code registry}.
   *
   * @param registry where the meters go
   * @param refresh how long one {@link Watukuy#inspect()} serves every gauge, measured on the
   *     registry's clock: a scrape reads the store once, not once per gauge; {@link Duration#ZERO}
   *     inspects at every gauge read
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if refresh is negative
   */
  public WatukuyMetrics(MeterRegistry registry, Duration refresh) {
    this(registry, meterObservations(registry), refresh, true);
  }

  /**
   * Counters and gauges in a registry, timings through the application's observation registry
   * (Spring Boot's, which turns them into timers and, with micrometer-tracing, spans); gauges
   * refreshed every {@link #DEFAULT_REFRESH}. Without a meter handler on {@code observations} there
   * are no timers.
   *
   * @param registry where counters and gauges go
   * @param observations where cycles, requests and budget waits are observed
   * @throws NullPointerException if an argument is null
   */
  public WatukuyMetrics(MeterRegistry registry, ObservationRegistry observations) {
    this(registry, observations, DEFAULT_REFRESH);
  }

  /**
   * Counters and gauges in a registry, timings through an observation registry.
   *
   * @param registry where counters and gauges go
   * @param observations where cycles, requests and budget waits are observed
   * @param refresh as in {@link #WatukuyMetrics(MeterRegistry, Duration)}
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if refresh is negative
   */
  public WatukuyMetrics(
      MeterRegistry registry, ObservationRegistry observations, Duration refresh) {
    this(registry, observations, refresh, false);
  }

  private WatukuyMetrics(
      MeterRegistry registry,
      ObservationRegistry observations,
      Duration refresh,
      boolean ownObservations) {
    this.ownObservations = ownObservations;
    this.registry = Objects.requireNonNull(registry, "registry");
    this.observations = Objects.requireNonNull(observations, "observations");
    Objects.requireNonNull(refresh, "refresh");
    if (refresh.isNegative())
      throw new IllegalArgumentException("refresh must not be negative, but was " + refresh);
    // Bound before the gauges exist: the callback only runs once a key's tag is asked for.
    InspectionGauges[] g = new InspectionGauges[1];
    this.partitions = new PartitionTags(poller -> g[0].dropPartitions(poller));
    this.gauges = g[0] = new InspectionGauges(registry, refresh, partitions);
  }

  private static ObservationRegistry meterObservations(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    ObservationRegistry observations = ObservationRegistry.create();
    observations
        .observationConfig()
        .observationHandler(new DefaultMeterObservationHandler(registry));
    return observations;
  }

  /**
   * Registers the gauges, read from this engine's {@link Watukuy#inspect()}: for the keys with
   * stored state now, for keys that appear in a later inspection, and for each key whose cycle
   * starts here.
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
   * Registers the gauges, read from an inspection source (for an engine wrapped by the application,
   * or a test).
   *
   * @param inspections takes a snapshot; called now and then at most once per refresh interval.
   *     When it throws later (a store that is down), every gauge reads {@code NaN} until the next
   *     interval, and a warning names the error once per run of failures: a scrape never fails on
   *     it
   * @return this
   * @throws NullPointerException if inspections is null
   */
  public WatukuyMetrics watch(Supplier<Inspection> inspections) {
    gauges.watch(Objects.requireNonNull(inspections, "inspections"));
    return this;
  }

  /**
   * Registers the meters that otherwise appear only at their first occurrence, at 0, so that a
   * dashboard or an alert sees a series from the start: {@code watukuy.leases.lost} per poller,
   * and, when this instance made its own observation registry, {@code watukuy.budget.wait} (tags
   * {@code budget}, {@code error=none}) per budget the pollers name. With an application's
   * observation registry the budget timer's tags are its handler's to choose, so it still appears
   * at the first wait. A poller's lease counter is also registered when its first cycle starts
   * here.
   *
   * @param pollers the pollers given to the engine
   * @return this
   * @throws NullPointerException if pollers is null
   */
  public WatukuyMetrics declare(Collection<? extends Poller<?>> pollers) {
    for (Poller<?> p : pollers) {
      leasesLost(p.name());
      String budget = p.budget();
      if (budget != null && ownObservations)
        Timer.builder(BUDGET_WAIT).tags("budget", budget, "error", "none").register(registry);
    }
    return this;
  }

  private Counter leasesLost(String poller) {
    return Counter.builder(LEASES_LOST)
        .description("fenced writes rejected because another instance holds the key")
        .tags("poller", poller)
        .register(registry);
  }

  @Override
  public void onCycleStart(CycleInfo cycle) {
    PollerKey key = cycle.key();
    leasesLost(key.poller());
    throttled.remove(key);
    if (gauges.watching()) gauges.register(key);
    String partition = partitions.tag(key);
    Observation o =
        Observation.createNotStarted(POLL, observations)
            .contextualName("watukuy poll " + key.poller())
            .lowCardinalityKeyValue("poller", key.poller())
            .lowCardinalityKeyValue("partition", partition)
            .lowCardinalityKeyValue("lane", lanes(cycle.lanes()));
    // An aggregated poller's partition still reaches a span, never a meter.
    if (!partition.equals(key.partition())) o.highCardinalityKeyValue("partition", key.partition());
    o.start();
    running.put(key, o);
    cycles.put(cycle, o.openScope());
  }

  @Override
  public void onCycleEnd(CycleInfo cycle, KeyReport report, Duration elapsed) {
    Observation.Scope scope = cycles.remove(cycle);
    if (scope == null) return; // started before this listener was attached
    running.remove(cycle.key(), scope.getCurrentObservation());
    Observation o = scope.getCurrentObservation();
    scope.close();
    boolean wasThrottled = throttled.remove(cycle.key());
    if (!report.failed()) gauges.succeeded(cycle.key());
    o.lowCardinalityKeyValue("outcome", wasThrottled ? "throttled" : outcome(report));
    Throwable error = report.error();
    if (error != null) o.error(error);
    o.stop();
  }

  @Override
  public void onRequestStart(PollerKey key, RequestStart start) {
    Observation o =
        Observation.createNotStarted(HTTP, observations)
            .contextualName(method(start.method()))
            .parentObservation(running.get(key))
            .lowCardinalityKeyValue("method", method(start.method()))
            .lowCardinalityKeyValue("server.address", address(start.origin()))
            .highCardinalityKeyValue("url.full", start.url())
            .highCardinalityKeyValue("poller", key.poller())
            .start();
    request.set(o);
  }

  @Override
  public void onRequest(PollerKey key, RequestInfo info) {
    Observation o = request.get();
    request.remove();
    if (o == null) { // no start was heard (a listener attached mid-request): count it at once
      onRequestStart(
          key, new RequestStart(info.method(), info.origin(), info.origin(), info.attempt()));
      o = Objects.requireNonNull(request.get());
      request.remove();
    }
    o.lowCardinalityKeyValue("method", method(info.method()))
        .lowCardinalityKeyValue("status", status(info))
        .lowCardinalityKeyValue("outcome", info.outcome())
        .stop();
  }

  @Override
  public void onBudgetWait(PollerKey key, String budget, Duration wait) {
    budgetWait.set(
        Observation.createNotStarted(BUDGET_WAIT, observations)
            .contextualName("watukuy budget wait " + budget)
            .parentObservation(running.get(key))
            .lowCardinalityKeyValue("budget", budget)
            .highCardinalityKeyValue("poller", key.poller())
            .highCardinalityKeyValue("expected", wait.toString())
            .start());
  }

  @Override
  public void onBudgetWaitEnd(
      PollerKey key, String budget, Duration waited, @Nullable Throwable failure) {
    Observation o = budgetWait.get();
    budgetWait.remove();
    if (o == null) return;
    if (failure != null) o.error(failure);
    o.stop();
  }

  @Override
  public void onEvents(PollerKey key, Lane lane, EventType type, int count) {
    Counter.builder(EVENTS)
        .description("events committed to the outbox")
        .tags(
            "poller",
            key.poller(),
            "partition",
            partitions.tag(key),
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
        .tags(
            "poller",
            key.poller(),
            "partition",
            partitions.tag(key),
            "outcome",
            outcome.result().name().toLowerCase(Locale.ROOT))
        .register(registry)
        .increment(outcome.events());
  }

  @Override
  public void onLeaseLost(PollerKey key, LeaseLostException error) {
    leasesLost(key.poller()).increment();
  }

  @Override
  public void onThrottled(PollerKey key, Instant until) {
    throttled.add(key);
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

  private static String method(String method) {
    return METHODS.contains(method) ? method : "OTHER";
  }

  private static String status(RequestInfo request) {
    return request.status() >= 100 && request.status() < 600
        ? Integer.toString(request.status())
        : "UNKNOWN";
  }

  private static String address(String origin) {
    try {
      String host = java.net.URI.create(origin).getHost();
      return host == null ? "UNKNOWN" : host;
    } catch (IllegalArgumentException e) {
      return "UNKNOWN";
    }
  }
}
