package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.BatchHandler;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.sink.Sink;
import io.watukuy.sink.SinkConfig;
import io.watukuy.sink.SinkProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;

/**
 * The sink bench ({@code bench/run.sh sinks}): for each sink, events/s through the whole engine
 * path into the real sink, beside the sink's own client writing the same records with the same
 * durability, in the same run.
 *
 * <p>Each round runs, per sink, three timed passes over the same {@code n} items, in an order that
 * alternates from round to round (so that the machine's load hits each pass alike):
 *
 * <ul>
 *   <li>{@code engine alone}: a fresh store and engine; one {@link Watukuy#tick()} polls a local
 *       listing of {@code n} items (pages of 500 served from memory, no network), diffs them
 *       ({@code snapshotDiff}), commits {@code n} created events to the outbox and delivers them in
 *       batches of {@code batchSize} to a batch handler that only keeps them, acking each batch in
 *       the store. What no sink can go faster than.
 *   <li>{@code sink}: the same, delivering to the sink made from its {@code sink:} settings (the
 *       provider a YAML file would find), opened before the clock starts: poll → outbox → sink →
 *       the destination's ack → the store's ack. The pass counts only if the sink acknowledged
 *       every event.
 *   <li>{@code raw}: the sink's own client alone, writing the records of the engine's events (the
 *       same envelope bytes, keys and delivery keys) in batches of {@code batchSize}, each batch
 *       acknowledged before the next (the durability the sink waits for), connection made before
 *       the clock starts.
 * </ul>
 *
 * {@code ratio} is the best round's sink events/s over the best round's raw events/s; each round's
 * own ratio is kept too. {@code engineRatio} is the sink's events/s over the engine alone's: how
 * much of the engine's own rate the sink keeps.
 */
final class SinkBench {
  /** How long a sink pass may go on retrying failed deliveries before it fails. */
  static final Duration RETRY_WINDOW = Duration.ofSeconds(120);

  /** Items per page of the local listing. */
  static final int PAGE = EndToEnd.PAGE;

  /**
   * What to run.
   *
   * @param events items in the listing, so events per pass; at least 100
   * @param rounds rounds per sink, at least 1
   * @param batchSize {@code delivery.batchSize} of the engine and the raw client's batch
   * @param concurrency {@code delivery.concurrency} of the engine
   */
  record Settings(int events, int rounds, int batchSize, int concurrency) {
    /** The default run: 20 000 events, best of 3 rounds, batches of 100, concurrency 8. */
    static Settings full() {
      return new Settings(
          BenchMain.SINK_EVENTS,
          BenchMain.SINK_ROUNDS,
          DeliveryOptions.DEFAULT_BATCH_SIZE,
          DeliveryOptions.DEFAULT_CONCURRENCY);
    }

    /** The smoke pass: 500 events, 1 round. */
    static Settings tiny() {
      return new Settings(
          500, 1, DeliveryOptions.DEFAULT_BATCH_SIZE, DeliveryOptions.DEFAULT_CONCURRENCY);
    }

    DeliveryOptions delivery() {
      return new DeliveryOptions(
          concurrency, DeliveryOptions.DEFAULT_DISPATCH_BATCH_SIZE, batchSize);
    }
  }

  /**
   * One pass's numbers.
   *
   * @param seconds wall time of the tick or of the raw client's batches
   * @param events events written and acknowledged
   * @param failed failed deliveries the engine retried within the pass (the sink's own failures: a
   *     timeout, a refused connection), their backoff counted in {@code seconds}
   * @param firstFailure the first of them, or null
   */
  record Pass(double seconds, long events, long failed, @Nullable String firstFailure) {
    Pass(double seconds, long events) {
      this(seconds, events, 0, null);
    }

    double eventsPerSecond() {
      return events / seconds;
    }
  }

  /**
   * One sink's rounds.
   *
   * @param name the row, such as {@code kafka}
   * @param store the engine's store
   * @param sinkName the sink's own name ({@link Sink#name()})
   * @param rawWhat what the raw client did
   * @param target the target for the ratio, NaN for none
   * @param alone the engine-alone pass of each round
   * @param sink the sink pass of each round
   * @param raw the raw pass of each round
   * @param readBack records found in the sink's destination after each round; null entries where
   *     not read back
   */
  record Row(
      String name,
      String store,
      String sinkName,
      String rawWhat,
      double target,
      List<Pass> alone,
      List<Pass> sink,
      List<Pass> raw,
      List<@Nullable Long> readBack) {
    static double best(List<Pass> passes) {
      return passes.stream().mapToDouble(Pass::eventsPerSecond).max().orElse(Double.NaN);
    }

    /** Best sink events/s over best raw events/s. */
    double ratio() {
      return best(sink) / best(raw);
    }

    /** Best sink events/s over the best engine-alone events/s. */
    double engineRatio() {
      return best(sink) / best(alone);
    }

    /** Each round's sink ÷ raw. */
    List<Double> roundRatios() {
      List<Double> out = new ArrayList<>();
      for (int i = 0; i < sink.size(); i++)
        out.add(sink.get(i).eventsPerSecond() / raw.get(i).eventsPerSecond());
      return out;
    }
  }

