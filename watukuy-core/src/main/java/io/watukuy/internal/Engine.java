package io.watukuy.internal;

import io.watukuy.Cancellable;
import io.watukuy.ConfigException;
import io.watukuy.DeliveryOptions;
import io.watukuy.Handler;
import io.watukuy.KeyReport;
import io.watukuy.ParkedEvent;
import io.watukuy.ParkedEvents;
import io.watukuy.ParkedRow;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.PollerState;
import io.watukuy.ScheduleState;
import io.watukuy.StatePatch;
import io.watukuy.StateStore;
import io.watukuy.TickOptions;
import io.watukuy.TickReport;
import io.watukuy.TimeSource;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.internal.cursor.LaneCursors;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The engine behind {@link Watukuy}: tick mode and the daemon scheduler. */
public final class Engine implements Watukuy {
  private static final Logger log = LoggerFactory.getLogger(Engine.class);
  /** How often the daemon looks for due keys at most. */
  static final Duration MAX_PASS_INTERVAL = Duration.ofSeconds(1);

  private final StateStore store;
  private final TimeSource time;
  private final WatukuyListener listener;
  private final Map<String, Poller<Object>> pollers = new LinkedHashMap<>();
  private final Map<String, KeyCycle> cycles = new LinkedHashMap<>();
  private final Map<String, Attached> handlers = new ConcurrentHashMap<>();
  private final @Nullable ExecutorService ownExecutor;
  private final Executor executor;
  private final @Nullable ExecutorService ownHandlerExecutor;
  private final Object passLock = new Object();
  private final Duration passInterval;
  private final Object lock = new Object();
  // Guarded by lock
  private boolean started;
  // Guarded by lock
  private boolean closed;
  // Guarded by lock
  private @Nullable Cancellable nextPass;
  private final Map<PollerKey, Running> inFlight = new ConcurrentHashMap<>();

