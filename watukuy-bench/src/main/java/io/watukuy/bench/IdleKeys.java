package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.management.OperatingSystemMXBean;
import io.watukuy.Cursors;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Schedule;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.StateStore;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The scheduler's cost of many idle keys: one engine running its daemon over {@code keys} keys of
 * timestamp pollers, either one poller with that many partitions or that many pollers ({@link
 * Shape}), each key polled every {@code every} (adaptive off, default jitter ±10%) by a fetch that
 * returns an empty page at once, without HTTP, and a handler attached that never gets an event.
 * Once every key has had its first poll, and one more interval {@code every} has passed (every key
 * polled again, the JIT done with the path), the process's CPU time is read over a wall-clock
 * window, as a share of one core; the polls and the visits of keys that were not due in that window
 * show the keys really are being scheduled. The CPU of live threads is also split by name ({@code
 * watukuy-cycle-}, {@code watukuy-timer}, ...), and what no listed thread accounts for (the JIT
 * compilers, the garbage collectors and the VM's own threads, which the JVM does not list, and
 * threads that ended in the window) is the {@value #OTHER} entry, so that the breakdown adds up to
 * the process's CPU; the collectors' pause time is shown beside it. The store server's CPU over the
 * same window is read from {@code /proc} beside it ({@link ServerCpu}), since moving work into the
 * database is not a saving; SQLite and memory run in-process, so theirs is the engine's. The
 * baseline is an idle process, whose share of a core is about zero, so there is no ratio.
 */
final class IdleKeys {
  /** The entry of the CPU breakdown for what no listed thread accounts for. */
  static final String OTHER = "other (JIT, GC and VM threads)";

  private IdleKeys() {}

  /** How the keys are laid out. */
  enum Shape {
    /** One poller with {@code keys} partitions. */
    PARTITIONS,
    /** {@code keys} unpartitioned pollers. */
    POLLERS;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    static Shape parse(String label) {
      for (Shape s : values()) if (s.label().equals(label)) return s;
      throw new IllegalArgumentException(
          "--idle-shape must be partitions or pollers, but was '" + label + "'");
    }
  }

  /**
   * The phase's settings.
   *
   * @param keys partitions of the poller, each one key
   * @param every each key's {@code schedule.min}
   * @param window the measured wall-clock window
   * @param settleBound how long to wait for the first poll of every key before measuring anyway
   * @param shape partitions of one poller, or pollers
   */
  record Settings(int keys, Duration every, Duration window, Duration settleBound, Shape shape) {
    /** 10 000 partitions polled every 30 s (the default schedule.min), a 30 s window. */
    static Settings full() {
      return new Settings(
          10_000,
          Duration.ofSeconds(30),
          Duration.ofSeconds(30),
          Duration.ofSeconds(120),
          Shape.PARTITIONS);
    }

    /** 200 partitions polled every second, a 1 s window: the smoke pass. */
    static Settings tiny() {
      return new Settings(
          200,
          Duration.ofSeconds(1),
          Duration.ofSeconds(1),
          Duration.ofSeconds(30),
          Shape.PARTITIONS);
    }

    Settings withKeys(int keys) {
      return new Settings(keys, every, window, settleBound, shape);
    }

    Settings withWindow(Duration window) {
      return new Settings(keys, every, window, settleBound, shape);
    }

    Settings withShape(Shape shape) {
      return new Settings(keys, every, window, settleBound, shape);
    }
  }

  /**
   * The phase's numbers.
   *
   * @param keys keys on the engine
   * @param shape how they are laid out
   * @param every each key's schedule.min
   * @param settled whether every key had its first poll before the window
   * @param settleSeconds from start() to the first poll of every key (or to the bound)
   * @param windowSeconds the measured wall time
   * @param cpuSeconds process CPU time in the window
   * @param polls polls in the window
   * @param notDue visits of keys that were not due, in the window
   * @param cpuByThread CPU seconds in the window by thread name, digits dropped, largest first,
   *     then {@value #OTHER}: the process's CPU less the listed threads', so that the values add up
   *     to {@code cpuSeconds}
   * @param gcSeconds time the garbage collectors report for the window
   * @param peakThreads the most live threads in the window
   * @param serverCpuSeconds the store server's CPU in the window ({@link ServerCpu}), NaN for an
   *     in-process store
   * @param serverWhat what {@code serverCpuSeconds} counts
   */
  record Result(
      int keys,
      Shape shape,
      Duration every,
      boolean settled,
      double settleSeconds,
      double windowSeconds,
      double cpuSeconds,
      long polls,
      long notDue,
      Map<String, Double> cpuByThread,
      double gcSeconds,
      int peakThreads,
      double serverCpuSeconds,
      String serverWhat) {
    /** CPU seconds per wall second, as a percentage of one core. */
    double cpuPercent() {
      return 100 * cpuSeconds / windowSeconds;
    }

    /** The store server's CPU per wall second, as a percentage of one core; NaN without one. */
    double serverCpuPercent() {
      return 100 * serverCpuSeconds / windowSeconds;
    }
  }

  /**
   * Runs the phase.
   *
   * @param store the run's store
   * @param s the settings
   * @param server the store's server process, read over the same window
   * @return the numbers
   */
  static Result run(StateStore store, Settings s, ServerCpu server) throws Exception {
    List<String> names = new ArrayList<>(s.keys());
    for (int k = 0; k < s.keys(); k++) names.add(String.format(Locale.ROOT, "k%05d", k));
    List<Poller<JsonNode>> pollers = new ArrayList<>();
    if (s.shape() == Shape.PARTITIONS)
      pollers.add(poller("idle", s.every()).partitions(names).build());
    else for (String name : names) pollers.add(poller("idle-" + name, s.every()).build());
    Set<PollerKey> polled = ConcurrentHashMap.newKeySet();
    LongAdder polls = new LongAdder();
    LongAdder notDue = new LongAdder();
    WatukuyListener listener =
        new WatukuyListener() {
          @Override
          public void onCycle(KeyReport report) {
            if (report.outcome() == KeyReport.Outcome.POLLED && report.error() == null) {
              polls.increment();
              polled.add(report.key());
            } else if (report.outcome() == KeyReport.Outcome.SKIPPED_NOT_DUE) {
              notDue.increment();
            }
          }
        };
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Watukuy.Builder builder = Watukuy.builder().store(store).listener(listener);
    pollers.forEach(builder::poller);
    try (Watukuy engine = builder.build()) {
      for (Poller<JsonNode> p : pollers) {
        engine.on(
            p,
            event -> {
              throw new IllegalStateException("idle key got an event: " + event);
            });
      }
      long begin = System.nanoTime();
      engine.start();
      long settleDeadline = begin + s.settleBound().toNanos();
      while (polled.size() < s.keys() && System.nanoTime() < settleDeadline) Thread.sleep(50);
      boolean settled = polled.size() == s.keys();
      double settleSeconds = (System.nanoTime() - begin) / 1e9;
      // One more interval before measuring: every key polled a second time, the JIT done with
      // the path; a window right after start() measured compilation more than scheduling.
      Thread.sleep(s.every().toMillis());
      System.gc(); // the garbage of the runs before is not this window's work
      Thread.sleep(500);

      threads.resetPeakThreadCount();
      long polls0 = polls.sum();
      long notDue0 = notDue.sum();
      long gc0 = gcMillis();
      Map<Long, Long> server0 = server.sample();
      long cpu0 = os.getProcessCpuTime();
      long wall0 = System.nanoTime();
      // The threads' window lies inside the process's, so that no thread counts more than the
      // process did and the remainder (OTHER) is not negative.
      Map<String, Double> cpuBefore = cpuByThread(threads);
      Thread.sleep(s.window().toMillis());
      Map<String, Double> cpuAfter = cpuByThread(threads);
      long cpu1 = os.getProcessCpuTime();
      Map<Long, Long> server1 = server.sample();
      long gc1 = gcMillis();
      long wall1 = System.nanoTime();
      long polls1 = polls.sum();
      long notDue1 = notDue.sum();
      int peak = threads.getPeakThreadCount();
      engine.stop(false);

      Map<String, Double> delta = new HashMap<>();
      cpuAfter.forEach(
          (name, v) -> {
            double d = v - cpuBefore.getOrDefault(name, 0.0);
            if (d > 0) delta.put(name, d);
          });
      Map<String, Double> sorted = new LinkedHashMap<>();
      delta.entrySet().stream()
          .sorted((a, b) -> Double.compare(b.getValue(), a.getValue()))
          .forEach(e -> sorted.put(e.getKey(), e.getValue()));
      double cpuSeconds = (cpu1 - cpu0) / 1e9;
      double listed = sorted.values().stream().mapToDouble(Double::doubleValue).sum();
      sorted.put(OTHER, cpuSeconds - listed);
      return new Result(
          s.keys(),
          s.shape(),
          s.every(),
          settled,
          settleSeconds,
          (wall1 - wall0) / 1e9,
          cpuSeconds,
          polls1 - polls0,
          notDue1 - notDue0,
          sorted,
          (gc1 - gc0) / 1e3,
          peak,
          server.seconds(server0, server1),
          server.what());
    }
  }

  private static Poller.Builder<JsonNode, Watermark> poller(String name, Duration every) {
    return Poller.builder(name, JsonNode.class)
        .identity(item -> item.get("id"))
        .version(item -> item.get("updated_at"))
        .cursor(Cursors.timestamp("updated_at").tieBreak("id").build())
        .fetch(ctx -> Page.<JsonNode>of(List.of()).withHasMore(false))
        .schedule(Schedule.every(every).withAdaptive(false));
  }

  /** The collectors' accumulated time, milliseconds. */
  private static long gcMillis() {
    long total = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans())
      total += Math.max(0, gc.getCollectionTime());
    return total;
  }

  /**
   * CPU seconds of the live threads by name with its digits dropped ({@code watukuy-cycle-}, {@code
   * watukuy-timer}); a thread that ends within the window takes its time with it.
   */
  private static Map<String, Double> cpuByThread(ThreadMXBean threads) {
    Map<String, Double> out = new HashMap<>();
    for (long id : threads.getAllThreadIds()) {
      ThreadInfo info = threads.getThreadInfo(id);
      long nanos = threads.getThreadCpuTime(id);
      if (info == null || nanos < 0) continue;
      out.merge(info.getThreadName().replaceAll("[0-9]+", ""), nanos / 1e9, Double::sum);
    }
    return out;
  }

  /** The phase as lines of the printed table. */
  static String table(Result r) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "idle keys: %,d keys (%s) on one engine, each polled every %d s ±10%%"
                + " (adaptive off; an empty page, no HTTP); every key polled once %s %.1f s after start()%n",
            r.keys(),
            r.shape() == Shape.PARTITIONS ? "partitions of one poller" : "one poller each",
            r.every().toSeconds(),
            r.settled() ? "within" : "NOT within",
            r.settleSeconds()));
    out.append(
        String.format(
            Locale.ROOT,
            "  process CPU in a %.1f s window: %.2f s, %.1f%% of one core (target < 5%%"
                + " for 10 000 keys; this process only)%n",
            r.windowSeconds(),
            r.cpuSeconds(),
            r.cpuPercent()));
    out.append(
        Double.isNaN(r.serverCpuSeconds())
            ? "  store server CPU: none measured (" + r.serverWhat() + ")\n"
            : String.format(
                Locale.ROOT,
                "  store server CPU in the window: %.2f s, %.1f%% of one core (%s; on a shared"
                    + " machine, its work for every client)%n",
                r.serverCpuSeconds(),
                r.serverCpuPercent(),
                r.serverWhat()));
    out.append(
        String.format(
            Locale.ROOT,
            "  in the window: %,d polls (%,.0f/s), %,d visits of keys not due (%,.0f/s);"
                + " peak threads %d%n",
            r.polls(),
            r.polls() / r.windowSeconds(),
            r.notDue(),
            r.notDue() / r.windowSeconds(),
            r.peakThreads()));
    // The five busiest threads, the rest of the listed ones together, then OTHER: they add up to
    // the process's CPU above.
    StringBuilder by = new StringBuilder("  CPU by thread (% of one core):");
    List<Map.Entry<String, Double>> threads =
        r.cpuByThread().entrySet().stream().filter(e -> !e.getKey().equals(OTHER)).toList();
    threads.stream()
        .limit(5)
        .forEach(
            e ->
                by.append(
                    String.format(
                        Locale.ROOT,
                        " %s %.1f%%;",
                        e.getKey(),
                        100 * e.getValue() / r.windowSeconds())));
    if (threads.size() > 5) {
      double rest = threads.stream().skip(5).mapToDouble(Map.Entry::getValue).sum();
      by.append(
          String.format(
              Locale.ROOT,
              " %d more threads %.1f%%;",
              threads.size() - 5,
              100 * rest / r.windowSeconds()));
    }
    by.append(
        String.format(
            Locale.ROOT,
            " %s %.1f%%",
            OTHER,
            100 * r.cpuByThread().getOrDefault(OTHER, 0.0) / r.windowSeconds()));
    out.append(by).append('\n');
    out.append(
        String.format(
            Locale.ROOT,
            "  garbage collection pauses: %.1f%% of the window's wall time%n",
            100 * r.gcSeconds() / r.windowSeconds()));
    return out.toString();
  }

  /** The phase as JSON. */
  static ObjectNode json(Result r) {
    ObjectNode n = Items.MAPPER.createObjectNode();
    n.put(
        "what",
        "one engine running its daemon over this many keys of timestamp pollers, empty pages without HTTP");
    n.put("keys", r.keys());
    n.put("shape", r.shape().label());
    n.put("scheduleMinSeconds", r.every().toSeconds());
    n.put("schedule", "adaptive off, jitter 0.1");
    n.put("settled", r.settled());
    n.put("settleSeconds", r.settleSeconds());
    n.put("windowSeconds", r.windowSeconds());
    n.put("processCpuSeconds", r.cpuSeconds());
    n.put("cpuPercentOfOneCore", r.cpuPercent());
    n.put("polls", r.polls());
    n.put("notDueVisits", r.notDue());
    n.put("peakThreads", r.peakThreads());
    ObjectNode by = n.putObject("cpuSecondsByThread");
    r.cpuByThread().forEach(by::put);
    n.put(
        "cpuSecondsByThreadWhat",
        "by thread name, digits dropped; \""
            + OTHER
            + "\" is the process CPU less the"
            + " listed threads', so that the values add up to processCpuSeconds");
    n.put("gcSeconds", r.gcSeconds());
    n.put("cpuCounted", "this process only; the store server's is serverCpuSeconds");
    if (Double.isNaN(r.serverCpuSeconds())) n.putNull("serverCpuSeconds");
    else n.put("serverCpuSeconds", r.serverCpuSeconds());
    if (Double.isNaN(r.serverCpuSeconds())) n.putNull("serverCpuPercentOfOneCore");
    else n.put("serverCpuPercentOfOneCore", r.serverCpuPercent());
    n.put(
        "serverCpuWhat",
        r.serverWhat()
            + "; utime + stime from /proc, over the same window; on a shared machine,"
            + " the server's work for every client");
    n.put("baseline", "an idle process: about 0% of a core; no ratio");
    return n;
  }
}
