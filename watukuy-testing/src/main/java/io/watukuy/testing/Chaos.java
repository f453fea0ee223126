package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * The seeded chaos harness of guarantee G9: drives engines over a {@link FakeApi} with seeded
 * mutations (creates, updates, ties at page boundaries, late commits, deletes, states restored to
 * earlier ones), arms a random {@link KillPoint} each step, lets a killed process's lease expire on
 * the virtual clock, continues with a fresh engine on the same store, runs to quiescence, and
 * checks the guarantees. {@link KillPoint#PAUSED} freezes the process instead, between loading
 * events and handing them over, past its lease TTL, while a second instance takes the key and
 * delivers on. The guarantees:
 *
 * <ul>
 *   <li>G1: for each identity, the last delivered event matches the API's final state; every
 *       committed event was delivered (intermediate states may be compacted);
 *   <li>G2: redeliveries carry the same id, and no id names two different (identity,
 *       version-or-hash, type) observations;
 *   <li>G3: per ordering key, events are first delivered in sequence order;
 *   <li>G4, G7: the outbox is empty and nothing is parked at the end;
 *   <li>G5: never two live lease holders for a key;
 *   <li>G9: each event is delivered at most 1 + (kills while it was pending) times.
 * </ul>
 *
 * Any store plugs in through {@link ChaosOptions#store()}; a store's chaos test returns {@link
 * #everySeed} from a {@code @TestFactory}.
 *
 * @since 0.1
 */
public final class Chaos {
  /** The seeds every CI run checks, on every store; each one runs, whatever time it takes. */
  public static final long[] CI_SEEDS = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

  /**
   * The seeds a CI run checks a second time with a batch handler on a server-backed store: every
   * third of {@link #CI_SEEDS}. The batch variant shares the whole run with the per-event one
   * except the delivery step, so a subset keeps the batch path under kills at a third of its cost;
   * {@code -Dwatukuy.chaos.deep=true} runs it on every CI seed.
   */
  public static final long[] CI_BATCH_SEEDS = {1, 4, 7, 10};

  /**
   * The seeds a CI run checks with a handler per event on a server-backed or file store (SQLite,
   * PostgreSQL, MariaDB, Redis): the first eight of {@link #CI_SEEDS}. The memory store runs all of
   * them; on a persistent store each seed costs the store's round trips at every step, and eight
   * (with the four of {@link #CI_BATCH_SEEDS}) keep the suite inside its time while every change
   * still runs eight kill campaigns per store. {@code -Dwatukuy.chaos.deep=true} runs every CI seed
   * here too.
   */
  public static final long[] CI_STORE_SEEDS = {1, 2, 3, 4, 5, 6, 7, 8};

  private Chaos() {}

  /**
   * The seeds to run: {@code -Dwatukuy.chaos.seed=N} runs that one seed (to reproduce a failure),
   * {@code -Dwatukuy.chaos.seeds=N} runs seeds 1..N (the nightly profile), otherwise {@link
   * #CI_SEEDS}.
   *
   * @return the seeds, in order
   * @throws NumberFormatException if a property is set but is not a decimal number
   */
  public static LongStream seeds() {
    String one = System.getProperty("watukuy.chaos.seed");
    if (one != null && !one.isBlank()) return LongStream.of(Long.parseLong(one.trim()));
    String many = System.getProperty("watukuy.chaos.seeds");
    if (many != null && !many.isBlank())
      return LongStream.rangeClosed(1, Long.parseLong(many.trim()));
    return Arrays.stream(CI_SEEDS);
  }

  /**
   * The seeds of a persistent store's per-event variant: {@code -Dwatukuy.chaos.seed=N} or {@code
   * -Dwatukuy.chaos.seeds=N} as in {@link #seeds()}, else {@link #CI_SEEDS} with {@code
   * -Dwatukuy.chaos.deep=true} (the deep run), else {@link #CI_STORE_SEEDS}.
   *
   * @return the seeds, in order
   * @throws NumberFormatException if {@code watukuy.chaos.seed} or {@code watukuy.chaos.seeds} is
   *     set but is not a decimal number
   */
  public static LongStream storeSeeds() {
    if (isSet("watukuy.chaos.seed") || isSet("watukuy.chaos.seeds")) return seeds();
    if (Boolean.getBoolean("watukuy.chaos.deep")) return Arrays.stream(CI_SEEDS);
    return Arrays.stream(CI_STORE_SEEDS);
  }

  /**
   * The seeds of a store's batch-handler variant: {@code -Dwatukuy.chaos.seed=N} or {@code
   * -Dwatukuy.chaos.seeds=N} as in {@link #seeds()}, else {@link #CI_SEEDS} with {@code
   * -Dwatukuy.chaos.deep=true} (the deep run), else {@link #CI_BATCH_SEEDS}.
   *
   * @return the seeds, in order
   * @throws NumberFormatException if {@code watukuy.chaos.seed} or {@code watukuy.chaos.seeds} is
   *     set but is not a decimal number
   */
  public static LongStream batchSeeds() {
    if (isSet("watukuy.chaos.seed") || isSet("watukuy.chaos.seeds")) return seeds();
    if (Boolean.getBoolean("watukuy.chaos.deep")) return Arrays.stream(CI_SEEDS);
    return Arrays.stream(CI_BATCH_SEEDS);
  }

  private static boolean isSet(String property) {
    String value = System.getProperty(property);
    return value != null && !value.isBlank();
  }

  /**
   * A store's chaos suite, for a {@code @TestFactory}: {@link #everySeed(LongStream, LongFunction)}
   * over {@link #seeds()}.
   *
   * @param options the options of one seed's run; its store must be fresh and empty
   * @return the tests, to be returned from the {@code @TestFactory} method
   */
  public static Stream<DynamicTest> everySeed(LongFunction<ChaosOptions> options) {
    return everySeed(seeds(), options);
  }

  /**
   * A store's chaos suite, for a {@code @TestFactory}: one test per seed of {@code seeds}, each
   * running {@link #run} with {@code options.apply(seed)} and failing unless every guarantee held
   * ({@link ChaosReport#assertGuarantees()}), at least one kill point fired and every committed
   * event was delivered; then one last test, {@code every seed ran}, that fails unless each seed's
   * run finished. There is no time budget: every seed runs, on a slow machine too, and a seed that
   * did not run (skipped, aborted) is a failure.
   *
   * @param seeds the seeds to run, such as {@link #seeds()} or {@link #batchSeeds()}
   * @param options the options of one seed's run; its store must be fresh and empty
   * @return the tests, to be returned from the {@code @TestFactory} method
   * @throws NullPointerException if an argument is null
   */
  public static Stream<DynamicTest> everySeed(
      LongStream seeds, LongFunction<ChaosOptions> options) {
    Objects.requireNonNull(options, "options");
    List<Long> seedList = seeds.boxed().toList();
    Set<Long> ran = ConcurrentHashMap.newKeySet();
    Stream<DynamicTest> runs =
        seedList.stream()
            .map(
                seed ->
                    DynamicTest.dynamicTest(
                        "seed " + seed,
                        () -> {
                          ChaosReport report = run(options.apply(seed));
                          ran.add(seed);
                          report.assertGuarantees();
                          assertThat(report.totalKills()).as("kills of seed %d", seed).isPositive();
                          assertThat(report.deliveries())
                              .as("deliveries of seed %d", seed)
                              .isGreaterThanOrEqualTo(report.commits());
                        }));
    DynamicTest all =
        DynamicTest.dynamicTest(
            "every seed ran",
            () ->
                assertThat(seedList)
                    .as("seeds whose run did not finish")
                    .filteredOn(seed -> !ran.contains(seed))
                    .isEmpty());
    return Stream.concat(runs, Stream.of(all));
  }

  /**
   * Runs one seeded chaos run on the calling thread, under a {@link VirtualClock}: no real sleep.
   * Never throws for a violation: see {@link ChaosReport#assertGuarantees()}.
   *
   * @param options the seed, kill points, steps, store and strategies
   * @return what the run observed, with the violations found
   */
  public static ChaosReport run(ChaosOptions options) {
    return new ChaosRun(options).run();
  }
}
