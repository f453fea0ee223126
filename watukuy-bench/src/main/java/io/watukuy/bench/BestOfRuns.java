package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * Several runs of the end-to-end bench on one store, back to back, merged into one results file
 * ({@code bench/run.sh e2e --runs N}): one run on a loaded machine can be slowed by whatever else
 * runs, so a target is judged on the best of N.
 *
 * <p>The merged file starts with the first run's description of the store, the machine and the
 * settings (the runs share them), then:
 *
 * <ul>
 *   <li>{@code bestOf}: the number of runs and the rule that picked each best;
 *   <li>{@code phases}, {@code idle}, {@code live}: per phase, the best run's figures as that run
 *       wrote them, with its ratios ({@code floorRatio}, {@code commitFloorRatio}, {@code
 *       camelRatio}: each measured beside watukuy in the same run) and {@code bestRun}, its number
 *       from 1;
 *   <li>{@code peer}: the Camel peer's section of the run with the best first sync, its passes
 *       replaced by the best Camel pass of each phase over the runs, and {@code
 *       camelRatioBestOfBest} in each best phase: watukuy's best items/s over the route's best;
 *   <li>{@code everyRun}: each run's own figures (its phases, idle keys, live latency, load
 *       average, plain fetch and Camel passes; the route's source only once, in {@code peer}).
 * </ul>
 *
 * The best of a listing phase is the run with the highest items/s; of the idle keys, the lowest
 * engine CPU ({@code cpuPercentOfOneCore}); of the live latency, the lowest p99 of the overhead
 * (fetch start to handler). A run without a figure never wins against one that has it.
 */
public final class BestOfRuns {
  /** How the best run of a phase is picked, as the merged file states it. */
  public static final String RULE =
      "per phase, the run with the highest items/s; for the idle keys the lowest"
          + " cpuPercentOfOneCore; for the live latency the lowest overhead p99Ms; the ratios of a"
          + " best phase are its own run's (floor, commit floor and Camel measured beside it)";

  private BestOfRuns() {}

  /**
   * The name of the merged file: the first run's file name with {@code -best-of-<N>} before {@code
   * .json}, so that it never replaces a one-run file ({@code 2026-12-02-sqlite-snapshot.json} gives
   * {@code 2026-12-02-sqlite-snapshot-best-of-3.json}).
   *
   * @param oneRunName the name a single run writes, ending in {@code .json}
   * @param runs runs merged, at least 2
   * @return the merged file's name
   * @throws IllegalArgumentException if {@code runs < 2} or the name does not end in {@code .json}
   */
  public static String fileName(String oneRunName, int runs) {
    if (runs < 2) throw new IllegalArgumentException("best of needs at least 2 runs, got " + runs);
    if (!oneRunName.endsWith(".json"))
      throw new IllegalArgumentException("not a results file name: " + oneRunName);
    return oneRunName.substring(0, oneRunName.length() - ".json".length())
        + "-best-of-"
        + runs
        + ".json";
  }

  /**
   * Merges the results of N runs of one store.
   *
   * @param runs each run's results JSON, as {@link E2eReport#json} wrote it (with the Camel peer's
   *     section when it ran), in run order; at least 2
   * @return the merged results (see the class comment)
   * @throws IllegalArgumentException if fewer than 2 runs are given, or they differ in store, items
   *     or phase groups
   */
  public static ObjectNode merge(List<ObjectNode> runs) {
    if (runs.size() < 2)
      throw new IllegalArgumentException("best of needs at least 2 runs, got " + runs.size());
    ObjectNode first = runs.get(0);
    for (ObjectNode r : runs)
      for (String field : List.of("store", "items", "phaseGroups", "handler", "commit"))
        if (!r.path(field).equals(first.path(field)))
          throw new IllegalArgumentException(
              "the runs differ in " + field + ": " + first.path(field) + " and " + r.path(field));
    ObjectNode out = first.deepCopy();
    for (String perRun : List.of("loadAverage", "listingFetch", "phases", "idle", "live", "peer"))
      out.remove(perRun);
    ObjectNode bestOf = out.putObject("bestOf");
    bestOf.put("runs", runs.size());
    bestOf.put("rule", RULE);

    ArrayNode phases = out.putArray("phases");
    for (JsonNode p : first.path("phases")) {
      String name = p.path("phase").asText();
      int best =
          best(runs, r -> ResultsJson.phase(r, name), q -> figure(q.path("itemsPerSecond")), true);
      ObjectNode chosen = ResultsJson.phase(runs.get(best), name).deepCopy();
      chosen.put("bestRun", best + 1);
      phases.add(chosen);
    }
    bestSection(runs, out, "idle", q -> figure(q.path("cpuPercentOfOneCore")), false);
    bestSection(runs, out, "live", q -> figure(q.path("overhead").path("p99Ms")), false);
    if (first.has("peer")) bestPeer(runs, out);

    ArrayNode every = out.putArray("everyRun");
    for (int i = 0; i < runs.size(); i++) {
      ObjectNode r = runs.get(i);
      ObjectNode run = every.addObject();
      run.put("run", i + 1);
      run.put("date", r.path("date").asText());
      for (String field : List.of("loadAverage", "listingFetch", "phases", "idle", "live"))
        if (r.has(field)) run.set(field, r.get(field).deepCopy());
      if (r.has("peer")) {
        ObjectNode peer = r.get("peer").deepCopy();
        peer.remove("routeSource");
        peer.remove("doesNotDo");
        run.set("peer", peer);
      }
    }
    return out;
  }