  /** A daemon cycle in flight, and the thread running it (null until it starts). */
  private static final class Running {
    final CountDownLatch done = new CountDownLatch(1);
    volatile @Nullable Thread thread;
  }
  private volatile boolean cancelRunning;

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
      WatukuyListener listener) {
    this.store = store;
    this.time = time;
    this.listener = listener;
    RandomGenerator rnd = random != null ? random : new SplittableRandom();
    if (executor == null) {
      this.ownExecutor = Executors.newCachedThreadPool(daemonThreads("watukuy-cycle-"));
      this.executor = ownExecutor;
    } else {
      this.ownExecutor = null;
      this.executor = executor;
    }
    if (handlerExecutor == null) {
      this.ownHandlerExecutor = Executors.newCachedThreadPool(daemonThreads("watukuy-handler-"));
      handlerExecutor = ownHandlerExecutor;
    } else {
      this.ownHandlerExecutor = null;
    }
    String id = instanceId != null ? instanceId : defaultInstanceId(rnd);
    Dispatcher dispatcher =
        new Dispatcher(store, time, rnd, handlerExecutor, new Semaphore(delivery.concurrency()),
            listener, delivery.dispatchBatchSize());
    CycleContext cx = new CycleContext(store, time, rnd, id, leaseTtl, listener, dispatcher, this::httpClient);
    Duration shortest = MAX_PASS_INTERVAL;
    for (Poller<?> p : pollers) {
      Poller<Object> po = (Poller<Object>) p;
      this.pollers.put(p.name(), po);
      this.cycles.put(p.name(), new KeyCycle(cx, po, LaneCursors.of(p.name(), p.cursor()), () -> handlers.get(p.name())));
      if (p.schedule().min().compareTo(shortest) < 0) shortest = p.schedule().min();
    }
    this.passInterval = shortest;
  }

  private java.net.http.@Nullable HttpClient http;

  private java.net.http.HttpClient httpClient() {
    synchronized (lock) {
      if (http == null) http = io.watukuy.internal.http.HttpClients.newDefault();
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
    Poller<Object> registered = pollers.get(poller.name());
    if (registered == null)
      throw new ConfigException("poller " + poller.name() + " is not registered with this engine");
    handlers.put(poller.name(), new Attached((Handler<Object>) (Handler<?>) handler, (Class<Object>) registered.type()));
    return this;
  }

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
      if (!pollers.containsKey(name)) throw new ConfigException("tick: unknown poller '" + name + "'");
    Long deadline = options.maxDuration() == null ? null : time.nanoTime() + options.maxDuration().toNanos();
    RunLimits limits = new RunLimits(deadline, () -> false);
    List<KeyReport> reports = new ArrayList<>();
    for (Poller<Object> p : pollers.values()) {
      if (!options.pollers().isEmpty() && !options.pollers().contains(p.name())) continue;
      for (PollerKey key : keys(p)) reports.add(runKey(p, key, limits));
    }
    return new TickReport(reports);
  }

  /** The poller's keys now; partitions that disappeared are paused, returning ones resumed. */
  private List<PollerKey> keys(Poller<Object> p) {
    List<PollerKey> keys = new ArrayList<>();
    List<String> partitions = p.partitions();
    for (String partition : partitions) keys.add(new PollerKey(p.name(), partition));
    if (p.partitioned()) syncPartitions(p, keys);
    return keys;
  }

  private void syncPartitions(Poller<Object> p, List<PollerKey> current) {
    for (PollerKey stored : store.listKeys(p.name())) {
      Optional<PollerState> st = store.loadState(stored);
      if (st.isEmpty()) continue;
      ScheduleState s = st.get().schedule();
      boolean present = current.contains(stored);
      if (!present && s.paused() == null) {
        store.saveStateUnfenced(stored, StatePatch.schedule(s.withPaused(ScheduleState.PauseReason.PARTITION_REMOVED)), time.now());
        log.info("{}: partition removed, paused", stored);
      } else if (present && s.paused() == ScheduleState.PauseReason.PARTITION_REMOVED) {
        store.saveStateUnfenced(stored, StatePatch.schedule(s.withPaused(null)), time.now());
        log.info("{}: partition returned, resumed", stored);
      }
    }
  }

  private KeyReport runKey(Poller<Object> p, PollerKey key, RunLimits limits) {
    KeyReport report;
    try {
      report = cycles.get(p.name()).run(key, limits);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      report = new KeyReport(key, KeyReport.Outcome.POLLED, 0, 0, 0, 0, false, false, e);
    } catch (RuntimeException e) {
      // A store failure before the lease (loadState, acquireLease): report it, keep ticking.
      log.warn("{}: {}", key, e.toString());
      report = new KeyReport(key, KeyReport.Outcome.POLLED, 0, 0, 0, 0, false, false, e);
    }
    KeyReport r = report;
    Dispatcher.safe(() -> listener.onCycle(r));
    return report;
  }

  @Override
  public void start() {
    synchronized (lock) {
      if (closed) throw new IllegalStateException("engine is closed");
      if (started) throw new IllegalStateException("engine already started");
      started = true;
      cancelRunning = false;
      nextPass = time.schedule(Duration.ZERO, this::pass);
    }
  }

  /** One daemon pass: every key not already running is handed to the executor. */
  private void pass() {
    synchronized (passLock) {
      passLocked();
    }
  }

  private void passLocked() {
    if (!running()) return;
    for (Poller<Object> p : pollers.values()) {
      List<PollerKey> keys;
      try {
        keys = keys(p);
      } catch (RuntimeException e) {
        log.warn("{}: cannot list partitions: {}", p.name(), e.toString());
        continue;
      }
      for (PollerKey key : keys) {
        if (!running()) return; // stop() came while this pass listed keys
        Running running = new Running();
        if (inFlight.putIfAbsent(key, running) != null) continue;
        try {
          executor.execute(() -> {
            running.thread = Thread.currentThread();
            try {
              runKey(p, key, new RunLimits(null, () -> cancelRunning));
            } finally {
              inFlight.remove(key);
              running.done.countDown();
            }
          });
        } catch (RuntimeException rejected) {
          inFlight.remove(key);
          running.done.countDown();
          log.warn("{}: executor rejected the cycle: {}", key, rejected.toString());
        }
      }
    }
    synchronized (lock) {
      if (started) nextPass = time.schedule(passInterval, this::pass);
    }
  }

  private boolean running() {
    synchronized (lock) {
      return started;
    }
  }

  @Override
  public void stop() {
    stop(true);
  }

  @Override
  public void stop(boolean drain) {
    synchronized (lock) {
      if (!started) return;
      started = false;
      if (nextPass != null) nextPass.cancel();
      nextPass = null;
    }
    if (!drain) cancelRunning = true;
    synchronized (passLock) {
      // Waits for a pass that is handing out cycles, so none starts after stop() returns.
    }
    // Cycles run on real threads whatever the TimeSource, so the drain waits in real time.
    TimeSource real = TimeSource.system();
    long deadline = real.nanoTime() + DEFAULT_DRAIN_TIMEOUT.toNanos();
    for (Running running : List.copyOf(inFlight.values())) {
      // stop() called from a handler or fetch: that cycle cannot finish while we wait for it.
      if (running.thread == Thread.currentThread()) continue;
      try {
        long left = deadline - real.nanoTime();
        if (left <= 0 || !running.done.await(left, TimeUnit.NANOSECONDS)) {
          log.warn("stop: cycles still running after {}; their events stay in the outbox", DEFAULT_DRAIN_TIMEOUT);
          break;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
  }

  @Override
  public ParkedEvents parked() {
    return new Parked();
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
    if (ownExecutor != null) ownExecutor.shutdown();
    if (ownHandlerExecutor != null) ownHandlerExecutor.shutdown();
  }

  private final class Parked implements ParkedEvents {
    private static final int LIMIT = 10_000;

    @Override
    public List<ParkedEvent> list() {
      List<ParkedEvent> all = new ArrayList<>();
      for (String name : pollers.keySet()) all.addAll(list(name));
      return all;
    }

    @Override
    public List<ParkedEvent> list(String poller) {
      if (!pollers.containsKey(poller)) throw new ConfigException("parked: unknown poller '" + poller + "'");
      List<ParkedEvent> out = new ArrayList<>();
      for (PollerKey key : store.listKeys(poller))
        for (ParkedRow row : store.listParked(key, null, LIMIT)) out.add(new ParkedEvent(key, row));
      return out;
    }

    @Override
    public int retry(PollerKey key, Collection<String> ids) {
      return store.retryParked(key, ids);
    }

    @Override
    public int discard(PollerKey key, Collection<String> ids) {
      return store.discardParked(key, ids);
    }
  }
}