  private SinkBench() {}

  /**
   * Runs the rounds of one sink.
   *
   * @param target the sink and its raw client
   * @param where the servers of the SQL stores the table sink shares
   * @param s what to run
   * @param progress where a line per pass goes
   * @return the numbers
   * @throws IllegalStateException if a pass did not deliver every event
   */
  static Row run(
      SinkTarget target, BenchStore.Where where, Settings s, java.io.PrintStream progress)
      throws Exception {
    List<JsonNode> items = Items.page(0, s.events());
    List<Pass> alone = new ArrayList<>();
    List<Pass> sinks = new ArrayList<>();
    List<Pass> raws = new ArrayList<>();
    List<@Nullable Long> readBack = new ArrayList<>();
    List<SinkRecord> records = null;
    String sinkName = target.name();
    for (int round = 1; round <= s.rounds(); round++) {
      List<SinkRecord> kept = new ArrayList<>(s.events());
      Long found;
      Pass a;
      Pass sink;
      Pass raw;
      boolean rawFirst = round % 2 == 0;
      if (rawFirst && records != null) {
        try (BenchStore store = BenchStore.open(target.store(), where)) {
          raw = rawPass(target, round, store, records, s.batchSize());
          Sinked sinked = sinkPass(target, round, store, items, s);
          found = checkReadBack(target, round, s.events());
          sink = sinked.pass();
          sinkName = sinked.name();
        }
        a = alonePass(target.store(), where, items, s, kept);
      } else {
        a = alonePass(target.store(), where, items, s, kept);
        if (records == null) records = kept;
        try (BenchStore store = BenchStore.open(target.store(), where)) {
          Sinked sinked = sinkPass(target, round, store, items, s);
          found = checkReadBack(target, round, s.events());
          sink = sinked.pass();
          sinkName = sinked.name();
          raw = rawPass(target, round, store, records, s.batchSize());
        }
      }
      alone.add(a);
      sinks.add(sink);
      raws.add(raw);
      readBack.add(found);
      progress.printf(
          java.util.Locale.ROOT,
          "%s round %d: engine alone %,.0f, sink %,.0f, raw %,.0f events/s%n",
          target.name(),
          round,
          a.eventsPerSecond(),
          sink.eventsPerSecond(),
          raw.eventsPerSecond());
      if (sink.failed() > 0)
        progress.printf(
            "%s round %d: the sink failed %d deliveries, retried in the pass; the first: %s%n",
            target.name(), round, sink.failed(), sink.firstFailure());
    }
    return new Row(
        target.name(),
        target.store(),
        sinkName,
        target.rawWhat(),
        target.target(),
        alone,
        sinks,
        raws,
        readBack);
  }

  private static @Nullable Long checkReadBack(SinkTarget target, int round, int events)
      throws Exception {
    Long found = target.delivered(round);
    if (found != null && found != events)
      throw new IllegalStateException(
          target.name()
              + " round "
              + round
              + ": the destination holds "
              + found
              + " records after the sink's pass, not "
              + events);
    return found;
  }

  /** The sink made by its provider, as a {@code sink:} section would make it. */
  static Sink sink(Map<String, Object> settings, BenchStore store) {
    SinkConfig config = SinkConfig.of(settings, Path.of(".")).withStore(store.store());
    for (SinkProvider p : ServiceLoader.load(SinkProvider.class))
      if (p.type().equals(config.type())) return p.create(config);
    throw new IllegalStateException(
        "no sink provider of type '" + config.type() + "' on the class path");
  }

  private record Sinked(Pass pass, String name) {}

