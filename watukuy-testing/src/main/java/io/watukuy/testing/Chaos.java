package io.watukuy.testing;

import java.time.Duration;
import java.util.Arrays;
import java.util.stream.LongStream;

/**
 * The seeded chaos harness of guarantee G9: drives engines over a {@link FakeApi} with seeded
 * mutations (creates, updates, ties at page boundaries, late commits, deletes, states restored to
 * earlier ones), arms a random {@link KillPoint} each step, lets a killed process's lease expire on
 * the virtual clock, continues with a fresh engine on the same store, runs to quiescence, and
 * checks the guarantees:
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
 * Any store plugs in through {@link ChaosOptions#store()}.
 *
 * @since 0.1
 */
public final class Chaos {
  /** The seeds every CI run checks, on every store. */
  public static final long[] CI_SEEDS = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

  /** Chaos time per store in a CI run. */
  public static final Duration CI_BUDGET = Duration.ofSeconds(60);

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
   * How long a store's chaos may run: {@code -Dwatukuy.chaos.minutes=M}, otherwise {@link
   * #CI_BUDGET}. Seeds not started within it are skipped, not failed.
   *
   * @return the time budget per store, measured in real time by the caller
   * @throws NumberFormatException if the property is set but is not a decimal number
   */
  public static Duration budget() {
    String m = System.getProperty("watukuy.chaos.minutes");
    return m == null || m.isBlank() ? CI_BUDGET : Duration.ofMinutes(Long.parseLong(m.trim()));
  }

  /**
   * As {@link #budget()}, with another default for CI: a store behind a network round trip needs
   * more wall time than an embedded one to run every CI seed.
   *
   * @param ciBudget the budget when {@code watukuy.chaos.minutes} is not set
   * @return that property's minutes, or {@code ciBudget}
   * @throws NumberFormatException if the property is set but is not a decimal number
   */
  public static Duration budget(Duration ciBudget) {
    String m = System.getProperty("watukuy.chaos.minutes");
    return m == null || m.isBlank() ? ciBudget : Duration.ofMinutes(Long.parseLong(m.trim()));
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
