package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Retain;
import io.watukuy.Watukuy;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.ForwardingStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The stored versions of a page fetched ahead are read on the thread that fetched it
 * (docs/architecture.md, "A page ahead"), and what page n's commit wrote is read again for page
 * n+1: the events are those of a cycle that reads every version after the previous commit. A
 * listing of three pages of two items, where page 2 lists an item of page 1 again.
 */
class PrefetchVersionsTest {
  static final PollerKey KEY = PollerKey.of("items");
  static final Duration WAIT = Duration.ofSeconds(10);

  /** Records the thread of each loadVersions call; can hold commit 1 or fail a read ahead. */
  static final class WatchedStore extends ForwardingStore {
    final List<String> readers = new CopyOnWriteArrayList<>();
    final AtomicInteger reads = new AtomicInteger();
    final Semaphore readsAhead = new Semaphore(0);
    final AtomicInteger commits = new AtomicInteger();
    volatile boolean holdCommits;
    final AtomicBoolean failOneReadAhead = new AtomicBoolean();
    volatile String cycleThread = "";

    WatchedStore(StateStore delegate) {
      super(delegate);
    }

    @Override
    public Map<String, ItemRow> loadVersions(PollerKey key, Collection<String> identities) {
      String me = Thread.currentThread().getName();
      readers.add(me);
      reads.incrementAndGet();
      if (!me.equals(cycleThread)) {
        readsAhead.release();
        if (failOneReadAhead.compareAndSet(true, false))
          throw new IllegalStateException("read ahead fails once");
      }
      return super.loadVersions(key, identities);
    }

    @Override
    public void commitPoll(PollerKey key, Lease lease, CommitBatch batch, Instant now) {
      // Commit n of pages 1 and 2 waits until page n+1's versions were read ahead: the read of
      // page 2 then sees none of page 1's items stored, and no page is fetched by the cycle's
      // thread for want of a pool thread.
      int n = commits.incrementAndGet();
      if (n < PAGES.size() && holdCommits) {
        try {
          assertThat(readsAhead.tryAcquire(WAIT.toMillis(), TimeUnit.MILLISECONDS))
              .as("page " + (n + 1) + "'s versions read ahead before commit " + n)
              .isTrue();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      super.commitPoll(key, lease, batch, now);
    }
  }

  final WatchedStore store = new WatchedStore(new MemoryStore());
  final Fixture f = new Fixture(store);
  final Recorder handler = new Recorder();
  final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void shutDown() {
    pool.shutdownNow();
  }

  static JsonNode item(String id, String version) {
    return JsonNodeFactory.instance.objectNode().put("id", id).put("v", version);
  }

  /** Pages 1..3: a@1 b@1 | a@2 c@1 | d@1 e@1, then the end. */
  static final List<List<JsonNode>> PAGES =
      List.of(
          List.of(item("a", "1"), item("b", "1")),
          List.of(item("a", "2"), item("c", "1")),
          List.of(item("d", "1"), item("e", "1")));

  Poller<JsonNode> poller(Retain retain) {
    return Poller.builder("items", JsonNode.class)
        .identity(n -> n.get("id"))
        .version(n -> n.get("v"))
        .cursor(io.watukuy.Cursors.snapshotDiff())
        .retain(retain)
        .fetch(
            ctx -> {
              int n = ctx.page();
              return Page.of(PAGES.get(n - 1)).withHasMore(n < PAGES.size());
            })
        .schedule(Fixture.FIXED)
        .build();
  }

  KeyReport tick(Poller<JsonNode> p) {
    store.holdCommits = p.retain() != Retain.PAYLOAD;
    Watukuy w = f.engine("a").executor(pool).poller(p).build().on(p, handler);
    store.cycleThread = Thread.currentThread().getName();
    return w.tick().poller("items").orElseThrow();
  }

  @Test
  void anItemThePreviousCommitWroteIsReadAgainSoItsChangeIsAnUpdate() {
    KeyReport r = tick(poller(Retain.HASH));

    assertThat(r.error()).isNull();
    // Read ahead before commit 1, a was not stored: without a second read it would be created
    // twice.
    assertThat(handler.changes())
        .containsExactly(
            "a:created", "b:created", "a:updated", "c:created", "d:created", "e:created");
    assertThat(handler.of("a")).containsExactly("created@1", "updated@2");
  }

  @Test
  void pagesFetchedAheadHaveTheirVersionsReadOnThePoolThread() {
    KeyReport r = tick(poller(Retain.HASH));

    assertThat(r.error()).isNull();
    assertThat(r.pages()).isEqualTo(3);
    String cycle = store.cycleThread;
    // Page 1 on the cycle's thread, pages 2 and 3 ahead; page 2's a, written by commit 1, is read
    // again on the cycle's thread. The deletes pass of the listing reads nothing (none missing).
    List<String> ahead = store.readers.stream().filter(t -> !t.equals(cycle)).toList();
    assertThat(ahead).hasSize(2);
    assertThat(store.readers.stream().filter(cycle::equals).count()).isEqualTo(2);
    assertThat(handler.changes()).hasSize(6);
  }

  @Test
  void aReadAheadThatFailsIsReadAgainByTheDiffAndChangesNothing() {
    store.failOneReadAhead.set(true);

    KeyReport r = tick(poller(Retain.HASH));

    assertThat(r.error()).isNull();
    assertThat(store.failOneReadAhead).isFalse();
    assertThat(handler.changes())
        .containsExactly(
            "a:created", "b:created", "a:updated", "c:created", "d:created", "e:created");
  }

  @Test
  void storedPayloadsAreNeverReadAhead() {
    KeyReport r = tick(poller(Retain.PAYLOAD));

    assertThat(r.error()).isNull();
    assertThat(store.readers).containsOnly(store.cycleThread);
    assertThat(store.reads.get()).isEqualTo(3);
  }
}
