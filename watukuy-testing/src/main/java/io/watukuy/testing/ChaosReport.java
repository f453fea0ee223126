package io.watukuy.testing;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a {@link Chaos#run} observed, and the guarantees it checked (G1–G5, G7, G9).
 *
 * @param seed the run's seed
 * @param steps steps run before quiescence
 * @param kills crashes by kill point (handler faults and pauses included)
 * @param commits events committed to the outbox
 * @param deliveries handler calls that returned
 * @param violations broken guarantees, each naming the step, the key and the event; empty when the
 *     run is clean
 * @param trace one line per step and per notable happening, readable top to bottom
 * @since 0.1
 */
public record ChaosReport(
    long seed,
    int steps,
    Map<KillPoint, Integer> kills,
    int commits,
    int deliveries,
    List<String> violations,
    List<String> trace) {

  /**
   * Creates a report; the collections are copied.
   *
   * @param seed the run's seed
   * @param steps steps run
   * @param kills crashes by kill point
   * @param commits events committed
   * @param deliveries handler calls that returned
   * @param violations broken guarantees
   * @param trace the run's trace
   * @throws NullPointerException if a collection or an element is null
   */
  public ChaosReport {
    kills = Collections.unmodifiableMap(new TreeMap<>(kills)); // enum order: stable output
    violations = List.copyOf(violations);
    trace = List.copyOf(trace);
  }

  /**
   * Total kills, handler faults included.
   *
   * @return the sum of {@link #kills()}
   */
  public int totalKills() {
    return kills.values().stream().mapToInt(Integer::intValue).sum();
  }

  /**
   * Throws when any guarantee was violated, with the seed, the first violations and the end of the
   * trace; rerun a failing seed with {@code -Dwatukuy.chaos.seed=<seed>}.
   *
   * @return this report, when no guarantee was violated
   * @throws AssertionError listing the seed, up to 20 violations and the last 60 trace lines
   */
  public ChaosReport assertGuarantees() {
    if (violations.isEmpty()) return this;
    StringBuilder b =
        new StringBuilder()
            .append("chaos seed=")
            .append(seed)
            .append(": ")
            .append(violations.size())
            .append(" violation(s)")
            .append("; rerun with -Dwatukuy.chaos.seed=")
            .append(seed)
            .append('\n');
    violations.stream().limit(20).forEach(v -> b.append("  ").append(v).append('\n'));
    b.append("trace (last 60 lines):\n");
    trace
        .subList(Math.max(0, trace.size() - 60), trace.size())
        .forEach(t -> b.append("  ").append(t).append('\n'));
    throw new AssertionError(b.toString());
  }

  /**
   * The whole trace, for printing.
   *
   * @return the trace lines joined with {@code \n}
   */
  public String render() {
    return String.join("\n", trace);
  }

  @Override
  public String toString() {
    return "ChaosReport[seed="
        + seed
        + ", steps="
        + steps
        + ", kills="
        + kills
        + ", commits="
        + commits
        + ", deliveries="
        + deliveries
        + ", violations="
        + violations.size()
        + "]";
  }
}
