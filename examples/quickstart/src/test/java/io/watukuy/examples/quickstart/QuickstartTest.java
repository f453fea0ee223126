package io.watukuy.examples.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The quickstart runs as written against its local vendor, and a rerun re-sends nothing. */
class QuickstartTest {
  @TempDir Path dir;

  @Test
  void quickstartDeliversEveryChangeOnceAcrossRuns() throws Exception {
    Path db = dir.resolve("quickstart.db");

    List<JsonNode> first = run(db);
    assertThat(first)
        .extracting(e -> e.get("identity").asText() + ":" + e.get("type").asText())
        .containsExactlyInAnyOrder(
            "SKU-1:created", "SKU-2:created", "SKU-3:created", "SKU-2:updated", "SKU-4:created");
    // Order holds per ordering key (the identity), not across keys.
    List<JsonNode> sku2 =
        first.stream().filter(e -> e.get("identity").asText().equals("SKU-2")).toList();
    assertThat(sku2).extracting(e -> e.get("type").asText()).containsExactly("created", "updated");
    assertThat(sku2.get(1).at("/data/price").asInt()).isEqualTo(1250);
    assertThat(first).allSatisfy(e -> assertThat(e.get("source").asText()).isEqualTo("products"));

    assertThat(run(db)).isEmpty();
  }

  private static List<JsonNode> run(Path db) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Quickstart.run(
            db,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).isZero();
    List<JsonNode> events = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    for (String line : out.toString(StandardCharsets.UTF_8).split("\n"))
      if (!line.isBlank()) events.add(json.readTree(line));
    return events;
  }
}
