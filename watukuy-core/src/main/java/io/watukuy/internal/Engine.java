package io.watukuy.internal;

import io.watukuy.BatchHandler;
import io.watukuy.ConfigException;
import io.watukuy.DeliveryOptions;
import io.watukuy.Handler;
import io.watukuy.Inspection;
import io.watukuy.KeyInspection;
import io.watukuy.KeyReport;
import io.watukuy.ParkedEvents;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.Subscription;
import io.watukuy.TickOptions;
import io.watukuy.TickReport;
import io.watukuy.TimeSource;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.internal.budget.Budgets;
import io.watukuy.internal.cursor.LaneCursors;
import io.watukuy.internal.http.HttpClients;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine behind {@link Watukuy}: builds the stages (one {@link KeyRunner} per poller, the
 * {@link Dispatcher}, the {@link Daemon}, the {@link KeyOperations}) and its thread pools, runs
 * every due key once in {@link #tick}, runs one key for the tick and the daemon alike ({@link
 * #runKey}), and closes. The daemon and the operations are their own classes; the public methods
 * for them delegate.
 */
public final class Engine implements Watukuy {
  private static final Logger errors = LoggerFactory.getLogger(Watukuy.ERROR_LOGGER);
  private static final Logger log = LoggerFactory.getLogger(Engine.class);

  /**
   * Threads of the engine's own cycle pool: cycles mostly wait on HTTP and the store, so more than
   * the cores, but bounded: with an unbounded pool, thousands of keys due at once on a slow store
   * started thousands of threads. Further cycles queue.
   */
  static final int CYCLE_THREADS = Math.max(16, 4 * Runtime.getRuntime().availableProcessors());

  /** A pool of up to {@code threads} daemon threads that ends idle ones after a minute. */
  private static ExecutorService boundedPool(int threads, String prefix) {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            daemonThreads(prefix));
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  private final StateStore store;
  private final TimeSource time;
  private final int dispatchBatchSize;
  private final WatukuyListener listener;
  private final Map<String, Poller<Object>> pollers = new LinkedHashMap<>();
  private final Map<String, KeyRunner> runners = new LinkedHashMap<>();
  private final Map<String, Attached> handlers = new ConcurrentHashMap<>();
  private final Set<String> subscribed = ConcurrentHashMap.newKeySet();
  private final @Nullable ExecutorService ownExecutor;
  private final @Nullable ExecutorService ownHandlerExecutor;
  private final PartitionSync partitions;
  private final Daemon daemon;
  private final KeyOperations operations;
  private final Object lock = new Object();
  private final SinkLifecycle sinks = new SinkLifecycle();
  // Guarded by lock
  private boolean closed;
  // Guarded by lock
  private @Nullable HttpClient http;

  /** Keys whose cycle runs on this engine now, with the thread running it. */
  private final Map<PollerKey, Thread> running = new ConcurrentHashMap<>();

  @SuppressWarnings("unchecked")
  public Engine(
      StateStore store,
      List<Poller<?>> pollers,
      TimeSource time,
      @Nullable RandomGenerator random,
      @Nullable String instanceId,
      @Nullable Executor executor,
      @Nullable Executor handlerExecutor,
      Duration leaseTtl,
      DeliveryOptions delivery,
      WatukuyListener listener,
      Set<String> secrets,
      Budgets budgets) {
    this.store = store;
    this.time = time;
    // Guarded once here: every stage calls it directly, and a throwing callback is only logged.
    listener = GuardedListener.of(listener);
    this.listener = listener;
    RandomGenerator rnd = random != null ? random : new SplittableRandom();
    Executor cycles;
    if (executor == null) {
      this.ownExecutor = boundedPool(CYCLE_THREADS, "watukuy-cycle-");
      cycles = ownExecutor;
    } else {
      this.ownExecutor = null;
      cycles = executor;
    }
    if (handlerExecutor == null) {
      this.ownHandlerExecutor =
          boundedPool(Math.max(delivery.concurrency(), 1), "watukuy-handler-");
      handlerExecutor = ownHandlerExecutor;
    } else {
      this.ownHandlerExecutor = null;
    }
    String id = instanceId != null ? instanceId : defaultInstanceId(rnd);
    this.dispatchBatchSize = delivery.dispatchBatchSize();
    Dispatcher dispatcher =
        new Dispatcher(
            store,
            time,
            rnd,
            handlerExecutor,
            new Semaphore(delivery.concurrency()),
            listener,
            delivery.dispatchBatchSize(),
            delivery.batchSize());
    CycleContext cx =
        new CycleContext(
            store,
            time,
            rnd,
            id,
            leaseTtl,
            listener,
            dispatcher,
            this::httpClient,
            secrets,
            budgets,
            cycles,
            new Resends(),
            new AtomicLong());
    Duration shortest = Daemon.MAX_PASS_INTERVAL;
    for (Poller<?> p : pollers) {
      Poller<Object> po = (Poller<Object>) p;
      this.pollers.put(p.name(), po);
      this.runners.put(
          p.name(),
          new KeyRunner(
              cx,
              po,
              LaneCursors.of(p.name(), p.cursor()),
              () -> handlers.get(p.name()),
              () -> subscribed.contains(p.name())));
      if (p.schedule().min().compareTo(shortest) < 0) shortest = p.schedule().min();
    }
    this.partitions = new PartitionSync(store, time);
    this.daemon = new Daemon(this, partitions, this.pollers, time, cycles, shortest, rnd);
    this.operations =
        new KeyOperations(
            store,
            time,
            id,
            leaseTtl,
            this.pollers,
            name -> runners.get(name).laneCursor(),
            this::inCycleHere,
            daemon::clearHints,
            (key, lease, row) -> runners.get(key.poller()).replayInvalid(key, lease, row));
  }

  private HttpClient httpClient() {
    synchronized (lock) {
      if (http == null) http = HttpClients.newDefault();
      return http;
    }
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static String defaultInstanceId(RandomGenerator random) {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "localhost";
    }
    String pid = ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
    return host + ":" + pid + ":" + Long.toHexString(random.nextLong() & 0xffffffL);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> Watukuy on(Poller<T> poller, Handler<T> handler) {
    Objects.requireNonNull(handler, "handler");
    return attach(poller, new Attached((Handler<Object>) (Handler<?>) handler, null, type(poller)));
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> Watukuy onBatch(Poller<T> poller, BatchHandler<T> handler) {
    Objects.requireNonNull(handler, "handler");
    return attach(
        poller, new Attached(null, (BatchHandler<Object>) (BatchHandler<?>) handler, type(poller)));
  }

  /**
   * Attaches {@code sink} as the poller's batch handler, opened on first use (for {@code
   * Watukuy.Builder.sink}).
   */
  public void sink(Poller<?> poller, io.watukuy.sink.Sink sink) {
    attach(poller, new Attached(null, sinks.handler(sink), type(poller)));
  }

  @Override
  public void openSinks() {
    sinks.openAll();
  }

  private Class<Object> type(Poller<?> poller) {
    Poller<Object> registered = pollers.get(poller.name());
    if (registered == null)
      throw new ConfigException("poller " + poller.name() + " is not registered with this engine");
    return (Class<Object>) registered.type();
  }

  /**
   * A poller has one handler, one batch handler or one subscription; a handler replaces its kind.
   */
  private Watukuy attach(Poller<?> poller, Attached attached) {
    if (subscribed.contains(poller.name()))
      throw new ConfigException(
          "poller " + poller.name() + " has an open subscription; close it before on()/onBatch()");
    Attached before =
        handlers.compute(
            poller.name(),
            (name, old) ->
                old == null || (old.handler() == null) == (attached.handler() == null)
                    ? attached
                    : old);
    if (before != attached)
      throw new ConfigException(
          "poller "
              + poller.name()
              + (attached.handler() == null
                  ? " has a handler attached with on(); a poller has a handler or a batch handler"
                      + " (onBatch), not both"
                  : " has a batch handler attached with onBatch(); a poller has a handler or a"
                      + " batch handler, not both"));
    daemon.clearHints(); // events waiting in an outbox now have somewhere to go
    return this;
  }

  // ---- tick and one key

  @Override
  public TickReport tick() {
    return tick(TickOptions.DEFAULT);
  }

  @Override
  public TickReport tick(TickOptions options) {
    synchronized (lock) {
      if (closed) throw new IllegalStateException("engine is closed");
    }
    for (String name : options.pollers())
      if (!pollers.containsKey(name))
        throw new ConfigException("tick: unknown poller '" + name + "'");
    Long deadline =
        options.maxDuration() == null ? null : time.nanoTime() + options.maxDuration().toNanos();
    RunLimits limits = new RunLimits(deadline, () -> false);
    List<KeyReport> reports = new ArrayList<>();
    for (Poller<Object> p : pollers.values()) {
      if (!options.pollers().isEmpty() && !options.pollers().contains(p.name())) continue;
      for (PollerKey key : partitions.keys(p)) reports.add(runKey(p, key, limits));
    }
    return new TickReport(reports);
  }

  /**
   * Runs one key's cycle on the calling thread, for {@code tick()} and the daemon; never throws (an
   * error is in the report), and tells the listener the report.
   */
  KeyReport runKey(Poller<Object> p, PollerKey key, RunLimits limits) {
    KeyReport report;
    running.put(key, Thread.currentThread());
    try {
      report = runners.get(p.name()).run(key, limits);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      report = new KeyReport(key, KeyReport.Outcome.POLLED, 0, 0, 0, 0, false, false, e);
    } catch (RuntimeException e) {
      // A store failure before the lease (loadState, acquireLease): report it, keep ticking. The
      // daemon logs an outage once per change, not once per attempt (Outages).
      if (limits.daemon() && Outages.kind(e) != null) errors.debug("{}: {}", Who.key(key), e);
      else errors.warn("{}: {}", Who.key(key), e.toString());
      report = new KeyReport(key, KeyReport.Outcome.POLLED, 0, 0, 0, 0, false, false, e);
    } catch (Error e) {
      // Out of memory or stack where the runner could not take it: one key's cycle must not end
      // the thread it runs on, nor the daemon.
      errors.error("{}: cycle stopped by {}", Who.key(key), e.toString());
      report = new KeyReport(key, KeyReport.Outcome.POLLED, 0, 0, 0, 0, false, false, e);
    } finally {
      running.remove(key);
    }
    listener.onCycle(report);
    return report;
  }

  /**
   * Whether a cycle of {@code key} runs on this engine now: on this thread (its own, or the one
   * fetching its next page ahead), or in the daemon.
   */
  private boolean inCycleHere(PollerKey key) {
    return running.get(key) == Thread.currentThread()
        || key.equals(Prefetch.fetchingFor())
        || daemon.inFlight(key);
  }

  // ---- the daemon

  @Override
  public void start() {
    synchronized (lock) {
      if (closed) throw new IllegalStateException("engine is closed");
      logPausedKeys();
      daemon.start();
    }
  }

  /**
   * One INFO line per key that an earlier run (or another instance) left paused, so that a poller
   * that never polls after a restart is explained in the log. "since" is the key's last stored
   * change, which for a paused key is its pause unless an operation wrote it later. A store that
   * cannot be read here is left to the daemon, which reports its outage.
   */
  private void logPausedKeys() {
    try {
      for (Poller<Object> p : pollers.values())
        for (PollerKey key : operations.keysOf(p))
          store
              .loadState(key)
              .ifPresent(
                  state -> {
                    ScheduleState.@Nullable PauseReason why = state.schedule().paused();
                    if (why != null)
                      log.info(
                          "{}: paused ({}) since {}; not polled until resumed",
                          Who.key(key),
                          why.wire(),
                          state.updatedAt());
                  });
    } catch (RuntimeException e) {
      log.debug("paused keys not listed at start: {}", e.getClass().getName());
    }
  }

  @Override
  public boolean running() {
    synchronized (lock) {
      if (closed) return false;
    }
    return daemon.running();
  }

  @Override
  public void stop() {
    stop(true);
  }

  @Override
  public void stop(boolean drain) {
    daemon.stop(drain);
  }

  // ---- operations: the poller name stands for every key of the poller (KeyOperations#every)

  @Override
  public void pause(String poller) {
    operations.pause(operations.every(poller));
  }

  @Override
  public void pause(PollerKey key) {
    operations.pause(operations.one(key));
  }

  @Override
  public void resume(String poller) {
    operations.resume(operations.every(poller));
  }

  @Override
  public void resume(PollerKey key) {
    operations.resume(operations.one(key));
  }

  @Override
  public void trigger(String poller) {
    operations.trigger(operations.every(poller));
  }

  @Override
  public void trigger(PollerKey key) {
    operations.trigger(operations.one(key));
  }

  @Override
  public void confirmDeletes(String poller) {
    operations.confirmDeletes(operations.every(poller));
  }

  @Override
  public void confirmDeletes(PollerKey key) {
    operations.confirmDeletes(operations.one(key));
  }

  @Override
  public void resetCursor(String poller, @Nullable String to, boolean clearSnapshot) {
    operations.resetCursor(operations.every(poller), to, clearSnapshot);
  }

  @Override
  public void resetCursor(PollerKey key, @Nullable String to, boolean clearSnapshot) {
    operations.resetCursor(operations.one(key), to, clearSnapshot);
  }

  @Override
  public void backfill(String poller, @Nullable String from, @Nullable String to, boolean force) {
    operations.backfill(operations.every(poller), from, to, force);
  }

  @Override
  public void backfill(PollerKey key, @Nullable String from, @Nullable String to, boolean force) {
    operations.backfill(operations.one(key), from, to, force);
  }

  @Override
  public int replay(String poller, Instant from, @Nullable Instant to) {
    return operations.replay(operations.every(poller), from, to);
  }

  @Override
  public int replay(PollerKey key, Instant from, @Nullable Instant to) {
    return operations.replay(operations.one(key), from, to);
  }

  @Override
  public ParkedEvents parked() {
    return operations.parked();
  }

  // ---- reading

  @Override
  @SuppressWarnings("unchecked")
  public <T> Subscription<T> subscribe(Poller<T> poller) {
    Poller<Object> p = operations.known(poller.name());
    if (handlers.containsKey(p.name()))
      throw new ConfigException(
          "poller " + p.name() + " has a handler attached; subscribe() replaces on(), not both");
    daemon.clearHints();
    if (!subscribed.add(p.name()))
      throw new ConfigException("poller " + p.name() + " already has an open subscription");
    return new Subscriber<>(
        store,
        () -> operations.keysOf(p),
        (Class<T>) p.type(),
        dispatchBatchSize,
        operations::withLease,
        () -> subscribed.remove(p.name()));
  }

  @Override
  public Inspection inspect() {
    Instant now = time.now();
    List<KeyInspection> out = new ArrayList<>();
    for (Poller<Object> p : pollers.values())
      for (PollerKey key : operations.keysOf(p)) {
        // A key that never ran shows as new: idle, due now.
        PollerState state =
            store
                .loadState(key)
                .orElseGet(
                    () -> PollerState.create(StatePatch.schedule(ScheduleMachine.initial(p)), now));
        out.add(Inspect.key(store, p, key, state, runners.get(p.name()).laneCursor(), now));
      }
    return new Inspection(now, out);
  }

  @Override
  public void migrate() {
    store.migrate();
  }

  @Override
  public void close() {
    stop(true);
    synchronized (lock) {
      if (closed) return;
      closed = true;
    }
    sinks.closeAll(); // after the drain: no batch is in flight
    if (ownExecutor != null) ownExecutor.shutdown();
    if (ownHandlerExecutor != null) ownHandlerExecutor.shutdown();
  }
}
