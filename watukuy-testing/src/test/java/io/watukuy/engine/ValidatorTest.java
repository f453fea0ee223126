package io.watukuy.engine;

import static io.watukuy.engine.Items.liveCursor;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Validator;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.Lease;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.ForwardingStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A validator parks invalid items as kind invalid in the commit of their page. */
class ValidatorTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  static final Validator<JsonNode> NON_NEGATIVE_PRICE =
      n ->
          n.path("price").asInt() < 0
              ? List.of("price must be >= 0, but was " + n.path("price").asInt())
              : List.of();

  final List<CommitBatch> commits = new ArrayList<>();
  final Fixture f =
      new Fixture(
          new ForwardingStore(new MemoryStore()) {
            @Override
            public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
              super.commitPoll(key, lease, batch, now);
              commits.add(batch);
            }
          });
  final Recorder handler = new Recorder();
  final List<ParkedRow> notified = new ArrayList<>();

  @Test
  void invalidItemIsParkedWithTheValidationMessageAndTheOthersStillProduceEvents() {
    f.api.put("a", Map.of("price", 1));
    f.api.put("b", Map.of("price", -5));
    f.api.put("c", Map.of("price", 2));
    Watukuy w = engine(NON_NEGATIVE_PRICE);

    KeyReport report = w.tick().poller("orders").orElseThrow();

    assertThat(report.error()).isNull();
    assertThat(report.parked()).isEqualTo(1);
    assertThat(handler.changes()).containsExactly("a:created", "c:created");
    List<ParkedRow> parked = f.store.listParked(ORDERS, ParkedKind.INVALID, 10);
    assertThat(parked).hasSize(1);
    ParkedRow row = parked.get(0);
    assertThat(row.kind()).isEqualTo(ParkedKind.INVALID);
    assertThat(row.eventId()).isNull();
    assertThat(json(row.item()).get("id").asText()).isEqualTo("b");
    assertThat(json(row.error()).get("message").asText())
        .contains("price must be >= 0, but was -5");
    assertThat(f.store.countItems(ORDERS)).isEqualTo(2);
    assertThat(notified).extracting(ParkedRow::id).containsExactly(row.id());
  }

  @Test
  void parkedItemsAndTheEventsOfTheirPageAreOneCommit() {
    f.api.put("a", Map.of("price", 1));
    f.api.put("b", Map.of("price", -5));
    f.api.put("c", Map.of("price", 2));
    Watukuy w = engine(NON_NEGATIVE_PRICE);

    w.tick();

    assertThat(commits).hasSize(1);
    CommitBatch batch = commits.get(0);
    assertThat(batch.events()).hasSize(2);
    assertThat(batch.parked()).hasSize(1);
    assertThat(batch.upserts()).extracting(r -> r.identity()).containsExactly("a", "c");
    // The page's cursor moves past the parked item in that same commit.
    assertThat(batch.statePatch().cursors()).containsKey("live");
    assertThat(liveCursor(f.store, ORDERS).get("tieBreak").asText()).isEqualTo("c");
  }

  @Test
  void validatorThatThrowsParksTheItemWithTheError() {
    f.api.put("a", Map.of("price", 1));
    f.api.put("b", Map.of("price", 2));
    Watukuy w =
        engine(
            n -> {
              if (n.get("id").asText().equals("b"))
                throw new IllegalArgumentException("schema not loaded");
              return List.of();
            });

    KeyReport report = w.tick().poller("orders").orElseThrow();

    assertThat(report.error()).isNull();
    assertThat(handler.changes()).containsExactly("a:created");
    ParkedRow row = f.store.listParked(ORDERS, ParkedKind.INVALID, 10).get(0);
    assertThat(json(row.error()).get("message").asText()).contains("schema not loaded");
  }

  @Test
  void itemFixedUpstreamIsCreatedOnALaterCycle() {
    f.api.put("b", Map.of("price", -5));
    Watukuy w = engine(NON_NEGATIVE_PRICE);
    w.tick();
    assertThat(handler.changes()).isEmpty();

    f.nextCycle();
    f.api.put("b", Map.of("price", 5));
    w.tick();

    assertThat(handler.changes()).containsExactly("b:created");
  }

  @Test
  void everyProblemOfAnItemIsInTheParkedRow() {
    f.api.put("a", Map.of());
    Watukuy w = engine(n -> List.of("price is required", "currency is required"));

    w.tick();

    ParkedRow row = f.store.listParked(ORDERS, ParkedKind.INVALID, 10).get(0);
    assertThat(json(row.error()).get("message").asText())
        .contains("price is required")
        .contains("currency is required");
  }

  private Watukuy engine(Validator<JsonNode> validator) {
    Poller<JsonNode> orders =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
            .validator(validator)
            .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
            .fetch(f.api.timestampFetcher(10))
            .schedule(Fixture.FIXED)
            .build();
    WatukuyListener listener =
        new WatukuyListener() {
          @Override
          public void onParked(PollerKey key, ParkedRow row) {
            notified.add(row);
          }
        };
    return f.engine("a").poller(orders).listener(listener).build().on(orders, handler);
  }

  private static JsonNode json(String text) {
    try {
      return Items.MAPPER.readTree(text);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
