package io.watukuy.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.EventType;
import io.watukuy.Lane;
import io.watukuy.spi.OutboxRow;
import java.time.Instant;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

class EnvelopeTest {
  static final Instant AT = Instant.parse("2026-03-01T10:00:00.123456Z");

  @Test
  void jsonFormHasEveryFieldInTheDesignOrderWithNullsPresent() {
    String json =
        Envelope.of(
                "abc",
                EventType.DELETED,
                "orders",
                "",
                "o1",
                "o1",
                "v1",
                null,
                1,
                Lane.LIVE,
                7,
                AT,
                null,
                null)
            .toString();

    JsonNode n = Json.tree(json);
    List<String> names =
        StreamSupport.stream(((Iterable<String>) n::fieldNames).spliterator(), false).toList();
    assertThat(names)
        .containsExactly(
            "id",
            "type",
            "source",
            "partition",
            "identity",
            "orderingKey",
            "version",
            "hash",
            "schemaVersion",
            "lane",
            "sequence",
            "observedAt",
            "data",
            "previous",
            "attempt");
    assertThat(n.get("hash").isNull()).isTrue();
    assertThat(n.get("data").isNull()).isTrue();
    assertThat(n.get("type").asText()).isEqualTo("deleted");
    assertThat(n.get("lane").asText()).isEqualTo("live");
  }

  @Test
  void observedAtIsUtcWithExactlyThreeFractionDigits() {
    assertThat(Envelope.instant(AT)).isEqualTo("2026-03-01T10:00:00.123Z");
    assertThat(Envelope.instant(Instant.parse("2026-03-01T10:00:00Z")))
        .isEqualTo("2026-03-01T10:00:00.000Z");
  }

  @Test
  void storedRowBecomesAnEventWithTheRowsSequenceAndNextAttempt() {
    JsonNode data = Json.tree("{\"id\":\"o1\",\"n\":1}");
    String json =
        Envelope.of(
                "abc",
                EventType.CREATED,
                "orders",
                "eu",
                "o1",
                "k",
                "v1",
                "h",
                2,
                Lane.LIVE,
                7,
                AT,
                data,
                null)
            .toString();
    OutboxRow row = new OutboxRow(7, "abc", "k", json, 2, null, null, AT);

    ChangeEvent<JsonNode> e = Envelope.toEvent(row, JsonNode.class);

    assertThat(e.attempt()).isEqualTo(3);
    assertThat(e.sequence()).isEqualTo(7);
    assertThat(e.partition()).isEqualTo("eu");
    assertThat(e.orderingKey()).isEqualTo("k");
    assertThat(e.schemaVersion()).isEqualTo(2);
    assertThat(e.observedAt()).isEqualTo(Instant.parse("2026-03-01T10:00:00.123Z"));
    assertThat(e.data()).isEqualTo(data);
    assertThat(Json.tree(e.toJson()).get("attempt").asInt()).isEqualTo(3);
  }

  record Item(String id, int n) {}

  @Test
  void dataIsConvertedToThePollersItemType() {
    String json =
        Envelope.of(
                "abc",
                EventType.CREATED,
                "orders",
                "",
                "o1",
                "o1",
                "v1",
                "h",
                1,
                Lane.LIVE,
                1,
                AT,
                Json.tree("{\"id\":\"o1\",\"n\":5}"),
                null)
            .toString();
    ChangeEvent<Item> e =
        Envelope.toEvent(new OutboxRow(1, "abc", "o1", json, 0, null, null, AT), Item.class);
    assertThat(e.data()).isEqualTo(new Item("o1", 5));
  }
}
