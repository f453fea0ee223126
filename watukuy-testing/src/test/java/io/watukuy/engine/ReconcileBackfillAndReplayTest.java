package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.EventLog;
import io.watukuy.KeyInspection;
import io.watukuy.KeyReport;
import io.watukuy.Lane;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Reconcile;
import io.watukuy.Schedule;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The lanes besides live (docs/architecture.md, "Lanes"): reconcile next to a live listing that
 * answers 304, and after a cut listing; backfill with {@code force} on page and timestamp pollers;
 * replay's time window; the log's retention held by an effect's watermark.
 */
class ReconcileBackfillAndReplayTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  final Fixture f = new Fixture();
  final Recorder r = new Recorder();

  /**
   * Reconcile brings deletes to incremental strategies, whose quiet feeds answer 304 (here a 304
   * the fetch handled itself, {@code Page.notModified()}): each live cycle is an idle 304, and the
   * reconcile lane still runs every 6 h and emits the delete.
   */
  @Test
  void reconcileRunsAndEmitsTheDeleteWhileEveryLiveCycleIsNotModified() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .fetch(
                ctx -> {
                  Page<JsonNode> p = f.api.updatedSince(ctx.cursor(), 10);
                  return p.items().isEmpty() && ctx.page() == 1 && f.api.requests() > 1
                      ? Page.notModified()
                      : p;
                })
            .reconcile(Reconcile.every(Duration.ofHours(6), ctx -> f.api.page(ctx.page(), 10)))
            .build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(3);
    Instant start = f.clock.now();
    w.tick();
    f.api.delete("o002");
    for (int i = 0; i < 30; i++) { // 15 hours of 30-min steps
      f.clock.advance(Duration.ofMinutes(30));
      KeyReport live = w.tick().key(ORDERS).orElseThrow();
      assertThat(live.notModified()).as("live cycle %d", i).isTrue();
      assertThat(live.error()).as("live cycle %d", i).isNull();
    }

    assertThat(r.changes())
        .containsExactly("o001:created", "o002:created", "o003:created", "o002:deleted");
    assertThat(r.events().get(3).lane()).isEqualTo(Lane.RECONCILE);
    KeyInspection k = w.inspect().key(ORDERS).orElseThrow();
    assertThat(k.lastReconcileAt()).isEqualTo(start.plus(Duration.ofHours(12)));
    assertThat(k.consecutiveFailures()).isZero();
    assertThat(k.state()).isEqualTo(ScheduleState.Status.IDLE);
  }

  /**
   * A 304 is trusted when the previous live cycle was one page (docs/architecture.md, "304 Not
   * Modified"); a cycle that failed in between does not take that away: the next 304 is an idle
   * cycle, the failure count resets, and {@code lastError} keeps the failure.
   */
  @Test
  void a304AfterOneTransientFailureIsStillAnIdleCycle() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .fetch(
                ctx -> {
                  Page<JsonNode> p = f.api.updatedSince(ctx.cursor(), 10);
                  return p.items().isEmpty() && ctx.page() == 1 && f.api.requests() > 2
                      ? Page.notModified()
                      : p;
                })
            .build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(3);
    w.tick(); // 200, one page
    f.nextCycle();
    w.tick(); // 200 empty, one page
    f.nextCycle();
    assertThat(w.tick().key(ORDERS).orElseThrow().notModified()).isTrue();
    f.api.failNext(1, () -> new IllegalStateException("blip"));
    f.nextCycle();
    assertThat(w.tick().key(ORDERS).orElseThrow().error()).isNotNull();
    assertThat(w.inspect().key(ORDERS).orElseThrow().consecutiveFailures()).isEqualTo(1);

    for (int i = 0; i < 10; i++) {
      f.clock.advance(Duration.ofMinutes(10));
      KeyReport after = w.tick().key(ORDERS).orElseThrow();
      assertThat(after.notModified()).as("cycle %d after the failure", i).isTrue();
      assertThat(after.error()).as("cycle %d after the failure", i).isNull();
    }

    KeyInspection k = w.inspect().key(ORDERS).orElseThrow();
    assertThat(k.consecutiveFailures()).isZero();
    assertThat(k.state()).isEqualTo(ScheduleState.Status.IDLE);
    assertThat(k.lastError().name()).isEqualTo("FetchException");
    assertThat(k.lastError().message()).contains("blip");
  }

  /**
   * A reconcile listing cut short is retried after {@code every}, like a completed one, so a
   * listing that never fits the page cap cannot run every cycle (docs/architecture.md, "Lanes").
   */
  @Test
  void aReconcileCutByThePageCapWaitsForItsPeriodLikeACompletedOne() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .maxPagesPerCycle(2)
            .reconcile(Reconcile.every(Duration.ofHours(6), ctx -> f.api.page(ctx.page(), 1)))
            .build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(4);
    w.tick();
    int before = f.api.requests();
    List<KeyReport.Outcome> outcomes = new ArrayList<>();
    for (int i = 0; i < 10; i++) { // ten daemon passes, 1 s apart; live is due only every 30 s
      f.clock.advance(Duration.ofSeconds(1));
      outcomes.add(w.tick().key(ORDERS).orElseThrow().outcome());
    }
    assertThat(f.api.requests() - before).isZero();
    assertThat(outcomes).containsOnly(KeyReport.Outcome.SKIPPED_NOT_DUE);
    assertThat(w.inspect().key(ORDERS).orElseThrow().lastError().name())
        .isEqualTo("ListingTruncated");
  }

  /**
   * A forced backfill re-emits every known item as updated, once (docs/architecture.md, "Lanes"),
   * on a page poller whose live listing completed (so its live cursor is back at page 1).
   */
  @Test
  void aForcedBackfillOfAPagePollerReEmitsEveryKnownItemOnceAfterACompletedListing() {
    Poller<JsonNode> pages =
        Poller.builder("pages", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
            .cursor(Cursors.page())
            .fetch(f.api.pageFetcher(2))
            .schedule(Schedule.every(Duration.ofHours(1)))
            .build();
    Watukuy w = f.engine("a").poller(pages).build().on(pages, r);
    f.seed(3);
    w.tick();
    r.clear();
    w.backfill("pages", null, null, true);
    w.trigger("pages");
    assertThat(w.inspect().poller("pages").orElseThrow().backfill().force()).isTrue();

    w.tick();

    assertThat(r.changes()).containsExactly("o001:updated", "o002:updated", "o003:updated");
    assertThat(r.events()).extracting(ChangeEvent::lane).containsOnly(Lane.BACKFILL);
    assertThat(w.inspect().poller("pages").orElseThrow().backfill()).isNull();
  }

  /** A backfill ends when its cursor reaches {@code to} (docs/architecture.md, "Lanes"). */
  @Test
  void aForcedBackfillStopsAtItsTargetCursor() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 2).schedule(Schedule.every(Duration.ofHours(1))).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    Instant t0 = f.clock.now();
    for (int i = 1; i <= 6; i++)
      f.api.putAt(String.format("o%03d", i), Map.of("n", i), t0.plusSeconds(i));
    f.clock.advance(Duration.ofMinutes(1));
    w.tick();
    r.clear();
    w.backfill("orders", null, t0.plusSeconds(3).toString(), true);
    w.trigger("orders");
    w.tick();
    assertThat(r.changes()).containsExactly("o001:updated", "o002:updated", "o003:updated");
    assertThat(w.inspect().poller("orders").orElseThrow().backfill()).isNull();
  }

  /**
   * {@code replay(from, to)} copies the events committed in {@code [from, to)}, once, with their
   * ids and fresh sequences, and does not log the copies again; a window whose {@code to} is not
   * after {@code from}, or without {@code from}, is refused.
   */
  @Test
  void replayCopiesTheEventsOfItsHalfOpenWindowAndRefusesAnEmptyOrOpenStartedOne() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10).log(EventLog.keep(Duration.ofDays(7))).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    Instant t0 = f.clock.now();
    f.seed(2);
    w.tick();
    f.clock.advance(Duration.ofMinutes(1));
    Instant t1 = f.clock.now();
    f.api.put("o003", Map.of("n", 3));
    w.tick();
    List<String> firstIds = r.ids();
    r.clear();
    assertThat(w.replay("orders", t0, t1)).isEqualTo(2); // [t0, t1): the first commit only
    assertThatThrownBy(() -> w.replay("orders", t1, t0))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("poller orders")
        .hasMessageContaining("not after");
    w.tick();
    assertThat(r.ids()).containsExactlyElementsOf(firstIds.subList(0, 2));
    assertThat(r.events()).extracting(ChangeEvent::sequence).containsExactly(4L, 5L);
    // replayed copies are not logged again
    assertThat(f.store.readLog(ORDERS, LogRange.ALL, 100)).hasSize(3);
    assertThatThrownBy(() -> w.replay("orders", null, null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("poller orders")
        .hasMessageContaining("from");
  }

  /**
   * The log is never pruned above an effect's watermark (docs/effects.md, "Retention"): past the
   * retention, a commit prunes only what the slowest effect has read, and the rest once it has;
   * {@code inspect} shows the watermark that holds the log.
   */
  @Test
  void theLogKeepsEventsAboveAnEffectsWatermarkPastItsRetention() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10).log(EventLog.keep(Duration.ofDays(1))).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(3);
    w.tick();
    assertThat(w.inspect().pollers().get(0).logHeldAbove()).isNull();
    EffectStore effects = f.store.effects().orElseThrow();
    Lease lease =
        effects
            .acquireEffectLease("NotifyCustomer", "effects-1", Duration.ofDays(7), f.clock.now())
            .orElseThrow();
    effects.saveCursor(
        new EffectCursor("NotifyCustomer", ORDERS, 1, null, Map.of(), f.clock.now()), lease);

    f.clock.advance(Duration.ofDays(2));
    f.api.put("o004", Map.of("n", 4));
    w.tick();
    assertThat(logged()).containsExactly(2L, 3L, 4L);
    assertThat(w.inspect().pollers().get(0).logHeldAbove()).isEqualTo(1L);

    effects.saveCursor(
        new EffectCursor("NotifyCustomer", ORDERS, 4, null, Map.of(), f.clock.now()), lease);
    f.clock.advance(Duration.ofDays(2));
    f.api.put("o005", Map.of("n", 5));
    w.tick();
    assertThat(logged()).containsExactly(5L);
  }

  private List<Long> logged() {
    return f.store.readLog(ORDERS, LogRange.ALL, 100).stream().map(LoggedEvent::sequence).toList();
  }
}
