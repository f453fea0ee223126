package io.watukuy.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs the JMH benchmarks of this module and pairs each with its baseline: a benchmark method
 * {@code X} is paired with {@code XBaseline} of the same class and the same parameters.
 */
public final class JmhSuite {

  /** How long and how often to measure. */
  public record Settings(
      int forks,
      int warmupIterations,
      int iterations,
      long iterationMillis,
      String include,
      Map<String, String[]> params,
      boolean quiet) {

    /** A full run: 1 fork, 3 warm-up and 5 measured iterations of 1 s each. */
    public static Settings full() {
      return new Settings(1, 3, 5, 1000, "io\\.watukuy\\.bench\\..*", Map.of(), false);
    }

    /**
     * A smoke pass that only proves each benchmark still runs: one fork (a JVM of its own, as a
     * real run; JMH gives it this JVM's class path), no warm-up, one 100 ms iteration, the {@code
     * issue} item only. Its numbers mean nothing.
     */
    public static Settings smoke() {
      return new Settings(
          1, 0, 1, 100, "io\\.watukuy\\.bench\\..*", Map.of("item", new String[] {"issue"}), true);
    }
  }

  /**
   * One benchmark beside its baseline.
   *
   * @param benchmark {@code Class.method}, without the package
   * @param params {@code key=value} pairs, comma-separated; empty without parameters
   * @param unit the score unit, for example {@code ops/s}
   * @param score watukuy's throughput
   * @param error the 99.9% confidence half-width of {@code score} (NaN with one iteration)
   * @param baseline the baseline's throughput in the same run
   * @param baselineError its half-width
   * @param best watukuy's best measured iteration
   * @param baselineBest the baseline's best measured iteration
   */
  public record Pair(
      String benchmark,
      String params,
      String unit,
      double score,
      double error,
      double baseline,
      double baselineError,
      double best,
      double baselineBest) {
    /** {@code score / baseline}: 1.0 is as fast as the baseline. */
    public double ratio() {
      return score / baseline;
    }

    /**
     * {@code best / baselineBest}: the ratio of the least disturbed iterations, steadier than
     * {@link #ratio()} on a machine shared with other work.
     */
    public double bestRatio() {
      return best / baselineBest;
    }
  }

  private JmhSuite() {}

  /** The benchmark classes; each {@code @Benchmark} method {@code X} has an {@code XBaseline}. */
  static final List<Class<?>> BENCHMARKS =
      List.of(CanonicalHashBench.class, EventIdBench.class, PageDiffBench.class);

  /**
   * Runs the benchmarks and pairs the results. Each benchmark runs right before its baseline (one
   * JMH run per pair and parameter set), so that both see the same load on a shared machine.
   *
   * @param settings what to run and how long
   * @return the pairs, in benchmark and parameter order
   * @throws RunnerException if a benchmark fails (JMH stops at the first failure)
   * @throws IllegalStateException if a benchmark has no baseline or a baseline no benchmark
   */
  public static List<Pair> run(Settings settings) throws RunnerException {
    Pattern include = Pattern.compile(settings.include());
    List<RunResult> results = new ArrayList<>();
    for (Class<?> type : BENCHMARKS) {
      for (Method m : type.getMethods()) {
        if (!m.isAnnotationPresent(Benchmark.class) || m.getName().endsWith("Baseline")) continue;
        String name = type.getName() + "." + m.getName();
        if (!include.matcher(name).find()) continue;
        for (Map<String, String> params : paramSets(type, settings.params())) {
          ChainedOptionsBuilder options =
              new OptionsBuilder()
                  .include("^" + Pattern.quote(name) + "(Baseline)?$")
                  .forks(settings.forks())
                  .warmupIterations(settings.warmupIterations())
                  .warmupTime(TimeValue.milliseconds(settings.iterationMillis()))
                  .measurementIterations(settings.iterations())
                  .measurementTime(TimeValue.milliseconds(settings.iterationMillis()))
                  .timeUnit(TimeUnit.SECONDS)
                  .shouldFailOnError(true)
                  .verbosity(settings.quiet() ? VerboseMode.SILENT : VerboseMode.NORMAL);
          params.forEach(options::param);
          results.addAll(new Runner(options.build()).run());
        }
      }
    }
    return pair(results);
  }

  /** Every combination of the class's {@code @Param} values, overrides first. */
  private static List<Map<String, String>> paramSets(
      Class<?> type, Map<String, String[]> overrides) {
    List<Map<String, String>> sets = new ArrayList<>();
    sets.add(new TreeMap<>());
    for (Field f : type.getFields()) {
      Param param = f.getAnnotation(Param.class);
      if (param == null) continue;
      String[] values = overrides.getOrDefault(f.getName(), param.value());
      List<Map<String, String>> next = new ArrayList<>();
      for (Map<String, String> set : sets) {
        for (String v : values) {
          Map<String, String> copy = new TreeMap<>(set);
          copy.put(f.getName(), v);
          next.add(copy);
        }
      }
      sets = next;
    }
    return sets;
  }

