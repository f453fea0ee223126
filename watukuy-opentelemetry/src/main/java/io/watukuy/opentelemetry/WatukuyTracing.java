package io.watukuy.opentelemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.watukuy.CycleInfo;
import io.watukuy.DeliveryCall;
import io.watukuy.KeyReport;
import io.watukuy.Lane;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.RequestInfo;
import io.watukuy.RequestStart;
import io.watukuy.TimeSource;
import io.watukuy.WatukuyException;
import io.watukuy.WatukuyListener;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The engine's OpenTelemetry traces (docs/operations.md, "Traces"): a {@link WatukuyListener} that
 * makes a span of every cycle, a client span of every HTTP attempt and a span of every handler or
 * sink call, and gives each call's W3C trace context to the sink's messages.
 *
 * <pre>{@code
 * WatukuyTracing tracing = WatukuyTracing.builder(openTelemetry).build();
 * Watukuy engine = Watukuy.builder().store(store).poller(orders).listener(tracing).build();
 * }</pre>
 *
 * <ul>
 *   <li><b>Cycle</b>: {@code watukuy.poll <poller>}, kind {@code INTERNAL}, from {@link
 *       CycleInfo#startedAt()} to its end; a child of the context current on the thread that
 *       started it ({@code tick()}), a root on a daemon's thread. Attributes {@code
 *       watukuy.poller}, {@code watukuy.partition} (not set without one), {@code watukuy.lane} (the
 *       lanes due, joined by {@code +}, {@code none} for a drain-only cycle), {@code
 *       watukuy.cycle.id}, and at its end {@code watukuy.pages}, {@code watukuy.events}, {@code
 *       watukuy.delivered}, {@code watukuy.parked}, {@code watukuy.outcome} ({@code success},
 *       {@code failure}, {@code throttled} for a 429 or a 503 with {@code Retry-After}, {@code
 *       deferred}, {@code lease_lost}). A failed cycle has status {@code ERROR} and {@code
 *       error.type}; a throttled one does not (its request span does).
 *   <li><b>HTTP request</b>: one {@code CLIENT} span per attempt of {@code ctx.http()}, a child of
 *       its key's cycle span, under the stable HTTP client semantic conventions: named by the
 *       method, with {@code http.request.method}, {@code url.full} (secrets replaced by {@code
 *       [redacted]}, {@link RequestStart#url()}), {@code server.address}, {@code server.port},
 *       {@code http.response.status_code}, {@code http.request.resend_count} from the second
 *       attempt on, and {@code error.type} (the status code from 400 on, or the failure in lower
 *       case) with status {@code ERROR}.
 *   <li><b>Delivery</b>: {@code watukuy.deliver <poller>}, kind {@code PRODUCER}, one per handler
 *       or sink call, from the hand-off to the return; the root of a trace of its own, with a link
 *       to the span of each cycle that committed its events while this instance remembers that
 *       cycle (the last {@link Builder#rememberCommits} commits; after a restart there is none).
 *       Attributes {@code watukuy.poller}, {@code watukuy.partition}, {@code watukuy.events},
 *       {@code watukuy.delivery.attempt}, {@code watukuy.delivery.failed}; status {@code ERROR}
 *       when an event failed, with {@code error.type} when the call threw. Its W3C trace context
 *       ({@code traceparent}, {@code tracestate}) is returned from {@link #onDeliveryStart}, so the
 *       sinks write it on their messages and into the CloudEvents {@code traceparent} extension.
 * </ul>
 *
 * <p>Times are the engine's: a cycle's and a delivery's from the {@link CycleInfo} and {@link
 * DeliveryCall} and their elapsed time, a request's start from the builder's {@link TimeSource}
 * (give it the engine's) and its end from the duration the engine measured. With a virtual clock
 * the spans are exact. Thread-safe, as a listener must be.
 *
 * @since 0.3
 */
public final class WatukuyTracing implements WatukuyListener {
  /** The instrumentation scope of every span. */
  public static final String INSTRUMENTATION_NAME = "io.watukuy.opentelemetry";

  /** How many commits are remembered for the links of delivery spans, by default. */
  public static final int DEFAULT_REMEMBERED_COMMITS = 10_000;

  static final AttributeKey<String> POLLER = AttributeKey.stringKey("watukuy.poller");
  static final AttributeKey<String> PARTITION = AttributeKey.stringKey("watukuy.partition");
  static final AttributeKey<String> LANE = AttributeKey.stringKey("watukuy.lane");
  static final AttributeKey<Long> CYCLE_ID = AttributeKey.longKey("watukuy.cycle.id");
  static final AttributeKey<Long> PAGES = AttributeKey.longKey("watukuy.pages");
  static final AttributeKey<Long> EVENTS = AttributeKey.longKey("watukuy.events");
  static final AttributeKey<Long> DELIVERED = AttributeKey.longKey("watukuy.delivered");
  static final AttributeKey<Long> PARKED = AttributeKey.longKey("watukuy.parked");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("watukuy.outcome");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("watukuy.delivery.attempt");
  static final AttributeKey<Long> FAILED = AttributeKey.longKey("watukuy.delivery.failed");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
  static final AttributeKey<String> URL = AttributeKey.stringKey("url.full");
  static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
  static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
  static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
  static final AttributeKey<Long> RESEND_COUNT = AttributeKey.longKey("http.request.resend_count");

  private final Tracer tracer;
  private final TimeSource time;
  private final CommitLinks commits;

  // Spans open now. Cycles and calls are paired by identity (the engine hands the same instance
  // to the start and the end); a key has at most one cycle at a time in an engine.
  private final Map<CycleInfo, Span> cycles = Collections.synchronizedMap(new IdentityHashMap<>());
  private final Map<PollerKey, Span> cycleOfKey = new ConcurrentHashMap<>();
  // Keys throttled during their running cycle (onThrottled comes before onCycleEnd).
  private final Set<PollerKey> throttled = ConcurrentHashMap.newKeySet();
  private final Map<DeliveryCall, Span> calls =
      Collections.synchronizedMap(new IdentityHashMap<>());

  // A request's start and end come on one thread with no other start between (onRequestStart).
  private final ThreadLocal<ArrayDeque<Request>> requests =
      ThreadLocal.withInitial(ArrayDeque::new);

  private record Request(Span span, Instant start) {}

  private WatukuyTracing(Builder b) {
    this.tracer = b.openTelemetry.getTracer(INSTRUMENTATION_NAME);
    this.time = b.time;
    this.commits = new CommitLinks(b.rememberCommits);
  }

  /**
   * Starts a configuration.
   *
   * @param openTelemetry where the spans go: the SDK the application set up ({@code
   *     AutoConfiguredOpenTelemetrySdk.initialize().getOpenTelemetrySdk()}, or {@code
   *     GlobalOpenTelemetry.get()})
   * @return a builder with the defaults
   * @throws NullPointerException if openTelemetry is null
   */
  public static Builder builder(OpenTelemetry openTelemetry) {
    return new Builder(openTelemetry);
  }

  @Override
  public void onCycleStart(CycleInfo cycle) {
    PollerKey key = cycle.key();
    SpanBuilder b =
        tracer
            .spanBuilder("watukuy.poll " + key.poller())
            .setSpanKind(SpanKind.INTERNAL)
            .setStartTimestamp(cycle.startedAt())
            .setAttribute(POLLER, key.poller())
            .setAttribute(LANE, lanes(cycle.lanes()))
            .setAttribute(CYCLE_ID, cycle.id());
    if (!key.partition().isEmpty()) b.setAttribute(PARTITION, key.partition());
    Span span = b.startSpan();
    throttled.remove(key);
    cycles.put(cycle, span);
    cycleOfKey.put(key, span);
  }

  @Override
  public void onThrottled(PollerKey key, Instant until) {
    throttled.add(key);
  }

  @Override
  public void onCycleEnd(CycleInfo cycle, KeyReport report, Duration elapsed) {
    Span span = cycles.remove(cycle);
    if (span == null) return;
    cycleOfKey.remove(cycle.key(), span);
    span.setAttribute(PAGES, report.pages());
    span.setAttribute(EVENTS, report.eventsCommitted());
    span.setAttribute(DELIVERED, report.delivered());
    span.setAttribute(PARKED, report.parked());
    // A throttle is the vendor saying when to come back, not an error: health and the metrics
    // treat it the same way (docs/operations.md, "Health").
    boolean wasThrottled = throttled.remove(cycle.key());
    span.setAttribute(OUTCOME, wasThrottled ? "throttled" : outcome(report));
    Throwable error = report.error();
    if (report.failed() && error != null && !wasThrottled) {
      span.setAttribute(ERROR_TYPE, error.getClass().getName());
      span.setStatus(StatusCode.ERROR, description(error));
    }
    span.end(cycle.startedAt().plus(elapsed));
  }

  @Override
  public void onCommit(CycleInfo cycle, long firstSequence, long lastSequence) {
    Span span = cycles.get(cycle);
    if (span != null)
      commits.remember(cycle.key(), firstSequence, lastSequence, span.getSpanContext());
  }

  @Override
  public void onRequestStart(PollerKey key, RequestStart request) {
    Instant start = time.now();
    Span span =
        startRequest(
            key, request.method(), request.origin(), request.url(), request.attempt(), start);
    requests.get().push(new Request(span, start));
  }

  @Override
  public void onRequest(PollerKey key, RequestInfo request) {
    Request r = requests.get().poll();
    if (r == null) {
      // No start was told for this attempt: the span still shows it, ending now, without the URL.
      Instant start = time.now().minus(request.duration());
      Span span =
          startRequest(key, request.method(), request.origin(), null, request.attempt(), start);
      r = new Request(span, start);
    }
    Span span = r.span;
    if (request.status() != 0) span.setAttribute(STATUS, request.status());
    String errorType = errorType(request);
    if (errorType != null) {
      span.setAttribute(ERROR_TYPE, errorType);
      span.setStatus(StatusCode.ERROR);
    }
    span.end(r.start.plus(request.duration()));
  }

  /**
   * Starts the call's span and returns its W3C trace context for the sink's messages.
   *
   * @param call the handler call
   * @return {@code traceparent}, and {@code tracestate} when the trace has one
   */
  @Override
  public Map<String, String> onDeliveryStart(DeliveryCall call) {
    PollerKey key = call.key();
    SpanBuilder b =
        tracer
            .spanBuilder("watukuy.deliver " + key.poller())
            .setSpanKind(SpanKind.PRODUCER)
            .setNoParent()
            .setStartTimestamp(call.startedAt())
            .setAttribute(POLLER, key.poller())
            .setAttribute(EVENTS, call.events())
            .setAttribute(ATTEMPT, call.attempt());
    if (!key.partition().isEmpty()) b.setAttribute(PARTITION, key.partition());
    Set<SpanContext> linked = new LinkedHashSet<>();
    for (long sequence : call.sequences()) {
      SpanContext cycle = commits.find(key, sequence);
      if (cycle != null && linked.add(cycle)) b.addLink(cycle);
    }
    Span span = b.startSpan();
    calls.put(call, span);
    Map<String, String> headers = new LinkedHashMap<>();
    W3CTraceContextPropagator.getInstance()
        .inject(
            Context.root().with(span), headers, (carrier, name, value) -> carrier.put(name, value));
    return headers;
  }

  @Override
  public void onDeliveryEnd(
      DeliveryCall call, int failed, @Nullable Throwable error, Duration elapsed) {
    Span span = calls.remove(call);
    if (span == null) return;
    span.setAttribute(FAILED, failed);
    if (error != null) {
      span.setAttribute(ERROR_TYPE, error.getClass().getName());
      span.setStatus(StatusCode.ERROR, description(error));
    } else if (failed > 0) {
      span.setStatus(StatusCode.ERROR, failed + " of " + call.events() + " events failed");
    }
    span.end(call.startedAt().plus(elapsed));
  }

  private Span startRequest(
      PollerKey key,
      String method,
      String origin,
      @Nullable String url,
      int attempt,
      Instant start) {
    Span cycle = cycleOfKey.get(key);
    Context parent = cycle == null ? Context.current() : Context.root().with(cycle);
    SpanBuilder b =
        tracer
            .spanBuilder(method)
            .setSpanKind(SpanKind.CLIENT)
            .setParent(parent)
            .setStartTimestamp(start)
            .setAttribute(METHOD, method);
    if (url != null) b.setAttribute(URL, url);
    try {
      URI server = URI.create(origin);
      if (server.getHost() != null) b.setAttribute(SERVER_ADDRESS, server.getHost());
      if (server.getPort() > 0) b.setAttribute(SERVER_PORT, (long) server.getPort());
    } catch (IllegalArgumentException e) {
      // An origin the engine did not form: the span goes without the server's name.
    }
    if (attempt > 1) b.setAttribute(RESEND_COUNT, (long) attempt - 1);
    return b.startSpan();
  }

  /** The semantic conventions' {@code error.type} of an attempt, or null when it succeeded. */
  private static @Nullable String errorType(RequestInfo request) {
    if (request.failure() != null)
      return request.failure() == RequestInfo.Failure.OTHER
          ? "_OTHER"
          : request.failure().name().toLowerCase(Locale.ROOT);
    return request.status() >= 400 ? Integer.toString(request.status()) : null;
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

  /**
   * A status description that cannot carry a secret: the engine's own messages, which it redacts,
   * and only the class of anything else (a handler's message may quote what it wrote).
   */
  private static String description(Throwable error) {
    if (error instanceof WatukuyException && error.getMessage() != null) return error.getMessage();
    return error.getClass().getSimpleName();
  }

  /**
   * How a {@link WatukuyTracing} is set up; every setting has a default.
   *
   * @since 0.3
   */
  public static final class Builder {
    private final OpenTelemetry openTelemetry;
    private TimeSource time = TimeSource.system();
    private int rememberCommits = DEFAULT_REMEMBERED_COMMITS;

    private Builder(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
    }

    /**
     * The clock an HTTP span starts by: give the engine's ({@code Watukuy.builder().time(..)}).
     *
     * @param time the engine's time source; {@link TimeSource#system()} by default
     * @return this builder
     * @throws NullPointerException if time is null
     */
    public Builder time(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    /**
     * How many commits (one per page with events) this instance remembers to link a delivery span
     * to the cycle that committed its events. Past it the oldest is forgotten and its events'
     * deliveries get no link. About 100 bytes each.
     *
     * @param commits at least 1; {@link #DEFAULT_REMEMBERED_COMMITS} by default
     * @return this builder
     * @throws IllegalArgumentException if commits is below 1
     */
    public Builder rememberCommits(int commits) {
      if (commits < 1)
        throw new IllegalArgumentException("rememberCommits must be >= 1, but was " + commits);
      this.rememberCommits = commits;
      return this;
    }

    /**
     * The listener.
     *
     * @return a listener to give to {@code Watukuy.builder().listener(..)}
     */
    public WatukuyTracing build() {
      return new WatukuyTracing(this);
    }
  }
}
