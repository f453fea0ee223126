package io.watukuy.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The bench's command line, run by {@code bench/run.sh}:
 *
 * <pre>
 * java -jar watukuy-bench.jar jmh [--smoke] [--out DIR] [--include REGEX]
 *                                  [--forks N] [--warmup N] [--iterations N] [--time-ms MS]
 * </pre>
 *
 * {@code jmh} runs the JMH benchmarks (defaults: 1 fork, 3 warm-up and 5 measured iterations of
 * 1000 ms), prints a table with a {@code ratio} column (watukuy / baseline, throughput) and, with
 * {@code --out}, writes {@code DIR/<date>-jmh.json} ({@code <date>-jmh-smoke.json} with {@code
 * --smoke}).
 *
 * <pre>
 * java -Xmx256m -jar watukuy-bench.jar e2e --store memory|sqlite|postgres|redis
 *     [--items N | --tiny] [--phases snapshot,timestamp,live,idle] [--live-samples N]
 *     [--idle-keys N] [--idle-seconds S] [--idle-shape partitions|pollers] [--concurrency N]
 *     [--out DIR] [--postgres-url JDBC-URL] [--redis-uri URI]
 * </pre>
 *
 * {@code e2e} runs the end-to-end bench of one store ({@link EndToEnd}): the snapshot and
 * timestamp phases over {@code N} items (default 100 000; {@code --tiny}: 2 000; at least 1 000),
 * the live-lane latency ({@link LiveLatency}; default 200 changes, {@code --tiny}: 5) and the
 * idle keys' CPU ({@link IdleKeys}; default 10 000 keys over a 30 s window, {@code --tiny}: 200
 * keys, 1 s; {@code --idle-shape pollers}: one poller per key instead of one poller's
 * partitions); {@code --phases} picks groups (default all four); {@code --concurrency} sets the
 * snapshot and timestamp engines' {@code delivery.concurrency} (default 8), which bounds the
 * handled events waiting for their ack and so how many acks share one store write. It prints the table and, with
 * {@code --out}, writes {@code DIR/<date>-<store>.json} ({@code <date>-<store>-<N>items.json} for
 * another {@code N}, {@code <date>-<store>-tiny.json} with {@code --tiny}). PostgreSQL defaults to {@value #POSTGRES_URL} (tables in a fresh schema {@code
 * watukuy_bench_<hex>}, dropped at the end), Redis to {@value #REDIS_URI} (keys under a fresh
 * {@code watukuy-bench:<hex>:} prefix, deleted at the end).
 *
 * <p>Exit code 0 on success, 1 on a failed benchmark, 2 on a usage error.
 */
public final class BenchMain {
  /** The default PostgreSQL of the end-to-end bench: the one the tests use. */
  public static final String POSTGRES_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  /** The default Redis of the end-to-end bench. */
  public static final String REDIS_URI = "redis://127.0.0.1:6379/0";

  private BenchMain() {}

  /**
   * Runs the command.
   *
   * @param args see the class comment
   */
  public static void main(String[] args) {
    try {
      System.exit(run(args));
    } catch (IllegalArgumentException e) {
      System.err.println("watukuy-bench: " + e.getMessage());
      System.exit(2);
    } catch (Exception e) {
      System.err.println("watukuy-bench: failed: " + e);
      e.printStackTrace();
      System.exit(1);
    }
  }

  static int run(String[] args) throws Exception {
    Deque<String> rest = new ArrayDeque<>(List.of(args));
    String command = rest.poll();
    if (command == null) throw new IllegalArgumentException("usage: jmh [options] (see bench/run.sh)");
    if (command.equals("jmh")) return jmh(rest);
    if (command.equals("e2e")) return e2e(rest);
    throw new IllegalArgumentException("unknown command '" + command + "'; expected jmh or e2e");
  }

