package io.watukuy.bench.camel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.bench.Items;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Camel peer's smoke pass on SQLite ({@code ./mvnw -f bench/camel/pom.xml verify}; never part
 * of the reactor's {@code ./mvnw verify}, which does not build Camel): 1 000 items in 500-item
 * pages, so 2 pages with items and an empty third. It checks what the passes did and what is
 * written into the results file, never how fast.
 */
class CamelPeerSmokeTest {

  /** A results file as the bench writes it, cut to what the peer reads. */
  private static Path results(Path dir, String store, String phases) throws Exception {
    Path file = dir.resolve("results.json");
    Files.writeString(
        file, "{\"store\": \"" + store + "\", \"items\": 1000, \"phases\": [" + phases + "]}");
    return file;
  }

  private static final String BOTH =
      "{\"phase\": \"first-sync\", \"items\": 1000, \"seconds\": 0.5, \"itemsPerSecond\": 2000.0,"
          + " \"cpuSeconds\": 0.25},"
          + "{\"phase\": \"idle-rescan\", \"items\": 1000, \"seconds\": 0.1,"
          + " \"itemsPerSecond\": 10000.0, \"cpuSeconds\": 0.05}";

  @Test
  void bothPassesRunOnSqliteAndLandInTheResultsFile(@TempDir Path dir) throws Exception {
    // A variant of the first sync (a batch handler, say) is compared with the same Camel pass.
    Path file =
        results(
            dir,
            "sqlite",
            BOTH
                + ",{\"phase\": \"first-sync-batch\", \"items\": 1000, \"itemsPerSecond\": 4000.0}");

    assertThat(CamelPeer.run(new String[] {"--results", file.toString()})).isZero();

    JsonNode root = Items.MAPPER.readTree(file.toFile());
    JsonNode peer = root.get("peer");
    JsonNode sync = peer.get("phases").get(0);
    JsonNode idle = peer.get("phases").get(1);
    // First sync: every key new, all 1000 passed on; 2 pages of 500, then the empty page 3.
    assertThat(sync.get("phase").asText()).isEqualTo("first-sync");
    assertThat(sync.get("passedOn").asLong()).isEqualTo(1000);
    assertThat(sync.get("duplicates").asLong()).isZero();
    assertThat(sync.get("requests").asInt()).isEqualTo(3);
    // Idle re-scan: every key already in the repository.
    assertThat(idle.get("phase").asText()).isEqualTo("idle-rescan");
    assertThat(idle.get("passedOn").asLong()).isZero();
    assertThat(idle.get("duplicates").asLong()).isEqualTo(1000);
    assertThat(peer.get("repository").get("rows").asLong()).isEqualTo(1000);
    // The ratios are watukuy over Camel, from the bench's numbers above.
    assertThat(sync.get("ratio").asDouble())
        .isCloseTo(2000.0 / sync.get("itemsPerSecond").asDouble(), within(1e-9));
    assertThat(sync.get("cpuRatio").asDouble())
        .isCloseTo(sync.get("cpuSeconds").asDouble() / 0.25, within(1e-9));
    assertThat(idle.get("ratio").asDouble())
        .isCloseTo(10000.0 / idle.get("itemsPerSecond").asDouble(), within(1e-9));
    assertThat(root.get("phases").get(0).get("camelRatio").asDouble())
        .isEqualTo(sync.get("ratio").asDouble());
    assertThat(root.get("phases").get(1).get("camelRatio").asDouble())
        .isEqualTo(idle.get("ratio").asDouble());
    assertThat(root.get("phases").get(2).get("camelRatio").asDouble())
        .isCloseTo(4000.0 / sync.get("itemsPerSecond").asDouble(), within(1e-9));
    assertThat(sync.get("alsoCompared").get("first-sync-batch").get("ratio").asDouble())
        .isEqualTo(root.get("phases").get(2).get("camelRatio").asDouble());
    assertThat(idle.has("alsoCompared")).isFalse();
    assertThat(peer.get("routeSource").asText())
        .contains("class ListingSyncRoute", "idempotentConsumer", "loopDoWhile");
    assertThat(peer.get("doesNotDo").toString()).contains("deletes", "crash", "order", "budget");
  }

  @Test
  void refusesAStoreWithoutAJdbcDatabase(@TempDir Path dir) throws Exception {
    Path file = results(dir, "redis", BOTH);

    assertThatThrownBy(() -> CamelPeer.run(new String[] {"--results", file.toString()}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("store 'redis'");
  }

  @Test
  void refusesAResultsFileWithoutTheSnapshotPhases(@TempDir Path dir) throws Exception {
    Path file = results(dir, "sqlite", "{\"phase\": \"ts-first-sync\", \"itemsPerSecond\": 1.0}");

    assertThatThrownBy(() -> CamelPeer.run(new String[] {"--results", file.toString()}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no first-sync phase");
  }
}