  private static Sinked sinkPass(
      SinkTarget target, int round, BenchStore store, List<JsonNode> items, Settings s)
      throws Exception {
    AckCountingSink sink = new AckCountingSink(sink(target.sink(round, store), store));
    Poller<JsonNode> poller = poller(items);
    try (Watukuy engine =
        Watukuy.builder()
            .store(store.store())
            .poller(poller)
            .sink(poller, sink)
            .delivery(s.delivery())
            .build()) {
      engine.openSinks();
      int n = items.size();
      Thread.sleep(5); // past schedule.min, so the key is due
      long start = System.nanoTime();
      TickReport report = engine.tick();
      if (report.eventsCommitted() != n)
        throw new IllegalStateException(
            target.name()
                + ": expected "
                + n
                + " events committed, but the tick reported "
                + report);
      // A delivery the sink failed is retried under the delivery policy at a later tick, as in
      // production: the pass goes on until every event is acknowledged, its wait counted.
      long deadline = start + RETRY_WINDOW.toNanos();
      while (sink.acked() < n && System.nanoTime() < deadline) {
        Thread.sleep(10);
        engine.tick();
      }
      Pass pass =
          new Pass(
              (System.nanoTime() - start) / 1e9,
              n,
              sink.failed(),
              sink.firstFailure() == null ? null : String.valueOf(sink.firstFailure()));
      if (sink.acked() != n)
        throw new IllegalStateException(
            target.name()
                + ": the sink acknowledged "
                + sink.acked()
                + " of "
                + items.size()
                + " events"
                + (sink.firstFailure() == null ? "" : "; first failure: " + sink.firstFailure()));
      return new Sinked(pass, sink.name());
    }
  }

  private static Pass alonePass(
      String store, BenchStore.Where where, List<JsonNode> items, Settings s, List<SinkRecord> kept)
      throws Exception {
    try (BenchStore bench = BenchStore.open(store, where)) {
      Poller<JsonNode> poller = poller(items);
      // Only kept here: their records are made after the clock stops, so that this pass times
      // the engine and not the envelopes' serialization.
      List<ChangeEvent<JsonNode>> seen = java.util.Collections.synchronizedList(new ArrayList<>());
      BatchHandler<JsonNode> keep =
          events -> {
            seen.addAll(events);
            return BatchHandler.BatchResult.ok();
          };
      try (Watukuy engine =
          Watukuy.builder().store(bench.store()).poller(poller).delivery(s.delivery()).build()) {
        engine.onBatch(poller, keep);
        Pass pass = timedTick("engine alone", engine, items.size());
        if (seen.size() != items.size())
          throw new IllegalStateException(
              "engine alone: the handler saw " + seen.size() + " of " + items.size() + " events");
        for (ChangeEvent<JsonNode> e : seen) kept.add(SinkRecord.of(e));
        kept.sort(Comparator.comparingLong(SinkRecord::sequence));
        return pass;
      }
    }
  }

  private static Pass rawPass(
      SinkTarget target, int round, BenchStore store, List<SinkRecord> records, int batchSize)
      throws Exception {
    List<List<SinkRecord>> batches = SinkRecord.batches(records, batchSize);
    try (SinkTarget.Raw raw = target.raw(round, store)) {
      long start = System.nanoTime();
      for (List<SinkRecord> batch : batches) raw.write(batch);
      return new Pass((System.nanoTime() - start) / 1e9, records.size());
    }
  }

  /** One tick of a fresh engine: the whole listing polled, committed and delivered. */
  private static Pass timedTick(String what, Watukuy engine, int n) throws InterruptedException {
    Thread.sleep(5); // past schedule.min, so the key is due
    long start = System.nanoTime();
    TickReport report = engine.tick();
    double seconds = (System.nanoTime() - start) / 1e9;
    if (report.eventsCommitted() != n || report.delivered() != n)
      throw new IllegalStateException(
          what
              + ": expected "
              + n
              + " events committed and delivered, but the tick reported "
              + report);
    return new Pass(seconds, n);
  }

  /** A snapshotDiff poller over the items, 500 a page, served from memory. */
  private static Poller<JsonNode> poller(List<JsonNode> items) {
    int n = items.size();
    return Poller.builder("items", JsonNode.class)
        .identity(item -> item.get("id"))
        .version(item -> item.get("updated_at"))
        .cursor(Cursors.snapshotDiff())
        .fetch(
            ctx -> {
              int from = (ctx.page() - 1) * PAGE;
              int to = Math.min(n, from + PAGE);
              return Page.of(items.subList(Math.min(from, to), to)).withHasMore(to < n);
            })
        .maxPagesPerCycle(n / PAGE + 2)
        .schedule(Schedule.every(Duration.ofMillis(1)).withAdaptive(false).withJitter(0))
        .build();
  }
}
