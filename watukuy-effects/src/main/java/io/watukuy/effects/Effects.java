package io.watukuy.effects;

import io.watukuy.ConfigException;
import io.watukuy.PollerKey;
import io.watukuy.SealingKeys;
import io.watukuy.TimeSource;
import io.watukuy.Watukuy;
import io.watukuy.effects.internal.EffectRun;
import io.watukuy.effects.internal.EffectServices;
import io.watukuy.spi.EffectRecord;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.JournalEntry;
import io.watukuy.spi.StateStore;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs effects (docs/effects.md): one reader thread per effect reads its source's event log, queues
 * each event in its lane and hands due lanes to a worker pool shared by every effect. Each effect
 * runs under a lease in the store, so one engine runs it at a time; another engine's {@code
 * Effects} over the same store takes it over when the lease expires.
 *
 * <pre>{@code
 * try (Effects effects = Effects.builder(store).add(notifyCustomer).build()) {
 *   effects.start();
 *   ...
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 *
 * @since 0.1
 */
public final class Effects implements AutoCloseable {
  /** Workers shared by every effect (docs/effects.md, "The model"): 16. */
  public static final int DEFAULT_POOL_SIZE = 16;

  /** How often a reader looks for new events when nothing woke it: 1 s. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);

  /** How long {@link #close()} waits for invocations in flight: 30 s. */
  public static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(30);

  /** How long a completed invocation and its journal are kept (docs/effects.md, "Retention"). */
  public static final Duration DEFAULT_JOURNAL_RETENTION = Duration.ofDays(7);

  /**
   * Failed attempts in a row, across every lane of an effect with no success between, that
   * quarantine it (docs/effects.md, "Automatic quarantine"): 50.
   */
  public static final int DEFAULT_QUARANTINE_AFTER = 50;

  private static final Logger LOG = LoggerFactory.getLogger("io.watukuy.effects");

  private final EffectStore store;
  private final TimeSource time;
  private final Duration pollInterval;
  private final @Nullable ExecutorService ownedWorkers;
  private final @Nullable Executor readerExecutor;
  private final Map<String, Reader> readers = new LinkedHashMap<>();
  private final EffectServices services;
  private final Object finished = new Object();
  private volatile boolean started;
  private volatile boolean closed;

  private Effects(Builder b) {
    this.store = b.effectStore;
    this.time = b.time;
    this.pollInterval = b.pollInterval;
    Executor workers = b.workers;
    if (workers == null) {
      ownedWorkers = Executors.newFixedThreadPool(b.poolSize, daemons("watukuy-effect-worker-"));
      workers = ownedWorkers;
    } else {
      ownedWorkers = null;
    }
    this.readerExecutor = b.readers;
    this.services = new EffectServices(store, time, b.secretKey, b.random, b.secrets);
    EffectRun.Settings settings = new EffectRun.Settings(b.journalRetention, b.quarantineAfter);
    for (Effect<?> e : b.effects)
      readers.put(
          e.name(),
          new Reader(e, b.store, workers, b.instanceId, Watukuy.redaction(b.secrets), settings));
  }

  /**
   * Starts a runtime over a store.
   *
   * @param store the store holding the sources' event logs; it must keep effect tables ({@link
   *     StateStore#effects()}; every store module's does), where the effects' cursors, invocations
   *     and journals are kept
   * @return a builder
   * @throws NullPointerException if {@code store} is null
   * @throws ConfigException if the store keeps no effect tables, naming its class
   */
  public static Builder builder(StateStore store) {
    Objects.requireNonNull(store, "store");
    EffectStore effects =
        store
            .effects()
            .orElseThrow(
                () ->
                    new ConfigException(
                        "store "
                            + store.getClass().getName()
                            + " keeps no effect tables (its effects() is empty); use a store"
                            + " module's StateStore"));
    return new Builder(store, effects);
  }

  /**
   * Starts one reader per effect. Each takes its effect's lease when it can and runs it. An effect
   * that is quarantined is logged first, at WARN, with since when, its reason and how to release it
   * (docs/effects.md, "States").
   *
   * @throws IllegalStateException if already started or closed
   */
  public synchronized void start() {
    if (closed) throw new IllegalStateException("effects are closed");
    if (started) throw new IllegalStateException("effects are already started");
    started = true;
    // before the readers run: a quarantined effect is said at start, not found later by its state
    for (Reader r : readers.values()) r.run.announce();
    for (Reader r : readers.values()) {
      if (readerExecutor != null) readerExecutor.execute(r::loop);
      else daemons("watukuy-effect-" + r.run.effect().name()).newThread(r::loop).start();
    }
  }

  /**
   * The names of the effects this runtime runs.
   *
   * @return in the order added
   */
  public List<String> names() {
    return List.copyOf(readers.keySet());
  }

  /**
   * An effect's status (docs/effects.md, "States").
   *
   * @param effect the effect's name
   * @return the status
   * @throws IllegalArgumentException if this runtime has no such effect, naming it
   */
  public EffectStatus status(String effect) {
    return reader(effect).run.status();
  }

  /**
   * Every effect's status.
   *
   * @return in the order added
   */
  public List<EffectStatus> statuses() {
    List<EffectStatus> out = new ArrayList<>();
    for (Reader r : readers.values()) out.add(r.run.status());
    return out;
  }

  /**
   * Asks to skip a failed position (docs/effects.md, "Skip"): the lane holding it completes it as
   * skipped at its next look. Honoured only for a position whose invocation has failed; nothing is
   * ever skipped automatically.
   *
   * @param effect the effect's name
   * @param source the source key
   * @param position the failed position
   * @return true when recorded; false when the position has no failed invocation (never run,
   *     running, or complete) and nothing was written
   * @throws IllegalArgumentException if this runtime has no such effect
   */
  public boolean skip(String effect, PollerKey source, long position) {
    Reader r = reader(effect);
    boolean recorded = store.requestSkip(effect, source, position, time.now());
    if (recorded) r.signal();
    return recorded;
  }

  /**
   * Retries every parked lane of an effect now (docs/effects.md, "Retry now"): each lane whose head
   * has failed and waits for its retry time (the backoff of 200 ms doubling to 60 s, or up to 5
   * minutes after a {@code Retry-After}) becomes due at once, in memory and in its stored row's
   * {@code retryAt}, and the reader is woken to dispatch it. For after an operator fixed the cause
   * of a failure. The attempt count is not reset: a lane that fails again waits the backoff of its
   * next attempt. A quarantined effect is not released: its lanes are due, and run once it is
   * released ({@link #release(String)}).
   *
   * @param effect the effect's name
   * @return the lanes made due, including any whose retry time had already come; 0 when none is
   *     parked, or when this engine does not run the effect (another holds its lease)
   * @throws IllegalArgumentException if this runtime has no such effect, naming it
   * @throws io.watukuy.StoreException when the store cannot be reached
   */
  public int retryNow(String effect) {
    Reader r = reader(effect);
    int made = r.run.retryNow(null, 0);
    if (made > 0) r.signal();
    return made;
  }

  /**
   * Retries one failed position now (docs/effects.md, "Retry now"), as {@link #retryNow(String)}
   * does for every parked lane.
   *
   * @param effect the effect's name
   * @param source the source key the position is on
   * @param position the failed position
   * @return 1 when its lane was made due; 0 when the position is not the failed head of a parked
   *     lane here (never run, running, complete, or another engine runs the effect), and nothing
   *     was written
   * @throws IllegalArgumentException if this runtime has no such effect, naming it
   * @throws NullPointerException if {@code source} is null
   * @throws io.watukuy.StoreException when the store cannot be reached
   */
  public int retryNow(String effect, PollerKey source, long position) {
    Objects.requireNonNull(source, "source");
    Reader r = reader(effect);
    if (position < 1) return 0;
    int made = r.run.retryNow(source, position);
    if (made > 0) r.signal();
    return made;
  }

  /**
   * Reads one invocation row: what ran (or is running, or failed) at a position, for an operator's
   * look at a stuck lane (docs/effects.md, "Runbook: a wedge").
   *
   * @param effect the effect's name
   * @param source the source key
   * @param position the log position
   * @return the row, or empty when the position was never run here or its row was swept
   * @throws IllegalArgumentException if this runtime has no such effect, naming it
   * @throws io.watukuy.StoreException when the store cannot be reached
   */
  public Optional<InvocationRow> invocation(String effect, PollerKey source, long position) {
    reader(effect);
    return store.loadInvocation(effect, source, position);
  }

  /**
   * Lists the journaled calls of one invocation, in order. Each entry holds the recorded result: a
   * caller that shows them to people decides what of it to show (the admin server shows only the
   * label and times).
   *
   * @param effect the effect's name
   * @param source the source key
   * @param position the invocation's position
   * @param offset entries to pass over; {@code >= 0}
   * @param limit at most this many; positive
   * @return the entries in ordinal order
   * @throws IllegalArgumentException if this runtime has no such effect, or {@code offset} is
   *     negative or {@code limit} not positive
   * @throws io.watukuy.StoreException when the store cannot be reached
   */
  public List<JournalEntry> journal(
      String effect, PollerKey source, long position, int offset, int limit) {
    reader(effect);
    if (offset < 0) throw new IllegalArgumentException("offset must be >= 0, but was " + offset);
    if (limit < 1) throw new IllegalArgumentException("limit must be positive, but was " + limit);
    return store.listJournal(effect, source, position, offset, limit);
  }

  /**
   * Events an {@code on latest} arm of the effect folded into a later invocation, ever
   * (docs/effects.md, "States": {@code latest_collapsed}).
   *
   * @param effect the effect's name
   * @return the count; 0 before anything was folded
   * @throws IllegalArgumentException if this runtime has no such effect, naming it
   * @throws io.watukuy.StoreException when the store cannot be reached
   */
  public long latestCollapsed(String effect) {
    reader(effect);
    return store.loadEffect(effect).map(EffectRecord::latestCollapsed).orElse(0L);
  }

  /**
   * Quarantines an effect: nothing more is dispatched (in-flight invocations finish) until {@link
   * #release(String)}. Persisted, so a restart keeps it.
   *
   * @param effect the effect's name
   * @param reason why, for operators; stored with the {@link Builder#secrets} hidden
   * @throws IllegalArgumentException if this runtime has no such effect
   */
  public void quarantine(String effect, String reason) {
    Objects.requireNonNull(reason, "reason");
    reader(effect);
    store.setQuarantine(effect, services.storedText(reason), time.now());
  }

  /**
   * Releases a quarantine.
   *
   * @param effect the effect's name
   * @throws IllegalArgumentException if this runtime has no such effect
   */
  public void release(String effect) {
    Reader r = reader(effect);
    store.setQuarantine(effect, null, time.now());
    r.signal();
  }

  /**
   * What a deploy of these effects would find in the store (docs/effects.md, "Plan"), read without
   * starting or taking anything: per effect and source key, whether an arm's key scheme differs
   * from the one recorded with the watermark and how many lanes have rows above it. A key with both
   * would start {@code blocked}.
   *
   * <p>This is the plan's Java API; there is no {@code Watukuy.effectsPlan()}, because
   * watukuy-core, where {@link Watukuy} lives, cannot depend on watukuy-effects: the runtime that
   * holds the effects' definitions answers. {@code watukuy effects plan CONFIG} prints the same
   * report for the effects of a YAML config.
   *
   * @return one entry per effect and source key, effects in the order added, keys in key order
   * @throws io.watukuy.StoreException when the store cannot be reached
   */
  public List<EffectPlan> plan() {
    List<EffectPlan> out = new ArrayList<>();
    for (Reader r : readers.values()) out.addAll(EffectPlan.of(store, r.run.effect()));
    return out;
  }

  /**
   * Shuts down (docs/effects.md, "Shutdown"): stops dispatching, waits up to {@link #SHUTDOWN_WAIT}
   * on this runtime's clock for invocations in flight, then gives the leases up. An invocation
   * abandoned by the wait stays recorded as running: the worker pool this runtime owns is
   * interrupted, a failure that ends in (the interrupted call's {@code InterruptedException}) is
   * not recorded, any other late outcome is refused by the lease, and it replays at the next start
   * with its attempt count as it was. Idempotent.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) return;
      closed = true;
    }
    for (Reader r : readers.values()) r.stop();
    for (Reader r : readers.values()) r.run.stopDispatching();
    int left = awaitInFlight();
    if (left > 0) {
      LOG.warn(
          "effects: {} still in flight after {}; {} at the next start",
          left == 1 ? "1 invocation" : left + " invocations",
          SHUTDOWN_WAIT,
          left == 1 ? "it replays" : "they replay");
      // before the interrupt, so that what it cuts short is not recorded as a failure
      for (Reader r : readers.values()) r.run.abandon();
    }
    if (ownedWorkers != null) {
      if (left > 0) ownedWorkers.shutdownNow();
      else ownedWorkers.shutdown();
    }
    for (Reader r : readers.values()) r.run.stop();
    services.close();
  }

  /**
   * Erases a subject (docs/effects.md, "Sealed documents"): deletes its data key from the store, so
   * every document sealed under it, journal rows included, becomes unreadable for good. A later
   * reveal of one is a terminal failure (its position completes, {@code terminal_skips} counts it);
   * a later seal for the subject makes a new key. Engines that share the store see the erasure at
   * their next reveal: no key is cached.
   *
   * @param subject the subject, as given to {@code ctx.seal}
   * @return true when a key was deleted; false when the subject had none (never sealed, or already
   *     erased)
   * @throws NullPointerException if {@code subject} is null
   */
  public boolean erase(String subject) {
    return services.seals().erase(subject);
  }

  /**
   * Waits until no invocation is in flight or {@link #SHUTDOWN_WAIT} passed; returns those left.
   */
  private int awaitInFlight() {
    boolean[] timedOut = {false};
    var timer =
        time.schedule(
            SHUTDOWN_WAIT,
            () -> {
              synchronized (finished) {
                timedOut[0] = true;
                finished.notifyAll();
              }
            });
    try {
      synchronized (finished) {
        while (inFlight() > 0 && !timedOut[0]) finished.wait();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      timer.cancel();
    }
    return inFlight();
  }

  private int inFlight() {
    int n = 0;
    for (Reader r : readers.values()) n += r.run.inFlight();
    return n;
  }

  private Reader reader(String effect) {
    Reader r = readers.get(effect);
    if (r == null)
      throw new IllegalArgumentException(
          "no effect named '" + effect + "'; effects here: " + readers.keySet());
    return r;
  }

  /** The runtime of one effect, for tests driving it pass by pass. */
  EffectRun<?> run(String effect) {
    return reader(effect).run;
  }

  private static ThreadFactory daemons(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix.endsWith("-") ? prefix + n.incrementAndGet() : prefix);
      t.setDaemon(true);
      return t;
    };
  }

  /** One effect's reader thread: passes, then waits for a finished invocation or a due time. */
  private final class Reader {
    final EffectRun<?> run;
    final Function<@Nullable String, String> redaction;
    final Semaphore wake = new Semaphore(0);
    volatile boolean stopping;

    Reader(
        Effect<?> effect,
        StateStore store,
        Executor workers,
        String owner,
        Function<@Nullable String, String> redaction,
        EffectRun.Settings settings) {
      this.run =
          new EffectRun<>(effect, store, time, workers, owner, this::signal, redaction, settings)
              .services(services);
      this.redaction = redaction;
    }

    void signal() {
      wake.release();
      synchronized (finished) {
        finished.notifyAll();
      }
    }

    void stop() {
      stopping = true;
      signal();
    }

    void loop() {
      while (!stopping) {
        try {
          if (run.pass()) continue;
          Instant now = time.now();
          Instant due = now.plus(pollInterval);
          Instant next = run.nextDue();
          if (next != null && next.isBefore(due)) due = next;
          var timer = time.schedule(Duration.between(now, due), this::signal);
          wake.acquire();
          wake.drainPermits();
          timer.cancel();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        } catch (RuntimeException e) {
          // a store that cannot be reached: look again after the poll interval
          LOG.warn(
              "effect {}: reader pass failed: {}",
              run.effect().name(),
              redaction.apply(e.toString()));
          time.schedule(pollInterval, this::signal);
          wake.acquireUninterruptibly();
        }
      }
    }
  }

  /**
   * Configures an {@link Effects}. Not thread-safe.
   *
   * @since 0.1
   */
  public static final class Builder {
    private final StateStore store;
    private final EffectStore effectStore;
    private final List<Effect<?>> effects = new ArrayList<>();
    private TimeSource time = TimeSource.system();
    private int poolSize = DEFAULT_POOL_SIZE;
    private @Nullable Executor workers;
    private @Nullable Executor readers;
    private Duration pollInterval = DEFAULT_POLL_INTERVAL;
    private String instanceId = UUID.randomUUID().toString();
    private List<String> secrets = List.of();
    private @Nullable SealingKeys secretKey;
    private Random random = new SecureRandom();
    private Duration journalRetention = DEFAULT_JOURNAL_RETENTION;
    private int quarantineAfter = DEFAULT_QUARANTINE_AFTER;

    private Builder(StateStore store, EffectStore effectStore) {
      this.store = store;
      this.effectStore = effectStore;
    }

    /**
     * Adds an effect.
     *
     * @param effect the effect; its name unique here
     * @return this builder
     * @throws ConfigException if an effect of the same name was added, naming it
     */
    public Builder add(Effect<?> effect) {
      Objects.requireNonNull(effect, "effect");
      for (Effect<?> e : effects)
        if (e.name().equals(effect.name()))
          throw new ConfigException("effect " + effect.name() + " is added twice");
      effects.add(effect);
      return this;
    }

    /**
     * The clock. Default {@link TimeSource#system()}.
     *
     * @param time the clock
     * @return this builder
     */
    public Builder time(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    /**
     * Workers shared by every effect. Default {@link #DEFAULT_POOL_SIZE}. A wedged lane holds no
     * worker, so even 1 keeps lanes apart.
     *
     * @param threads from 1 to 1024
     * @return this builder
     * @throws ConfigException if out of range, naming the value
     */
    public Builder poolSize(int threads) {
      if (threads < 1 || threads > 1024)
        throw new ConfigException("effects poolSize must be 1..1024, but was " + threads);
      this.poolSize = threads;
      return this;
    }

    /**
     * Runs invocations on this executor instead of a pool of {@link #poolSize(int)} threads; the
     * caller owns it ({@link Effects#close()} does not shut it down).
     *
     * @param workers the executor
     * @return this builder
     */
    public Builder workers(Executor workers) {
      this.workers = Objects.requireNonNull(workers, "workers");
      return this;
    }

    /**
     * Runs each effect's reader loop on this executor instead of a daemon thread of its own; it
     * must give each loop a thread of its own for as long as it runs.
     *
     * @param readers the executor
     * @return this builder
     */
    public Builder readers(Executor readers) {
      this.readers = Objects.requireNonNull(readers, "readers");
      return this;
    }

    /**
     * How often a reader looks for new events when nothing woke it. Default {@link
     * #DEFAULT_POLL_INTERVAL}.
     *
     * @param interval from 10 ms to 1 minute
     * @return this builder
     * @throws ConfigException if out of range, naming the value
     */
    public Builder pollInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.compareTo(Duration.ofMillis(10)) < 0
          || interval.compareTo(Duration.ofMinutes(1)) > 0)
        throw new ConfigException("effects pollInterval must be 10ms..1m, but was " + interval);
      this.pollInterval = interval;
      return this;
    }

    /**
     * Values hidden as {@code [redacted]}, in every form they take, in every error an invocation
     * records or logs (docs/operations.md, "Secrets") and in every journal row it stores: a call's
     * label and its unsealed result, where a replay then reads {@code [redacted]} (docs/effects.md,
     * "The journal"). Pass the same as the engine's {@code Watukuy.Builder#secrets}. Default none.
     *
     * @param values the secret strings; empty strings are ignored
     * @return this builder
     * @throws NullPointerException if {@code values} or one of them is null
     */
    public Builder secrets(Collection<String> values) {
      this.secrets = List.copyOf(values);
      return this;
    }

    /**
     * How long a completed invocation and its journal are kept before the hourly sweep deletes them
     * (docs/effects.md, "Retention"); never above an effect's persisted watermark. Default {@link
     * #DEFAULT_JOURNAL_RETENTION}.
     *
     * @param retention from 1 hour to 3650 days
     * @return this builder
     * @throws ConfigException if out of range, naming the value
     */
    public Builder journalRetention(Duration retention) {
      Objects.requireNonNull(retention, "retention");
      if (retention.compareTo(Duration.ofHours(1)) < 0
          || retention.compareTo(Duration.ofDays(3650)) > 0)
        throw new ConfigException(
            "effects journalRetention must be 1h..3650d, but was " + retention);
      this.journalRetention = retention;
      return this;
    }

    /**
     * Failed attempts in a row, across every lane of one effect with no success between, after
     * which the effect is quarantined (docs/effects.md, "Automatic quarantine"). A terminal failure
     * counts as one: it completes its position, but nothing succeeded, so a run of them (an arm
     * that can never succeed) quarantines the effect instead of passing every event. At least that
     * many: invocations already dispatched when it trips (one per lane that was due) finish and are
     * recorded, so a few more may fail before dispatching stops. Default {@link
     * #DEFAULT_QUARANTINE_AFTER}.
     *
     * @param failedAttempts from 1 to 1 000 000, or 0 to never quarantine automatically
     * @return this builder
     * @throws ConfigException if out of range, naming the value
     */
    public Builder quarantineAfter(int failedAttempts) {
      if (failedAttempts < 0 || failedAttempts > 1_000_000)
        throw new ConfigException(
            "effects quarantineAfter must be 0..1000000 (0: never), but was " + failedAttempts);
      this.quarantineAfter = failedAttempts;
      return this;
    }

    /**
     * This engine's id, the owner of the leases it takes. Default a random UUID.
     *
     * @param id non-blank
     * @return this builder
     * @throws ConfigException if blank
     */
    public Builder instanceId(String id) {
      Objects.requireNonNull(id, "id");
      if (id.isBlank()) throw new ConfigException("effects instanceId must not be blank");
      this.instanceId = id;
      return this;
    }

    /**
     * The top-level key that wraps each subject's data key for sealed documents (docs/config.md,
     * "secretKey"; docs/effects.md, "Sealed documents"). Default none: then {@code ctx.seal},
     * {@code ctx.reveal} and a journaled call naming a subject fail, naming the missing key.
     *
     * @param secretKey the keys; the newest wraps new data keys, any listed one unwraps
     * @return this builder
     */
    public Builder secretKey(SealingKeys secretKey) {
      this.secretKey = Objects.requireNonNull(secretKey, "secretKey");
      return this;
    }

    /**
     * The source of subjects' data keys, their ids and the nonces of sealed documents. Default a
     * {@link SecureRandom}; tests pass a seeded one.
     *
     * @param random the source
     * @return this builder
     */
    public Builder random(Random random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /**
     * Builds the runtime; nothing runs until {@link Effects#start()}.
     *
     * @return the runtime
     */
    public Effects build() {
      return new Effects(this);
    }
  }
}
