package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo vendor's world: a new one is brought to the present, a saved one is kept as it is. */
class DemoVendorTest {
  /** The recording: issue #n was created and last updated at 04:38:40Z + 3(n-1) s on 2022-07-19. */
  private static final Instant RECORDED_NEWEST = Instant.parse("2022-07-19T04:39:16Z");

  @TempDir Path dir;

  private TreeMap<Integer, JsonNode> saved(Path file) throws IOException {
    TreeMap<Integer, JsonNode> issues = new TreeMap<>();
    for (JsonNode issue : new ObjectMapper().readTree(file.toFile()).path("issues")) {
      issues.put(issue.path("number").asInt(), issue);
    }
    return issues;
  }

  @Test
  void aNewWorldEndsNowWithTheRecordedSpacing() throws IOException {
    Path file = dir.resolve(DemoCommand.VENDOR_FILE);
    Instant now = Instant.parse("2030-01-01T12:00:00.700Z");
    try (DemoVendor vendor = new DemoVendor(file, () -> now, Duration.ofHours(1))) {
      assertThat(vendor.size()).isEqualTo(13);
    }

    TreeMap<Integer, JsonNode> issues = saved(file);
    assertThat(issues.keySet()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
    for (int n = 1; n <= 13; n++) {
      // Whole seconds, as the vendor writes them: the newest is now, cut to the second.
      String expected =
          Instant.parse("2030-01-01T12:00:00Z").minusSeconds(3L * (13 - n)).toString();
      assertThat(issues.get(n).path("created_at").asText()).as("#%d", n).isEqualTo(expected);
      assertThat(issues.get(n).path("updated_at").asText()).as("#%d", n).isEqualTo(expected);
    }
  }

  @Test
  void aSavedWorldKeepsItsOwnTimestamps() throws IOException {
    Path file = dir.resolve(DemoCommand.VENDOR_FILE);
    try (DemoVendor first =
        new DemoVendor(file, () -> RECORDED_NEWEST.plus(Duration.ofDays(1)), Duration.ofHours(1))) {
      first.mutate();
    }
    TreeMap<Integer, JsonNode> before = saved(file);

    try (DemoVendor again =
        new DemoVendor(
            file, () -> RECORDED_NEWEST.plus(Duration.ofDays(400)), Duration.ofHours(1))) {
      assertThat(again.resumed()).isTrue();
    }

    assertThat(saved(file)).isEqualTo(before);
  }
}