  /** Puts the run with the best {@code section} (idle or live) into {@code out}, if any ran. */
  private static void bestSection(
      List<ObjectNode> runs,
      ObjectNode out,
      String section,
      ToDoubleFunction<JsonNode> figure,
      boolean highest) {
    if (!runs.get(0).has(section)) return;
    int best = best(runs, r -> (ObjectNode) r.get(section), figure, highest);
    ObjectNode chosen = runs.get(best).get(section).deepCopy();
    chosen.put("bestRun", best + 1);
    out.set(section, chosen);
  }

  /**
   * The peer's section of the run with the best first sync, its passes the best Camel pass of each
   * phase; each best watukuy phase gains {@code camelRatioBestOfBest}.
   */
  private static void bestPeer(List<ObjectNode> runs, ObjectNode out) {
    JsonNode sync = ResultsJson.phase(out, "first-sync");
    int base = sync == null ? 0 : sync.path("bestRun").asInt(1) - 1;
    if (!runs.get(base).has("peer")) base = 0;
    ObjectNode peer = runs.get(base).get("peer").deepCopy();
    ArrayNode passes = peer.putArray("phases");
    for (JsonNode p : runs.get(base).path("peer").path("phases")) {
      String name = p.path("phase").asText();
      int best = best(runs, r -> peerPass(r, name), q -> figure(q.path("itemsPerSecond")), true);
      ObjectNode pass = peerPass(runs.get(best), name);
      if (pass == null) continue;
      ObjectNode chosen = pass.deepCopy();
      chosen.put("bestRun", best + 1);
      passes.add(chosen);
      for (JsonNode w : out.path("phases")) {
        String bench = w.path("phase").asText();
        if (!bench.equals(name) && !bench.startsWith(name + "-")) continue;
        ResultsJson.number(
            (ObjectNode) w,
            "camelRatioBestOfBest",
            w.path("itemsPerSecond").asDouble(Double.NaN)
                / chosen.path("itemsPerSecond").asDouble(Double.NaN));
      }
    }
    peer.put(
        "bestOf",
        "each pass is the route's best over the runs (highest items/s); its watukuy figures and"
            + " ratio are those of the same run");
    out.set("peer", peer);
  }

  /**
   * The index of the run whose {@code figure} of the section {@code of} picks is best: highest or
   * lowest; a run without the section or with a non-finite figure never wins; the first run when
   * none has one.
   */
  static int best(
      List<ObjectNode> runs,
      Function<ObjectNode, @Nullable ObjectNode> of,
      ToDoubleFunction<JsonNode> figure,
      boolean highest) {
    int best = -1;
    double bestValue = Double.NaN;
    for (int i = 0; i < runs.size(); i++) {
      ObjectNode section = of.apply(runs.get(i));
      if (section == null) continue;
      JsonNode node = section;
      double v = figure.applyAsDouble(node);
      if (!Double.isFinite(v)) continue;
      if (best < 0 || (highest ? v > bestValue : v < bestValue)) {
        best = i;
        bestValue = v;
      }
    }
    return Math.max(best, 0);
  }

  private static @Nullable ObjectNode peerPass(JsonNode root, String name) {
    return ResultsJson.phase(root.path("peer"), name);
  }

