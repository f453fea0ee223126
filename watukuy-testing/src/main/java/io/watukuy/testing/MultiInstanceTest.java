package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.Fetcher;
import io.watukuy.KeyReport;
import io.watukuy.LeaseLostException;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Schedule;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.spi.Lease;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Several instances on one store (guarantee G5, "one active poller per key"): three engines with
 * three instance ids share one store and one {@link FakeApi} serving 50 keys, driven by {@code
 * tick()} from three threads on one {@link VirtualClock}.
 *
 * <ul>
 *   <li>The API never sees two fetches of one key at the same moment, and every change reaches a
 *       handler: each item's last delivered event carries its current state, per-key order holds
 *       and the outbox ends empty.
 *   <li>An engine that dies mid-cycle (a {@link FaultyStore} kill point) keeps its lease until the
 *       TTL runs out; then another engine takes the key and polls it.
 *   <li>An engine frozen mid-fetch whose lease expired gets {@link LeaseLostException} on its next
 *       write and fires {@link WatukuyListener#onLeaseLost}; nothing it fetched is committed.
 * </ul>
 *
 * <p>Extend it with a class whose {@link #openStore()} returns a new client of one shared, migrated
 * store on every call, as three processes would each open their own:
 *
 * <pre>{@code
 * class MyStoreMultiInstanceTest extends MultiInstanceTest {
 *   @Override protected StateStore openStore() { return MyStore.open(sharedUrl); }
 * }
 * }</pre>
 *
 * @since 0.1
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
public abstract class MultiInstanceTest {
  /** The number of keys: partitions {@code p00} to {@code p49} of poller {@code orders}. */
  protected static final int KEYS = 50;

  private static final Duration INTERVAL = Duration.ofSeconds(30);
  private static final Duration TTL = Duration.ofSeconds(30);
  // Each round is one contention: the three engines tick together on the same due keys, so the
  // lease is what keeps a key's fetches apart, and the round's changes must all reach a handler.
  // Twelve rounds repeated the same contention twelve times; six keep every key contended six
  // times (all 50 are due each round) with 60 changes and 18 new items spread over them, enough
  // for leases to move between engines (asserted: more than one engine polls), at half the cost.
  private static final int ROUNDS = 6;
  private static final int QUIET_ROUNDS = 3;

  private final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  private final FakeApi api = new FakeApi(clock);
  private final List<AutoCloseable> toClose = new CopyOnWriteArrayList<>();
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final Set<String> overlapping = ConcurrentHashMap.newKeySet();
  private final Map<String, String> lastFetcher = new ConcurrentHashMap<>();
  private final Set<String> polled = ConcurrentHashMap.newKeySet();
  private final ConcurrentLinkedQueue<ChangeEvent<JsonNode>> delivered =
      new ConcurrentLinkedQueue<>();
  private @Nullable StateStore checks;

  /**
   * A new client of the store under test. Every call in one test must reach the same stored data
   * (the first call may create it and must leave it migrated and empty); a store that is one
   * in-process object may return that object each time.
   *
   * @return a store; it is closed after the test when it is {@link AutoCloseable}
   */
  protected abstract StateStore openStore();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : toClose) c.close();
  }

  @Test
  void threeEnginesOnFiftyKeysPollEachKeyOnceAtATimeAndDeliverEveryChange() throws Exception {
    List<String> partitions = partitions(KEYS);
    RandomGenerator random = SeededRandom.of(50);
    for (String p : partitions) for (int i = 0; i < 2; i++) api.put(p + "-" + i, item(p, 0));
    List<Watukuy> engines =
        List.of("a", "b", "c").stream()
            .map(
                id ->
                    engine(
                        id,
                        poller(partitions, guarded(id, api.partitionedTimestampFetcher(5))),
                        null))
            .toList();
    AtomicInteger round = new AtomicInteger();
    // Between rounds, once every engine has ticked: a second passes (so changes are stamped after
    // every watermark of the round), the API changes, and the rest of the interval passes.
    CyclicBarrier barrier =
        new CyclicBarrier(
            engines.size(),
            () -> {
              clock.advance(Duration.ofSeconds(1));
              if (round.incrementAndGet() <= ROUNDS) mutate(partitions, random, round.get());
              clock.advance(INTERVAL.minusSeconds(1));
            });

    ExecutorService threads = Executors.newFixedThreadPool(engines.size());
    // The engines start their first tick together: an idle poll costs two store calls, so an
    // engine whose thread started first could lease every due key before the others begin.
    CountDownLatch start = new CountDownLatch(engines.size());
    try {
      List<Future<?>> running = new ArrayList<>();
      for (Watukuy engine : engines) {
        running.add(
            threads.submit(
                () -> {
                  start.countDown();
                  start.await(60, TimeUnit.SECONDS);
                  for (int r = 0; r < ROUNDS + QUIET_ROUNDS; r++) {
                    engine.tick();
                    barrier.await(60, TimeUnit.SECONDS);
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) f.get(4, TimeUnit.MINUTES);
    } finally {
      threads.shutdownNow();
    }

    assertThat(overlapping).as("keys fetched by two engines at the same moment").isEmpty();
    assertThat(polled).as("engines that polled").hasSizeGreaterThan(1);
    Map<String, ChangeEvent<JsonNode>> last = new HashMap<>();
    Map<String, Integer> lastRev = new HashMap<>();
    for (ChangeEvent<JsonNode> e : delivered) {
      String id = e.partition() + "/" + e.identity();
      int rev = e.data().get("rev").asInt();
      assertThat(rev).as("order of %s", id).isGreaterThanOrEqualTo(lastRev.getOrDefault(id, 0));
      lastRev.put(id, rev);
      last.put(id, e);
    }
    List<JsonNode> current = api.items();
    assertThat(last).hasSize(current.size());
    for (JsonNode item : current) {
      ChangeEvent<JsonNode> e =
          last.get(item.get("partition").asText() + "/" + item.get("id").asText());
      assertThat(e).as("an event for %s", item).isNotNull();
      assertThat(e.data()).as("the last event of %s", item.get("id")).isEqualTo(item);
    }
    StateStore store = store();
    for (String p : partitions) {
      assertThat(store.countPending(PollerKey.of("orders", p))).as("pending of %s", p).isZero();
    }
  }

  @Test
  void anEngineThatDiesMidCycleHandsItsKeyToAnotherAfterTheTtl() {
    List<String> partitions = partitions(4);
    for (String p : partitions) api.put(p + "-0", item(p, 0));
    PollerKey held = PollerKey.of("orders", "p01");
    FaultyStore dying = new FaultyStore(store()).arm(KillPoint.AFTER_FETCH, held, 0);
    Watukuy a =
        engine("a", poller(partitions, guarded("a", api.partitionedTimestampFetcher(5))), dying);
    Watukuy b =
        engine("b", poller(partitions, guarded("b", api.partitionedTimestampFetcher(5))), null);

    a.tick(); // dies right after fetching p01, before committing: its lease of p01 stays behind
    assertThat(dying.fired()).hasValue(KillPoint.AFTER_FETCH);
    assertThat(store().getLease(held)).map(Lease::owner).hasValue("a");

    KeyReport early = b.tick().key(held).orElseThrow();
    assertThat(early.outcome()).isEqualTo(KeyReport.Outcome.SKIPPED_LEASED);
    assertThat(delivered).extracting(ChangeEvent::partition).doesNotContain("p01");

    clock.advance(TTL.plusSeconds(1));
    KeyReport late = b.tick().key(held).orElseThrow();
    assertThat(late.outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(lastFetcher).containsEntry("p01", "b");
    assertThat(delivered)
        .filteredOn(e -> e.partition().equals("p01"))
        .extracting(ChangeEvent::identity)
        .containsExactly("p01-0");
  }

  @Test
  void aFrozenEngineWhoseLeaseExpiredGetsLeaseLostOnItsNextWrite() throws Exception {
    api.put("p00-0", item("p00", 0));
    CountDownLatch fetching = new CountDownLatch(1);
    CountDownLatch thaw = new CountDownLatch(1);
    Fetcher<JsonNode, Watermark> live = api.partitionedTimestampFetcher(5);
    Poller<JsonNode> frozenPoller =
        poller(
            List.of("p00"),
            guarded(
                "a",
                ctx -> {
                  fetching.countDown();
                  if (!thaw.await(60, TimeUnit.SECONDS))
                    throw new IllegalStateException("never thawed");
                  return live.fetch(ctx);
                }));
    // A frozen process sends no renewals: they never reach the store.
    StateStore frozenStore =
        new ForwardingStore(store()) {
          @Override
          public Optional<Lease> renewLease(PollerKey key, Lease lease, Duration ttl, Instant now) {
            return Optional.of(lease);
          }
        };
    List<PollerKey> lost = new CopyOnWriteArrayList<>();
    Watukuy a =
        engine(
            "a",
            frozenPoller,
            frozenStore,
            new WatukuyListener() {
              @Override
              public void onLeaseLost(PollerKey key, LeaseLostException error) {
                lost.add(key);
              }
            });
    Watukuy b = engine("b", poller(List.of("p00"), guarded("b", live)), null);

    Thread frozen = new Thread(a::tick, "frozen-a");
    frozen.start();
    assertThat(fetching.await(60, TimeUnit.SECONDS)).isTrue();
    clock.advance(TTL.plusSeconds(1));
    b.tick();
    api.put("p00-1", item("p00", 1)); // seen by a's fetch after the thaw, never by its handler
    thaw.countDown();
    frozen.join(60_000);

    assertThat(frozen.isAlive()).isFalse();
    PollerKey key = PollerKey.of("orders", "p00");
    assertThat(lost).containsExactly(key);
    assertThat(delivered)
        .extracting(e -> e.identity() + "@" + e.source())
        .containsExactly("p00-0@orders");
    assertThat(store().countPending(key)).isZero();
    assertThat(store().getLease(key)).map(Lease::owner).isNotEqualTo(Optional.of("a"));
  }

  private Watukuy engine(String id, Poller<JsonNode> poller, @Nullable StateStore store) {
    return engine(id, poller, store, new WatukuyListener() {});
  }

  private Watukuy engine(
      String id, Poller<JsonNode> poller, @Nullable StateStore store, WatukuyListener listener) {
    StateStore s = store;
    if (s == null) {
      s = openStore();
      toClose.add(s);
    }
    Watukuy w =
        Watukuy.builder()
            .store(s)
            .time(clock)
            .random(SeededRandom.of(id.hashCode()))
            .instanceId(id)
            .leaseTtl(TTL)
            .executor(Runnable::run)
            .handlerExecutor(Runnable::run)
            .delivery(new DeliveryOptions(1, DeliveryOptions.DEFAULT_DISPATCH_BATCH_SIZE))
            .listener(listener)
            .poller(poller)
            .build();
    w.on(poller, event -> delivered.add(event));
    toClose.add(0, w);
    return w;
  }

  /** One more client of the store, for the test's own checks; opened once. */
  private StateStore store() {
    if (checks == null) {
      checks = openStore();
      toClose.add(checks);
    }
    return checks;
  }

  private Poller<JsonNode> poller(List<String> partitions, Fetcher<JsonNode, Watermark> fetch) {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id"))
        .version(n -> n.get("updatedAt").asText() + "#" + n.get("rev").asText())
        .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
        .partitions(partitions)
        .fetch(fetch)
        .schedule(Schedule.every(INTERVAL).withAdaptive(false).withJitter(0))
        .build();
  }

  /**
   * Counts fetches per key in flight across engines; a second one at the same moment is recorded.
   */
  private Fetcher<JsonNode, Watermark> guarded(
      String instance, Fetcher<JsonNode, Watermark> fetch) {
    return ctx -> {
      String key = ctx.partition();
      AtomicInteger n = inFlight.computeIfAbsent(key, k -> new AtomicInteger());
      if (n.incrementAndGet() > 1) overlapping.add(key);
      lastFetcher.put(key, instance);
      polled.add(instance);
      try {
        Thread.yield(); // widen the window in which a second fetch of this key would show
        return fetch.fetch(ctx);
      } finally {
        n.decrementAndGet();
      }
    };
  }

  private void mutate(List<String> partitions, RandomGenerator random, int round) {
    for (int i = 0; i < 10; i++) {
      String p = partitions.get(random.nextInt(partitions.size()));
      String id = p + "-" + random.nextInt(2);
      api.put(id, item(p, round));
    }
    for (int i = 0; i < 3; i++) {
      String p = partitions.get(random.nextInt(partitions.size()));
      api.put(p + "-r" + round + "-" + i, item(p, 0));
    }
  }

  private static Map<String, Object> item(String partition, int n) {
    return Map.of("partition", partition, "n", n);
  }

  private static List<String> partitions(int count) {
    return IntStream.range(0, count).mapToObj(i -> String.format("p%02d", i)).toList();
  }
}
