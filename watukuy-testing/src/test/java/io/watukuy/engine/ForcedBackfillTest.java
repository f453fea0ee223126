package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.Fetcher;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A forced backfill re-emits each known item once (docs/architecture.md, "Lanes"): an inclusive
 * filter ({@code updatedAt >= value}) lists the watermark's item again on the next page, and the
 * page cap splits a backfill across cycles, but a second event with the same id could not be told
 * from a redelivery.
 */
class ForcedBackfillTest {
  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();

  /** updatedAt to identity, as the vendor lists them. */
  final Map<String, String> rows = new TreeMap<>();

  @Test
  void eachKnownItemIsReEmittedOnceAcrossPagesAndCyclesOfAnInclusiveListing() {
    for (int i = 1; i <= 7; i++) rows.put("2026-03-01T09:0" + i + ":00Z", "i" + i);
    Poller<JsonNode> items =
        Poller.builder("items", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.get("updatedAt"))
            .cursor(Cursors.timestamp("updatedAt").build())
            .fetch(inclusive(3))
            .schedule(Fixture.FIXED)
            .maxPagesPerCycle(2)
            .build();
    Watukuy w = f.engine("a").poller(items).build().on(items, handler);
    for (int cycle = 0; cycle < 4; cycle++) {
      w.tick();
      f.nextCycle();
    }
    assertThat(handler.changes()).hasSize(7).allMatch(c -> c.endsWith(":created"));

    w.backfill("items", "2026-03-01T09:00:00Z", "2026-03-01T09:07:00Z", true);
    f.clock.advance(Duration.ofSeconds(1)); // the backfill runs after it was asked for
    for (int cycle = 0; cycle < 6; cycle++) {
      w.trigger("items");
      w.tick();
      f.nextCycle();
    }

    List<ChangeEvent<?>> updates = new ArrayList<>();
    for (ChangeEvent<?> e : handler.events()) if (e.type().wire().equals("updated")) updates.add(e);
    assertThat(updates)
        .extracting(ChangeEvent::identity)
        .containsExactlyInAnyOrder("i1", "i2", "i3", "i4", "i5", "i6", "i7");
    assertThat(updates).extracting(ChangeEvent::id).doesNotHaveDuplicates();
  }

  @Test
  void aForcedBackfillToTheLiveCursorReEmitsEveryItemTiedAtItsInstant() {
    rows.clear();
    List<String[]> keyed = new ArrayList<>();
    keyed.add(new String[] {"2026-03-01T09:01:00Z", "i1"});
    keyed.add(new String[] {"2026-03-01T09:01:00Z", "i2"});
    for (int i = 3; i <= 6; i++) keyed.add(new String[] {"2026-03-01T09:02:00Z", "i" + i});
    // Keyset pages of 3 over (updatedAt, id): the first backfill page ends inside the tie at the
    // live cursor's instant, which must not read as the target reached.
    Fetcher<JsonNode, Watermark> keyset =
        ctx -> {
          Watermark c = ctx.cursor();
          List<JsonNode> page = new ArrayList<>();
          boolean more = false;
          for (String[] r : keyed) {
            if (c != null && c.value() != null) {
              int cmp = r[0].compareTo(c.value());
              if (cmp < 0
                  || (cmp == 0 && c.tieBreak() != null && r[1].compareTo(c.tieBreak()) <= 0))
                continue;
            }
            if (page.size() == 3) {
              more = true;
              break;
            }
            page.add(item("id", r[1], "updatedAt", r[0]));
          }
          return Page.of(page).withHasMore(more);
        };
    Poller<JsonNode> items =
        Poller.builder("items", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.get("updatedAt"))
            .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
            .fetch(keyset)
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(items).build().on(items, handler);
    w.tick();
    assertThat(handler.changes()).hasSize(6);

    w.backfill("items", "2026-03-01T09:00:00Z", null, true);
    f.clock.advance(Duration.ofSeconds(1));
    for (int cycle = 0; cycle < 3; cycle++) {
      w.trigger("items");
      w.tick();
      f.nextCycle();
    }

    assertThat(handler.changes().subList(6, handler.changes().size()))
        .containsExactly(
            "i1:updated", "i2:updated", "i3:updated", "i4:updated", "i5:updated", "i6:updated");
  }

  /** Pages of {@code size} items with {@code updatedAt >= cursor.value}, in updatedAt order. */
  private Fetcher<JsonNode, Watermark> inclusive(int size) {
    return ctx -> {
      String from = ctx.cursor() == null ? null : ctx.cursor().value();
      List<JsonNode> page = new ArrayList<>();
      boolean more = false;
      for (Map.Entry<String, String> r : rows.entrySet()) {
        if (from != null && r.getKey().compareTo(from) < 0) continue;
        if (page.size() == size) {
          more = true;
          break;
        }
        page.add(item("id", r.getValue(), "updatedAt", r.getKey()));
      }
      return Page.of(page).withHasMore(more);
    };
  }
}
