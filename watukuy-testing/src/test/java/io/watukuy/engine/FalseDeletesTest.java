package io.watukuy.engine;

import static io.watukuy.engine.Items.item;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.FetchException;
import io.watukuy.Fetcher;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A full listing must not report an item deleted that still exists (docs/operations.md, "False
 * deletes"): a listing that shifted under the scan (its totals disagree) emits no deletes, and the
 * delete guard holds a wipe-out that looks complete until an operator confirms it.
 */
class FalseDeletesTest {
  static final PollerKey CATALOG = PollerKey.of("catalog");

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();

  @Test
  void aThousandKnownItemsAndAnEmptyListingHoldEveryDeleteAndSaySo() {
    f.seed(1000);
    Watukuy w = engine(f.snapshot("catalog", 500).build());
    w.tick();
    for (JsonNode n : f.api.items()) f.api.delete(n.get("id").asText());
    f.nextCycle();

    KeyReport report = w.tick().poller("catalog").orElseThrow();

    assertThat(handler.changes()).hasSize(1000).noneMatch(c -> c.endsWith(":deleted"));
    assertThat(((FetchException) report.error()).kind()).isEqualTo("DeleteGuard");
    ScheduleState s = state();
    assertThat(s.listing().heldDeletes()).isEqualTo(1000);
    assertThat(s.lastError().name()).isEqualTo("DeleteGuard");
    assertThat(s.lastError().message())
        .contains("1000 stored items are missing", "confirm-deletes");
    assertThat(s.consecutiveFailures()).isZero();
    assertThat(f.store.countItems(CATALOG)).isEqualTo(1000);

    // Still gone next cycle: still held, nothing emitted.
    f.nextCycle();
    w.tick();
    assertThat(handler.changes()).hasSize(1000);

    // Confirmed: the next complete listing emits them once, and the guard is armed again.
    w.confirmDeletes("catalog");
    assertThat(state().listing().deletesConfirmed()).isTrue();
    f.nextCycle();
    KeyReport confirmed = w.tick().poller("catalog").orElseThrow();

    assertThat(confirmed.error()).isNull();
    assertThat(handler.changes()).hasSize(2000);
    assertThat(handler.changes().subList(1000, 2000)).allMatch(c -> c.endsWith(":deleted"));
    assertThat(state().listing()).isNull();
  }

  @Test
  void fiveKnownItemsAndOneMissingEmitTheDelete() {
    f.seed(5);
    Watukuy w = engine(f.snapshot("catalog", 2).build());
    w.tick();
    f.api.delete("o003");
    f.nextCycle();

    KeyReport report = w.tick().poller("catalog").orElseThrow();

    assertThat(report.error()).isNull();
    assertThat(handler.changes()).last().isEqualTo("o003:deleted");
  }

  @Test
  void theGuardIsConfiguredPerPollerAndARatioOfOneTurnsItOff() {
    f.seed(20);
    Watukuy w = engine(f.snapshot("catalog", 10).deleteGuard(1.0, 0).build());
    w.tick();
    for (int i = 1; i <= 20; i++) f.api.delete(String.format("o%03d", i));
    f.nextCycle();

    w.tick();

    assertThat(handler.changes().stream().filter(c -> c.endsWith(":deleted"))).hasSize(20);
    assertThatThrownBy(() -> f.snapshot("catalog", 1).deleteGuard(0, 10))
        .isInstanceOf(ConfigException.class)
        .hasMessage("poller catalog: deletes.maxRatio must be in (0, 1], but was 0.0");
    assertThatThrownBy(() -> f.snapshot("catalog", 1).deleteGuard(0.5, -1))
        .isInstanceOf(ConfigException.class)
        .hasMessage("poller catalog: deletes.minCount must be >= 0, but was -1");
  }

  @Test
  void aListingWhoseTotalsDisagreeEmitsNoDeletesAndThreeInARowAreAnError() {
    List<List<String>> pages = new ArrayList<>();
    pages.add(List.of("a", "b"));
    pages.add(List.of("c"));
    long[] totals = {3, 3};
    Fetcher<JsonNode, Void> listing =
        ctx -> {
          int i = ctx.page() - 1;
          List<JsonNode> items = new ArrayList<>();
          for (String id : pages.get(i)) items.add(item("id", id));
          return Page.of(items).withHasMore(i + 1 < pages.size()).withTotal(totals[i]);
        };
    Watukuy w =
        engine(
            Poller.builder("catalog", JsonNode.class)
                .identity(n -> n.get("id"))
                .cursor(Cursors.snapshotDiff())
                .fetch(listing)
                .schedule(Fixture.FIXED)
                .build());
    w.tick();
    assertThat(handler.changes()).containsExactly("a:created", "b:created", "c:created");

    // "a" is deleted after page 1 was served: page 2 starts one item later, "c" is on no page.
    pages.set(1, List.of());
    totals[1] = 2;
    for (int cycle = 1; cycle <= 3; cycle++) {
      f.nextCycle();
      KeyReport r = w.tick().poller("catalog").orElseThrow();
      assertThat(state().lastPoll().inconsistent()).isTrue();
      assertThat(state().listing().inconsistentInARow()).isEqualTo(cycle);
      if (cycle < 3) assertThat(r.error()).isNull();
      else assertThat(((FetchException) r.error()).kind()).isEqualTo("ListingInconsistent");
    }
    assertThat(handler.changes()).containsExactly("a:created", "b:created", "c:created");
    assertThat(state().lastError().name()).isEqualTo("ListingInconsistent");

    // Consistent again ("a" is gone, "c" is back on page 2): deletes computed afresh.
    pages.set(0, List.of("b"));
    pages.set(1, List.of("c"));
    totals[0] = 2;
    totals[1] = 2;
    f.nextCycle();
    w.tick();

    assertThat(handler.changes()).last().isEqualTo("a:deleted");
    assertThat(state().lastPoll().inconsistent()).isFalse();
    assertThat(state().listing()).isNull();
  }

  @Test
  void aNegativeTotalIsRefused() {
    assertThatThrownBy(() -> Page.empty().withTotal(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("total must be >= 0, but was -1");
  }

  private ScheduleState state() {
    return f.store.loadState(CATALOG).orElseThrow().schedule();
  }

  private Watukuy engine(Poller<JsonNode> p) {
    return f.engine("a").poller(p).build().on(p, handler);
  }
}
