package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.DeliveryPolicy;
import io.watukuy.EventLog;
import io.watukuy.EventType;
import io.watukuy.Inspection;
import io.watukuy.KeyInspection;
import io.watukuy.KeyReport;
import io.watukuy.Lane;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Reconcile;
import io.watukuy.RetryPolicy;
import io.watukuy.Schedule;
import io.watukuy.ScheduleState;
import io.watukuy.Watukuy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Operations (pause, resume, trigger, resetCursor, backfill, replay, inspect) and the lanes. */
class OperationsTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  final Fixture f = new Fixture();
  final Recorder r = new Recorder();

  @Test
  void pausedKeyIsSkippedUntilResumedAndResumeMakesItDueNow() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    w.tick();
    w.pause("orders");
    f.seed(2);
    f.nextCycle();
    assertThat(w.tick().key(ORDERS).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_PAUSED);
    assertThat(w.inspect().key(ORDERS).orElseThrow().state())
        .isEqualTo(ScheduleState.Status.PAUSED);

    w.resume("orders");
    assertThat(w.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(r.changes()).containsExactly("o001:created", "o002:created");
  }

  @Test
  void triggerMakesAKeyDueBeforeItsInterval() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    w.tick();
    f.seed(1);
    assertThat(w.tick().key(ORDERS).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_NOT_DUE);

    w.trigger("orders");

    assertThat(w.tick().key(ORDERS).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(r.changes()).containsExactly("o001:created");
  }

  @Test
  void resetCursorWithClearSnapshotRecreatesEverythingWithTheSameIds() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(3);
    w.tick();
    List<String> first = r.ids();
    r.clear();

    w.resetCursor("orders", null, true);
    w.tick();

    assertThat(r.ids()).containsExactlyElementsOf(first);
    assertThat(r.changes()).containsExactly("o001:created", "o002:created", "o003:created");
  }

  @Test
  void resetCursorToARawTimestampRefetchesFromThereAndSkipsKnownVersions() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(2);
    w.tick();
    int before = f.api.requests();

    w.resetCursor("orders", "2026-03-01T09:00:00Z", false);
    w.tick();

    assertThat(f.api.requests()).isEqualTo(before + 1);
    assertThat(r.events()).hasSize(2); // re-seen, same versions: no new events
    assertThat(w.inspect().key(ORDERS).orElseThrow().cursors().get("live").get("value").asText())
        .isEqualTo("2026-03-01T10:00:00.000Z");
  }

  @Test
  void resetCursorRejectsAStringThatIsNotACursorNamingIt() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build();
    assertThatThrownBy(() -> w.resetCursor("orders", "last tuesday", false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("last tuesday")
        .hasMessageContaining("updatedAt");
    assertThatThrownBy(() -> w.resetCursor("nope", null, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("nope");
  }

  /** The same for the token, snapshotDiff and page strategies (G2). */
  @Test
  void resetCursorWithClearSnapshotReEmitsTheSameIdsForTokenSnapshotDiffAndPagePollers() {
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.token())
            .fetch(f.api.tokenFetcher(10))
            .schedule(Fixture.FIXED)
            .build();
    Poller<JsonNode> catalog = f.snapshot("catalog", 2).build();
    Poller<JsonNode> pages =
        Poller.builder("pages", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.page())
            .fetch(f.api.pageFetcher(2))
            .schedule(Fixture.FIXED)
            .build();
    Recorder rf = new Recorder(), rc = new Recorder(), rp = new Recorder();
    Watukuy w =
        f.engine("a")
            .poller(feed)
            .poller(catalog)
            .poller(pages)
            .build()
            .on(feed, rf)
            .on(catalog, rc)
            .on(pages, rp);
    f.seed(3);
    w.tick();
    List<String> feedIds = rf.ids(), catalogIds = rc.ids(), pagesIds = rp.ids();
    rf.clear();
    rc.clear();
    rp.clear();

    w.resetCursor("feed", null, true);
    w.resetCursor("catalog", null, true);
    w.resetCursor("pages", null, true);
    w.tick();

    List<String> created = List.of("o001:created", "o002:created", "o003:created");
    assertThat(rf.changes()).containsExactlyElementsOf(created);
    assertThat(rc.changes()).containsExactlyElementsOf(created);
    assertThat(rp.changes()).containsExactlyElementsOf(created);
    assertThat(rf.ids()).containsExactlyElementsOf(feedIds);
    assertThat(rc.ids()).containsExactlyElementsOf(catalogIds);
    assertThat(rp.ids()).containsExactlyElementsOf(pagesIds);
  }

  /**
   * Operations take cursors as the API's own raw strings (docs/architecture.md, "Cursors in the
   * store and in operations"): a token is stored as given, the key is due at once, and its next
   * cycle sends that token.
   */
  @Test
  void resetCursorToARawTokenStoresItAndTheNextCycleSendsIt() {
    List<String> sent = new CopyOnWriteArrayList<>();
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.token())
            .fetch(
                ctx -> {
                  sent.add(String.valueOf(ctx.cursor()));
                  return f.api.changes(ctx.cursor(), 10);
                })
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(feed).build().on(feed, r);
    f.seed(3);
    w.tick();
    sent.clear();
    r.clear();

    w.resetCursor("feed", "2", false);

    assertThat(w.inspect().poller("feed").orElseThrow().cursors().get("live").asText())
        .isEqualTo("2");
    f.api.put("o004", Map.of("n", 4));
    assertThat(w.tick().key(PollerKey.of("feed")).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(sent).first().isEqualTo("2");
    assertThat(r.changes()).containsExactly("o004:created"); // o003 is listed again, unchanged
  }

  /**
   * For a timestamp poller, {@code inspect} shows the lag, now minus the live watermark; a key
   * without a watermark yet, and the other strategies, have none (docs/architecture.md, "Lag as a
   * metric").
   */
  @Test
  void inspectShowsTheLagOfATimestampPollerAndNoneForATokenPoller() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.token())
            .fetch(f.api.tokenFetcher(10))
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w =
        f.engine("a").poller(orders).poller(feed).build().on(orders, r).on(feed, new Recorder());
    assertThat(w.inspect().poller("orders").orElseThrow().lagMs()).isNull();
    f.seed(2);
    w.tick();

    f.clock.advance(Duration.ofMinutes(7));

    Inspection now = w.inspect();
    assertThat(now.poller("orders").orElseThrow().lagMs())
        .isEqualTo(Duration.ofMinutes(7).toMillis());
    assertThat(now.poller("feed").orElseThrow().lagMs()).isNull();
    assertThat(now.toJson()).contains("\"lagMs\":420000");
  }

  @Test
  void replayCopiesLoggedEventsWithTheirOriginalIdsAndFreshSequences() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10).log(EventLog.keep(Duration.ofDays(7))).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    Instant start = f.clock.now();
    f.seed(3);
    w.tick();
    List<ChangeEvent<JsonNode>> originals = r.events();
    r.clear();

    int copied = w.replay("orders", start, null);
    w.tick();

    assertThat(copied).isEqualTo(3);
    assertThat(r.ids()).containsExactlyElementsOf(originals.stream().map(ChangeEvent::id).toList());
    assertThat(r.events()).extracting(ChangeEvent::sequence).containsExactly(4L, 5L, 6L);
    assertThat(r.events()).extracting(ChangeEvent::lane).containsOnly(Lane.REPLAY);
  }

  @Test
  void replayWithoutAnEventLogIsAConfigError() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build();
    assertThatThrownBy(() -> w.replay("orders", f.clock.now(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("orders")
        .hasMessageContaining("log");
  }

  @Test
  void reconcileEmitsDeletesForAnIncrementalPollerOnlyAfterACompleteListing() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .reconcile(Reconcile.every(Duration.ofHours(6), ctx -> f.api.page(ctx.page(), 2)))
            .build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(3);
    w.tick(); // live creates; the first reconcile runs on the first cycle and finds nothing new
    assertThat(r.changes()).containsExactly("o001:created", "o002:created", "o003:created");

    f.api.delete("o002");
    f.nextCycle();
    w.tick();
    assertThat(r.changes()).hasSize(3); // reconcile not due for 6 h; live cannot see deletes

    f.clock.advance(Duration.ofHours(6));
    w.tick();
    ChangeEvent<JsonNode> deleted = r.events().get(3);
    assertThat(deleted.type()).isEqualTo(EventType.DELETED);
    assertThat(deleted.identity()).isEqualTo("o002");
    assertThat(deleted.lane()).isEqualTo(Lane.RECONCILE);
    assertThat(w.inspect().key(ORDERS).orElseThrow().lastReconcileAt()).isEqualTo(f.clock.now());
  }

  @Test
  void reconcileIsRejectedForSnapshotDiffAndBackfillForTokenAndSnapshotDiff() {
    assertThatThrownBy(
            () ->
                f.snapshot("catalog", 10)
                    .reconcile(
                        Reconcile.every(Duration.ofHours(1), ctx -> f.api.page(ctx.page(), 2))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("catalog")
        .hasMessageContaining("snapshotDiff");
    Poller<JsonNode> catalog = f.snapshot("catalog", 10).build();
    Poller<JsonNode> feed =
        Poller.builder("feed", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.token())
            .fetch(f.api.tokenFetcher(10))
            .build();
    Watukuy w = f.engine("a").poller(catalog).poller(feed).build();
    assertThatThrownBy(() -> w.backfill("catalog", null, null, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("snapshotDiff");
    assertThatThrownBy(() -> w.backfill("feed", null, null, false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("token");
  }

  @Test
  void backfillStopsAtTheLiveCursorOfTheCallAndSuppressesKnownVersions() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 2).schedule(Schedule.every(Duration.ofHours(1))).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(4);
    w.tick();
    f.clock.advance(Duration.ofMinutes(1));
    f.api.put("o002", Map.of("n", 20)); // changed after the live cursor

    r.clear();
    w.backfill("orders", null, null, false);
    w.trigger("orders"); // start it now rather than at the next interval
    w.tick();

    // Known versions are suppressed by the backfill; o002's change lies beyond its target and is
    // the live lane's, which runs first.
    assertThat(r.changes()).containsExactly("o002:updated");
    assertThat(r.events()).extracting(ChangeEvent::lane).containsOnly(Lane.LIVE);
    assertThat(w.inspect().key(ORDERS).orElseThrow().backfill()).isNull();
  }

  @Test
  void backfillWithForceReemitsEveryKnownItemAsUpdated() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10).schedule(Schedule.every(Duration.ofHours(1))).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(3);
    w.tick();
    r.clear();

    w.backfill("orders", null, null, true);
    w.trigger("orders");
    w.tick();

    assertThat(r.changes()).containsExactly("o001:updated", "o002:updated", "o003:updated");
    assertThat(r.events()).extracting(ChangeEvent::lane).containsOnly(Lane.BACKFILL);
    assertThat(w.inspect().key(ORDERS).orElseThrow().backfill()).isNull();
  }

  @Test
  void g7InspectShowsOneParkedAndNothingPending() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .delivery(new DeliveryPolicy(RetryPolicy.attempts(1), PoisonPolicy.parkAndHoldKey()))
            .build();
    r.failWhen(e -> e.identity().equals("o002"));
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(3);
    w.tick();

    Inspection inspection = w.inspect();
    KeyInspection k = inspection.key(ORDERS).orElseThrow();

    assertThat(k.parked()).isEqualTo(1);
    assertThat(k.parkedByKind()).containsEntry("poison", 1L).containsEntry("invalid", 0L);
    assertThat(k.outboxPending()).isZero();
    assertThat(k.items()).isEqualTo(3);
    assertThat(k.lease()).isNull(); // released at the end of the tick
    assertThat(k.cursors().get("live").get("tieBreak").asText()).isEqualTo("o003");
    assertThat(k.lagMs()).isEqualTo(0L);
    assertThat(inspection.toJson())
        .contains("\"outboxPending\":0")
        .contains("\"parked\":1")
        .contains("\"cursors\":{\"live\":{");
  }

  @Test
  void aReconcileListingCutByThePageCapEmitsNoDeletes() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .maxPagesPerCycle(2)
            .reconcile(Reconcile.every(Duration.ofHours(6), ctx -> f.api.page(ctx.page(), 1)))
            .build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(4);
    w.tick();
    f.api.delete("o001");
    f.clock.advance(Duration.ofHours(6));

    w.tick();

    assertThat(r.count(EventType.DELETED)).isZero(); // three items need three pages; the cap is two
    // The cut-short listing is retried after `every`, not on every pass.
    assertThat(w.inspect().key(ORDERS).orElseThrow().lastReconcileAt()).isEqualTo(f.clock.now());
    int requests = f.api.requests();
    f.nextCycle();
    w.tick();
    assertThat(f.api.requests() - requests).isEqualTo(1); // the live lane only
  }

  @Test
  void theEventLogIsWrittenInTheCommitAndPrunedByRetention() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10).log(EventLog.keep(Duration.ofHours(1))).build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(2);
    w.tick();
    assertThat(f.store.readLog(ORDERS, io.watukuy.spi.LogRange.ALL, 100)).hasSize(2);

    f.clock.advance(Duration.ofHours(2));
    f.api.put("o009", Map.of("n", 9));
    w.tick();

    assertThat(f.store.readLog(ORDERS, io.watukuy.spi.LogRange.ALL, 100))
        .extracting(io.watukuy.spi.LoggedEvent::sequence)
        .containsExactly(3L);
  }
}
