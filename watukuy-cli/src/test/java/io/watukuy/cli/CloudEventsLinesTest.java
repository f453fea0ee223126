package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.provider.EventFormatProvider;
import io.cloudevents.jackson.JsonFormat;
import io.watukuy.testing.ReadsWallClock;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code format: cloudevents} on the stdout and file sinks (docs/sinks.md, "stdout and file"; issue
 * 18, §6): every line is one CloudEvents 1.0 structured event that the CloudEvents Java SDK parses,
 * with the mapping's values computed from their definitions (the event id's formula, the sequence
 * per key from 1), not read back from the output.
 */
class CloudEventsLinesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** The event id of an item without a version: the hash of its canonical JSON stands in. */
  private static String eventId(
      String poller, String partition, String item, String id, String type) {
    return sha256(
        "watukuy|v1|" + poller + "|" + partition + "|" + id + "|" + sha256(item) + "|1|" + type);
  }

  private static CloudEvent parse(String line) {
    return EventFormatProvider.getInstance()
        .resolveFormat(JsonFormat.CONTENT_TYPE)
        .deserialize(line.getBytes(StandardCharsets.UTF_8));
  }

  private String config(String url) throws IOException {
    return Files.writeString(
            dir.resolve("watukuy.yaml"),
            """
            store: sqlite:state.db
            sink: { type: stdout, format: cloudevents }
            pollers:
              - name: items
                request: { url: "%s" }
                response: { items: "" }
                identity: /id
                cursor: { strategy: snapshotDiff }
              - name: orders
                partitions: ["eu west"]
                request: { url: "%s" }
                response: { items: "" }
                identity: /id
                cursor: { strategy: snapshotDiff }
                sink: { type: file, path: orders.jsonl, format: cloudevents }
            """
                .formatted(url, url))
        .toString();
  }

  private static void assertEvent(
      CloudEvent ce,
      String poller,
      String partition,
      String source,
      String item,
      String id,
      String type,
      long sequence,
      Instant from,
      Instant to)
      throws IOException {
    String eventId = eventId(poller, partition, item, id, type);
    assertThat(ce.getSpecVersion()).isEqualTo(SpecVersion.V1);
    assertThat(ce.getId()).isEqualTo(eventId + "-" + sequence);
    assertThat(ce.getSource()).isEqualTo(URI.create(source));
    assertThat(ce.getType()).isEqualTo("io.watukuy.item." + type);
    assertThat(ce.getSubject()).isEqualTo(id);
    assertThat(ce.getTime().toInstant()).isBetween(from.minusMillis(1), to);
    assertThat(ce.getDataContentType()).isEqualTo("application/json");
    assertThat(ce.getExtension("eventid")).isEqualTo(eventId);
    assertThat(ce.getExtension("partitionkey")).isEqualTo(id);
    assertThat(ce.getExtension("sequence")).isEqualTo(String.format("%019d", sequence));
    assertThat(ce.getExtension("lane")).isEqualTo("live");
    assertThat(JSON.readTree(ce.getData().toBytes()))
        .isEqualTo(JSON.readTree("{\"item\":" + item + ",\"previous\":null}"));
  }

  @Test
  @ReadsWallClock("time is observedAt, which the command line's engine takes from the system clock")
  void stdoutAndFileLinesAreCloudEventsTheSdkParsesWithTheMappedValues() throws IOException {
    try (JsonServer vendor = new JsonServer().answer("[{\"id\":1},{\"id\":2,\"n\":\"b\"}]")) {
      String config = config(vendor.url("/"));
      Instant from = Instant.now();

      CliRun run = CliRun.of("run", config, "--once");

      Instant to = Instant.now();
      assertThat(run.exit()).as(run.stderr()).isZero();
      List<String> out = run.stdout().lines().toList();
      List<String> file = Files.readAllLines(dir.resolve("orders.jsonl"));
      assertThat(out).hasSize(2);
      assertThat(file).hasSize(2);
      String one = "{\"id\":1}";
      String two = "{\"id\":2,\"n\":\"b\"}";
      assertEvent(
          parse(out.get(0)), "items", "", "/watukuy/items", one, "1", "created", 1, from, to);
      assertEvent(
          parse(out.get(1)), "items", "", "/watukuy/items", two, "2", "created", 2, from, to);
      String eu = "/watukuy/orders/eu%20west";
      assertEvent(parse(file.get(0)), "orders", "eu west", eu, one, "1", "created", 1, from, to);
      assertEvent(parse(file.get(1)), "orders", "eu west", eu, two, "2", "created", 2, from, to);
    }
  }

  @Test
  void anUpdateAndADeleteAreCloudEventsOfTheirTypesWithTheNextSequences() throws IOException {
    try (JsonServer vendor = new JsonServer().answer("[{\"id\":1},{\"id\":2}]")) {
      String config = config(vendor.url("/"));
      assertThat(CliRun.of("run", config, "--once").exit()).isZero();
      vendor.answer("[{\"id\":1,\"n\":\"x\"}]");

      CliRun run = CliRun.of("run", config, "--once");

      assertThat(run.exit()).as(run.stderr()).isZero();
      List<CloudEvent> events = run.stdout().lines().map(CloudEventsLinesTest::parse).toList();
      assertThat(events)
          .extracting(CloudEvent::getType, CloudEvent::getSubject, e -> e.getExtension("sequence"))
          .containsExactlyInAnyOrder(
              org.assertj.core.groups.Tuple.tuple(
                  "io.watukuy.item.updated", "1", "0000000000000000003"),
              org.assertj.core.groups.Tuple.tuple(
                  "io.watukuy.item.deleted", "2", "0000000000000000004"));
      CloudEvent updated =
          events.stream().filter(e -> e.getSubject().equals("1")).findFirst().orElseThrow();
      JsonNode data = JSON.readTree(updated.getData().toBytes());
      assertThat(data.get("item")).isEqualTo(JSON.readTree("{\"id\":1,\"n\":\"x\"}"));
      assertThat(updated.getId())
          .isEqualTo(eventId("items", "", "{\"id\":1,\"n\":\"x\"}", "1", "updated") + "-3");
    }
  }
}