  private static int jmh(Deque<String> args) throws Exception {
    JmhSuite.Settings s = JmhSuite.Settings.full();
    boolean smoke = false;
    Path out = null;
    Map<String, String> given = new HashMap<>();
    while (!args.isEmpty()) {
      String a = args.poll();
      switch (a) {
        case "--smoke" -> smoke = true;
        case "--out" -> out = Path.of(value(a, args));
        case "--include", "--forks", "--warmup", "--iterations", "--time-ms" -> given.put(a, value(a, args));
        default -> throw new IllegalArgumentException("unknown option '" + a + "' for jmh");
      }
    }
    if (smoke) s = JmhSuite.Settings.smoke();
    s = new JmhSuite.Settings(
        integer(given, "--forks", s.forks()),
        integer(given, "--warmup", s.warmupIterations()),
        integer(given, "--iterations", s.iterations()),
        integer(given, "--time-ms", (int) s.iterationMillis()),
        given.getOrDefault("--include", s.include()),
        s.params(),
        s.quiet());
    String loadBefore = Machine.loadAverage();
    List<JmhSuite.Pair> pairs = JmhSuite.run(s);
    System.out.println();
    System.out.println("load average before: " + loadBefore + ", after: " + Machine.loadAverage()
        + "; cores: " + Runtime.getRuntime().availableProcessors());
    System.out.print(JmhSuite.table(pairs));
    if (out != null) {
      ObjectNode json = JmhSuite.json(pairs, s, loadBefore);
      Files.createDirectories(out);
      Path file = out.resolve(LocalDate.now() + (smoke ? "-jmh-smoke.json" : "-jmh.json"));
      Files.writeString(file, Items.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n");
      System.out.println("wrote " + file);
    }
    return 0;
  }

  private static int e2e(Deque<String> args) throws Exception {
    String store = null;
    int items = 100_000;
    boolean tiny = false;
    Map<String, String> given = new HashMap<>();
    Path out = null;
    String postgres = POSTGRES_URL;
    String redis = REDIS_URI;
    while (!args.isEmpty()) {
      String a = args.poll();
      switch (a) {
        case "--store" -> store = value(a, args);
        case "--items" -> items = integer(Map.of(a, value(a, args)), a, items);
        case "--tiny" -> tiny = true;
        case "--out" -> out = Path.of(value(a, args));
        case "--postgres-url" -> postgres = value(a, args);
        case "--redis-uri" -> redis = value(a, args);
        case "--phases", "--live-samples", "--idle-keys", "--idle-seconds", "--idle-shape", "--concurrency" ->
            given.put(a, value(a, args));
        default -> throw new IllegalArgumentException("unknown option '" + a + "' for e2e");
      }
    }
    if (store == null) throw new IllegalArgumentException("e2e needs --store memory|sqlite|postgres|redis");
    EndToEnd.Settings settings = tiny ? EndToEnd.Settings.tiny() : EndToEnd.Settings.full(items);
    if (given.containsKey("--phases")) settings = settings.withGroups(EndToEnd.Group.parse(given.get("--phases")));
    settings = settings.withLive(settings.live().withSamples(integer(given, "--live-samples", settings.live().samples())));
    settings = settings.withIdle(settings.idle().withKeys(integer(given, "--idle-keys", settings.idle().keys()))
        .withWindow(Duration.ofSeconds(integer(given, "--idle-seconds", (int) settings.idle().window().toSeconds()))));
    settings = settings.withConcurrency(integer(given, "--concurrency", settings.concurrency()));
    if (settings.concurrency() < 1) throw new IllegalArgumentException("--concurrency must be >= 1");
    if (given.containsKey("--idle-shape"))
      settings = settings.withIdle(settings.idle().withShape(IdleKeys.Shape.parse(given.get("--idle-shape"))));
    if (settings.idle().keys() < 1 || settings.idle().window().isZero())
      throw new IllegalArgumentException("--idle-keys and --idle-seconds must be >= 1");
    items = settings.items();
    EndToEnd.Result result = EndToEnd.run(store, settings, new BenchStore.Where(postgres, redis));
    System.out.print(EndToEnd.table(result));
    if (out != null) {
      Files.createDirectories(out);
      String suffix = tiny ? "-tiny" : items == 100_000 ? "" : "-" + items + "items";
      Path file = out.resolve(LocalDate.now() + "-" + store + suffix + ".json");
      Files.writeString(file, Items.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(EndToEnd.json(result)) + "\n");
      System.out.println("wrote " + file);
    }
    return 0;
  }

  private static String value(String option, Deque<String> args) {
    String v = args.poll();
    if (v == null) throw new IllegalArgumentException(option + " needs a value");
    return v;
  }

  private static int integer(Map<String, String> given, String option, int fallback) {
    String v = given.get(option);
    if (v == null) return fallback;
    try {
      int n = Integer.parseInt(v);
      if (n < 0) throw new NumberFormatException();
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " must be a whole number >= 0, but was '" + v + "'");
    }
  }
}
