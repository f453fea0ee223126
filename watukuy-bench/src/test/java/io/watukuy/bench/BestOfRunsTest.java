package io.watukuy.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The merge of N end-to-end runs ({@link BestOfRuns}, {@code bench/run.sh e2e --runs N}): which run
 * it names best in each phase, that every run's figures stay, and the merged file's name. The runs'
 * phases are written by the bench's own {@link E2eReport#json}; the figures are made up so that
 * each phase has another best run, and nothing is timed.
 */
class BestOfRunsTest {
  @TempDir Path dir;

  /** 100 000 items in each phase; the seconds give the items/s. */
  private static final int N = 100_000;

  @Test
  void eachPhaseNamesItsOwnBestRunWithThatRunsRatios() {
    // first-sync: 10 000, 12 500, 11 111 items/s -> run 2; idle-rescan: 40 000, 50 000, 62 500
    // -> run 3; idle keys 5.0%, 3.0%, 4.0% -> run 2; live p99 12, 15, 9 ms -> run 3.
    List<ObjectNode> runs =
        List.of(
            run(10.0, 2.5, 5.0, 12.0, 5_000),
            run(8.0, 2.0, 3.0, 15.0, 8_000),
            run(9.0, 1.6, 4.0, 9.0, 6_000));

    ObjectNode merged = BestOfRuns.merge(runs);

    assertThat(merged.path("bestOf").path("runs").asInt()).isEqualTo(3);
    JsonNode sync = ResultsJson.phase(merged, "first-sync");
    JsonNode idle = ResultsJson.phase(merged, "idle-rescan");
    assertThat(sync.path("bestRun").asInt()).isEqualTo(2);
    assertThat(sync.path("itemsPerSecond").asDouble()).isEqualTo(12_500.0);
    assertThat(idle.path("bestRun").asInt()).isEqualTo(3);
    assertThat(idle.path("itemsPerSecond").asDouble()).isEqualTo(62_500.0);
    // The ratios are the best run's own: its floor (fetch 1 s + baseline 1 s over 8 s).
    assertThat(sync.path("floorRatio").asDouble())
        .isEqualTo(runs.get(1).get("phases").get(0).path("floorRatio").asDouble())
        .isEqualTo(2.0 / 8.0);
    assertThat(sync.path("camelRatio").asDouble()).isEqualTo(12_500.0 / 8_000);
    assertThat(merged.path("idle").path("bestRun").asInt()).isEqualTo(2);
    assertThat(merged.path("idle").path("cpuPercentOfOneCore").asDouble()).isEqualTo(3.0);
    assertThat(merged.path("live").path("bestRun").asInt()).isEqualTo(3);
    assertThat(merged.path("live").path("overhead").path("p99Ms").asDouble()).isEqualTo(9.0);
  }

  @Test
  void thePeerKeepsTheRoutesBestPassAndTheBestOfBestRatio() {
    // Camel's best first sync is run 2's 8 000 items/s; watukuy's best is run 2's 12 500.
    ObjectNode merged =
        BestOfRuns.merge(
            List.of(
                run(10.0, 2.5, 5.0, 12.0, 5_000),
                run(8.0, 2.0, 3.0, 15.0, 8_000),
                run(9.0, 1.6, 4.0, 9.0, 6_000)));

    JsonNode pass = ResultsJson.phase(merged.path("peer"), "first-sync");
    assertThat(pass.path("bestRun").asInt()).isEqualTo(2);
    assertThat(pass.path("itemsPerSecond").asDouble()).isEqualTo(8_000.0);
    assertThat(ResultsJson.phase(merged, "first-sync").path("camelRatioBestOfBest").asDouble())
        .isEqualTo(12_500.0 / 8_000);
    assertThat(merged.path("peer").path("routeSource").asText()).isEqualTo("class Route {}");
  }

  @Test
  void everyRunKeepsItsOwnFiguresAndTheRouteSourceOnlyOnce() {
    List<ObjectNode> runs =
        List.of(run(10.0, 2.5, 5.0, 12.0, 5_000), run(8.0, 2.0, 3.0, 15.0, 8_000));

    ObjectNode merged = BestOfRuns.merge(runs);

    JsonNode every = merged.path("everyRun");
    assertThat(every).hasSize(2);
    for (int i = 0; i < 2; i++) {
      JsonNode run = every.get(i);
      assertThat(run.path("run").asInt()).isEqualTo(i + 1);
      assertThat(run.path("phases")).isEqualTo(runs.get(i).get("phases"));
      assertThat(run.path("idle")).isEqualTo(runs.get(i).get("idle"));
      assertThat(run.path("live")).isEqualTo(runs.get(i).get("live"));
      assertThat(run.path("peer").path("phases")).isEqualTo(runs.get(i).path("peer").get("phases"));
      assertThat(run.path("peer").has("routeSource")).isFalse();
    }
    // The merge copies: the runs it was given are unchanged.
    assertThat(runs.get(0).get("phases").get(0).has("bestRun")).isFalse();
  }

  @Test
  void aRunWithoutAFigureNeverWins() {
    ObjectNode slow = run(10.0, 2.5, 5.0, 12.0, 5_000);
    ObjectNode broken = run(1.0, 2.5, 5.0, 12.0, 5_000);
    ((ObjectNode) broken.get("phases").get(0)).putNull("itemsPerSecond");
    ((ObjectNode) broken.get("idle")).putNull("cpuPercentOfOneCore");

    ObjectNode merged = BestOfRuns.merge(List.of(broken, slow));

    assertThat(ResultsJson.phase(merged, "first-sync").path("bestRun").asInt()).isEqualTo(2);
    assertThat(merged.path("idle").path("bestRun").asInt()).isEqualTo(2);
  }