  /**
   * The merged runs as a table: one line per phase and run, {@code *} on each phase's best run,
   * with the ratios measured beside it; then the best of each phase on one line.
   *
   * @param merged what {@link #merge} returned
   * @return the table, lines ending in a newline
   */
  public static String table(ObjectNode merged) {
    int n = merged.path("bestOf").path("runs").asInt();
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "best of %d runs: %s%s; * marks each phase's best run (%s)%n",
            n,
            merged.path("store").asText(),
            merged.has("items")
                ? String.format(Locale.ROOT, ", %,d items", merged.path("items").asInt())
                : "",
            "highest items/s; idle keys: lowest CPU; live: lowest overhead p99"));
    String format = "%-16s %1s %3s %10s %8s %9s %8s%n";
    if (merged.path("phases").size() > 0)
      out.append(
          String.format(
              Locale.ROOT,
              format,
              "phase",
              "",
              "run",
              "items/s",
              "vs floor",
              "vs commit",
              "vs camel"));
    JsonNode every = merged.path("everyRun");
    for (JsonNode best : merged.path("phases")) {
      String name = best.path("phase").asText();
      for (JsonNode run : every) {
        JsonNode p = ResultsJson.phase(run, name);
        if (p == null) continue;
        int k = run.path("run").asInt();
        out.append(
            String.format(
                Locale.ROOT,
                format,
                name,
                k == best.path("bestRun").asInt() ? "*" : "",
                k,
                ResultsJson.decimal(p.get("itemsPerSecond"), "%,.0f"),
                ratio(p.get("floorRatio")),
                ratio(p.get("commitFloorRatio")),
                ratio(p.get("camelRatio"))));
      }
    }
    JsonNode idle = merged.get("idle");
    if (idle != null)
      for (JsonNode run : every)
        out.append(
            String.format(
                Locale.ROOT,
                "idle keys        %1s %3d %s%% of one core (store server %s%%)%n",
                run.path("run").asInt() == idle.path("bestRun").asInt() ? "*" : "",
                run.path("run").asInt(),
                ResultsJson.decimal(run.path("idle").get("cpuPercentOfOneCore"), "%.1f"),
                ResultsJson.decimal(run.path("idle").get("serverCpuPercentOfOneCore"), "%.1f")));
    JsonNode live = merged.get("live");
    if (live != null)
      for (JsonNode run : every)
        out.append(
            String.format(
                Locale.ROOT,
                "live overhead    %1s %3d p99 %s ms%n",
                run.path("run").asInt() == live.path("bestRun").asInt() ? "*" : "",
                run.path("run").asInt(),
                ResultsJson.decimal(run.path("live").path("overhead").get("p99Ms"), "%.1f")));
    StringBuilder line = new StringBuilder("best of " + n + ":");
    for (JsonNode best : merged.path("phases"))
      line.append(
          String.format(
              Locale.ROOT,
              " %s %s items/s (run %d, vs floor %s%s%s);",
              best.path("phase").asText(),
              ResultsJson.decimal(best.get("itemsPerSecond"), "%,.0f"),
              best.path("bestRun").asInt(),
              ratio(best.get("floorRatio")),
              best.hasNonNull("commitFloorRatio")
                  ? ", vs commit floor " + ratio(best.get("commitFloorRatio"))
                  : "",
              best.hasNonNull("camelRatioBestOfBest")
                  ? ", vs the route's best " + ratio(best.get("camelRatioBestOfBest"))
                  : ""));
    if (idle != null)
      line.append(
          String.format(
              Locale.ROOT,
              " idle keys %s%% of one core (run %d);",
              ResultsJson.decimal(idle.get("cpuPercentOfOneCore"), "%.1f"),
              idle.path("bestRun").asInt()));
    if (live != null)
      line.append(
          String.format(
              Locale.ROOT,
              " live overhead p99 %s ms (run %d);",
              ResultsJson.decimal(live.path("overhead").get("p99Ms"), "%.1f"),
              live.path("bestRun").asInt()));
    line.setLength(line.length() - 1);
    return out.append(line).append('\n').toString();
  }

  private static String ratio(@Nullable JsonNode value) {
    return value == null || !value.isNumber() ? "-" : Ratios.format(value.asDouble());
  }

  /** A figure, or NaN where it is missing or null (a failed measurement never wins). */
  private static double figure(JsonNode value) {
    return value.isNumber() ? value.asDouble() : Double.NaN;
  }

  /** Reads results files, in order. */
  static List<ObjectNode> read(List<Path> files) throws IOException {
    List<ObjectNode> runs = new ArrayList<>();
    for (Path f : files) runs.add((ObjectNode) Items.MAPPER.readTree(Files.readAllBytes(f)));
    return runs;
  }
}
