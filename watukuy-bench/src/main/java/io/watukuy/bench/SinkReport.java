package io.watukuy.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** The sink bench's table and results JSON ({@link SinkBench}). */
final class SinkReport {
  /** What a sink's events/s includes, in the results and the README. */
  static final String INCLUDED =
      "sink events/s: one engine tick on a fresh store polls a local listing of N items (pages of"
          + " 500 served from memory), diffs it (snapshotDiff), commits N created events to the"
          + " outbox and delivers them in batches of batchSize through the sink, the destination's"
          + " ack, then the store's ack; the sink opened before the clock starts. raw events/s: the"
          + " sink's own client writing the records of the same events (same envelope bytes, keys,"
          + " delivery keys) in batches of batchSize, each acknowledged before the next, connected"
          + " before the clock starts. engine alone: the same tick delivering to a handler that"
          + " only keeps the events. ratio = best sink / best raw over the rounds; engineRatio ="
          + " best sink / best engine alone.";

  private SinkReport() {}

  /** The table printed at the end of a run. */
  static String table(List<SinkBench.Row> rows, SinkBench.Settings s) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "%nsinks: %,d events per pass, best of %d round(s), batchSize %d, concurrency %d%n",
            s.events(),
            s.rounds(),
            s.batchSize(),
            s.concurrency()));
    out.append(
        String.format(
            Locale.ROOT,
            "%-20s %-9s %12s %12s %12s %7s %7s %6s%n",
            "sink",
            "store",
            "alone ev/s",
            "sink ev/s",
            "raw ev/s",
            "ratio",
            "engine",
            "target"));
    for (SinkBench.Row r : rows)
      out.append(
          String.format(
              Locale.ROOT,
              "%-20s %-9s %,12.0f %,12.0f %,12.0f %7s %7s %6s%n",
              r.name(),
              r.store(),
              SinkBench.Row.best(r.alone()),
              SinkBench.Row.best(r.sink()),
              SinkBench.Row.best(r.raw()),
              Ratios.format(r.ratio()),
              Ratios.format(r.engineRatio()),
              Double.isNaN(r.target()) ? "-" : Ratios.format(r.target())));
    return out.toString();
  }

  /** The results file's content. */
  static ObjectNode json(List<SinkBench.Row> rows, SinkBench.Settings s, String loadBefore) {
    ObjectNode root = Items.MAPPER.createObjectNode();
    root.put("bench", "sinks");
    root.put("date", Instant.now().toString());
    root.put("watukuy", Versions.of("watukuy"));
    root.put("commit", System.getProperty("watukuy.bench.commit", "unknown"));
    ObjectNode clients = root.putObject("clients");
    for (String library :
        List.of("kafka-clients", "amqp-client", "jnats", "postgresql", "sqlite-jdbc"))
      clients.put(library, Versions.of(library));
    Machine.describe(root);
    root.put("maxHeapMb", Runtime.getRuntime().maxMemory() / (1024 * 1024));
    ObjectNode load = root.putObject("loadAverage");
    load.put("before", loadBefore);
    load.put("after", Machine.loadAverage());
    root.put("events", s.events());
    root.put("rounds", s.rounds());
    root.put("deliveryBatchSize", s.batchSize());
    root.put("deliveryConcurrency", s.concurrency());
    root.put("included", INCLUDED);
    ArrayNode array = root.putArray("sinks");
    for (SinkBench.Row r : rows) {
      ObjectNode n = array.addObject();
      n.put("sink", r.name());
      n.put("sinkName", r.sinkName());
      n.put("store", r.store());
      ResultsJson.number(n, "engineAloneEventsPerSecond", SinkBench.Row.best(r.alone()));
      ResultsJson.number(n, "sinkEventsPerSecond", SinkBench.Row.best(r.sink()));
      ResultsJson.number(n, "rawEventsPerSecond", SinkBench.Row.best(r.raw()));
      ResultsJson.number(n, "ratio", r.ratio());
      ResultsJson.number(n, "engineRatio", r.engineRatio());
      ResultsJson.number(n, "target", r.target());
      n.put("raw", r.rawWhat());
      ArrayNode rounds = n.putArray("rounds");
      for (int i = 0; i < r.sink().size(); i++) {
        ObjectNode round = rounds.addObject();
        round.put("round", i + 1);
        round.put("engineAloneSeconds", r.alone().get(i).seconds());
        round.put("sinkSeconds", r.sink().get(i).seconds());
        round.put("rawSeconds", r.raw().get(i).seconds());
        ResultsJson.number(round, "ratio", r.roundRatios().get(i));
        SinkBench.Pass sink = r.sink().get(i);
        round.put("sinkFailedDeliveries", sink.failed());
        if (sink.firstFailure() != null) round.put("sinkFirstFailure", sink.firstFailure());
        Long found = r.readBack().get(i);
        if (found == null) round.putNull("readBack");
        else round.put("readBack", found);
      }
    }
    return root;
  }
}
