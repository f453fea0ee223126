package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Backoff;
import io.watukuy.CircuitPolicy;
import io.watukuy.Cursors;
import io.watukuy.DeliveryPolicy;
import io.watukuy.HttpStatusException;
import io.watukuy.KeyReport;
import io.watukuy.PoisonPolicy;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RetryPolicy;
import io.watukuy.ScheduleState;
import io.watukuy.TickOptions;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.ParkedRow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConcurrentOperationsRegressionTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  final Fixture f = new Fixture();
  final Recorder r = new Recorder();
  final List<String> heard = new ArrayList<>();
  final WatukuyListener listener =
      new WatukuyListener() {
        @Override
        public void onThrottled(PollerKey key, Instant until) {
          heard.add("throttled " + until);
        }

        @Override
        public void onCircuitOpen(PollerKey key, Instant probeAt) {
          heard.add("open " + probeAt);
        }

        @Override
        public void onCircuitClose(PollerKey key) {
          heard.add("close");
        }

        @Override
        public void onParked(PollerKey key, ParkedRow row) {
          heard.add("parked " + row.kind());
        }

        @Override
        public void onCycle(KeyReport report) {
          heard.add("cycle " + report.outcome());
        }

        @Override
        public void onError(PollerKey key, Throwable error) {
          heard.add("error " + error.getClass().getSimpleName());
        }
      };

  ScheduleState state() {
    return f.store.loadState(ORDERS).orElseThrow().schedule();
  }

  @Test
  void resumeMadeDuringADrainOnlyRunOfAPausedKeyWithAnOpenCircuit() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .circuit(new CircuitPolicy(1, Duration.ofMinutes(5)))
            .delivery(
                new DeliveryPolicy(
                    new RetryPolicy(
                        3, new Backoff(Duration.ofSeconds(1), 2, Duration.ofSeconds(1))),
                    PoisonPolicy.DEFAULT))
            .build();
    Watukuy a = f.engine("a").poller(orders).build().on(orders, r);
    Watukuy cli = f.engine("cli").poller(orders).build();
    f.seed(1);
    r.failWhen(e -> true);
    a.tick();
    f.api.failNext(1, () -> new IllegalStateException("down"));
    f.nextCycle();
    a.tick();
    assertThat(state().circuit()).isNotNull();
    cli.pause("orders");
    r.failWhen(e -> false);
    r.during(() -> cli.resume("orders"));
    f.clock.advance(Duration.ofSeconds(5));
    a.tick(); // paused key still drains; the operator resumes meanwhile
    r.during(() -> {});
    System.out.println(" after resume during drain " + state());
    f.clock.advance(Duration.ofMinutes(5));
    KeyReport probe = a.tick().key(ORDERS).orElseThrow();
    System.out.println(" probe after resume-during-drain " + probe);
    int req = f.api.requests();
    f.api.put("o009", Map.of("n", 9));
    for (int i = 0; i < 10; i++) {
      f.clock.advance(Duration.ofSeconds(1));
      a.tick();
    }
    System.out.println(
        " wedged: requests in 10 s "
            + (f.api.requests() - req)
            + " changes "
            + r.changes()
            + " pending "
            + f.store.countPending(ORDERS)
            + " state "
            + state().state()
            + " "
            + state().circuit());
    assertThat(probe.error()).isNull();
  }

  @Test
  void tickDeadlineGivesCatchUp() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 1)
            .fetch(
                ctx -> {
                  f.clock.advance(Duration.ofSeconds(2));
                  return f.api.updatedSince(ctx.cursor(), 1);
                })
            .build();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);
    f.seed(5);
    KeyReport rep = w.tick(TickOptions.deadline(Duration.ofSeconds(3))).key(ORDERS).orElseThrow();
    System.out.println(" deadline " + rep + " " + state());
    assertThat(state().dueReason()).isEqualTo(ScheduleState.DueReason.CATCH_UP);
    assertThat(state().nextDueAt()).isEqualTo(f.clock.now());
  }

  @Test
  void listenersOnPoisonHaltThrottleAndCycle() {
    Poller<JsonNode> orders =
        f.timestamp("orders", 10)
            .delivery(
                new DeliveryPolicy(
                    RetryPolicy.attempts(1), new PoisonPolicy(PoisonPolicy.Action.HALT, false)))
            .build();
    Watukuy w = f.engine("a").poller(orders).listener(listener).build().on(orders, r);
    r.failWhen(e -> e.identity().equals("o002"));
    f.seed(3);
    w.tick();
    System.out.println(
        " listeners poison " + heard + " state " + state().state() + " " + state().lastError());
    heard.clear();
    r.failWhen(e -> false);
    w.trigger("orders");
    w.tick();
    System.out.println(
        " listeners after trigger "
            + heard
            + " state "
            + state().state()
            + " changes "
            + r.changes());
    heard.clear();
    f.nextCycle();
    f.api.failNext(1, () -> new HttpStatusException(429, "GET", "http://v/x", Map.of(), null));
    w.tick();
    System.out.println(" listeners 429 no RA " + heard + " now " + f.clock.now());
  }

  @Test
  void resetCursorClearSnapshotPerStrategy() {
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
    List<String> idsF = rf.ids(), idsC = rc.ids(), idsP = rp.ids();
    rf.clear();
    rc.clear();
    rp.clear();
    w.resetCursor("feed", null, true);
    w.resetCursor("catalog", null, true);
    w.resetCursor("pages", null, true);
    w.tick();
    System.out.println(
        " reset feed " + rf.changes() + " catalog " + rc.changes() + " pages " + rp.changes());
    assertThat(rf.ids()).containsExactlyElementsOf(idsF);
    assertThat(rc.ids()).containsExactlyElementsOf(idsC);
    assertThat(rp.ids()).containsExactlyElementsOf(idsP);
    // token raw string
    w.resetCursor("feed", "2", false);
    System.out.println(
        " feed cursor after raw '2' " + w.inspect().poller("feed").orElseThrow().cursors());
    rf.clear();
    f.api.put("o004", Map.of("n", 4));
    w.trigger("feed");
    w.tick();
    System.out.println(" feed after reset to 2 " + rf.changes());
  }
}
