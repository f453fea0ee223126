package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.FetchException;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A full listing cut at its page cap cannot tell which items are gone (docs/operations.md,
 * "Truncated listings"): no deletes, {@code lastPoll.truncated}, {@code lastError} {@code
 * ListingTruncated} with the cap and the pages reached, an error in the report (so {@code run
 * --once} exits 1), but no backoff and no circuit.
 */
class TruncatedListingTest {
  static final PollerKey CATALOG = PollerKey.of("catalog");

  final Fixture f = new Fixture();
  final Recorder handler = new Recorder();

  @Test
  void aListingCutAtMaxPagesPerListingEmitsNoDeletesAndSaysSoWithoutCountingAFailure() {
    f.seed(4); // 2 pages: the first listing completes
    Poller<JsonNode> catalog = f.snapshot("catalog", 2).maxPagesPerCycle(3).build();
    Watukuy w = f.engine("a").poller(catalog).build().on(catalog, handler);
    w.tick();
    // Now 9 items in 5 pages, and o001 is gone: a listing cut at page 3 cannot know that.
    for (int i = 5; i <= 10; i++) f.api.put(String.format("o%03d", i), Map.of("n", i));
    f.api.delete("o001");
    f.nextCycle();

    KeyReport report = w.tick().poller("catalog").orElseThrow();

    assertThat(report.pages()).isEqualTo(3);
    assertThat(report.truncated()).isTrue();
    FetchException e = (FetchException) report.error();
    assertThat(e.kind()).isEqualTo("ListingTruncated");
    assertThat(e.getMessage())
        .contains(
            "read 3 pages and reached its page cap, maxPagesPerCycle=3", "No deletes this cycle");
    ScheduleState s = f.store.loadState(CATALOG).orElseThrow().schedule();
    assertThat(s.lastPoll().truncated()).isTrue();
    assertThat(s.lastError().name()).isEqualTo("ListingTruncated");
    assertThat(s.consecutiveFailures()).isZero();
    assertThat(s.circuit()).isNull();
    assertThat(s.state()).isEqualTo(ScheduleState.Status.IDLE);
    assertThat(handler.changes())
        .containsExactly(
            "o001:created",
            "o002:created",
            "o003:created",
            "o004:created",
            "o005:created",
            "o006:created",
            "o007:created");
  }

  @Test
  void fullListingsDefaultToTenThousandPagesSoASixtyPageListingCompletesAndDeletes() {
    f.seed(61);
    Poller<JsonNode> catalog = f.snapshot("catalog", 1).build();
    assertThat(catalog.maxPagesPerListing()).isEqualTo(10_000);
    assertThat(catalog.maxPagesPerCycle()).isEqualTo(50);
    Watukuy w = f.engine("a").poller(catalog).build().on(catalog, handler);
    w.tick();
    f.api.delete("o061");
    f.nextCycle();

    KeyReport second = w.tick().poller("catalog").orElseThrow();

    assertThat(second.error()).isNull();
    assertThat(second.truncated()).isFalse();
    assertThat(handler.changes()).hasSize(62).last().isEqualTo("o061:deleted");
  }
}
