package io.watukuy;

import io.watukuy.internal.Engine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The engine: runs the pollers' cycles against a {@link StateStore} and delivers their events
 * to the attached handlers, with the guarantees G1–G10 of the Guarantees document. Create with
 * {@link #builder()}.
 *
 * <p>Two ways to run it: {@link #tick()} runs every due key once on the calling thread (tests,
 * cron, serverless), {@link #start()} runs a daemon scheduler until {@link #stop()}. Thread-safe.
 *
 * @since 0.1
 */
public interface Watukuy extends AutoCloseable {

  /** Default lease TTL (DESIGN.md): 30 s, renewed every ttl/3 and after each committed page. */
  Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(30);
  /** Default time {@link #stop()} waits for in-flight cycles to finish and deliver. */
  Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);

  /** A new engine builder. */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Attaches the handler of a poller's events; replaces a previous one. Attach before ticking:
   * events committed while no handler is attached wait in the outbox (with a warning).
   *
   * @throws ConfigException if the poller is not registered with this engine
   * @return this engine
   */
  <T> Watukuy on(Poller<T> poller, Handler<T> handler);

  /** Runs every due key once on the calling thread; {@link TickOptions#DEFAULT}. */
  TickReport tick();

  /**
   * Runs every due key of the selected pollers once on the calling thread: drains each key's
   * outbox, polls its live lane when due, delivers. It never waits out a poll backoff or a
   * Retry-After, nor a handler retry backoff: those make the key (or the event) not due yet.
   * Errors of a key are reported, not thrown.
   *
   * @throws IllegalStateException if the engine is closed
   */
  TickReport tick(TickOptions options);

  /**
   * Starts the daemon scheduler: due keys run on the executor, concurrently across keys.
   *
   * @throws IllegalStateException if already started or closed
   */
  void start();

  /** Stops the daemon with drain: {@code stop(true)}. */
  void stop();

  /**
   * Stops the daemon. With {@code drain}, running cycles finish and deliver their outbox (up to
   * {@link #DEFAULT_DRAIN_TIMEOUT}); without, they stop after the page in progress and
   * undelivered events stay in the outbox for the next run (G1). Cancels every timer (G8).
   * Idempotent.
   */
  void stop(boolean drain);

  /** Parked events of this engine's pollers. */
  ParkedEvents parked();

  /** Forwards to {@link StateStore#migrate()}. */
  void migrate();

  /** Stops with drain and releases the engine's own threads. The store is not closed. */
  @Override
  void close();

  /**
   * Builds an engine. {@code store} and at least one poller are required. Not thread-safe.
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
    private WatukuyListener listener = WatukuyListener.NONE;

    Builder() {}

    /** The durable state. Required. */
    public Builder store(StateStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    /**
     * Registers a poller.
     *
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

    /** Clock, sleeps and timers. Default {@link TimeSource#system()}. */
    public Builder time(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

    /** Randomness for jitter and backoff. Default a new {@link java.util.SplittableRandom}. */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /** This instance's lease owner id. Default host name + process id + random suffix. */
    public Builder instanceId(String instanceId) {
      Objects.requireNonNull(instanceId, "instanceId");
      if (instanceId.isBlank()) throw new ConfigException("instanceId must not be blank");
      this.instanceId = instanceId;
      return this;
    }

    /**
     * Runs the daemon's cycles, one task per key cycle. A cycle waits for its handlers, which run
     * on {@link #handlerExecutor}, so this may be a bounded pool. Default: the engine's own daemon
     * thread pool, shut down by {@link #close()}. On Java 21+ a virtual-thread executor suits.
     */
    public Builder executor(Executor executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Runs handler calls, at most {@link DeliveryOptions#concurrency()} at once engine-wide. It
     * must not be the executor of {@link #executor} when that one is bounded: a cycle waiting for
     * its handlers would hold the thread they need. {@code Runnable::run} runs handlers on the
     * cycle's own thread (deterministic tests). Default: the engine's own daemon thread pool.
     */
    public Builder handlerExecutor(Executor executor) {
      this.handlerExecutor = Objects.requireNonNull(executor, "handlerExecutor");
      return this;
    }

    /**
     * Lease time to live. Default {@link #DEFAULT_LEASE_TTL}.
     *
     * @throws ConfigException if not positive
     */
    public Builder leaseTtl(Duration ttl) {
      if (ttl.isNegative() || ttl.isZero())
        throw new ConfigException("leaseTtl must be > 0, but was " + ttl);
      this.leaseTtl = ttl;
      return this;
    }

    /** Engine-wide delivery settings. Default {@link DeliveryOptions#DEFAULT}. */
    public Builder delivery(DeliveryOptions delivery) {
      this.delivery = Objects.requireNonNull(delivery, "delivery");
      return this;
    }

    /** Default {@link WatukuyListener#NONE}. */
    public Builder listener(WatukuyListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * @throws ConfigException if the store or every poller is missing, or a poller's settings
     *     conflict with its strategy
     */
    public Watukuy build() {
      if (store == null) throw new ConfigException("store is required");
      if (pollers.isEmpty()) throw new ConfigException("at least one poller is required");
      return new Engine(
          store, List.copyOf(pollers), time, random, instanceId, executor, handlerExecutor, leaseTtl,
          delivery, listener);
    }
  }
}
