package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.Fetcher;
import io.watukuy.KeyReport;
import io.watukuy.LeaseLostException;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.Lease;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.ForwardingStore;
import io.watukuy.testing.RecordingFetcher;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A page ahead (docs/architecture.md, "A page ahead"): page n+1 is requested while page n is
 * committed, and whatever ends the run before page n+1 is taken (a lost lease, a failed commit, a
 * stop) drops it unseen, so that the events, their ids and sequences, and the stored cursor are
 * those of a cycle without prefetch. Ten items in pages of two: five pages. The store blocks the
 * cycle's thread inside a commit until the fetcher has returned the next page on the cycle pool, or
 * gives up after {@link #WAIT} of real time, which fails the test.
 */
class PrefetchTest {
  static final PollerKey ORDERS = PollerKey.of("orders");
  static final Duration WAIT = Duration.ofSeconds(10);

  /** A commit gate: runs on the cycle's thread before commit {@code n} (1-based) is written. */
  interface Gate {
    void before(int n, PollerKey key, Lease lease) throws Exception;
  }

  /** Runs the gate before each commit and counts them. */
  static final class GatedStore extends ForwardingStore {
    final AtomicInteger commits = new AtomicInteger();
    volatile Gate gate = (n, key, lease) -> {};

    GatedStore(StateStore delegate) {
      super(delegate);
    }

    StateStore inner() {
      return delegate;
    }

    @Override
    public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
      int n = commits.incrementAndGet();
      try {
        gate.before(n, key, lease);
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      super.commitPoll(key, lease, batch, now);
    }
  }

  final GatedStore store = new GatedStore(new MemoryStore());
  final Fixture f = new Fixture(store);
  final Recorder handler = new Recorder();
  final ExecutorService pool = Executors.newFixedThreadPool(2);
  final RecordingFetcher<JsonNode, Watermark> fetch =
      RecordingFetcher.of(f.api.timestampFetcher(2), f.clock);

  @AfterEach
  void shutDown() {
    pool.shutdownNow();
  }

  Watukuy engine(Poller<JsonNode> p) {
    return f.engine("a").executor(pool).poller(p).build().on(p, handler);
  }

  Poller<JsonNode> orders() {
    return f.timestamp("orders", 2).fetch(fetch).build();
  }

  /** "id#sequence:type" per delivered event, in delivery order. */
  static List<String> delivered(Recorder r) {
    return r.events().stream().map(PrefetchTest::describe).toList();
  }

  static String describe(ChangeEvent<JsonNode> e) {
    return e.id() + "#" + e.sequence() + ":" + e.type().wire();
  }

  /**
   * The same ten items polled by a cycle without prefetch (a direct executor): what every test
   * below must deliver, id for id and sequence for sequence.
   */
  static List<String> sequentialReference() {
    Fixture g = new Fixture();
    g.seed(10);
    Recorder r = new Recorder();
    Poller<JsonNode> p = g.timestamp("orders", 2).build();
    Watukuy w = g.engine("a").poller(p).build().on(p, r);
    w.tick();
    assertThat(r.events()).hasSize(10);
    return delivered(r);
  }

  private String liveCursor() {
    return f.store.loadState(ORDERS).map(PollerState::cursors).map(c -> c.get("live")).orElse(null);
  }

  @Test
  void everyNextPageIsFetchedOnTheCyclePoolBeforeTheCommitOfItsPredecessorReturns() {
    f.seed(10);
    List<Integer> fetchedDuringCommit = new CopyOnWriteArrayList<>();
    store.gate =
        (n, key, lease) -> {
          // Pages 2..5 are fetched ahead; page 5 is the last, so its commit waits for nothing.
          if (n < 5 && !fetch.awaitCalls(n + 1, WAIT)) fetchedDuringCommit.add(-1);
          else fetchedDuringCommit.add(fetch.calls().size());
        };
    String tickThread = Thread.currentThread().getName();

    KeyReport report = engine(orders()).tick().poller("orders").orElseThrow();

    assertThat(report.error()).isNull();
    assertThat(report.pages()).isEqualTo(5);
    // One page ahead, never two: while page n commits, n + 1 pages have been fetched.
    assertThat(fetchedDuringCommit).containsExactly(2, 3, 4, 5, 5);
    assertThat(fetch.pages()).containsExactly("live/1", "live/2", "live/3", "live/4", "live/5");
    assertThat(fetch.calls().get(0).thread()).isEqualTo(tickThread);
    assertThat(fetch.calls().subList(1, 5))
        .allSatisfy(c -> assertThat(c.thread()).isNotEqualTo(tickThread));
    assertThat(delivered(handler)).isEqualTo(sequentialReference());
    assertThat(liveCursor()).contains("\"tieBreak\":\"o010\"");
  }

  @Test
  void aLeaseLostDuringPageOnesCommitDropsThePageFetchedAheadUnseen() {
    f.seed(10);
    AtomicReference<Lease> taken = new AtomicReference<>();
    store.gate =
        (n, key, lease) -> {
          if (n != 1) return;
          assertThat(fetch.awaitCalls(2, WAIT)).as("page 2 fetched during commit 1").isTrue();
          // Another instance takes the key while page 1 commits: the fenced commit fails.
          store.inner().releaseLease(key, lease);
          taken.set(
              store
                  .inner()
                  .acquireLease(key, "b", Duration.ofSeconds(30), f.clock.now())
                  .orElseThrow());
        };
    Watukuy w = engine(orders());

    KeyReport lost = w.tick().poller("orders").orElseThrow();

    assertThat(lost.error()).isInstanceOf(LeaseLostException.class);
    assertThat(lost.eventsCommitted()).isZero();
    assertThat(handler.events()).isEmpty();
    assertThat(f.store.countPending(ORDERS)).isZero();
    assertThat(liveCursor()).isNull(); // not advanced past page 1, nor to page 2
    // Page 2 was fetched, then dropped: its cursor never asked for page 3.
    assertThat(fetch.pages()).containsExactly("live/1", "live/2");

    store.gate = (n, key, lease) -> {};
    store.inner().releaseLease(ORDERS, taken.get());
    KeyReport again = w.tick().poller("orders").orElseThrow();

    assertThat(again.error()).isNull();
    assertThat(delivered(handler)).isEqualTo(sequentialReference());
  }

  @Test
  void aFailedCommitDropsThePageFetchedAheadUnseen() {
    f.seed(10);
    store.gate =
        (n, key, lease) -> {
          if (n != 2) return;
          assertThat(fetch.awaitCalls(3, WAIT)).as("page 3 fetched during commit 2").isTrue();
          throw new StoreException("store orders: disk full (simulated)", null);
        };
    Watukuy w = engine(orders());

    KeyReport failed = w.tick().poller("orders").orElseThrow();

    assertThat(failed.error()).isInstanceOf(StoreException.class);
    // Page 1 is committed and delivered; page 2 failed whole; page 3 is dropped unseen.
    assertThat(failed.eventsCommitted()).isEqualTo(2);
    assertThat(delivered(handler)).isEqualTo(sequentialReference().subList(0, 2));
    assertThat(f.store.countPending(ORDERS)).isZero();
    assertThat(liveCursor()).contains("\"tieBreak\":\"o002\"");
    assertThat(fetch.pages()).containsExactly("live/1", "live/2", "live/3");

    store.gate = (n, key, lease) -> {};
    f.nextCycle(); // past the backoff of the failed cycle (at most backoff.base, 1 s)
    KeyReport again = w.tick().poller("orders").orElseThrow();

    assertThat(again.error()).isNull();
    assertThat(delivered(handler)).isEqualTo(sequentialReference());
  }

  @Test
  void aStopDuringACommitDropsThePageFetchedAheadAndTheNextStartResumesFromTheCommittedCursor()
      throws Exception {
    f.seed(10);
    AtomicReference<Watukuy> engine = new AtomicReference<>();
    CountDownLatch cycled = new CountDownLatch(1);
    List<KeyReport> reports = new CopyOnWriteArrayList<>();
    store.gate =
        (n, key, lease) -> {
          if (n != 1) return;
          assertThat(fetch.awaitCalls(2, WAIT)).as("page 2 fetched during commit 1").isTrue();
          engine.get().stop(true); // from the cycle's own thread: returns at once
        };
    Poller<JsonNode> p = orders();
    Watukuy w =
        f.engine("a")
            .executor(pool)
            .poller(p)
            .listener(
                new io.watukuy.WatukuyListener() {
                  @Override
                  public void onCycle(KeyReport report) {
                    if (report.outcome() == KeyReport.Outcome.POLLED) {
                      reports.add(report);
                      cycled.countDown();
                    }
                  }
                })
            .build()
            .on(p, handler);
    engine.set(w);

    w.start();
    f.clock.runDue(); // the first pass hands the key to the cycle pool
    assertThat(cycled.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    assertThat(reports).singleElement().satisfies(r -> assertThat(r.truncated()).isTrue());
    // The page in flight is committed and, with drain, delivered; the page ahead is not.
    assertThat(delivered(handler)).isEqualTo(sequentialReference().subList(0, 2));
    assertThat(liveCursor()).contains("\"tieBreak\":\"o002\"");
    assertThat(fetch.pages()).containsExactly("live/1", "live/2");

    store.gate = (n, key, lease) -> {};
    w.tick(); // due at once (catch-up): resumes at page 1's cursor

    assertThat(delivered(handler)).isEqualTo(sequentialReference());
  }

  @Test
  void anOperationCalledFromAFetchRunningAheadIsRefusedAtOnceAsFromTheCycle() {
    f.seed(10);
    AtomicReference<Watukuy> engine = new AtomicReference<>();
    List<String> refused = new CopyOnWriteArrayList<>();
    Fetcher<JsonNode, Watermark> plain = f.api.timestampFetcher(2);
    RecordingFetcher<JsonNode, Watermark> calling =
        RecordingFetcher.of(
            ctx -> {
              if (ctx.page() == 2) {
                try {
                  engine.get().resetCursor("orders", null, false);
                  refused.add("not refused");
                } catch (IllegalStateException e) {
                  refused.add(e.getMessage());
                }
              }
              return plain.fetch(ctx);
            },
            f.clock);
    store.gate =
        (n, key, lease) -> {
          if (n == 1) assertThat(calling.awaitCalls(2, WAIT)).isTrue();
        };
    String tickThread = Thread.currentThread().getName();
    Watukuy w = engine(f.timestamp("orders", 2).fetch(calling).build());
    engine.set(w);

    KeyReport report = w.tick().poller("orders").orElseThrow();

    assertThat(calling.calls().get(1).thread()).isNotEqualTo(tickThread);
    assertThat(refused)
        .singleElement()
        .asString()
        .contains("is in a cycle of this engine (called from its handler or fetch?)");
    assertThat(report.error()).isNull();
    assertThat(delivered(handler)).isEqualTo(sequentialReference());
  }

  @Test
  void aFetchMadeSequentialIsNeverCalledAhead() {
    f.seed(10);
    RecordingFetcher<JsonNode, Watermark> plain =
        RecordingFetcher.of(Fetcher.sequential(f.api.timestampFetcher(2)), f.clock);
    List<Integer> fetchedDuringCommit = new CopyOnWriteArrayList<>();
    store.gate = (n, key, lease) -> fetchedDuringCommit.add(plain.calls().size());
    String tickThread = Thread.currentThread().getName();

    engine(f.timestamp("orders", 2).fetch(plain).build()).tick();

    assertThat(fetchedDuringCommit).containsExactly(1, 2, 3, 4, 5);
    assertThat(plain.calls()).allSatisfy(c -> assertThat(c.thread()).isEqualTo(tickThread));
    assertThat(delivered(handler)).isEqualTo(sequentialReference());
  }

  @Test
  void aPoolWhoseThreadsAreAllBusyNeverHoldsUpTheCycle() throws Exception {
    f.seed(10);
    ExecutorService one = Executors.newFixedThreadPool(1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch blocked = new CountDownLatch(1);
    try {
      one.execute(
          () -> {
            blocked.countDown();
            try {
              release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      assertThat(blocked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      Poller<JsonNode> p = orders();
      Watukuy w = f.engine("a").executor(one).poller(p).build().on(p, handler);
      String tickThread = Thread.currentThread().getName();

      KeyReport report = w.tick().poller("orders").orElseThrow();

      // The queued prefetches never started: the cycle's thread fetched each page itself.
      assertThat(report.error()).isNull();
      assertThat(fetch.calls()).allSatisfy(c -> assertThat(c.thread()).isEqualTo(tickThread));
      assertThat(delivered(handler)).isEqualTo(sequentialReference());
    } finally {
      release.countDown();
      one.shutdownNow();
    }
  }

  @Test
  void aDirectExecutorKeepsTheSequentialCycle() {
    f.seed(10);
    List<Integer> fetchedDuringCommit = new CopyOnWriteArrayList<>();
    store.gate = (n, key, lease) -> fetchedDuringCommit.add(fetch.calls().size());
    Poller<JsonNode> p = orders();

    f.engine("a").poller(p).build().on(p, handler).tick(); // executor(Runnable::run)

    assertThat(fetchedDuringCommit).containsExactly(1, 2, 3, 4, 5);
    assertThat(delivered(handler)).isEqualTo(sequentialReference());
  }
}
