package io.watukuy.testing;

import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What {@link Chaos#run} does: the seed, the kill points it may arm, how many steps, which store
 * and which cursor strategies (one poller each, all over one {@link FakeApi}).
 *
 * @param seed the seed of every random choice; a run is reproducible from it
 * @param killPoints the kill points armed at random, default all
 * @param steps steps of mutations and ticks before quiescence, default 200
 * @param store a fresh, empty store; called once per run
 * @param strategies the pollers of the run, default all five strategies
 * @param leaseTtl the engines' lease TTL, default 30 s
 * @param batches whether the engines deliver to a {@link io.watukuy.BatchHandler} (a batch size
 *     drawn from 1 to 8 per process; the handler reports the first failing event of an ordering key
 *     and skips the key's later ones, or throws for the whole batch) instead of a {@link
 *     io.watukuy.Handler}; default false
 * @since 0.1
 */
public record ChaosOptions(
    long seed,
    Set<KillPoint> killPoints,
    int steps,
    Supplier<StateStore> store,
    Set<Strategy> strategies,
    Duration leaseTtl,
    boolean batches) {

  /** Default number of steps. */
  public static final int DEFAULT_STEPS = 200;

  /**
   * Validates the options; the sets are copied.
   *
   * @param seed the seed of every random choice
   * @param killPoints the kill points armed at random; may be empty for a run without faults
   * @param steps at least 1
   * @param store supplies a fresh, empty store
   * @param strategies the pollers of the run; not empty
   * @param leaseTtl the engines' lease TTL
   * @param batches whether the engines deliver to a batch handler
   * @throws NullPointerException if a set, an element, {@code store} or {@code leaseTtl} is null
   * @throws IllegalArgumentException if {@code steps} is below 1 or {@code strategies} is empty
   */
  public ChaosOptions {
    killPoints = Set.copyOf(killPoints);
    strategies = Set.copyOf(strategies);
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(leaseTtl, "leaseTtl");
    if (steps < 1) throw new IllegalArgumentException("steps must be >= 1, but was " + steps);
    if (strategies.isEmpty()) throw new IllegalArgumentException("strategies must not be empty");
  }

  /**
   * The default options for a seed: every kill point, {@value #DEFAULT_STEPS} steps, a {@link
   * MemoryStore}, every strategy, TTL 30 s.
   *
   * @param seed the seed of every random choice
   * @return the options
   */
  public static ChaosOptions seed(long seed) {
    return new ChaosOptions(
        seed,
        EnumSet.allOf(KillPoint.class),
        DEFAULT_STEPS,
        MemoryStore::new,
        EnumSet.allOf(Strategy.class),
        Duration.ofSeconds(30),
        false);
  }

  /**
   * The options with one handler per event or a batch handler, everything else as given.
   *
   * @param seed the seed of every random choice
   * @param killPoints the kill points armed at random
   * @param steps at least 1
   * @param store supplies a fresh, empty store
   * @param strategies the pollers of the run; not empty
   * @param leaseTtl the engines' lease TTL
   * @throws NullPointerException if a set, an element, {@code store} or {@code leaseTtl} is null
   * @throws IllegalArgumentException if {@code steps} is below 1 or {@code strategies} is empty
   */
  public ChaosOptions(
      long seed,
      Set<KillPoint> killPoints,
      int steps,
      Supplier<StateStore> store,
      Set<Strategy> strategies,
      Duration leaseTtl) {
    this(seed, killPoints, steps, store, strategies, leaseTtl, false);
  }

  /**
   * These options delivering to a batch handler, or to a handler per event.
   *
   * @param batches true for a {@link io.watukuy.BatchHandler}
   * @return new options; these are unchanged
   * @since 0.2
   */
  public ChaosOptions withBatches(boolean batches) {
    return new ChaosOptions(seed, killPoints, steps, store, strategies, leaseTtl, batches);
  }

  /**
   * These options with other kill points.
   *
   * @param points the kill points armed at random
   * @return new options; these are unchanged
   */
  public ChaosOptions withKillPoints(Set<KillPoint> points) {
    return new ChaosOptions(seed, points, steps, store, strategies, leaseTtl, batches);
  }

  /**
   * These options with another number of steps.
   *
   * @param steps at least 1
   * @return new options; these are unchanged
   * @throws IllegalArgumentException if {@code steps} is below 1
   */
  public ChaosOptions withSteps(int steps) {
    return new ChaosOptions(seed, killPoints, steps, store, strategies, leaseTtl, batches);
  }

  /**
   * These options with another store.
   *
   * @param store supplies a fresh, empty store; called once per run
   * @return new options; these are unchanged
   */
  public ChaosOptions withStore(Supplier<StateStore> store) {
    return new ChaosOptions(seed, killPoints, steps, store, strategies, leaseTtl, batches);
  }

  /**
   * These options with other pollers.
   *
   * @param strategies the strategies to drive, one poller each; not empty
   * @return new options; these are unchanged
   * @throws IllegalArgumentException if {@code strategies} is empty
   */
  public ChaosOptions withStrategies(Set<Strategy> strategies) {
    return new ChaosOptions(seed, killPoints, steps, store, strategies, leaseTtl, batches);
  }

  /** The pollers a run can drive, one per cursor strategy. */
  public enum Strategy {
    /** Keyset on (updatedAt, id) with lag, page size 3: ties and late commits. */
    TIMESTAMP,
    /** The change feed with tombstones: sees deletes. */
    TOKEN,
    /** Page numbers over the whole listing. */
    PAGE,
    /**
     * Full listing with deletes; hashed on the item's fields only, so restored states repeat ids.
     */
    SNAPSHOT_DIFF,
    /** A user cursor {since, afterId} over the keyset listing. */
    CUSTOM
  }
}