  /**
   * Pairs results by the naming rule {@code X} / {@code XBaseline}.
   *
   * @param results JMH's results
   * @return one pair per benchmark that is not a baseline
   * @throws IllegalStateException if either side of a pair is missing
   */
  public static List<Pair> pair(Collection<RunResult> results) {
    Map<String, RunResult> measured = new LinkedHashMap<>();
    Map<String, RunResult> baselines = new LinkedHashMap<>();
    for (RunResult r : results) {
      BenchmarkParams p = r.getParams();
      String name = shortName(p.getBenchmark());
      String key;
      if (name.endsWith("Baseline")) {
        key = name.substring(0, name.length() - "Baseline".length()) + " " + params(p);
        baselines.put(key, r);
      } else {
        key = name + " " + params(p);
        measured.put(key, r);
      }
    }
    List<Pair> pairs = new ArrayList<>();
    for (Map.Entry<String, RunResult> e : measured.entrySet()) {
      RunResult base = baselines.remove(e.getKey());
      if (base == null) throw new IllegalStateException("no baseline ran for " + e.getKey());
      Result<?> s = e.getValue().getPrimaryResult();
      Result<?> b = base.getPrimaryResult();
      BenchmarkParams p = e.getValue().getParams();
      pairs.add(
          new Pair(
              shortName(p.getBenchmark()),
              params(p),
              s.getScoreUnit(),
              s.getScore(),
              s.getScoreError(),
              b.getScore(),
              b.getScoreError(),
              best(e.getValue()),
              best(base)));
    }
    if (!baselines.isEmpty())
      throw new IllegalStateException("baselines without a benchmark: " + baselines.keySet());
    return pairs;
  }

  /**
   * The pairs as a fixed-width table with a {@code ratio} column (of the means) and a {@code best}
   * column (of the best iterations), both to three significant digits.
   *
   * @param pairs the pairs
   * @return the table, one line per pair after a header, ending with a newline
   */
  public static String table(List<Pair> pairs) {
    StringBuilder out = new StringBuilder();
    String format = "%-32s %-28s %13s %7s %13s %7s  %-6s %7s %7s%n";
    out.append(
        String.format(
            Locale.ROOT,
            format,
            "benchmark",
            "params",
            "watukuy",
            "±",
            "baseline",
            "±",
            "unit",
            "ratio",
            "best"));
    for (Pair p : pairs) {
      out.append(
          String.format(
              Locale.ROOT,
              format,
              p.benchmark(),
              p.params(),
              number(p.score()),
              percent(p.error(), p.score()),
              number(p.baseline()),
              percent(p.baselineError(), p.baseline()),
              p.unit(),
              Ratios.format(p.ratio()),
              Ratios.format(p.bestRatio())));
    }
    return out.toString();
  }

  /**
   * The pairs as JSON, with the machine they ran on.
   *
   * @param pairs the pairs
   * @param settings how they ran
   * @param loadBefore the load average when the run started
   * @return {@code {date, cores, jvm, os, loadAverage: {before, after}, jmh: {...}, benchmarks:
   *     [...]}}
   */
  public static ObjectNode json(List<Pair> pairs, Settings settings, String loadBefore) {
    ObjectNode root = Items.MAPPER.createObjectNode();
    root.put("date", Instant.now().toString());
    Machine.describe(root);
    ObjectNode load = root.putObject("loadAverage");
    load.put("before", loadBefore);
    load.put("after", Machine.loadAverage());
    ObjectNode jmh = root.putObject("jmh");
    jmh.put("version", Versions.of("jmh"));
    jmh.put("forks", settings.forks());
    jmh.put("warmupIterations", settings.warmupIterations());
    jmh.put("iterations", settings.iterations());
    jmh.put("iterationMillis", settings.iterationMillis());
    ArrayNode list = root.putArray("benchmarks");
    for (Pair p : pairs) {
      ObjectNode n = list.addObject();
      n.put("benchmark", p.benchmark());
      n.put("params", p.params());
      n.put("unit", p.unit());
      n.put("score", p.score());
      n.put("scoreError", finite(p.error()));
      n.put("baseline", p.baseline());
      n.put("baselineError", finite(p.baselineError()));
      n.put("ratio", p.ratio());
      n.put("best", p.best());
      n.put("baselineBest", p.baselineBest());
      n.put("bestRatio", p.bestRatio());
    }
    return root;
  }

  private static double best(RunResult r) {
    double best = 0;
    for (BenchmarkResult b : r.getBenchmarkResults())
      for (IterationResult i : b.getIterationResults())
        best = Math.max(best, i.getPrimaryResult().getScore());
    return best;
  }

  private static double finite(double v) {
    return Double.isFinite(v) ? v : 0;
  }

  private static String number(double v) {
    return String.format(Locale.ROOT, "%,.1f", v);
  }

  private static String percent(double error, double score) {
    if (!Double.isFinite(error) || score == 0) return "";
    return String.format(Locale.ROOT, "%.1f%%", 100 * error / score);
  }

  private static String shortName(String benchmark) {
    String prefix = "io.watukuy.bench.";
    return benchmark.startsWith(prefix) ? benchmark.substring(prefix.length()) : benchmark;
  }

  private static String params(BenchmarkParams p) {
    StringJoiner j = new StringJoiner(",");
    for (String k : p.getParamsKeys()) j.add(k + "=" + p.getParam(k));
    return j.toString();
  }
}
