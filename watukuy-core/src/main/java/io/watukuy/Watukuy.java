package io.watukuy;

import io.watukuy.internal.Engine;
import io.watukuy.internal.http.Redactor;
import io.watukuy.spi.RateBudgetStore;
import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryBudgetStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The engine: runs the pollers' cycles against a {@link StateStore} and delivers their events to
 * the attached handlers, with the guarantees G1–G10 (docs/guarantees.md). Create with {@link
 * #builder()}.
 *
 * <p>Two ways to run it: {@link #tick()} runs every due key once on the calling thread (tests,
 * cron, serverless), {@link #start()} runs a daemon scheduler until {@link #stop()}. Thread-safe.
 *
 * @since 0.1
 */
public interface Watukuy extends AutoCloseable {

  /**
   * Default lease TTL (docs/architecture.md, "Defaults"): 30 s, renewed every ttl/3 and after each
   * committed page.
   */
  Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(30);

  /** Default time {@link #stop()} waits for in-flight cycles to finish and deliver. */
  Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);

  /**
   * The SLF4J logger name of the errors the engine also reports: a failed cycle, a lost lease, a
   * store failure before the lease, a handler that reported its destination unavailable. Each is
   * logged once at WARN (message only, no stack trace) on this logger, and is also the {@link
   * KeyReport#error()} of the key's run and reaches {@link WatukuyListener#onCycle} (and, for a
   * failed cycle, {@link WatukuyListener#onError}). An application that reports these errors itself
   * may turn this logger off without losing the engine's other warnings. A throttle (a 429, or a
   * 503 with Retry-After) is not a failed cycle: it is an INFO line elsewhere (docs/operations.md,
   * "Health").
   */
  String ERROR_LOGGER = "io.watukuy.errors";

  /**
   * A new engine builder.
   *
   * @return a builder with the defaults (docs/architecture.md, "Defaults"); {@code store} and a
   *     poller still to set
   */
  static Builder builder() {
    return new Builder();
  }

  /**
   * The redaction the engine applies with {@link Builder#secrets}, for text an application prints
   * or stores itself: each value becomes {@code [redacted]} in every form it takes (raw,
   * JSON-escaped, percent-encoded, Base64; docs/operations.md, "Secrets"). Apply before cutting.
   *
   * @param secrets the secret strings; empty strings are ignored
   * @return a thread-safe function; null text gives the empty string
   * @throws NullPointerException if {@code secrets} or one of its values is null
   */
  static Function<@Nullable String, String> redaction(Collection<String> secrets) {
    return new Redactor(secrets)::message;
  }

  /**
   * Like {@link #redaction}, but each secret becomes {@code name} applied to it (e.g. the {@code
   * ${VARIABLE}} it came from) instead of {@code [redacted]}; all secrets are replaced in one pass,
   * so a replacement is never scanned again (docs/operations.md, "Secrets").
   *
   * @param secrets the secret strings; empty strings are ignored
   * @param name the text that replaces one secret, in every form it takes
   * @return a thread-safe function; null text gives the empty string
   * @throws NullPointerException if {@code secrets} or one of its values is null
   */
  static Function<@Nullable String, String> naming(
      Collection<String> secrets, Function<String, String> name) {
    Redactor redactor = new Redactor(secrets);
    return text -> redactor.replaced(text, name);
  }

  /**
   * Attaches the handler of a poller's events; replaces a previous one. Attach before ticking:
   * events committed while no handler is attached wait in the outbox (with a warning and {@link
   * WatukuyListener#onNoHandler}). Takes effect from the next run of each key. Thread-safe.
   *
   * @param <T> the item type
   * @param poller a poller registered with this engine (matched by name)
   * @param handler receives the poller's events; see {@link Handler} for threading and retries
   * @return this engine
   * @throws ConfigException if the poller is not registered with this engine, or has a {@link
   *     BatchHandler} attached ({@link #onBatch}) or an open subscription
   */
  <T> Watukuy on(Poller<T> poller, Handler<T> handler);

  /**
   * Attaches a batch handler of a poller's events, as {@link #on} does for one event at a time
   * (docs/guarantees.md, "Batches"); replaces a previous batch handler. Thread-safe.
   *
   * @param <T> the item type
   * @param poller a poller registered with this engine (matched by name)
   * @param handler receives up to {@link DeliveryOptions#batchSize()} events at once; see {@link
   *     BatchHandler} for what a batch holds, its result, and what a crash repeats (G9)
   * @return this engine
   * @throws ConfigException if the poller is not registered with this engine, or already has a
   *     {@link Handler} (via {@link #on}) or an open subscription: a poller has one of the three
   * @since 0.2
   */
  <T> Watukuy onBatch(Poller<T> poller, BatchHandler<T> handler);

  /**
   * Runs every due key once on the calling thread, with {@link TickOptions#DEFAULT}: no deadline,
   * every poller.
   *
   * @return a report per key
   * @throws IllegalStateException if the engine is closed
   * @see #tick(TickOptions)
   */
  TickReport tick();

  /**
   * Runs every due key of the selected pollers once on the calling thread: drains each key's
   * outbox, polls its live lane when due, delivers. It never waits out a poll backoff or a
   * Retry-After, nor a handler retry backoff: those make the key (or the event) not due yet. Errors
   * of a key are reported, not thrown.
   *
   * <p>Keys run one after another, pollers in registration order. Handlers run on the handler
   * executor ({@link Builder#handlerExecutor}); the calling thread waits for them. Partitions are
   * re-read first: a partition that disappeared is paused, one that returned is resumed. Does not
   * need {@link #start()}, and may run while the daemon runs: leases keep the two apart (a key the
   * daemon holds is reported {@code SKIPPED_LEASED}).
   *
   * @param options the deadline and the pollers to run
   * @return a report per key, in the order the keys ran
   * @throws IllegalStateException if the engine is closed
   * @throws ConfigException if {@code options} names a poller this engine does not have
   */
  TickReport tick(TickOptions options);

  /**
   * Starts the daemon scheduler: due keys run on the executor, concurrently across keys, one cycle
   * per key at a time. A pass over every key runs at once, then again every second (or every
   * shortest {@link Schedule#min()} of the pollers, when that is shorter), on the {@link
   * TimeSource}'s timer. Returns at once. A stopped engine may be started again.
   *
   * @throws IllegalStateException if already started or closed
   */
  void start();

  /**
   * Whether the daemon scheduler runs: {@link #start()} returned and neither {@link #stop} nor
   * {@link #close()} was called since. A readiness check asks this ({@code AdminServer}'s {@code
   * /health/ready}); an engine driven by {@link #tick()} alone never runs. Does not block and
   * touches no store.
   *
   * @return true between {@code start()} and {@code stop()}/{@code close()}
   * @since 0.3
   */
  boolean running();

  /**
   * Stops the daemon with drain: {@code stop(true)}.
   *
   * @see #stop(boolean)
   */
  void stop();

  /**
   * Stops the daemon. Running cycles fetch no page after the one in flight, which is committed: a
   * long listing does not hold the stop, and the next start resumes from the cursor that page left
   * (a full listing starts again at page 1, without deletes this time and without an error). With
   * {@code drain}, they then deliver their outbox (up to {@link #DEFAULT_DRAIN_TIMEOUT}); without,
   * undelivered events stay in the outbox for the next run (G1); handlers already running finish,
   * no new one starts. Either way a request waiting for a rate-budget token stops waiting within a
   * second, is not sent, and its cycle ends {@link KeyReport.Outcome#DEFERRED}. The call blocks, in
   * real time, until the cycles in flight end or {@link #DEFAULT_DRAIN_TIMEOUT} passes; a cycle
   * that calls {@code stop} from its fetch or handler is not waited for. Cancels the scheduler's
   * timer (G8). Does nothing when the daemon is not running. Idempotent.
   *
   * @param drain {@code true} to let running cycles finish their pages and deliveries
   */
  void stop(boolean drain);

  /**
   * Pauses every key of a poller; legal from every state (a running cycle finishes first). A manual
   * pause stays until {@link #resume}. Unfenced: takes effect on the next scheduling pass of every
   * instance.
   *
   * @param poller the poller name
   * @throws ConfigException for an unknown poller
   * @see #pause(PollerKey)
   */
  void pause(String poller);

  /**
   * Pauses one key (one partition) of a poller, as {@link #pause(String)} does for every key; the
   * poller's other keys are left as they are (docs/architecture.md, "Poller state machine" and
   * "Partitions, tick, listeners"). A manual pause stays until {@link #resume(PollerKey)}, also
   * when the partition disappears and returns. Idempotent.
   *
   * @param key the poller and one of its partitions: {@code PollerKey.of(poller, partition)}, or
   *     {@code PollerKey.of(poller)} for an unpartitioned poller. The partition must be one the
   *     poller declares now or one with stored state (a removed partition keeps its key)
   * @throws ConfigException for an unknown poller, or a partition the poller neither declares nor
   *     has state for (the message names the poller, the partition and the known partitions)
   * @since 0.1
   */
  void pause(PollerKey key);

  /**
   * Resumes every key of a poller: back to idle and due now, though a pending Retry-After or an
   * open circuit still applies.
   *
   * @param poller the poller name
   * @throws ConfigException for an unknown poller
   * @see #resume(PollerKey)
   */
  void resume(String poller);

  /**
   * Resumes one key (one partition) of a poller: back to idle and due now, though a pending
   * Retry-After or an open circuit still applies. The poller's other keys are left as they are. A
   * partition that is no longer declared is paused again ({@code partitionRemoved}) on the next
   * scheduling pass.
   *
   * @param key the poller and one of its partitions: {@code PollerKey.of(poller, partition)}, or
   *     {@code PollerKey.of(poller)} for an unpartitioned poller. The partition must be one the
   *     poller declares now or one with stored state (a removed partition keeps its key)
   * @throws ConfigException for an unknown poller, or a partition the poller neither declares nor
   *     has state for (the message names the poller, the partition and the known partitions)
   * @since 0.1
   */
  void resume(PollerKey key);

  /**
   * Makes every key of a poller due now; on an open circuit, forces the half-open probe.
   *
   * @param poller the poller name
   * @throws ConfigException for an unknown poller
   * @see #trigger(PollerKey)
   */
  void trigger(String poller);

  /**
   * Makes one key (one partition) of a poller due now; on an open circuit, forces the half-open
   * probe. The poller's other keys keep their schedule. A paused key stays paused.
   *
   * @param key the poller and one of its partitions: {@code PollerKey.of(poller, partition)}, or
   *     {@code PollerKey.of(poller)} for an unpartitioned poller. The partition must be one the
   *     poller declares now or one with stored state (a removed partition keeps its key)
   * @throws ConfigException for an unknown poller, or a partition the poller neither declares nor
   *     has state for (the message names the poller, the partition and the known partitions)
   * @since 0.1
   */
  void trigger(PollerKey key);

  /**
   * Releases the deletes the delete guard holds on every key of a poller (docs/operations.md,
   * "False deletes"): the next complete, consistent listing of each key emits its deletes once,
   * however many, and the guard is armed again after it.
   *
   * @param poller the poller name
   * @throws ConfigException for an unknown poller
   * @see #confirmDeletes(PollerKey)
   * @since 0.2
   */
  void confirmDeletes(String poller);

  /**
   * Releases the deletes the delete guard holds on one key; see {@link #confirmDeletes(String)}.
   *
   * @param key the poller and one of its partitions, as {@link #trigger(PollerKey)} takes it
   * @throws ConfigException for an unknown poller or partition
   * @since 0.2
   */
  void confirmDeletes(PollerKey key);

  /**
   * Moves the live cursor of every key of a poller (docs/architecture.md, "Cursors in the store and
   * in operations"). Takes each key's lease for the write, waiting up to one lease TTL for a
   * running cycle.
   *
   * @param poller the poller name
   * @param to the API's own raw string (a timestamp, a page number, a token, a custom cursor's
   *     JSON), or null for the strategy's initial cursor
   * @param clearSnapshot also drop the item rows, so everything is re-emitted as created with the
   *     same ids (G2)
   * @throws ConfigException for an unknown poller or a string that is not a cursor of its strategy
   * @throws IllegalStateException when a key stays leased by another instance
   * @see #resetCursor(PollerKey, String, boolean)
   */
  void resetCursor(String poller, @Nullable String to, boolean clearSnapshot);

  /**
   * Moves the live cursor of one key (one partition) of a poller and makes that key due now, as
   * {@link #resetCursor(String, String, boolean)} does for every key (docs/architecture.md,
   * "Cursors in the store and in operations"); with {@code clearSnapshot}, only this key's item
   * rows are dropped. The poller's other keys keep their cursors and items. Takes the key's lease
   * for the write, waiting up to one lease TTL for a running cycle. {@code to} is checked before
   * anything is written.
   *
   * @param key the poller and one of its partitions: {@code PollerKey.of(poller, partition)}, or
   *     {@code PollerKey.of(poller)} for an unpartitioned poller. The partition must be one the
   *     poller declares now or one with stored state (a removed partition keeps its key)
   * @param to the API's own raw string (a timestamp, a page number, a token, a custom cursor's
   *     JSON), or null for the strategy's initial cursor
   * @param clearSnapshot also drop the key's item rows, so its items are re-emitted as created with
   *     the same ids (G2)
   * @throws ConfigException for an unknown poller, or a partition the poller neither declares nor
   *     has state for (the message names the poller, the partition and the known partitions), or a
   *     string that is not a cursor of its strategy
   * @throws IllegalStateException when the key stays leased by another instance
   * @since 0.1
   */
  void resetCursor(PollerKey key, @Nullable String to, boolean clearSnapshot);

  /**
   * Starts a backfill on every key of a poller: from the key's next due cycle on (so pacing and
   * throttles hold), the backfill lane runs the poller's strategy from {@code from} until {@code
   * to}, after live and reconcile; {@link #trigger} starts it at once. Known versions are
   * suppressed unless {@code force}, which re-emits every known item as updated. Timestamp and page
   * cursors, and custom cursors with an ordering, support it.
   *
   * @param poller the poller name
   * @param from the API's raw cursor string to start from, or null for the initial cursor
   * @param to the raw cursor string to stop at, or null for the live cursor now
   * @param force re-emit known items as updated
   * @throws ConfigException for an unknown poller, a strategy without an ordering (token,
   *     snapshotDiff, custom without one), or strings that are not cursors
   * @throws IllegalStateException when a key stays leased by another instance
   * @see #backfill(PollerKey, String, String, boolean)
   */
  void backfill(String poller, @Nullable String from, @Nullable String to, boolean force);

  /**
   * Starts a backfill on one key (one partition) of a poller, as {@link #backfill(String, String,
   * String, boolean)} does on every key (docs/architecture.md, "Lanes"): from the key's next due
   * cycle, the backfill lane runs the poller's strategy from {@code from} until {@code to}
   * (default: this key's live cursor now); {@link #trigger(PollerKey)} starts it at once. The
   * poller's other keys get no backfill. Takes the key's lease for the write, waiting up to one
   * lease TTL.
   *
   * @param key the poller and one of its partitions: {@code PollerKey.of(poller, partition)}, or
   *     {@code PollerKey.of(poller)} for an unpartitioned poller. The partition must be one the
   *     poller declares now or one with stored state (a removed partition keeps its key)
   * @param from the API's raw cursor string to start from, or null for the initial cursor
   * @param to the raw cursor string to stop at, or null for the key's live cursor now
   * @param force re-emit known items as updated
   * @throws ConfigException for an unknown poller or partition (the message names the poller, the
   *     partition and the known partitions), a strategy without an ordering, or strings that are
   *     not cursors
   * @throws IllegalStateException when the key stays leased by another instance
   * @since 0.1
   */
  void backfill(PollerKey key, @Nullable String from, @Nullable String to, boolean force);

  /**
   * Copies logged events of a poller committed in {@code [from, to)} back into the outbox with
   * their original ids, fresh sequences and lane {@code replay}; they are delivered on the next
   * drain. Needs {@code log(EventLog.keep(...))} on the poller.
   *
   * @param poller the poller name
   * @param from the first commit time, inclusive
   * @param to the end, exclusive, or null for no end
   * @return how many events were copied
   * @throws ConfigException for an unknown poller or one without an event log
   * @throws IllegalStateException when a key stays leased by another instance
   * @see #replay(PollerKey, java.time.Instant, java.time.Instant)
   */
  int replay(String poller, Instant from, @Nullable Instant to);

  /**
   * Copies the logged events of one key (one partition) of a poller committed in {@code [from, to)}
   * back into that key's outbox, with their original ids, fresh sequences and lane {@code replay}
   * (docs/architecture.md, "Lanes"); they are delivered on the key's next drain. The poller's other
   * keys are untouched. Takes the key's lease for the write, waiting up to one lease TTL. Needs
   * {@code log(EventLog.keep(...))} on the poller.
   *
   * @param key the poller and one of its partitions: {@code PollerKey.of(poller, partition)}, or
   *     {@code PollerKey.of(poller)} for an unpartitioned poller. The partition must be one the
   *     poller declares now or one with stored state (a removed partition keeps its key)
   * @param from the first commit time, inclusive
   * @param to the end, exclusive, or null for no end
   * @return how many events were copied
   * @throws ConfigException for an unknown poller or partition (the message names the poller, the
   *     partition and the known partitions), one without an event log, or {@code to} not after
   *     {@code from}
   * @throws IllegalStateException when the key stays leased by another instance
   * @since 0.1
   */
  int replay(PollerKey key, Instant from, @Nullable Instant to);

  /**
   * A pull consumer of a poller's events instead of a handler (G10): see {@link Subscription}.
   *
   * @param poller a poller registered with this engine, with no handler attached
   * @return an open subscription; close it when done
   * @throws ConfigException if the poller is unknown or has a handler attached
   */
  <T> Subscription<T> subscribe(Poller<T> poller);

  /**
   * A snapshot of every key of the engine's pollers: state, schedule, lease, cursors, lag, outbox,
   * parked rows, items, last poll and error.
   *
   * @return the inspection
   */
  Inspection inspect();

  /**
   * The health verdict of every key (docs/operations.md, "Health"): {@link #inspect()} read by
   * {@link KeyInspection#health()}, as {@code watukuy run --once} reads it for its exit code.
   *
   * @return each key's reasons, none for a healthy key
   * @throws StoreException if the store cannot be read
   * @since 0.3
   */
  default Health health() {
    return Health.of(inspect());
  }

  /**
   * The health verdict of an inspection already taken, so that one snapshot serves both (a health
   * endpoint that also shows the inspection).
   *
   * @param inspection from {@link #inspect()}
   * @return each key's reasons
   * @since 0.3
   */
  default Health health(Inspection inspection) {
    return Health.of(inspection);
  }

  /**
   * Parked events of this engine's pollers (G7): list, retry, discard.
   *
   * @return a view over the store; its calls go straight to the store
   */
  ParkedEvents parked();

  /**
   * Opens every sink attached with {@link Builder#sink} that is not open yet ({@link
   * io.watukuy.sink.Sink#open()}), so that a sink that can never work is found at start rather than
   * at the first batch. Without this call each sink is opened before its first batch, and opened
   * again at a later cycle until that succeeds. Idempotent. Every sink is tried; when several fail,
   * one exception is thrown and the others are {@linkplain Throwable#getSuppressed() suppressed} by
   * it, so each can be reported: a {@link ConfigException} when any sink can never work, else the
   * first failure.
   *
   * @throws ConfigException when a sink can never work as configured; the message names it
   * @throws HandlerUnavailableException when a sink's destination cannot be reached now (the engine
   *     tries again before the first batch)
   * @since 0.2
   */
  void openSinks();

  /**
   * Forwards to {@link StateStore#migrate()}.
   *
   * @throws StoreException if the store cannot create its schema
   */
  void migrate();

  /**
   * Stops with drain and shuts down the engine's own thread pools (executors passed to the builder
   * are left alone). The store is not closed. Idempotent; afterwards {@link #tick} and {@link
   * #start()} throw {@link IllegalStateException}.
   */
  @Override
  void close();

  /**
   * Builds an engine. {@code store} and at least one poller are required. Not thread-safe; each
   * setter returns this builder.
   */
  final class Builder {
    private @Nullable StateStore store;
    private final List<Poller<?>> pollers = new ArrayList<>();
    private TimeSource time = TimeSource.system();
    private @Nullable RandomGenerator random;
    private @Nullable String instanceId;
    private @Nullable Executor executor;
    private @Nullable Executor handlerExecutor;
    private Duration leaseTtl = DEFAULT_LEASE_TTL;
    private DeliveryOptions delivery = DeliveryOptions.DEFAULT;
    private final List<WatukuyListener> listeners = new ArrayList<>();
    private Set<String> secrets = Set.of();
    private final BudgetDeclarations budgets = new BudgetDeclarations();
    private @Nullable RateBudgetStore budgetStore;
    private final Map<String, io.watukuy.sink.Sink> sinks = new LinkedHashMap<>();

    Builder() {}

    /**
     * The durable state. Required. The engine never closes it.
     *
     * @param store the store shared by every poller of the engine
     * @return this builder
     * @throws NullPointerException if {@code store} is null
     */
    public Builder store(StateStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * Registers a poller. Pollers run in registration order within a tick.
     *
     * @param poller the poller
     * @return this builder
     * @throws NullPointerException if {@code poller} is null
     * @throws ConfigException if a poller with the same name is registered
     */
    public Builder poller(Poller<?> poller) {
      Objects.requireNonNull(poller, "poller");
      for (Poller<?> p : pollers)
        if (p.name().equals(poller.name()))
          throw new ConfigException("poller " + poller.name() + " is registered twice");
      pollers.add(poller);
      return this;
    }

    /**
     * Clock, sleeps and timers (G8). Default {@link TimeSource#system()}.
     *
     * @param time the time source; a {@code VirtualClock} in tests
     * @return this builder
     * @throws NullPointerException if {@code time} is null
     */
    public Builder time(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    /**
     * Randomness for jitter, backoff and the default instance id (G8). Default a new {@link
     * java.util.SplittableRandom}.
     *
     * @param random the generator; a {@code SeededRandom} in tests
     * @return this builder
     * @throws NullPointerException if {@code random} is null
     */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * This instance's lease owner id. Default {@code <host name>:<process id>:<random hex>}.
     *
     * @param instanceId unique among the instances sharing the store; not blank
     * @return this builder
     * @throws NullPointerException if {@code instanceId} is null
     * @throws ConfigException if {@code instanceId} is blank
     */
    public Builder instanceId(String instanceId) {
      Objects.requireNonNull(instanceId, "instanceId");
      if (instanceId.isBlank()) throw new ConfigException("instanceId must not be blank");
      this.instanceId = instanceId;
      return this;
    }

    /**
     * Runs the daemon's cycles, one task per key cycle. A cycle waits for its handlers, which run
     * on {@link #handlerExecutor}, so this may be a bounded pool. Default: the engine's own pool of
     * up to {@code max(16, 4 × available processors)} daemon threads, further due keys queueing,
     * shut down by {@link Watukuy#close()}. On Java 21+ a virtual-thread executor suits thousands
     * of keys whose cycles wait on slow APIs. {@code tick()} does not use it.
     *
     * @param executor runs daemon cycles; a rejected task is logged and the key tried next pass
     * @return this builder
     * @throws NullPointerException if {@code executor} is null
     */
    public Builder executor(Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Runs handler calls, at most {@link DeliveryOptions#concurrency()} at once engine-wide. It
     * must not be the executor of {@link #executor} when that one is bounded: a cycle waiting for
     * its handlers would hold the thread they need. {@code Runnable::run} runs handlers on the
     * cycle's own thread (deterministic tests). Default: the engine's own pool of {@code
     * concurrency} daemon threads. A rejected task counts as a failed attempt of its event.
     *
     * @param executor runs handler calls, in {@code tick()} and in the daemon
     * @return this builder
     * @throws NullPointerException if {@code executor} is null
     */
    public Builder handlerExecutor(Executor executor) {
      this.handlerExecutor = Objects.requireNonNull(executor, "handlerExecutor");
      return this;
    }

    /**
     * Lease time to live. Default {@link Watukuy#DEFAULT_LEASE_TTL}. A held lease is renewed every
     * ttl/3 and after each committed page; an instance that dies keeps the key for up to one TTL.
     * An event is handed to a handler only while ttl/3 of the lease is left by the monotonic clock
     * ({@link TimeSource#nanoTime()}): the bound of a frozen instance's stale write (G3, G5).
     *
     * @param ttl positive
     * @return this builder
     * @throws ConfigException if not positive
     */
    public Builder leaseTtl(Duration ttl) {
      if (ttl.isNegative() || ttl.isZero())
        throw new ConfigException("leaseTtl must be > 0, but was " + ttl);
      this.leaseTtl = ttl;
      return this;
    }

    /**
     * Engine-wide delivery settings. Default {@link DeliveryOptions#DEFAULT}.
     *
     * @param delivery handler concurrency and dispatch batch size
     * @return this builder
     * @throws NullPointerException if {@code delivery} is null
     */
    public Builder delivery(DeliveryOptions delivery) {
      this.delivery = Objects.requireNonNull(delivery, "delivery");
      return this;
    }

    /**
     * Adds callbacks for metrics, traces and alerts. Default none. May be called more than once:
     * metrics, traces and an admin server each register their own listener, and every one is
     * called, in the order registered. A listener that throws is logged and ignored, and the
     * listeners after it are still called.
     *
     * @param listener called synchronously on engine threads
     * @return this builder
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder listener(WatukuyListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * Values to redact wherever the engine reports them (HTTP error messages, logs, the stored last
     * error): typically the values of {@code ${ENV}} substitutions in a configuration.
     * Authorization, Cookie and Proxy-Authorization headers and credential-like query parameters
     * are redacted anyway. Default none.
     *
     * @param values the secret strings; empty strings are ignored
     * @return this builder
     */
    public Builder secrets(Collection<String> values) {
      Set<String> s = new HashSet<>();
      for (String v : values) if (v != null && !v.isEmpty()) s.add(v);
      this.secrets = Set.copyOf(s);
      return this;
    }

    /**
     * Declares a rate budget whose burst equals its request count: {@code budget(name,
     * BudgetLimit.of(requests, per))}.
     *
     * @param name the budget name that pollers give to {@link Poller.Builder#budget}
     * @param requests tokens per {@code per}, and the burst; at least 1
     * @param per the refill period; a whole number of milliseconds, at least 1 ms
     * @return this builder
     * @throws ConfigException as {@link #budget(String, BudgetLimit)} does, or when a value is out
     *     of range
     */
    public Builder budget(String name, int requests, Duration per) {
      Objects.requireNonNull(per, "per");
      return budget(name, BudgetLimit.of(requests, per));
    }

    /**
     * Declares a rate budget (guarantee G6): a token bucket of {@code limit.burst()} tokens,
     * refilled at {@code limit.requests()} tokens per {@code limit.per()}, shared by every request
     * of every poller that names it with {@link Poller.Builder#budget}, in every lane and
     * partition. The HTTP helper takes one token before sending each request, so in any interval of
     * length T the requests sent under the budget are at most {@code burst + requests × T / per}
     * (in this process; across instances with a shared {@link #budgetStore}). Times count in whole
     * milliseconds.
     *
     * <p>A request that finds no token waits (the listener's {@link WatukuyListener#onBudgetWait}
     * is called first) up to its poller's {@link Poller#maxWait()}, and never past a {@code tick()}
     * deadline; then it is not sent and the cycle is deferred with a {@link
     * BudgetTimeoutException}. Waiting requests of one budget get tokens in this order: lane
     * priority first (live, reconcile, backfill, replay); then round-robin between keys, where each
     * key gets up to its poller's {@link Poller#weight()} turns per round; then arrival order. A
     * request never takes a token while one ahead of it in that order waits.
     *
     * @param name letters, digits, {@code _ . : -}, at most 100 characters
     * @param limit the rate and burst
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws ConfigException if the name is not valid or already declared, if {@code per} is not a
     *     whole number of milliseconds, or if {@code burst × per} in milliseconds is too large for
     *     the bucket arithmetic (above about 9.2 × 10<sup>18</sup>)
     */
    public Builder budget(String name, BudgetLimit limit) {
      budgets.declare(name, limit);
      return this;
    }

    /**
     * Where the budgets' token buckets live. Default a new {@link MemoryBudgetStore}: the budgets
     * hold for this engine. Pass one shared store (the Redis module's {@code RedisBudgetStore}) to
     * every instance to hold them across instances. The engine never closes it.
     *
     * @param store the budget store
     * @return this builder
     * @throws NullPointerException if {@code store} is null
     */
    public Builder budgetStore(RateBudgetStore store) {
      this.budgetStore = Objects.requireNonNull(store, "budgetStore");
      return this;
    }

    /**
     * Sends a poller's events to a sink (docs/sinks.md) instead of a handler: the sink is attached
     * as the poller's batch handler when the engine is built, opened before its first batch (or by
     * {@link Watukuy#openSinks()}) and closed by {@link Watukuy#close()}. One sink may serve
     * several pollers; it is opened and closed once. Replaces a sink set before for the poller.
     *
     * @param poller a poller registered with this builder, before or after this call
     * @param sink where its events go
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @since 0.2
     */
    public Builder sink(Poller<?> poller, io.watukuy.sink.Sink sink) {
      Objects.requireNonNull(poller, "poller");
      sinks.put(poller.name(), Objects.requireNonNull(sink, "sink"));
      return this;
    }

    /**
     * The engine. Starts no cycle and touches no store; the builder stays usable. Without an {@link
     * #instanceId}, looks up the local host name.
     *
     * @return a new engine, not started
     * @throws ConfigException if the store or every poller is missing, or a poller names a budget
     *     that is not declared with {@link #budget(String, BudgetLimit)}
     */
    public Watukuy build() {
      if (store == null) throw new ConfigException("store is required");
      if (pollers.isEmpty()) throw new ConfigException("at least one poller is required");
      budgets.checkNamedBy(pollers);
      RateBudgetStore bs = budgetStore != null ? budgetStore : new MemoryBudgetStore();
      for (String name : sinks.keySet())
        if (pollers.stream().noneMatch(p -> p.name().equals(name)))
          throw new ConfigException("sink set for poller " + name + ", which is not registered");
      Engine engine =
          new Engine(
              store,
              List.copyOf(pollers),
              time,
              random,
              instanceId,
              executor,
              handlerExecutor,
              leaseTtl,
              delivery,
              io.watukuy.internal.ListenerChain.of(listeners),
              secrets,
              budgets.build(bs, time));
      for (Poller<?> p : pollers) {
        io.watukuy.sink.Sink sink = sinks.get(p.name());
        if (sink != null) engine.sink(p, sink);
      }
      return engine;
    }
  }
}
