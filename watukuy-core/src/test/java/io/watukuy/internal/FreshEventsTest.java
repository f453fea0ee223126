package io.watukuy.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.ChangeEvent;
import io.watukuy.EventType;
import io.watukuy.Lane;
import io.watukuy.spi.OutboxRow;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

class FreshEventsTest {
  static final Instant AT = Instant.parse("2026-03-01T10:00:00.123456Z");
  static final String ITEM =
      "{\"id\":7,\"title\":\"Caf\\u00e9 \\ud83d\\ude00\",\"n\":1.5,\"big\":12345678901234,"
          + "\"tags\":[\"a\",null,true],\"nested\":{\"x\":[]}}";

  private static ObjectNode envelope(long seq, JsonNode data, JsonNode previous) {
    return Envelope.of(
        "id-" + seq,
        EventType.UPDATED,
        "orders",
        "p1",
        "o7",
        "k7",
        "v2",
        "h2",
        3,
        Lane.BACKFILL,
        seq,
        AT,
        data,
        previous);
  }

  @Test
  void theFirstDecodingOfTheCommittedRowEqualsTheDecodingOfItsStoredJson() {
    ObjectNode env = envelope(5, Json.tree(ITEM), Json.tree("{\"id\":7,\"title\":\"old\"}"));
    OutboxRow row = OutboxRow.pending(5, "id-5", "k7", env.toString(), AT);
    FreshEvents fresh = FreshEvents.forCommit();
    fresh.add(row, env, AT.truncatedTo(ChronoUnit.MILLIS));

    ChangeEvent<JsonNode> fromTree = fresh.toEvent(row, JsonNode.class);
    ChangeEvent<JsonNode> parsed = Envelope.toEvent(row, JsonNode.class);

    assertThat(fromTree).isEqualTo(parsed);
    assertThat(fromTree.observedAt()).isEqualTo(Instant.parse("2026-03-01T10:00:00.123Z"));
    assertThat(fromTree.attempt()).isEqualTo(1);
    assertThat(fromTree.data()).isSameAs(env.get("data"));
    assertThat(fresh.size()).isZero(); // used once
  }

  @Test
  void aSecondDecodingParsesTheStoredJsonSoAChangedTreeIsNotRedelivered() {
    ObjectNode env = envelope(6, Json.tree(ITEM), null);
    OutboxRow row = OutboxRow.pending(6, "id-6", "k7", env.toString(), AT);
    FreshEvents fresh = FreshEvents.forCommit();
    fresh.add(row, env, AT.truncatedTo(ChronoUnit.MILLIS));

    ChangeEvent<JsonNode> first = fresh.toEvent(row, JsonNode.class);
    ((ObjectNode) first.data()).put("title", "changed by the handler");
    ChangeEvent<JsonNode> second = fresh.toEvent(row, JsonNode.class);

    assertThat(second.data().get("title").asText()).isEqualTo("Caf\u00e9 \ud83d\ude00");
    assertThat(second.data()).isNotSameAs(first.data());
  }

  @Test
  void aRowLoadedAgainOrRetriedIsDecodedFromItsJson() {
    ObjectNode env = envelope(8, Json.tree(ITEM), null);
    OutboxRow committed = OutboxRow.pending(8, "id-8", "k7", env.toString(), AT);
    OutboxRow loaded = OutboxRow.pending(8, "id-8", "k7", env.toString(), AT);
    OutboxRow retried =
        new OutboxRow(
            9, "id-9", "k7", envelope(9, Json.tree(ITEM), null).toString(), 2, null, "[]", AT);
    FreshEvents fresh = FreshEvents.forCommit();
    fresh.add(committed, env, AT.truncatedTo(ChronoUnit.MILLIS));
    ObjectNode env9 = envelope(9, Json.tree(ITEM), null);
    fresh.add(retried, env9, AT.truncatedTo(ChronoUnit.MILLIS));

    ChangeEvent<JsonNode> fromLoaded = fresh.toEvent(loaded, JsonNode.class);
    ChangeEvent<JsonNode> fromRetried = fresh.toEvent(retried, JsonNode.class);

    assertThat(fromLoaded.data()).isNotSameAs(env.get("data")).isEqualTo(env.get("data"));
    assertThat(fromRetried.data()).isNotSameAs(env9.get("data"));
    assertThat(fromRetried.attempt()).isEqualTo(3);
  }

  @Test
  void noneKeepsNothingAndDecodesEveryRowFromItsJson() {
    ObjectNode env = envelope(1, Json.tree(ITEM), null);
    OutboxRow row = OutboxRow.pending(1, "id-1", "k7", env.toString(), AT);

    ChangeEvent<JsonNode> e = FreshEvents.NONE.toEvent(row, JsonNode.class);

    assertThat(e).isEqualTo(Envelope.toEvent(row, JsonNode.class));
    assertThat(FreshEvents.NONE.size()).isZero();
  }

  @Test
  void clearForgetsEveryTree() {
    FreshEvents fresh = FreshEvents.forCommit();
    for (long s = 1; s <= 3; s++) {
      ObjectNode env = envelope(s, Json.tree(ITEM), null);
      fresh.add(OutboxRow.pending(s, "id-" + s, "k7", env.toString(), AT), env, AT);
    }
    assertThat(fresh.sequences()).containsExactlyInAnyOrder(1L, 2L, 3L);

    fresh.clear();

    assertThat(fresh.size()).isZero();
  }
}
