package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.testing.FakeApi;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class PartitionsAndDaemonTest {
  final Fixture f = new Fixture();

  @Test
  void eachPartitionIsAKeyWithItsOwnCursorOutboxAndIds() {
    FakeApi eu = new FakeApi(f.clock);
    FakeApi us = new FakeApi(f.clock);
    eu.put("x", Map.of("n", 1));
    us.put("x", Map.of("n", 1));
    Poller<JsonNode> p =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
            .fetch(ctx -> (ctx.partition().equals("eu") ? eu : us).updatedSince(ctx.cursor(), 10))
            .partitions(List.of("eu", "us"))
            .schedule(Fixture.FIXED)
            .build();
    Recorder r = new Recorder();
    TickReport report = f.engine("a").poller(p).build().on(p, r).tick();

    assertThat(report.keys())
        .extracting(KeyReport::key)
        .containsExactly(PollerKey.of("orders", "eu"), PollerKey.of("orders", "us"));
    assertThat(r.events()).extracting(ChangeEvent::partition).containsExactly("eu", "us");
    assertThat(r.events().get(0).id())
        .isNotEqualTo(r.events().get(1).id()); // partition is part of the id
    assertThat(f.store.loadState(PollerKey.of("orders", "eu")).orElseThrow().cursors())
        .containsKey("live");
    assertThat(f.store.loadState(PollerKey.of("orders", "us")).orElseThrow().lastSequence())
        .isEqualTo(1);
  }

  @Test
  void aPartitionThatDisappearsIsPausedAndResumesWhenItReturns() {
    List<String> partitions = new CopyOnWriteArrayList<>(List.of("eu", "us"));
    Poller<JsonNode> p =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(ctx -> Page.<JsonNode>empty())
            .partitions(() -> List.copyOf(partitions))
            .schedule(Fixture.FIXED)
            .build();
    Watukuy w = f.engine("a").poller(p).build();
    w.tick();
    partitions.remove("us");
    f.nextCycle();
    w.tick();
    PollerKey us = PollerKey.of("orders", "us");
    assertThat(f.store.loadState(us).orElseThrow().schedule().paused())
        .isEqualTo(ScheduleState.PauseReason.PARTITION_REMOVED);

    partitions.add("us");
    f.nextCycle();
    TickReport back = w.tick();
    assertThat(f.store.loadState(us).orElseThrow().schedule().paused()).isNull();
    assertThat(back.key(us).orElseThrow().outcome()).isEqualTo(KeyReport.Outcome.POLLED);
  }

  @Test
  void stopWithoutDrainLeavesUndeliveredEventsInTheOutboxForTheNextRun() {
    f.seed(3);
    Poller<JsonNode> p = f.timestamp("orders", 10).build();
    List<String> seen = new ArrayList<>();
    Watukuy[] self = new Watukuy[1];
    Watukuy w =
        f.engine("a")
            .poller(p)
            .build()
            .on(
                p,
                (ChangeEvent<JsonNode> e) -> {
                  seen.add(e.identity());
                  if (seen.size() == 1) self[0].stop(false); // stop while the cycle delivers
                });
    self[0] = w;
    w.start();
    f.clock.advance(Duration.ofSeconds(1));
    assertThat(f.clock.pendingTimers()).isZero();
    assertThat(seen).isNotEmpty();
    long pending = f.store.countPending(PollerKey.of("orders"));
    assertThat(seen.size() + pending).isEqualTo(3);

    f.clock.advance(Duration.ofMinutes(1));
    List<String> later = new ArrayList<>();
    f.engine("b")
        .poller(p)
        .build()
        .on(p, (ChangeEvent<JsonNode> e) -> later.add(e.identity()))
        .tick();
    assertThat(later).hasSize((int) pending);
  }
}