  @Test
  void theTableSaysBestOfNAndMarksEachPhasesBestRun() {
    String table =
        BestOfRuns.table(
            BestOfRuns.merge(
                List.of(
                    run(10.0, 2.5, 5.0, 12.0, 5_000),
                    run(8.0, 2.0, 3.0, 15.0, 8_000),
                    run(9.0, 1.6, 4.0, 9.0, 6_000))));

    assertThat(table).startsWith("best of 3 runs: sqlite, 100,000 items;");
    List<String> marked =
        table
            .lines()
            .filter(l -> l.matches("\\S.{15} \\* .*"))
            .map(l -> l.substring(0, 22))
            .toList();
    assertThat(marked)
        .containsExactly(
            "first-sync       *   2",
            "idle-rescan      *   3",
            "idle keys        *   2",
            "live overhead    *   3");
    assertThat(table.lines().reduce((a, b) -> b).orElseThrow())
        .startsWith("best of 3: first-sync 12,500 items/s (run 2, vs floor 0.250")
        .contains("idle-rescan 62,500 items/s (run 3")
        .contains("idle keys 3.0% of one core (run 2)")
        .endsWith("live overhead p99 9.0 ms (run 3)");
  }

  @Test
  void runsOfAnotherStoreOrListingAreNotMerged() {
    ObjectNode other = run(8.0, 2.0, 3.0, 15.0, 8_000);
    other.put("store", "postgres");

    assertThatThrownBy(() -> BestOfRuns.merge(List.of(run(10.0, 2.5, 5.0, 12.0, 5_000), other)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the runs differ in store");
    assertThatThrownBy(() -> BestOfRuns.merge(List.of(run(10.0, 2.5, 5.0, 12.0, 5_000))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 2 runs");
  }

  @Test
  void theMergedFileNeverTakesAOneRunFilesName() {
    assertThat(BestOfRuns.fileName("2026-12-02-sqlite-snapshot-idle.json", 3))
        .isEqualTo("2026-12-02-sqlite-snapshot-idle-best-of-3.json");
    assertThat(BestOfRuns.fileName("2026-12-02-postgres.json", 2))
        .isEqualTo("2026-12-02-postgres-best-of-2.json");
    assertThatThrownBy(() -> BestOfRuns.fileName("2026-12-02-postgres.json", 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theCommandWritesTheMergedFileBesideNoOther() throws Exception {
    Path runs = Files.createDirectories(dir.resolve("runs"));
    List<String> args = new ArrayList<>(List.of("best-of", "--out", dir.resolve("out").toString()));
    for (int i = 1; i <= 2; i++) {
      Path file = Files.createDirectories(runs.resolve("r" + i)).resolve("2026-12-02-sqlite.json");
      Files.writeString(
          file, Items.MAPPER.writeValueAsString(run(10.0 - i, 2.5, 5.0, 12.0, 5_000)));
      args.add(file.toString());
    }

    assertThat(BenchMain.run(args.toArray(String[]::new))).isZero();

    try (var listed = Files.list(dir.resolve("out"))) {
      assertThat(listed.map(p -> p.getFileName().toString()))
          .containsExactly("2026-12-02-sqlite-best-of-2.json");
    }
    JsonNode merged =
        Items.MAPPER.readTree(dir.resolve("out/2026-12-02-sqlite-best-of-2.json").toFile());
    assertThat(ResultsJson.phase(merged, "first-sync").path("bestRun").asInt()).isEqualTo(2);
  }

  /**
   * One run's results file as the bench and the Camel peer write it: a first sync and an idle
   * re-scan of {@link #N} items in the given seconds (each beside a 1 s fetch and a 1 s baseline),
   * the idle keys' CPU, the live overhead p99 and the route's first-sync items/s.
   */
  private static ObjectNode run(
      double syncSeconds,
      double idleSeconds,
      double idleCpuPercent,
      double liveP99Ms,
      double camelItemsPerSecond) {
    EndToEnd.Result result =
        new EndToEnd.Result(
            "sqlite",
            "SQLite",
            "",
            EnumSet.of(EndToEnd.Group.SNAPSHOT, EndToEnd.Group.LIVE, EndToEnd.Group.IDLE),
            N,
            8,
            "batch",
            100,
            1.0,
            List.of(phase("first-sync", syncSeconds, N), phase("idle-rescan", idleSeconds, 0)),
            null,
            null,
            null,
            "1.00 1.00 1.00",
            "1.00 1.00 1.00");
    ObjectNode root = E2eReport.json(result);
    root.putObject("idle").put("keys", 10_000).put("cpuPercentOfOneCore", idleCpuPercent);
    root.putObject("live").putObject("overhead").put("p99Ms", liveP99Ms);
    ObjectNode peer = root.putObject("peer");
    peer.put("routeSource", "class Route {}");
    peer.putArray("doesNotDo").add("deletes");
    peer.putArray("phases")
        .addObject()
        .put("phase", "first-sync")
        .put("itemsPerSecond", camelItemsPerSecond);
    ((ObjectNode) ResultsJson.phase(root, "first-sync"))
        .put("camelRatio", N / syncSeconds / camelItemsPerSecond);
    return root;
  }

  private static EndToEnd.Phase phase(String name, double seconds, long events) {
    return new EndToEnd.Phase(
        name,
        SnapshotPhases.SNAPSHOT,
        N,
        events,
        1,
        seconds,
        100L << 20,
        20L << 20,
        Map.of(),
        "baseline",
        1.0,
        1.0,
        seconds);
  }
}
