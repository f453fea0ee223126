package io.watukuy.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.OutputStream;
import java.io.PrintStream;
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
 * The bench's command line, run by {@code bench/run.sh} ({@code bench/run.sh --help} describes
 * every option):
 *
 * <pre>
 * java -jar watukuy-bench.jar jmh [--smoke] [--out DIR] [--include REGEX]
 *                                  [--forks N] [--warmup N] [--iterations N] [--time-ms MS]
 * </pre>
 *
 * {@code jmh} runs the JMH benchmarks (defaults: 1 fork, 3 warm-up and 5 measured iterations of
 * 1000 ms), prints a table with a {@code ratio} column (watukuy / baseline, throughput) and, with
 * {@code --out}, writes {@code DIR/<date>-jmh.json} ({@code <date>-jmh-smoke.json} with {@code
 * --smoke}; a run with {@code --include} or other settings gets a suffix naming them, so that it
 * never replaces the full run's file).
 *
 * <pre>
 * java -Xmx256m -jar watukuy-bench.jar e2e --store memory|sqlite|postgres|mariadb|redis [--check]
 *     [--items N | --tiny] [--phases snapshot,timestamp,live,idle] [--live-samples N]
 *     [--idle-keys N] [--idle-seconds S] [--idle-shape partitions|pollers] [--concurrency N]
 *     [--handler single|batch] [--batch-size N] [--out DIR] [--postgres-url JDBC-URL] [--mariadb-url JDBC-URL] [--redis-uri URI]
 * </pre>
 *
 * {@code e2e} runs the end-to-end bench of one store ({@link EndToEnd}): the snapshot and timestamp
 * phases over {@code N} items (default 100 000; {@code --tiny}: 2 000; at least 1 000), the
 * live-lane latency ({@link LiveLatency}; its own listing of 10 000 items, default 200 changes;
 * {@code --tiny}: 1 000 items, 5 changes) and the idle keys' CPU ({@link IdleKeys}; default 10 000
 * keys over a 30 s window, {@code --tiny}: 200 keys, 1 s; {@code --idle-shape pollers}: one poller
 * per key instead of one poller's partitions); {@code --phases} picks groups (default all four);
 * {@code --concurrency} sets the snapshot and timestamp engines' {@code delivery.concurrency}
 * (default 8), which bounds the handled events waiting for their ack and so how many acks share one
 * store write; {@code --handler} how they deliver: {@code batch} (default, a batch handler of
 * {@code --batch-size} events, default 100, acked in one store write) or {@code single} (a handler
 * per event). It prints the table and, with {@code --out}, writes {@code
 * DIR/<date>-<store><suffix>.json} ({@link #resultName}). PostgreSQL defaults to {@value
 * #POSTGRES_URL} (tables in a fresh schema {@code watukuy_bench_<hex>}), MariaDB to {@value
 * #MARIADB_URL} (tables with a fresh prefix {@code wkb_<hex>_} in the URL's database), Redis to
 * {@value #REDIS_URI} (keys under a fresh {@code watukuy-bench:<hex>:} prefix); both are removed at
 * the end, and by a shutdown hook when the run is interrupted (Ctrl-C, SIGTERM). {@code --check}
 * checks the options and that the store's server can be reached, and runs nothing.
 *
 * <pre>
 * java -jar watukuy-bench.jar best-of --out DIR RESULTS.json RESULTS.json...
 * </pre>
 *
 * {@code best-of} merges the results files of N runs of one store, back to back ({@code
 * bench/run.sh e2e --runs N}), into {@code DIR/<first file's name>-best-of-<N>.json} and prints
 * which run was best in each phase ({@link BestOfRuns}).
 *
 * <pre>
 * java -jar watukuy-bench.jar sinks [--sinks kafka,table,rabbitmq,nats,webhook,file] [--events N]
 *     [--runs N] [--tiny] [--out DIR] [--postgres-url JDBC-URL] [--rabbitmq-uri URI] [--nats-url URL]
 *     [--kafka-bootstrap HOST:PORT] [--kafka-classpath DIR]
 * </pre>
 *
 * {@code sinks} runs the sink bench ({@link SinkBench}): per sink, events/s through the whole
 * engine path into the real sink beside the sink's own client writing the same records (default
 * every sink, {@value #SINK_EVENTS} events, best of {@value #SINK_ROUNDS} rounds; {@code --tiny}:
 * 500 events, 1 round). Kafka: a KRaft broker started from {@code --kafka-classpath} (default
 * {@code watukuy-sink-kafka/target/kafka-broker}) unless {@code --kafka-bootstrap} names one;
 * RabbitMQ defaults to {@value #RABBITMQ_URI}, NATS to {@value #NATS_URL}. It prints the table and,
 * with {@code --out}, writes {@code DIR/<date>-sinks<suffix>.json} ({@link #sinksResultName}).
 *
 * <p>Exit code 0 on success, 1 on a failed benchmark or an unreachable server (one line, no stack
 * trace), 2 on a usage error.
 */
public final class BenchMain {
  /** The default PostgreSQL of the end-to-end bench: the one the tests use. */
  public static final String POSTGRES_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  /** The default MariaDB of the end-to-end bench: the one the tests use. */
  public static final String MARIADB_URL = "jdbc:mariadb://127.0.0.1:3306/test?user=root";

  /** The default Redis of the end-to-end bench. */
  public static final String REDIS_URI = "redis://127.0.0.1:6379/0";

  /** The default RabbitMQ of the sink bench: the one the tests use. */
  public static final String RABBITMQ_URI = "amqp://guest:guest@127.0.0.1:5672/%2F";

  /** The default NATS of the sink bench: the one the tests use. */
  public static final String NATS_URL = "nats://127.0.0.1:4222";

  /** The Kafka broker's class path that watukuy-sink-kafka's build copies. */
  static final String KAFKA_CLASSPATH = "watukuy-sink-kafka/target/kafka-broker";

  /** Events per pass of the sink bench by default. */
  static final int SINK_EVENTS = 20_000;

  /** Rounds per sink of the sink bench by default. */
  static final int SINK_ROUNDS = 3;

  /** Items in the snapshot and timestamp listing by default. */
  static final int DEFAULT_ITEMS = 100_000;

  private static final String USAGE =
      "usage: java -jar watukuy-bench.jar jmh|e2e|sinks|best-of [options]"
          + " (bench/run.sh --help lists them)";

  /** Set when the shutdown hook cleans up: the run's own failure that follows is not news. */
  private static volatile boolean stopping;

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
    } catch (BenchStore.UnreachableException e) {
      System.err.println("watukuy-bench: " + e.getMessage());
      System.exit(1);
    } catch (Exception e) {
      if (!stopping) {
        System.err.println("watukuy-bench: failed: " + e);
        e.printStackTrace();
      }
      System.exit(1);
    }
  }

  static int run(String[] args) throws Exception {
    Deque<String> rest = new ArrayDeque<>(List.of(args));
    String command = rest.poll();
    if (command == null) throw new IllegalArgumentException(USAGE);
    if (command.equals("-h") || command.equals("--help")) {
      System.out.println(USAGE);
      return 0;
    }
    if (command.equals("jmh")) return jmh(rest);
    if (command.equals("e2e")) return e2e(rest);
    if (command.equals("best-of")) return bestOf(rest);
    if (command.equals("sinks")) return sinks(rest);
    throw new IllegalArgumentException(
        "unknown command '" + command + "'; expected jmh, e2e, sinks or best-of");
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
        case "--include", "--forks", "--warmup", "--iterations", "--time-ms" ->
            given.put(a, value(a, args));
        default -> throw new IllegalArgumentException("unknown option '" + a + "' for jmh");
      }
    }
    if (smoke) s = JmhSuite.Settings.smoke();
    s =
        new JmhSuite.Settings(
            integer(given, "--forks", s.forks(), 0),
            integer(given, "--warmup", s.warmupIterations(), 0),
            integer(given, "--iterations", s.iterations(), 1),
            integer(given, "--time-ms", (int) s.iterationMillis(), 1),
            given.getOrDefault("--include", s.include()),
            s.params(),
            s.quiet());
    String loadBefore = Machine.loadAverage();
    List<JmhSuite.Pair> pairs = JmhSuite.run(s);
    if (pairs.isEmpty())
      throw new IllegalArgumentException(
          "--include '"
              + s.include()
              + "' matches no benchmark (names look like"
              + " CanonicalHashBench.hashTree)");
    System.out.println();
    System.out.println(
        "load average before: "
            + loadBefore
            + ", after: "
            + Machine.loadAverage()
            + "; cores: "
            + Runtime.getRuntime().availableProcessors());
    System.out.print(JmhSuite.table(pairs));
    if (out != null) {
      ObjectNode json = JmhSuite.json(pairs, s, loadBefore);
      Files.createDirectories(out);
      Path file = out.resolve(LocalDate.now() + "-jmh" + jmhSuffix(smoke, given) + ".json");
      Files.writeString(
          file, Items.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n");
      System.out.println("wrote " + file);
    }
    return 0;
  }

  /**
   * What makes a JMH run other than the full default one, for its file name, so that it never
   * replaces the full run's file: {@code -smoke}, {@code -<include>} (letters and digits of the
   * pattern), {@code -custom} for other changed settings.
   */
  static String jmhSuffix(boolean smoke, Map<String, String> given) {
    StringBuilder suffix = new StringBuilder(smoke ? "-smoke" : "");
    String include = given.get("--include");
    if (include != null)
      suffix.append('-').append(include.replaceAll("[^A-Za-z0-9]+", "_").replaceAll("^_+|_+$", ""));
    if (given.keySet().stream().anyMatch(k -> !k.equals("--include"))) suffix.append("-custom");
    return suffix.toString();
  }

  private static int e2e(Deque<String> args) throws Exception {
    String store = null;
    boolean tiny = false;
    boolean check = false;
    Map<String, String> given = new HashMap<>();
    Path out = null;
    String postgres = POSTGRES_URL;
    String redis = REDIS_URI;
    String mariadb = MARIADB_URL;
    while (!args.isEmpty()) {
      String a = args.poll();
      switch (a) {
        case "--store" -> store = value(a, args);
        case "--tiny" -> tiny = true;
        case "--check" -> check = true;
        case "--out" -> out = Path.of(value(a, args));
        case "--postgres-url" -> postgres = value(a, args);
        case "--redis-uri" -> redis = value(a, args);
        case "--mariadb-url" -> mariadb = value(a, args);
        case "--items",
            "--phases",
            "--live-samples",
            "--idle-keys",
            "--idle-seconds",
            "--idle-shape",
            "--concurrency",
            "--handler",
            "--batch-size" ->
            given.put(a, value(a, args));
        default -> throw new IllegalArgumentException("unknown option '" + a + "' for e2e");
      }
    }
    if (store == null)
      throw new IllegalArgumentException("e2e needs --store memory|sqlite|postgres|mariadb|redis");
    if (!BenchStore.KINDS.contains(store))
      throw new IllegalArgumentException(
          "--store must be memory, sqlite, postgres, mariadb or redis, but was '" + store + "'");
    if (tiny && given.containsKey("--items"))
      throw new IllegalArgumentException(
          "--tiny runs 2000 items; give --tiny or --items, not both");
    if (!postgres.startsWith("jdbc:postgresql:"))
      throw new IllegalArgumentException(
          "--postgres-url must be a jdbc:postgresql: URL, such as " + POSTGRES_URL);
    if (!mariadb.startsWith("jdbc:mariadb:"))
      throw new IllegalArgumentException(
          "--mariadb-url must be a jdbc:mariadb: URL, such as " + MARIADB_URL);
    EndToEnd.Settings settings =
        tiny
            ? EndToEnd.Settings.tiny()
            : EndToEnd.Settings.full(integer(given, "--items", DEFAULT_ITEMS, 1000));
    if (given.containsKey("--phases"))
      settings = settings.withGroups(EndToEnd.Group.parse(given.get("--phases")));
    settings =
        settings.withLive(
            settings
                .live()
                .withSamples(integer(given, "--live-samples", settings.live().samples(), 1)));
    settings =
        settings.withIdle(
            settings
                .idle()
                .withKeys(integer(given, "--idle-keys", settings.idle().keys(), 1))
                .withWindow(
                    Duration.ofSeconds(
                        integer(
                            given,
                            "--idle-seconds",
                            (int) settings.idle().window().toSeconds(),
                            1))));
    settings = settings.withConcurrency(integer(given, "--concurrency", settings.concurrency(), 1));
    String handler = given.getOrDefault("--handler", settings.handler());
    if (!handler.equals(EventCounter.BATCH) && !handler.equals(EventCounter.SINGLE))
      throw new IllegalArgumentException(
          "--handler must be single or batch, but was '" + handler + "'");
    settings =
        settings.withHandler(handler, integer(given, "--batch-size", settings.batchSize(), 1));
    if (given.containsKey("--idle-shape"))
      settings =
          settings.withIdle(
              settings.idle().withShape(IdleKeys.Shape.parse(given.get("--idle-shape"))));
    BenchStore.Where where = new BenchStore.Where(postgres, redis, mariadb);
    if (check) {
      BenchStore.check(store, where);
      return 0;
    }
    EndToEnd.Result result = runCleaningUp(store, settings, where);
    System.out.print(E2eReport.table(result));
    if (out != null) {
      Files.createDirectories(out);
      Path file = out.resolve(resultName(LocalDate.now(), store, tiny, settings));
      Files.writeString(
          file,
          Items.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(E2eReport.json(result))
              + "\n");
      System.out.println("wrote " + file);
      // bench/run.sh names a file here to learn where the results went (the Camel peer adds to it).
      String tell = System.getProperty("watukuy.bench.resultPathFile");
      if (tell != null) Files.writeString(Path.of(tell), file.toString());
    }
    return 0;
  }

  private static int sinks(Deque<String> args) throws Exception {
    boolean tiny = false;
    Path out = null;
    Map<String, String> given = new HashMap<>();
    String postgres = POSTGRES_URL;
    String rabbit = RABBITMQ_URI;
    String nats = NATS_URL;
    String bootstrap = null;
    Path kafkaClasspath = Path.of(KAFKA_CLASSPATH);
    String list = String.join(",", SinkTargets.NAMES);
    while (!args.isEmpty()) {
      String a = args.poll();
      switch (a) {
        case "--tiny" -> tiny = true;
        case "--out" -> out = Path.of(value(a, args));
        case "--sinks" -> list = value(a, args);
        case "--postgres-url" -> postgres = value(a, args);
        case "--rabbitmq-uri" -> rabbit = value(a, args);
        case "--nats-url" -> nats = value(a, args);
        case "--kafka-bootstrap" -> bootstrap = value(a, args);
        case "--kafka-classpath" -> kafkaClasspath = Path.of(value(a, args));
        case "--events", "--runs" -> given.put(a, value(a, args));
        default -> throw new IllegalArgumentException("unknown option '" + a + "' for sinks");
      }
    }
    List<String> names = SinkTargets.parse(list);
    if (!postgres.startsWith("jdbc:postgresql:"))
      throw new IllegalArgumentException(
          "--postgres-url must be a jdbc:postgresql: URL, such as " + POSTGRES_URL);
    SinkBench.Settings base = tiny ? SinkBench.Settings.tiny() : SinkBench.Settings.full();
    SinkBench.Settings settings =
        new SinkBench.Settings(
            integer(given, "--events", base.events(), 100),
            integer(given, "--runs", base.rounds(), 1),
            base.batchSize(),
            base.concurrency());
    SinkTargets.Servers servers =
        new SinkTargets.Servers(postgres, rabbit, nats, bootstrap, kafkaClasspath);
    BenchStore.Where where = new BenchStore.Where(postgres, REDIS_URI, MARIADB_URL);
    String loadBefore = Machine.loadAverage();
    List<SinkBench.Row> rows = new java.util.ArrayList<>();
    try (io.watukuy.testing.KafkaBrokerProcess broker = SinkTargets.broker(names, servers)) {
      String kafka = broker != null ? broker.bootstrap() : bootstrap;
      for (String name : names) {
        try (SinkTarget target = SinkTargets.open(name, servers, kafka)) {
          rows.add(SinkBench.run(target, where, settings, System.out));
        }
      }
    }
    System.out.print(SinkReport.table(rows, settings));
    if (out != null) {
      Files.createDirectories(out);
      Path file = out.resolve(sinksResultName(LocalDate.now(), tiny, names, settings));
      Files.writeString(
          file,
          Items.MAPPER
                  .writerWithDefaultPrettyPrinter()
                  .writeValueAsString(SinkReport.json(rows, settings, loadBefore))
              + "\n");
      System.out.println("wrote " + file);
    }
    return 0;
  }

  /**
   * The name of a sink bench's results file: {@code <date>-sinks.json} for every sink with the
   * defaults; {@code -tiny}, the sinks run when not all ({@code -kafka-table-postgres}), {@code
   * -<N>events} and {@code -runs<N>} otherwise, so that a partial run never replaces the full one.
   */
  static String sinksResultName(
      LocalDate date, boolean tiny, List<String> names, SinkBench.Settings s) {
    SinkBench.Settings base = tiny ? SinkBench.Settings.tiny() : SinkBench.Settings.full();
    StringBuilder name = new StringBuilder().append(date).append("-sinks");
    if (tiny) name.append("-tiny");
    if (!names.equals(SinkTargets.parse(String.join(",", SinkTargets.NAMES))))
      name.append('-').append(String.join("-", names));
    if (s.events() != base.events()) name.append('-').append(s.events()).append("events");
    if (s.rounds() != base.rounds()) name.append("-runs").append(s.rounds());
    return name.append(".json").toString();
  }

  /**
   * Merges the results files of N runs of one store ({@link BestOfRuns}), prints the table and
   * writes {@code DIR/<first file's name>-best-of-<N>.json}.
   */
  private static int bestOf(Deque<String> args) throws Exception {
    Path out = null;
    List<Path> files = new java.util.ArrayList<>();
    while (!args.isEmpty()) {
      String a = args.poll();
      if (a.equals("--out")) out = Path.of(value(a, args));
      else if (a.startsWith("--"))
        throw new IllegalArgumentException("unknown option '" + a + "' for best-of");
      else files.add(Path.of(a));
    }
    if (out == null || files.size() < 2)
      throw new IllegalArgumentException("best-of needs --out DIR and at least two results files");
    ObjectNode merged = BestOfRuns.merge(BestOfRuns.read(files));
    System.out.print(BestOfRuns.table(merged));
    Files.createDirectories(out);
    Path file =
        out.resolve(BestOfRuns.fileName(files.get(0).getFileName().toString(), files.size()));
    Files.writeString(
        file, Items.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(merged) + "\n");
    System.out.println("wrote " + file);
    return 0;
  }

  /**
   * Runs the bench on a store that a shutdown hook closes if the run is interrupted, so that a
   * Ctrl-C or a SIGTERM leaves no PostgreSQL schema, MariaDB table, Redis key or SQLite folder
   * behind; the hook and the end of the run close it once between them.
   */
  private static EndToEnd.Result runCleaningUp(
      String store, EndToEnd.Settings settings, BenchStore.Where where) throws Exception {
    BenchStore bench = BenchStore.open(store, where);
    Thread hook =
        new Thread(
            () -> {
              if (bench.closed()) return;
              stopping = true;
              PrintStream err = System.err;
              err.println(
                  "watukuy-bench: interrupted; removing what the run left in the "
                      + store
                      + " store");
              // The engine still runs while its store closes under it: its warnings about a closed
              // store
              // (logged to System.err) would bury the line above.
              System.setErr(new PrintStream(OutputStream.nullOutputStream()));
              try {
                bench.close();
                err.println("watukuy-bench: removed");
              } catch (Exception e) {
                err.println("watukuy-bench: clean-up failed: " + e);
              }
            },
            "watukuy-bench-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return EndToEnd.run(store, bench, settings);
    } finally {
      try {
        bench.close();
      } finally {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // the hook has run or is running; it found the store closed or closed it
        }
      }
    }
  }

  /**
   * The name of a run's result file: {@code <date>-<store>.json} for a full run with the defaults,
   * and for any other run a suffix that says how it differs, so that it never overwrites the full
   * run's file: {@code -tiny} or {@code -<N>items}, then the phase groups when not all four ran
   * ({@code 2026-11-30-memory-live-idle.json}), then {@code -concurrency<N>}, {@code -single} or
   * {@code -batch<N>}, {@code -samples<N>}, {@code -pollers}, {@code -<N>keys} and {@code -<S>s}
   * for the settings given that differ from the defaults and apply to a group that ran.
   *
   * @param date the run's date
   * @param store the store's name
   * @param tiny whether the run started from {@link EndToEnd.Settings#tiny()}
   * @param s what ran
   * @return the file name
   */
  static String resultName(LocalDate date, String store, boolean tiny, EndToEnd.Settings s) {
    EndToEnd.Settings base =
        tiny ? EndToEnd.Settings.tiny() : EndToEnd.Settings.full(DEFAULT_ITEMS);
    boolean listed =
        s.groups().contains(EndToEnd.Group.SNAPSHOT)
            || s.groups().contains(EndToEnd.Group.TIMESTAMP);
    boolean live = s.groups().contains(EndToEnd.Group.LIVE);
    boolean idle = s.groups().contains(EndToEnd.Group.IDLE);
    StringBuilder name = new StringBuilder().append(date).append('-').append(store);
    if (tiny) name.append("-tiny");
    else if (listed && s.items() != base.items())
      name.append('-').append(s.items()).append("items");
    if (!s.groups().equals(base.groups()))
      name.append('-').append(E2eReport.labels(s.groups(), "-"));
    if (listed && s.concurrency() != base.concurrency())
      name.append("-concurrency").append(s.concurrency());
    if (listed && !s.handler().equals(base.handler())) name.append('-').append(s.handler());
    else if (listed && s.batchSize() != base.batchSize())
      name.append("-batch").append(s.batchSize());
    if (live && s.live().samples() != base.live().samples())
      name.append("-samples").append(s.live().samples());
    if (idle && s.idle().shape() != base.idle().shape())
      name.append('-').append(s.idle().shape().label());
    if (idle && s.idle().keys() != base.idle().keys())
      name.append('-').append(s.idle().keys()).append("keys");
    if (idle && !s.idle().window().equals(base.idle().window()))
      name.append('-').append(s.idle().window().toSeconds()).append('s');
    return name.append(".json").toString();
  }

  private static String value(String option, Deque<String> args) {
    String v = args.poll();
    if (v == null) throw new IllegalArgumentException(option + " needs a value");
    return v;
  }

  /**
   * The whole number given for {@code option}, or {@code fallback} when it was not given.
   *
   * @throws IllegalArgumentException if the value is not a whole number of at least {@code min}
   */
  private static int integer(Map<String, String> given, String option, int fallback, int min) {
    String v = given.get(option);
    if (v == null) return fallback;
    try {
      int n = Integer.parseInt(v.trim());
      if (n < min) throw new NumberFormatException();
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          option + " must be a whole number >= " + min + ", but was '" + v + "'");
    }
  }
}
