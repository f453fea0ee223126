package io.watukuy.internal;

import io.watukuy.Cancellable;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.TimeSource;
import io.watukuy.Watukuy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon of {@link Watukuy#start()}: passes on a timer that hand each due key to the cycle
 * executor (one cycle per key at a time), the wake hints that let a pass skip keys found not due,
 * and {@link #stop} with or without drain. A stage of its own because its timers, hints and
 * in-flight cycles are state that {@code tick()} and the operations never touch; it runs a key
 * through {@link Engine#runKey} over the keys of {@link PartitionSync}, as {@code tick()} does.
 */
final class Daemon {
  private static final Logger log = LoggerFactory.getLogger(Daemon.class);

  /** How often the daemon looks for due keys at most. */
  static final Duration MAX_PASS_INTERVAL = Duration.ofSeconds(1);

  /**
   * The shortest wait between two passes: keys falling due within it share a pass (thousands of
   * keys with jittered schedules fall due every few milliseconds), and a hint in the past cannot
   * spin the timer.
   */
  static final Duration MIN_PASS_WAIT = Duration.ofMillis(10);

  private final Engine engine;
  private final PartitionSync partitions;
  private final Map<String, Poller<Object>> pollers;
  private final TimeSource time;
  private final Executor executor;
  private final Duration passInterval;
  private final Object passLock = new Object();
  private final Object lock = new Object();
  // Guarded by lock
  private boolean started;
  // Guarded by lock
  private @Nullable Cancellable nextPass;
  // Guarded by lock: when nextPass fires
  private @Nullable Instant nextPassAt;
  private final Map<PollerKey, Running> inFlight = new ConcurrentHashMap<>();

  /** Keys whose last cycle met a store or destination outage, backed off (see {@link Outages}). */
  private final Outages outages;

  /**
   * Pollers whose partitions could not be listed (a store outage), keyed by {@code PollerKey.of(
   * poller)}: their keys are not handed out until the listing's backoff ends.
   */
  private final Outages listings;

  /** When each poller's partitions may be listed again after a failed listing. */
  private final Map<String, Instant> listingRetry = new ConcurrentHashMap<>();

  /**
   * Keys the daemon found not due, and when to look at them again (see {@link RunLimits#wakeAt}): a
   * pass skips them until then instead of reading their state every pass. Cleared by every
   * operation of this engine ({@link #clearHints}).
   */
  private final WakeHints wakeHints = new WakeHints();

  /** When the next pass over every key is due; passes between only wake hinted keys. */
  private volatile @Nullable Instant nextFullPassAt;

  private volatile boolean cancelRunning;

  /** Set by stop(), with or without drain: ends the daemon cycles' budget waits. */
  private volatile boolean stopping;

  /** A daemon cycle in flight, and the thread running it (null until it starts). */
  private static final class Running {
    final CountDownLatch done = new CountDownLatch(1);
    volatile @Nullable Thread thread;
  }

  /**
   * @param pollers the engine's pollers by name, never changed after the engine is built
   * @param passInterval the time between two full passes: the shortest {@code schedule.min} of the
   *     pollers, at most {@link #MAX_PASS_INTERVAL}
   * @param random the engine's injected generator, for the jitter of an outage's backoff
   */
  Daemon(
      Engine engine,
      PartitionSync partitions,
      Map<String, Poller<Object>> pollers,
      TimeSource time,
      Executor executor,
      Duration passInterval,
      RandomGenerator random) {
    this.outages = new Outages(random);
    this.listings = new Outages(random);
    this.engine = engine;
    this.partitions = partitions;
    this.pollers = pollers;
    this.time = time;
    this.executor = executor;
    this.passInterval = passInterval;
  }

  /**
   * Starts the passes; the first runs at once.
   *
   * @throws IllegalStateException if the daemon is already started
   */
  void start() {
    synchronized (lock) {
      if (started) throw new IllegalStateException("engine already started");
      started = true;
      cancelRunning = false;
      stopping = false;
      nextFullPassAt = null;
      nextPass = time.schedule(Duration.ZERO, this::pass);
      nextPassAt = time.now();
    }
  }

  /** Whether a cycle of {@code key} runs on this daemon now. */
  boolean inFlight(PollerKey key) {
    return inFlight.containsKey(key);
  }

  /** Forgets every wake hint: an operation or a new handler may make any key due. */
  void clearHints() {
    wakeHints.clear();
  }

  /** One daemon pass: every key not already running is handed to the executor. */
  private void pass() {
    synchronized (passLock) {
      try {
        passLocked();
      } catch (RuntimeException | Error e) {
        // A pass that throws would schedule no successor, and the daemon would stop polling
        // without a word: say so, and keep the passes coming.
        log.error("daemon pass failed, the next one is scheduled: {}", e.toString());
        scheduleNextPass();
      }
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
        List<PollerKey> keys = listKeys(p, now);
        if (keys == null) continue;
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
    scheduleNextPass();
  }

  private void scheduleNextPass() {
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

  /**
   * The keys of {@code p}, or null when its partitions cannot be listed now: the store failed to
   * list them, then or at an earlier attempt whose backoff has not ended (one line per change, as
   * for a key's cycle).
   */
  private @Nullable List<PollerKey> listKeys(Poller<Object> p, Instant now) {
    Instant retry = listingRetry.get(p.name());
    if (retry != null && retry.isAfter(now)) return null;
    PollerKey listing = PollerKey.of(p.name());
    String who = "poller " + p.name() + " (listing partitions)";
    try {
      List<PollerKey> keys = partitions.keys(p);
      listingRetry.remove(p.name());
      listings.after(listing, who, p.schedule().backoff(), null, now);
      return keys;
    } catch (RuntimeException e) {
      Instant next = listings.after(listing, who, p.schedule().backoff(), e, now);
      if (next != null) listingRetry.put(p.name(), next);
      else log.warn("poller {}: cannot list partitions: {}", p.name(), e.toString());
      return null;
    }
  }

  /**
   * After a daemon cycle: a store or destination outage makes the key wait out the poller's backoff
   * (the full pass skips a key whose hint lies ahead), and the end of one is logged once.
   */
  private void afterCycle(Poller<Object> p, PollerKey key, KeyReport report) {
    Instant retry =
        outages.after(key, Who.key(key), p.schedule().backoff(), report.error(), time.now());
    if (retry != null) wakeAt(key, retry);
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
              KeyReport report =
                  engine.runKey(
                      p,
                      key,
                      new RunLimits(
                          null,
                          () -> cancelRunning,
                          () -> cancelRunning || stopping,
                          at -> wakeAt(key, at)));
              afterCycle(p, key, report);
            } finally {
              inFlight.remove(key);
              running.done.countDown();
            }
          });
    } catch (RuntimeException rejected) {
      inFlight.remove(key);
      running.done.countDown();
      log.warn("{}: executor rejected the cycle: {}", Who.key(key), rejected.toString());
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

  /** Whether {@link #start} was called and {@link #stop} not since. */
  boolean running() {
    synchronized (lock) {
      return started;
    }
  }

  /**
   * Stops the passes; running cycles fetch no page after the one in flight; with {@code drain} they
   * deliver what they committed, else they stop at the next event. Waits up to {@link
   * Watukuy#DEFAULT_DRAIN_TIMEOUT} for them, in real time. Does nothing when not started.
   */
  void stop(boolean drain) {
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
    long deadline = real.nanoTime() + Watukuy.DEFAULT_DRAIN_TIMEOUT.toNanos();
    for (Running running : List.copyOf(inFlight.values())) {
      // stop() called from a handler or fetch: that cycle cannot finish while we wait for it.
      if (running.thread == Thread.currentThread()) continue;
      try {
        long left = deadline - real.nanoTime();
        if (left <= 0 || !running.done.await(left, TimeUnit.NANOSECONDS)) {
          log.warn(
              "stop: cycles still running after {}; their events stay in the outbox",
              Watukuy.DEFAULT_DRAIN_TIMEOUT);
          break;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
  }
}
