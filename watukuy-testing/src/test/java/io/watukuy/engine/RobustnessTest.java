package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.Fetcher;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyException;
import io.watukuy.testing.SeededRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Misuse and hostile listings: the engine neither hangs, loops on the vendor, nor accepts junk. */
class RobustnessTest {
  final Fixture f = new Fixture();

  @Test
  void aListingThatCannotMovePastATieFailsTheLaneInsteadOfBurningThePageCap() {
    Instant t = f.clock.now();
    for (int i = 1; i <= 5; i++) f.api.putAt("o" + i, Map.of("n", i), t);
    // No tie-break, and an API that filters updatedAt >= value: page 2 would be page 1 again.
    Poller<JsonNode> orders =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.timestamp("updatedAt").build())
            .fetch(f.api.timestampFetcher(2))
            .schedule(Fixture.FIXED)
            .build();
    Recorder r = new Recorder();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);

    KeyReport report = w.tick().poller("orders").orElseThrow();

    // Page 1 moves the watermark to the tie; page 2 comes back identical and would forever:
    // the lane stalls loudly (docs/operations.md, "Stalled lanes") rather than end in silence.
    assertThat(report.pages()).isEqualTo(2);
    assertThat(f.api.requests()).isEqualTo(2);
    assertThat(report.failed()).isTrue();
    assertThat(((WatukuyException) report.error()).kind()).isEqualTo("PageRepeated");
    assertThat(report.error().getMessage())
        .contains(
            "poller orders page 2", "at least 2 items share updatedAt", "set cursor.tieBreak");
  }

  @Test
  void aFetchThatPagesByItselfReadsTiesWiderThanAPageWithoutATieBreak() {
    Instant t = f.clock.now();
    for (int i = 1; i <= 5; i++) f.api.putAt("o" + i, Map.of("n", i), t);
    // json-server style: page 1 filters updatedAt >= value, pages 2..n follow a Link rel="next"
    // that keeps page 1's filter and only moves the page number. The cursor stays on the tie
    // while the pages move on, so the lane must not end there.
    AtomicReference<Watermark> firstSent = new AtomicReference<>();
    Fetcher<JsonNode, Watermark> linkPaged =
        ctx -> {
          if (ctx.page() == 1) firstSent.set(ctx.cursor());
          String from = firstSent.get().value();
          List<JsonNode> match =
              f.api.items().stream()
                  .filter(n -> from == null || n.get("updatedAt").asText().compareTo(from) >= 0)
                  .sorted(
                      Comparator.comparing((JsonNode n) -> n.get("updatedAt").asText())
                          .thenComparing(n -> n.get("id").asText()))
                  .toList();
          int start = Math.min(match.size(), (ctx.page() - 1) * 2);
          int end = Math.min(match.size(), start + 2);
          return Page.of(match.subList(start, end)).withHasMore(end < match.size());
        };
    Poller<JsonNode> orders =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .version(n -> n.get("updatedAt"))
            .cursor(Cursors.timestamp("updatedAt").build())
            .fetch(linkPaged)
            .schedule(Fixture.FIXED)
            .build();
    Recorder r = new Recorder();
    Watukuy w = f.engine("a").poller(orders).build().on(orders, r);

    KeyReport first = w.tick().poller("orders").orElseThrow();
    assertThat(first.pages()).isEqualTo(3);
    assertThat(r.changes())
        .containsExactly("o1:created", "o2:created", "o3:created", "o4:created", "o5:created");

    // A sixth tie arrives at the watermark: the next cycle re-reads the tie page by page and
    // finds it on page 3; the five known ones are re-seen with the same version, silently.
    f.clock.advance(Fixture.MIN);
    f.api.putAt("o6", Map.of("n", 6), t);
    KeyReport second = w.tick().poller("orders").orElseThrow();
    assertThat(second.failed()).isFalse();
    assertThat(second.pages()).isEqualTo(3);
    assertThat(r.changes())
        .containsExactly(
            "o1:created", "o2:created", "o3:created", "o4:created", "o5:created", "o6:created");
  }

  @Test
  void aBoundedCycleExecutorDoesNotDeadlockWithHandlers() throws Exception {
    f.seed(6);
    ExecutorService one = Executors.newFixedThreadPool(1);
    try {
      Poller<JsonNode> orders = f.timestamp("orders", 10).build();
      CountDownLatch delivered = new CountDownLatch(6);
      Watukuy w =
          Watukuy.builder()
              .store(f.store)
              .time(f.clock)
              .random(SeededRandom.of(1))
              .instanceId("a")
              .executor(one)
              .poller(orders)
              .build()
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
  void partitionNamesMustBeNonEmptyAndPrintable() {
    Poller.Builder<JsonNode, Void> b =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(ctx -> Page.<JsonNode>empty());
    assertThatThrownBy(() -> b.partitions(List.of("eu", "")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("poller orders")
        .hasMessageContaining("partition ''");
    assertThatThrownBy(() -> b.partitions(List.of("a\nb")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("control character");
  }

  @Test
  void aPartitionSupplierReturningJunkPollsOnlyTheValidNames() {
    Poller<JsonNode> orders =
        Poller.builder("orders", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(ctx -> Page.<JsonNode>empty())
            .partitions(() -> java.util.Arrays.asList("eu", "", null, "eu", "us"))
            .build();
    assertThat(orders.partitions()).containsExactly("eu", "us");
  }
}
