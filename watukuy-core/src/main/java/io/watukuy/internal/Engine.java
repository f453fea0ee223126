package io.watukuy.internal;

import io.watukuy.Cancellable;
import io.watukuy.ConfigException;
import io.watukuy.DeliveryOptions;
import io.watukuy.Handler;
import io.watukuy.KeyReport;
import io.watukuy.ParkedEvent;
import io.watukuy.ParkedEvents;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.TickOptions;
import io.watukuy.TickReport;
import io.watukuy.TimeSource;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.internal.cursor.LaneCursors;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
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
  private static final Logger errors = LoggerFactory.getLogger(io.watukuy.Watukuy.ERROR_LOGGER);

  /** How often the daemon looks for due keys at most. */
  static final Duration MAX_PASS_INTERVAL = Duration.ofSeconds(1);

  /**
   * The shortest wait between two passes: keys falling due within it share a pass (thousands of
   * keys with jittered schedules fall due every few milliseconds), and a hint in the past cannot
   * spin the timer.
   */
  static final Duration MIN_PASS_WAIT = Duration.ofMillis(10);

  /**
   * Threads of the engine's own cycle pool: cycles mostly wait on HTTP and the store, so more than
   * the cores, but bounded: with an unbounded pool, thousands of keys due at once on a slow store
   * started thousands of threads. Further cycles queue.
   */
  static final int CYCLE_THREADS = Math.max(16, 4 * Runtime.getRuntime().availableProcessors());

  /** A pool of up to {@code threads} daemon threads that ends idle ones after a minute. */
  private static ExecutorService boundedPool(int threads, String prefix) {
    java.util.concurrent.ThreadPoolExecutor pool =
        new java.util.concurrent.ThreadPoolExecutor(
            threads,
            threads,
            60,
            TimeUnit.SECONDS,
            new java.util.concurrent.LinkedBlockingQueue<>(),
            daemonThreads(prefix));
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  private final StateStore store;
  private final TimeSource time;
  private final String instanceId;
  private final Duration leaseTtl;
  private final int dispatchBatchSize;
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
  // Guarded by lock: when nextPass fires
  private @Nullable Instant nextPassAt;
  private final Map<PollerKey, Running> inFlight = new ConcurrentHashMap<>();

  /**
   * Keys the daemon found not due, and when to look at them again (see {@link RunLimits#wakeAt}): a
   * pass skips them until then instead of reading their state every pass. Cleared by every
   * operation of this engine.
   */
  private final WakeHints wakeHints = new WakeHints();

  /** When the next pass over every key is due; passes between only wake hinted keys. */
  private volatile @Nullable Instant nextFullPassAt;

  /** Per partitioned poller, the partition list last synced with the store. */
  private final Map<String, java.util.Set<PollerKey>> syncedPartitions = new ConcurrentHashMap<>();

  /** A daemon cycle in flight, and the thread running it (null until it starts). */
  private static final class Running {
    final CountDownLatch done = new CountDownLatch(1);
    volatile @Nullable Thread thread;
  }

  private volatile boolean cancelRunning;

  /** Set by stop(), with or without drain: ends the daemon cycles' budget waits. */
  private volatile boolean stopping;

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
      java.util.Set<String> secrets,
      io.watukuy.internal.budget.Budgets budgets) {
    this.store = store;
    this.time = time;
    // Guarded once here: every stage calls it directly, and a throwing callback is only logged.
    listener = GuardedListener.of(listener);
    this.listener = listener;
    RandomGenerator rnd = random != null ? random : new SplittableRandom();
    if (executor == null) {
      this.ownExecutor = boundedPool(CYCLE_THREADS, "watukuy-cycle-");
      this.executor = ownExecutor;
    } else {
      this.ownExecutor = null;
      this.executor = executor;
    }
    if (handlerExecutor == null) {
      this.ownHandlerExecutor =
          boundedPool(Math.max(delivery.concurrency(), 1), "watukuy-handler-");
      handlerExecutor = ownHandlerExecutor;
    } else {
      this.ownHandlerExecutor = null;
    }
    String id = instanceId != null ? instanceId : defaultInstanceId(rnd);
    this.instanceId = id;
    this.leaseTtl = leaseTtl;
    this.dispatchBatchSize = delivery.dispatchBatchSize();
    Dispatcher dispatcher =
        new Dispatcher(
            store,
            time,
            rnd,
            handlerExecutor,
            new Semaphore(delivery.concurrency()),
            listener,
            delivery.dispatchBatchSize());
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
            budgets);
    Duration shortest = MAX_PASS_INTERVAL;
    for (Poller<?> p : pollers) {
      Poller<Object> po = (Poller<Object>) p;
      this.pollers.put(p.name(), po);
      this.cycles.put(
          p.name(),
          new KeyCycle(
              cx,
              po,
              LaneCursors.of(p.name(), p.cursor()),
              () -> handlers.get(p.name()),
              () -> subscribed.contains(p.name())));
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
    if (subscribed.contains(poller.name()))
      throw new ConfigException(
          "poller " + poller.name() + " has an open subscription; close it before on()");
    handlers.put(
        poller.name(),
        new Attached((Handler<Object>) (Handler<?>) handler, (Class<Object>) registered.type()));
    wakeHints.clear(); // events waiting in an outbox now have somewhere to go
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
      if (!pollers.containsKey(name))
        throw new ConfigException("tick: unknown poller '" + name + "'");
    Long deadline =
        options.maxDuration() == null ? null : time.nanoTime() + options.maxDuration().toNanos();
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

  /**
   * Pauses the stored keys whose partition is gone and resumes the returning ones. Runs when the
   * partition list differs from the one last synced (and on the first pass): reading every stored
   * key's state on every pass made idle partitions cost a core.
   */
  private void syncPartitions(Poller<Object> p, List<PollerKey> keys) {
    java.util.Set<PollerKey> current = new java.util.HashSet<>(keys);
    if (current.equals(syncedPartitions.get(p.name()))) return;
    for (PollerKey stored : store.listKeys(p.name())) {
      Optional<PollerState> st = store.loadState(stored);
      if (st.isEmpty()) continue;
      ScheduleState s = st.get().schedule();
      boolean present = current.contains(stored);
      if (!present && s.paused() == null) {
        store.saveStateUnfenced(
            stored,
            StatePatch.schedule(s.withPaused(ScheduleState.PauseReason.PARTITION_REMOVED)),
            time.now());
        log.info("{}: partition removed, paused", stored);
      } else if (present && s.paused() == ScheduleState.PauseReason.PARTITION_REMOVED) {
        store.saveStateUnfenced(
            stored, StatePatch.schedule(Operations.resume(s, time.now())), time.now());
        log.info("{}: partition returned, resumed", stored);
      }
    }
    syncedPartitions.put(p.name(), current);
  }

  private KeyReport runKey(Poller<Object> p, PollerKey key, RunLimits limits) {
    KeyReport report;
    running.put(key, Thread.currentThread());
    try {
      report = cycles.get(p.name()).run(key, limits);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      report = new KeyReport(key, KeyReport.Outcome.POLLED, 0, 0, 0, 0, false, false, e);
    } catch (RuntimeException e) {
      // A store failure before the lease (loadState, acquireLease): report it, keep ticking.
      errors.warn("{}: {}", key, e.toString());
      report = new KeyReport(key, KeyReport.Outcome.POLLED, 0, 0, 0, 0, false, false, e);
    } finally {
      running.remove(key);
    }
    listener.onCycle(report);
    return report;
  }

  @Override
  public void start() {
    synchronized (lock) {
      if (closed) throw new IllegalStateException("engine is closed");
      if (started) throw new IllegalStateException("engine already started");
      started = true;
      cancelRunning = false;
      stopping = false;
      nextFullPassAt = null;
      nextPass = time.schedule(Duration.ZERO, this::pass);
      nextPassAt = time.now();
    }
  }

  /** One daemon pass: every key not already running is handed to the executor. */
  private void pass() {
    synchronized (passLock) {
      passLocked();
    }
  }

  /**
   * A full pass (every {@code passInterval}) re-reads the partitions and hands out every key
   * without a hint in the future; a pass in between hands out only the hinted keys that fell due,
   * so that a key is polled when it falls due without walking every key each time.
   */
  private void passLocked() {
    if (!running()) return;
    Instant now = time.now();
    if (nextFullPassAt == null || !now.isBefore(nextFullPassAt)) {
      nextFullPassAt = now.plus(passInterval);
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
          Instant hint = wakeHints.get(key);
          if (hint != null && hint.isAfter(now)) continue;
          handOut(p, key);
        }
      }
    } else {
      for (PollerKey key : wakeHints.takeDue(now)) {
        if (!running()) return;
        Poller<Object> p = pollers.get(key.poller());
        if (p != null) handOut(p, key);
      }
    }
    synchronized (lock) {
      if (started) {
        // A hint may have brought the next pass forward while this one ran: one timer only.
        if (nextPass != null) nextPass.cancel();
        Duration wait = nextPassDelay();
        nextPass = time.schedule(wait, this::pass);
        nextPassAt = time.now().plus(wait);
      }
    }
  }

  /** Runs the key's cycle on the executor unless one is in flight. */
  private void handOut(Poller<Object> p, PollerKey key) {
    Running running = new Running();
    if (inFlight.putIfAbsent(key, running) != null) return;
    wakeHints.remove(key);
    try {
      executor.execute(
          () -> {
            running.thread = Thread.currentThread();
            try {
              // Queued behind other cycles while stop() came: a stopped daemon starts no cycle.
              if (stopping) return;
              runKey(
                  p,
                  key,
                  new RunLimits(
                      null,
                      () -> cancelRunning,
                      () -> cancelRunning || stopping,
                      at -> wakeAt(key, at)));
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

  /**
   * Records a hint and brings the next pass forward to it when it is sooner: the hint of a key
   * visited by a cycle arrives after the pass that handed the key out scheduled its successor.
   */
  private void wakeAt(PollerKey key, Instant at) {
    wakeHints.put(key, at);
    synchronized (lock) {
      if (!started || nextPassAt == null || !at.isBefore(nextPassAt)) return;
      Instant now = time.now();
      Duration wait = at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO;
      if (wait.compareTo(MIN_PASS_WAIT) < 0) wait = MIN_PASS_WAIT;
      if (!now.plus(wait).isBefore(nextPassAt)) return;
      if (nextPass != null) nextPass.cancel();
      nextPass = time.schedule(wait, this::pass);
      nextPassAt = now.plus(wait);
    }
  }

  /**
   * The wait before the next pass: until the next full pass, or less when a hinted key falls due
   * sooner, so that a key is polled when it falls due rather than at the first pass after (which
   * made a 200 ms schedule poll every 400 ms). At least {@link #MIN_PASS_WAIT}, so that keys
   * falling due close together share a pass.
   */
  private Duration nextPassDelay() {
    Instant now = time.now();
    Instant next = nextFullPassAt == null ? now : nextFullPassAt;
    Instant hint = wakeHints.earliest();
    if (hint != null && hint.isBefore(next)) next = hint;
    Duration wait = next.isAfter(now) ? Duration.between(now, next) : Duration.ZERO;
    return wait.compareTo(MIN_PASS_WAIT) < 0 ? MIN_PASS_WAIT : wait;
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
      stopping = true;
      if (nextPass != null) nextPass.cancel();
      nextPass = null;
      nextPassAt = null;
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
          log.warn(
              "stop: cycles still running after {}; their events stay in the outbox",
              DEFAULT_DRAIN_TIMEOUT);
          break;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
  }

  // ---- operations

  private Poller<Object> known(String poller) {
    Poller<Object> p = pollers.get(poller);
    if (p == null)
      throw new ConfigException("unknown poller '" + poller + "'; known: " + pollers.keySet());
    return p;
  }

  /** The poller's keys: its current partitions and any key with stored state. */
  private List<PollerKey> keysOf(Poller<Object> p) {
    java.util.TreeSet<PollerKey> keys = new java.util.TreeSet<>(store.listKeys(p.name()));
    for (String partition : p.partitions()) keys.add(new PollerKey(p.name(), partition));
    return List.copyOf(keys);
  }

  /**
   * The key {@code key} names, checked: its poller is registered and its partition is one the
   * poller declares now or has stored state for (a removed partition keeps its key).
   */
  private Poller<Object> knownKey(PollerKey key) {
    Poller<Object> p = known(key.poller());
    List<PollerKey> keys = keysOf(p);
    if (!keys.contains(key)) {
      List<String> partitions =
          keys.stream().map(PollerKey::partition).filter(k -> !k.isEmpty()).toList();
      throw new ConfigException(
          "poller "
              + p.name()
              + ": no partition '"
              + key.partition()
              + "' ("
              + (partitions.isEmpty()
                  ? "the poller has no partitions"
                  : "known: " + String.join(", ", partitions))
              + ")");
    }
    return p;
  }

  private void updateSchedule(
      Poller<Object> p,
      List<PollerKey> keys,
      java.util.function.UnaryOperator<ScheduleState> change) {
    for (PollerKey key : keys) {
      ScheduleState s =
          store
              .loadState(key)
              .map(PollerState::schedule)
              .orElseGet(() -> ScheduleState.initial(p.schedule().min().toMillis()));
      store.saveStateUnfenced(key, StatePatch.schedule(change.apply(s)), time.now());
    }
    wakeHints.clear();
  }

  private static ScheduleState manualPause(ScheduleState s) {
    return Operations.pause(s, ScheduleState.PauseReason.MANUAL);
  }

  @Override
  public void pause(String poller) {
    Poller<Object> p = known(poller);
    updateSchedule(p, keysOf(p), Engine::manualPause);
  }

  @Override
  public void pause(PollerKey key) {
    updateSchedule(knownKey(key), List.of(key), Engine::manualPause);
  }

  @Override
  public void resume(String poller) {
    Poller<Object> p = known(poller);
    updateSchedule(p, keysOf(p), s -> Operations.resume(s, time.now()));
  }

  @Override
  public void resume(PollerKey key) {
    updateSchedule(knownKey(key), List.of(key), s -> Operations.resume(s, time.now()));
  }

  @Override
  public void trigger(String poller) {
    Poller<Object> p = known(poller);
    updateSchedule(p, keysOf(p), s -> Operations.trigger(s, time.now()));
  }

  @Override
  public void trigger(PollerKey key) {
    updateSchedule(knownKey(key), List.of(key), s -> Operations.trigger(s, time.now()));
  }

  /** Runs {@code write} under the key's lease, waiting up to one lease TTL for a running cycle. */
  private <R> R withLease(
      PollerKey key, java.util.function.Function<io.watukuy.spi.Lease, R> write) {
    Optional<io.watukuy.spi.Lease> lease =
        store.acquireLease(key, instanceId, leaseTtl, time.now());
    if (lease.isEmpty()) {
      Optional<io.watukuy.spi.Lease> held = store.getLease(key);
      if (held.isPresent() && held.get().owner().equals(instanceId) && inFlightHere(key))
        throw new IllegalStateException(
            key
                + " is in a cycle of this engine (called from its handler or fetch?);"
                + " call this operation outside the cycle");
      if (held.isPresent()) {
        try {
          // Until an instant, read once: a clock moved meanwhile cannot push the wake-up later.
          long untilExpiry =
              Duration.between(time.now(), held.get().expiresAt()).plusMillis(1).toNanos();
          time.sleepUntil(time.nanoTime() + Math.max(0, untilExpiry));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(key + ": interrupted while waiting for its lease", e);
        }
      }
      lease = store.acquireLease(key, instanceId, leaseTtl, time.now());
    }
    if (lease.isEmpty()) {
      io.watukuy.spi.Lease h = store.getLease(key).orElse(null);
      throw new IllegalStateException(
          key
              + " is leased by "
              + (h == null ? "another instance" : h.owner() + " until " + h.expiresAt())
              + "; try again");
    }
    try {
      return write.apply(lease.get());
    } finally {
      wakeHints.clear(); // the write may make the key due: the daemon looks at it again
      try {
        store.releaseLease(key, lease.get());
      } catch (RuntimeException e) {
        log.warn("{}: lease release failed, it expires by itself: {}", key, e.toString());
      }
    }
  }

  @Override
  public void resetCursor(String poller, @Nullable String to, boolean clearSnapshot) {
    Poller<Object> p = known(poller);
    resetCursor(p, keysOf(p), to, clearSnapshot);
  }

  @Override
  public void resetCursor(PollerKey key, @Nullable String to, boolean clearSnapshot) {
    resetCursor(knownKey(key), List.of(key), to, clearSnapshot);
  }

  private void resetCursor(
      Poller<Object> p, List<PollerKey> keys, @Nullable String to, boolean clearSnapshot) {
    io.watukuy.internal.cursor.LaneCursor<Object> lane = cycles.get(p.name()).laneCursor();
    String encoded = lane.encode(lane.fromRaw(to)); // validates before anything is written
    for (PollerKey key : keys) {
      withLease(
          key,
          lease -> {
            java.util.Map<String, String> cursors =
                new java.util.HashMap<>(
                    store.loadState(key).map(PollerState::cursors).orElse(java.util.Map.of()));
            if (encoded == null) cursors.remove("live");
            else cursors.put("live", encoded);
            ScheduleState s =
                store
                    .loadState(key)
                    .map(PollerState::schedule)
                    .orElseGet(() -> ScheduleState.initial(p.schedule().min().toMillis()));
            store.saveState(
                key,
                lease,
                new StatePatch(cursors, Operations.trigger(s, time.now()), null, null),
                time.now());
            if (clearSnapshot) store.clearItems(key);
            log.info(
                "{}: live cursor reset to {}{}",
                key,
                to == null ? "its initial value" : "'" + to + "'",
                clearSnapshot ? ", snapshot cleared" : "");
            return null;
          });
    }
  }

  @Override
  public void backfill(String poller, @Nullable String from, @Nullable String to, boolean force) {
    Poller<Object> p = known(poller);
    backfill(p, keysOf(p), from, to, force);
  }

  @Override
  public void backfill(PollerKey key, @Nullable String from, @Nullable String to, boolean force) {
    backfill(knownKey(key), List.of(key), from, to, force);
  }

  private void backfill(
      Poller<Object> p,
      List<PollerKey> keys,
      @Nullable String from,
      @Nullable String to,
      boolean force) {
    String poller = p.name();
    io.watukuy.internal.cursor.LaneCursor<Object> lane = cycles.get(poller).laneCursor();
    if (!lane.ordered())
      throw new ConfigException(
          "poller "
              + poller
              + ": backfill needs a timestamp or page cursor, or a custom cursor"
              + " with an ordering; cursor "
              + p.cursor().name()
              + " has no order to stop at");
    Object start = lane.fromRaw(from);
    if (to != null && lane.reached(start, lane.fromRaw(to)))
      throw new ConfigException(
          "poller " + poller + ": backfill from '" + from + "' is not before to '" + to + "'");
    for (PollerKey key : keys) {
      withLease(
          key,
          lease -> {
            PollerState state = store.loadState(key).orElse(null);
            String target = to;
            if (target == null)
              target = lane.toRaw(lane.decode(state == null ? null : state.cursors().get("live")));
            java.util.Map<String, String> cursors =
                new java.util.HashMap<>(state == null ? java.util.Map.of() : state.cursors());
            cursors.remove("backfill");
            ScheduleState s =
                state == null
                    ? ScheduleState.initial(p.schedule().min().toMillis())
                    : state.schedule();
            ScheduleState withBackfill =
                s.withBackfill(new ScheduleState.Backfill(from, target, force, null));
            store.saveState(
                key, lease, new StatePatch(cursors, withBackfill, null, null), time.now());
            log.info("{}: backfill from {} to {}{}", key, from, target, force ? " (force)" : "");
            return null;
          });
    }
  }

  @Override
  public int replay(String poller, java.time.Instant from, java.time.@Nullable Instant to) {
    Poller<Object> p = known(poller);
    return replay(p, keysOf(p), from, to);
  }

  @Override
  public int replay(PollerKey key, java.time.Instant from, java.time.@Nullable Instant to) {
    return replay(knownKey(key), List.of(key), from, to);
  }

  private int replay(
      Poller<Object> p,
      List<PollerKey> keys,
      java.time.Instant from,
      java.time.@Nullable Instant to) {
    String poller = p.name();
    if (from == null)
      throw new ConfigException("poller " + poller + ": replay needs a from instant");
    if (to != null && !to.isAfter(from))
      throw new ConfigException(
          "poller " + poller + ": replay to " + to + " is not after from " + from);
    if (!p.log().enabled())
      throw new ConfigException(
          "poller " + poller + ": replay needs the event log (log(EventLog.keep(...)))");
    int total = 0;
    for (PollerKey key : keys)
      total += withLease(key, lease -> Replay.copy(store, key, lease, from, to, time.now()));
    return total;
  }

  private final java.util.Set<String> subscribed = ConcurrentHashMap.newKeySet();

  /** Keys whose cycle runs on this engine now, with the thread running it. */
  private final Map<PollerKey, Thread> running = new ConcurrentHashMap<>();

  private boolean inFlightHere(PollerKey key) {
    return running.get(key) == Thread.currentThread() || inFlight.containsKey(key);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> io.watukuy.Subscription<T> subscribe(Poller<T> poller) {
    Poller<Object> p = known(poller.name());
    if (handlers.containsKey(p.name()))
      throw new ConfigException(
          "poller " + p.name() + " has a handler attached; subscribe() replaces on(), not both");
    wakeHints.clear();
    if (!subscribed.add(p.name()))
      throw new ConfigException("poller " + p.name() + " already has an open subscription");
    return new Subscriber<>(
        store,
        () -> keysOf(p),
        (Class<T>) p.type(),
        dispatchBatchSize,
        (key, write) -> withLease(key, write),
        () -> subscribed.remove(p.name()));
  }

  @Override
  public io.watukuy.Inspection inspect() {
    java.time.Instant now = time.now();
    List<io.watukuy.KeyInspection> out = new ArrayList<>();
    for (Poller<Object> p : pollers.values())
      for (PollerKey key : keysOf(p)) {
        // A key that never ran shows as new: idle, due now.
        PollerState state =
            store
                .loadState(key)
                .orElseGet(
                    () -> PollerState.create(StatePatch.schedule(ScheduleMachine.initial(p)), now));
        out.add(Inspect.key(store, key, state, cycles.get(p.name()).laneCursor(), now));
      }
    return new io.watukuy.Inspection(now, out);
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
      if (!pollers.containsKey(poller))
        throw new ConfigException("parked: unknown poller '" + poller + "'");
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
