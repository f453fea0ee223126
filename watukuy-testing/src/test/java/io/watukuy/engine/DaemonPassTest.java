package io.watukuy.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.spi.PollerState;
import io.watukuy.store.memory.MemoryStore;
import io.watukuy.testing.ForwardingStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The daemon's passes: a key found not due is looked at again when it falls due (not at the first
 * pass after), an idle key's state is not read on every pass, and partitions are synced with the
 * store only when their list changes.
 */
class DaemonPassTest {

  /** Counts the reads a pass makes. */
  private static final class CountingStore extends ForwardingStore {
    final java.util.Map<PollerKey, AtomicInteger> loadState =
        new java.util.concurrent.ConcurrentHashMap<>();
    final AtomicInteger listKeys = new AtomicInteger();

    int reads(PollerKey key) {
      return loadState.computeIfAbsent(key, k -> new AtomicInteger()).get();
    }

    CountingStore() {
      super(new MemoryStore());
    }

    @Override
    public Optional<PollerState> loadState(PollerKey key) {
      loadState.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      return super.loadState(key);
    }

    @Override
    public List<PollerKey> listKeys(String poller) {
      listKeys.incrementAndGet();
      return super.listKeys(poller);
    }
  }

  private static Poller.Builder<JsonNode, Void> emptyPoller(
      String name, Duration every, List<Instant> fetches, Fixture f) {
    return Poller.builder(name, JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.snapshotDiff())
        .fetch(
            ctx -> {
              fetches.add(f.clock.now());
              return Page.<JsonNode>empty();
            })
        .schedule(Schedule.every(every).withAdaptive(false).withJitter(0));
  }

  @Test
  void aKeyFoundNotDueIsPolledTheMomentItFallsDue() {
    Fixture f = new Fixture();
    List<Instant> fetches = new CopyOnWriteArrayList<>();
    Poller<JsonNode> p = emptyPoller("orders", Duration.ofMillis(300), fetches, f).build();
    Watukuy w = f.engine("a").poller(p).build();
    Instant t0 = f.clock.now();
    w.tick(); // polled at t0: due again at t0 + 300 ms
    f.clock.advance(Duration.ofMillis(100));

    w.start(); // first pass at t0 + 100 ms finds the key not due
    f.clock.advance(Duration.ofMillis(250));
    w.stop();

    // A pass every 300 ms from t0 + 100 would poll at t0 + 400, 100 ms late.
    assertThat(fetches).containsExactly(t0, t0.plusMillis(300));
  }

  @Test
  void anIdleKeyIsNotReadOnEveryPassUntilItFallsDue() {
    CountingStore store = new CountingStore();
    Fixture f = new Fixture(store);
    List<Instant> fetches = new CopyOnWriteArrayList<>();
    Poller<JsonNode> idle = emptyPoller("idle", Duration.ofSeconds(30), fetches, f).build();
    // A second poller with a 1 s interval keeps the daemon passing every second.
    Poller<JsonNode> busy =
        emptyPoller("busy", Duration.ofSeconds(1), new CopyOnWriteArrayList<>(), f).build();
    Watukuy w = f.engine("a").poller(idle).poller(busy).build();
    Instant t0 = f.clock.now();
    w.start();
    f.clock.advance(Duration.ofMillis(500)); // the first pass polled both
    PollerKey idleKey = PollerKey.of("idle");
    int before = store.reads(idleKey);
    f.clock.advance(Duration.ofSeconds(29)); // 29 passes, the busy key polled at each
    int reads = store.reads(idleKey) - before;
    f.clock.advance(Duration.ofSeconds(1)); // t0 + 30.5 s: the idle key is due and polled
    w.stop();

    assertThat(fetches).containsExactly(t0, t0.plusSeconds(30));
    // The first pass that finds it not due reads it once and learns its due time; a read on
    // every pass would be 29.
    assertThat(reads).isEqualTo(1);
  }

  @Test
  void partitionsAreSyncedWithTheStoreOnlyWhenTheirListChanges() {
    CountingStore store = new CountingStore();
    Fixture f = new Fixture(store);
    List<String> partitions = new CopyOnWriteArrayList<>(List.of("eu", "us"));
    Poller<JsonNode> p =
        emptyPoller("orders", Duration.ofSeconds(1), new CopyOnWriteArrayList<>(), f)
            .partitions(() -> List.copyOf(partitions))
            .build();
    Watukuy w = f.engine("a").poller(p).build();
    w.start(); // lists the keys once to log those an earlier run left paused
    int atStart = store.listKeys.get();
    f.clock.advance(Duration.ofMillis(4500)); // five passes, one list
    int unchanged = store.listKeys.get() - atStart;
    partitions.remove("us");
    f.clock.advance(Duration.ofSeconds(3)); // three passes, one new list
    int afterRemoval = store.listKeys.get() - atStart;
    w.stop();

    assertThat(unchanged).isEqualTo(1);
    assertThat(afterRemoval).isEqualTo(2);
    assertThat(store.loadState(PollerKey.of("orders", "us")).orElseThrow().schedule().paused())
        .isEqualTo(io.watukuy.ScheduleState.PauseReason.PARTITION_REMOVED);
  }
}
