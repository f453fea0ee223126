package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.EventLog;
import io.watukuy.EventType;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Reconcile;
import io.watukuy.Schedule;
import io.watukuy.Subscription;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Review: reconcile, backfill, replay, subscribe, inspect. */
class LanesRegressionTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  final Fixture f = new Fixture();
  final Recorder r = new Recorder();

  /**
   * Issue: reconcile brings deletes to incremental strategies; a quiet incremental feed answers
   * 304.
   */
  @Test
  void reconcileStillRunsWhenTheLiveListingIsNotModified() {
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
    w.tick();
    f.api.delete("o002");
    for (int i = 0; i < 30; i++) { // 15 hours of 30-min steps
      f.clock.advance(Duration.ofMinutes(30));
      KeyReport rep = w.tick().key(ORDERS).orElseThrow();
      if (i < 3 || i == 12)
        System.out.println(
            " 304 run "
                + i
                + " "
                + rep
                + " err="
                + w.inspect().key(ORDERS).orElseThrow().lastError());
    }
    System.out.println(
        " reconcile under 304: changes="
            + r.changes()
            + " lastReconcileAt="
            + w.inspect().key(ORDERS).orElseThrow().lastReconcileAt()
            + " lastPoll="
            + w.inspect().key(ORDERS).orElseThrow().lastPoll()
            + " state="
            + w.inspect().key(ORDERS).orElseThrow().state()
            + " failures="
            + w.inspect().key(ORDERS).orElseThrow().consecutiveFailures()
            + " requests="
            + f.api.requests());
    assertThat(r.count(EventType.DELETED)).isEqualTo(1);
  }

  /** Page.notModified() (a 304 the fetch handled itself) after one transient failure. */
  @Test
  void aTransientErrorMakesEveryLater304AFailure() {
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
    System.out.println(" 304 before error " + w.tick().key(ORDERS).orElseThrow()); // 304 trusted
    f.api.failNext(1, () -> new IllegalStateException("blip"));
    f.nextCycle();
    w.tick(); // one transient failure
    for (int i = 0; i < 10; i++) {
      f.clock.advance(Duration.ofMinutes(10));
      w.tick();
    }
    System.out.println(
        " 304 after one blip: state="
            + w.inspect().key(ORDERS).orElseThrow().state()
            + " failures="
            + w.inspect().key(ORDERS).orElseThrow().consecutiveFailures()
            + " lastError="
            + w.inspect().key(ORDERS).orElseThrow().lastError());
    assertThat(w.inspect().key(ORDERS).orElseThrow().consecutiveFailures()).isZero();
  }

  /** A reconcile cut by the page cap is retried on every run, whatever the schedule. */
  @Test
  void aTruncatedReconcileDoesNotRunOnEveryTick() {
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
    System.out.println(
        " truncated reconcile: requests in 10 s = " + (f.api.requests() - before) + " " + outcomes);
    assertThat(f.api.requests() - before).isLessThanOrEqualTo(2);
  }

  @Test
  void backfillOnAPagePollerAfterACompletedListingWithForce() {
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
    System.out.println(" page cursors after listing " + w.inspect().toJson());
    r.clear();
    w.backfill("pages", null, null, true);
    w.trigger("pages");
    System.out.println(
        " page backfill state " + w.inspect().poller("pages").orElseThrow().backfill());
    w.tick();
    System.out.println(" page backfill force changes " + r.changes());
    assertThat(r.changes()).containsExactly("o001:updated", "o002:updated", "o003:updated");
  }

  /** Issue: backfill "stops at the target cursor". */
  @Test
  void backfillWithForceStopsAtItsTarget() {
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
    System.out.println(" backfill to o003's time, force: " + r.changes());
    assertThat(r.changes()).containsExactly("o001:updated", "o002:updated", "o003:updated");
  }

  @Test
  void backfillCustomCursorOnlyWithOrdering() {
    Poller<JsonNode> plain =
        Poller.builder("plain", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.custom("", in -> new io.watukuy.CustomCursor.Step<>(in.cursor(), true)))
            .fetch(ctx -> f.api.afterId(ctx.cursor().isEmpty() ? null : ctx.cursor(), 10))
            .build();
    Watukuy w = f.engine("a").poller(plain).build();
    assertThatThrownBy(() -> w.backfill("plain", null, null, false))
        .isInstanceOf(ConfigException.class)
        .satisfies(e -> System.out.println(" msg custom backfill: " + e.getMessage()));
  }

  @Test
  void replayEdges() {
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
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> w.replay("orders", t1, t0))
        .isInstanceOf(io.watukuy.ConfigException.class)
        .hasMessageContaining("not after");
    w.tick();
    assertThat(r.ids()).containsExactlyElementsOf(firstIds.subList(0, 2));
    assertThat(r.events()).extracting(ChangeEvent::sequence).containsExactly(4L, 5L);
    // replayed copies are not logged again
    assertThat(f.store.readLog(ORDERS, io.watukuy.spi.LogRange.ALL, 100)).hasSize(3);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> w.replay("orders", null, null))
        .isInstanceOf(io.watukuy.ConfigException.class)
        .hasMessageContaining("from");
  }

  @Test
  void subscriptionOpenStillReportsNoHandler() {
    List<String> heard = new ArrayList<>();
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w =
        f.engine("a")
            .poller(orders)
            .listener(
                new WatukuyListener() {
                  @Override
                  public void onNoHandler(PollerKey key, long pending) {
                    heard.add("noHandler " + pending);
                  }
                })
            .build();
    try (Subscription<JsonNode> sub = w.subscribe(orders)) {
      f.seed(2);
      w.tick();
      assertThat(sub.hasNext()).isTrue();
      System.out.println(" onNoHandler with open subscription: " + heard);
      assertThat(heard).isEmpty();
    }
  }

  @Test
  void subscriptionAckWhileAnotherInstanceHoldsTheLease() {
    Poller<JsonNode> orders = f.timestamp("orders", 10).build();
    Watukuy w = f.engine("a").poller(orders).build();
    f.seed(2);
    w.tick();
    try (Subscription<JsonNode> sub = w.subscribe(orders)) {
      sub.next();
      f.store.acquireLease(ORDERS, "b", Duration.ofSeconds(30), f.clock.now());
      Instant before = f.clock.now();
      try {
        sub.next();
        System.out.println(
            " ack under foreign lease waited " + Duration.between(before, f.clock.now()));
      } catch (RuntimeException e) {
        System.out.println(
            " ack under foreign lease threw after "
                + Duration.between(before, f.clock.now())
                + ": "
                + e);
      }
    }
  }

  @Test
  void inspectJson() {
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
    System.out.println(" inspect before any tick " + w.inspect().toJson());
    f.seed(2);
    w.tick();
    f.clock.advance(Duration.ofMinutes(7));
    System.out.println(" inspect " + w.inspect().toJson());
    assertThat(w.inspect().poller("orders").orElseThrow().lagMs())
        .isEqualTo(Duration.ofMinutes(7).toMillis());
  }
}
