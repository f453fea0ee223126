package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.FetchException;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.testing.SeededRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Misuse and hostile listings: the engine neither hangs, loops on the vendor, nor accepts junk. */
class RobustnessTest {
  final Fixture f = new Fixture();

  @Test
  void aListingThatCannotMovePastATieEndsTheLaneInsteadOfBurningThePageCap() {
    Instant t = f.clock.now();
    for (int i = 1; i <= 5; i++) f.api.putAt("o" + i, Map.of("n", i), t);
    // No tie-break, and an API that filters updatedAt >= value: page 2 would be page 1 again.
    Poller<JsonNode> orders = Poller.builder("orders", JsonNode.class).identity(n -> n.get("id"))
        .cursor(Cursors.timestamp("updatedAt").build())
        .fetch(f.api.timestampFetcher(2))
        .schedule(Fixture.FIXED).build();
    Recorder r = new Recorder();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);

    KeyReport report = w.tick().poller("orders").orElseThrow();

    // Page 1 moves the watermark to the tie; page 2 comes back identical and would forever.
    assertThat(report.pages()).isEqualTo(2);
    assertThat(f.api.requests()).isEqualTo(2);
    assertThat(report.failed()).isFalse();
  }

  @Test
  void aBoundedCycleExecutorDoesNotDeadlockWithHandlers() throws Exception {
    f.seed(6);
    ExecutorService one = Executors.newFixedThreadPool(1);
    try {
      Poller<JsonNode> orders = f.timestamp("orders", 10).build();
      CountDownLatch delivered = new CountDownLatch(6);
      Watukuy w = Watukuy.builder().store(f.store).time(f.clock).random(SeededRandom.of(1)).instanceId("a")
          .executor(one).poller(orders).build()
          .on(orders, (ChangeEvent<JsonNode> e) -> delivered.countDown());
      w.start();
      f.clock.advance(Duration.ofMillis(1)); // runs the first pass: the cycle goes to the pool
      assertThat(delivered.await(20, TimeUnit.SECONDS)).isTrue();
      w.close();
      assertThat(f.clock.pendingTimers()).isZero();
    } finally {
      one.shutdownNow();
    }
  }

  @Test
  void anEmptyIdentityFailsThePageNamingTheItem() {
    Poller<JsonNode> orders = Poller.builder("orders", JsonNode.class).identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff())
        .fetch(ctx -> Page.<JsonNode>of(List.of(JsonNodeFactory.instance.objectNode().put("id", "a"),
            JsonNodeFactory.instance.objectNode().put("id", ""))))
        .build();
    KeyReport report = f.engine("a").poller(orders).build().on(orders, new Recorder()).tick().poller("orders").orElseThrow();

    assertThat(report.error()).isInstanceOf(FetchException.class).hasMessageContaining("item 1").hasMessageContaining("empty");
    assertThat(f.store.countItems(PollerKey.of("orders"))).isZero();
  }

  @Test
  void partitionNamesMustBeNonEmptyAndPrintable() {
    Poller.Builder<JsonNode, Void> b = Poller.builder("orders", JsonNode.class).identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff()).fetch(ctx -> Page.<JsonNode>empty());
    assertThatThrownBy(() -> b.partitions(List.of("eu", ""))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("poller orders").hasMessageContaining("partition ''");
    assertThatThrownBy(() -> b.partitions(List.of("a\nb"))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("control character");
  }

  @Test
  void aPartitionSupplierReturningJunkPollsOnlyTheValidNames() {
    Poller<JsonNode> orders = Poller.builder("orders", JsonNode.class).identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff()).fetch(ctx -> Page.<JsonNode>empty())
        .partitions(() -> java.util.Arrays.asList("eu", "", null, "eu", "us"))
        .build();
    assertThat(orders.partitions()).containsExactly("eu", "us");
  }
}
