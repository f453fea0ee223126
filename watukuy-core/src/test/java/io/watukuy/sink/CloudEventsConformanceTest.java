package io.watukuy.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.provider.EventFormatProvider;
import io.cloudevents.jackson.JsonFormat;
import io.watukuy.ChangeEvent;
import io.watukuy.EventType;
import io.watukuy.Lane;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CloudEvents mapping (docs/sinks.md, "CloudEvents"; issue 18, §6) read back with the
 * CloudEvents Java SDK: every structured event parses as CloudEvents 1.0, and each attribute,
 * extension and the data hold exactly what the mapping says.
 */
class CloudEventsConformanceTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ID = "3f2a".repeat(16);
  private static final Instant OBSERVED = Instant.parse("2024-05-01T10:00:00.123Z");

  private static ChangeEvent<Object> event(
      EventType type, String partition, long sequence, Object data, Object previous, Lane lane) {
    return new ChangeEvent<>(
        ID,
        type,
        "orders",
        partition,
        "order/42 é",
        "customer-7",
        "v3",
        "abc",
        1,
        lane,
        sequence,
        OBSERVED,
        data,
        previous,
        1);
  }

  private static CloudEvent parse(String structured) {
    return EventFormatProvider.getInstance()
        .resolveFormat(JsonFormat.CONTENT_TYPE)
        .deserialize(structured.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aStructuredEventParsesWithTheSdkAndEveryAttributeIsTheMappedValue() throws Exception {
    ChangeEvent<Object> e =
        event(EventType.UPDATED, "", 42, Map.of("id", 42, "total", 9.5), null, Lane.LIVE);

    CloudEvent ce = parse(CloudEvents.structured(e));

    assertThat(ce.getSpecVersion()).isEqualTo(SpecVersion.V1);
    assertThat(ce.getId()).isEqualTo(ID + "-42"); // the delivery key
    assertThat(ce.getSource()).isEqualTo(URI.create("/watukuy/orders"));
    assertThat(ce.getSource().isAbsolute()).isFalse(); // a URI reference
    assertThat(ce.getType()).isEqualTo("io.watukuy.item.updated");
    assertThat(ce.getSubject()).isEqualTo("order/42 é");
    assertThat(ce.getTime().toInstant()).isEqualTo(OBSERVED);
    assertThat(ce.getDataContentType()).isEqualTo("application/json");
    assertThat(ce.getDataSchema()).isNull();
    assertThat(ce.getExtensionNames())
        .containsExactlyInAnyOrder("eventid", "partitionkey", "sequence", "lane");
    assertThat(ce.getExtension("eventid")).isEqualTo(ID);
    assertThat(ce.getExtension("partitionkey")).isEqualTo("customer-7");
    assertThat(ce.getExtension("sequence")).isEqualTo("0000000000000000042");
    assertThat(ce.getExtension("lane")).isEqualTo("live");
    JsonNode data = JSON.readTree(ce.getData().toBytes());
    assertThat(data)
        .isEqualTo(JSON.readTree("{\"item\":{\"id\":42,\"total\":9.5},\"previous\":null}"));
  }

  @Test
  void eachChangeTypeAndLaneIsMappedAndPreviousIsCarriedWhenRetained() throws Exception {
    Map<String, Object> before = Map.of("id", 42, "total", 1);
    for (EventType type : EventType.values()) {
      for (Lane lane : Lane.values()) {
        Object item = type == EventType.DELETED ? null : Map.of("id", 42, "total", 2);
        CloudEvent ce = parse(CloudEvents.structured(event(type, "", 7, item, before, lane)));

        assertThat(ce.getType()).isEqualTo("io.watukuy.item." + type.wire());
        assertThat(ce.getExtension("lane")).isEqualTo(lane.wire());
        JsonNode data = JSON.readTree(ce.getData().toBytes());
        assertThat(data.get("previous")).isEqualTo(JSON.valueToTree(before));
        assertThat(data.get("item")).isEqualTo(JSON.valueToTree(item));
      }
    }
    assertThat(EventType.values()).hasSize(3);
    assertThat(Lane.values())
        .extracting(Lane::wire)
        .contains("live", "replay", "backfill", "reconcile");
  }

  @Test
  void aPartitionIsASecondPathSegmentPercentEncodedSoTheSourceStaysAUriReference() {
    CloudEvent ce =
        parse(
            CloudEvents.structured(
                event(EventType.CREATED, "eu west/1", 1, null, null, Lane.LIVE)));

    assertThat(ce.getSource().toString()).isEqualTo("/watukuy/orders/eu%20west%2F1");
    assertThat(ce.getSource().getRawPath().split("/"))
        .containsExactly("", "watukuy", "orders", "eu%20west%2F1");
  }

  @Test
  void theSequenceExtensionSortsAsTextInTheOrderOfTheNumbers() {
    long[] sequences = {0, 1, 9, 10, 99, 100, 123_456_789, Long.MAX_VALUE};
    for (int i = 1; i < sequences.length; i++) {
      String before = CloudEvents.sequence(sequences[i - 1]);
      String after = CloudEvents.sequence(sequences[i]);
      assertThat(before).hasSize(19).containsOnlyDigits();
      assertThat(before.compareTo(after)).as(before + " < " + after).isNegative();
    }
    assertThat(CloudEvents.sequence(Long.MAX_VALUE)).isEqualTo(Long.toString(Long.MAX_VALUE));
  }

  @Test
  void theBinaryModeAttributesAreTheStructuredOnesAndTheBodyIsItsData() throws Exception {
    ChangeEvent<Object> e =
        event(EventType.CREATED, "eu", 5, Map.of("id", 42), null, Lane.BACKFILL);
    CloudEvent ce = parse(CloudEvents.structured(e));

    Map<String, String> attributes = CloudEvents.attributes(e);

    assertThat(attributes)
        .containsEntry("specversion", "1.0")
        .containsEntry("id", ce.getId())
        .containsEntry("source", ce.getSource().toString())
        .containsEntry("type", ce.getType())
        .containsEntry("subject", ce.getSubject())
        .containsEntry("datacontenttype", ce.getDataContentType());
    assertThat(Instant.parse(attributes.get("time"))).isEqualTo(ce.getTime().toInstant());
    for (String ext : ce.getExtensionNames())
      assertThat(attributes).containsEntry(ext, String.valueOf(ce.getExtension(ext)));
    assertThat(attributes).hasSize(7 + ce.getExtensionNames().size());
    assertThat(JSON.readTree(CloudEvents.data(e))).isEqualTo(JSON.readTree(ce.getData().toBytes()));
    assertThat(JSON.readTree(EventFormat.CLOUDEVENTS.body(e)))
        .isEqualTo(JSON.readTree(CloudEvents.data(e)));
  }
}
