package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.KeyReport;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.Schedule;
import io.watukuy.TickReport;
import io.watukuy.Watukuy;
import io.watukuy.spi.StateStore;
import io.watukuy.store.memory.MemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine end to end on a store, under a {@link VirtualClock} and a {@link FakeApi}: the
 * scenarios every {@link StateStore} runs beside the {@link StoreContractTest}, which checks the
 * store's methods one by one. These check that the engine's use of them holds its guarantees:
 *
 * <ul>
 *   <li>the same world gives the same event ids on this store as on {@link MemoryStore} (G2);
 *   <li>a restarted process continues from the stored cursor and outbox sequence: no event lost,
 *       none repeated, no listing read again from the start (G1, G4);
 *   <li>two instances with their own clients on one store never poll a key at once, and the second
 *       takes over where the first stopped (G5).
 * </ul>
 *
 * <p>Extend it with a class whose {@link #openStore()} returns a new client of the one store of the
 * running test on every call, as separate processes would each open their own; the first call in a
 * test finds that store empty:
 *
 * <pre>{@code
 * class MyStoreEngineTest extends StoreEngineTest {
 *   @TempDir Path dir;
 *   @Override protected StateStore openStore() { return MyStore.open(dir.resolve("engine.db")); }
 * }
 * }</pre>
 *
 * <p>Scenarios that only one store can stage (a server outage, a terminated backend) belong in that
 * subclass; they may build engines with {@link #engine}, poll {@link #orders()} over {@link #api()}
 * and move {@link #clock()}.
 *
 * @since 0.1
 */
public abstract class StoreEngineTest {

  /** The poll interval of every poller the scenarios build, with no jitter and no adaptation. */
  protected static final Duration INTERVAL = Duration.ofSeconds(30);

  private final VirtualClock clock = VirtualClock.at("2026-03-01T10:00:00Z");
  private final FakeApi api = new FakeApi(clock);
  private final List<StateStore> opened = new CopyOnWriteArrayList<>();

  /**
   * A new client of the store under test. Every call in one test must reach the same stored data
   * (the first call may create it and must find it empty), and that data must outlive {@link
   * StateStore#close()}: a test closes one client and opens another as a restarted process would. A
   * store that is one in-process object may return that object each time if its {@code close()}
   * keeps the data.
   *
   * <p>The suite closes every store it opened after each test (again, if the test already closed
   * it); removing the stored data (a file, a schema, a key prefix) is the subclass's part.
   *
   * @return a store; the engine migrates it
   */
  protected abstract StateStore openStore();

  /**
   * The clock every engine of the running test reads.
   *
   * @return a virtual clock starting at 2026-03-01T10:00:00Z
   */
  protected final VirtualClock clock() {
    return clock;
  }

  /**
   * The vendor of the running test, on {@link #clock()}.
   *
   * @return an empty API when the test starts
   */
  protected final FakeApi api() {
    return api;
  }

  /**
   * A new poller {@code orders} over {@link #api()}: a timestamp cursor on {@code updatedAt} with
   * {@code id} as tie-break, pages of 3, polled every {@link #INTERVAL}.
   *
   * @return the poller
   */
  protected final Poller<JsonNode> orders() {
    return orders(api);
  }

  /**
   * A deterministic engine on {@code store}: the running test's clock, seeded randomness, one
   * handler at a time, everything on the calling thread.
   *
   * @param store the store; the engine neither opens nor closes it
   * @param instanceId the engine's instance id, which becomes its lease owner
   * @param pollers the pollers it runs
   * @return the engine, built but not started; {@code tick()} runs it
   */
  protected final Watukuy engine(StateStore store, String instanceId, Poller<?>... pollers) {
    return engine(store, clock, instanceId, pollers);
  }

  private StateStore open() {
    StateStore store = openStore();
    opened.add(store);
    return store;
  }

  @AfterEach
  final void closeStores() {
    for (StateStore store : opened) {
      store.close();
    }
    opened.clear();
  }

  /** G2: the same observations give byte-identical event ids, whatever the store. */
  @Test
  void memoryAndThisStoreProduceIdenticalIdLists() {
    List<String> memory = world(new MemoryStore(), "memory");
    List<String> store = world(open(), "store");

    assertThat(memory).hasSize(7 + 7 + 1 + 1 + 1).doesNotHaveDuplicates();
    assertThat(store).isEqualTo(memory);
  }

  /**
   * Two pollers (timestamp, snapshotDiff) over one world of its own: seven creates, then an update
   * and a delete, polled twice.
   */
  private static List<String> world(StateStore store, String instanceId) {
    VirtualClock clock = new VirtualClock();
    FakeApi api = new FakeApi(clock);
    Poller<JsonNode> orders = orders(api);
    Poller<JsonNode> catalog =
        Poller.builder("catalog", JsonNode.class)
            .identity(n -> n.get("id"))
            .cursor(Cursors.snapshotDiff())
            .fetch(api.snapshotFetcher(3))
            .schedule(Schedule.every(INTERVAL).withAdaptive(false).withJitter(0))
            .build();
    List<String> ids = new ArrayList<>();
    Watukuy w = engine(store, clock, instanceId, orders, catalog);
    w.on(orders, e -> ids.add(e.id())).on(catalog, e -> ids.add(e.id()));
    for (int i = 1; i <= 7; i++) api.put("o" + i, Map.of("n", i));
    w.tick();
    clock.advance(INTERVAL);
    api.put("o2", Map.of("n", 22));
    api.delete("o5");
    w.tick();
    return ids;
  }

  /**
   * G1 and G4: a process that stops after its commits leaves cursor, items and sequence in the
   * store; the next one on the same data delivers only the changes since, with the next sequences,
   * in one request from the stored watermark.
   */
  @Test
  void aRestartedProcessContinuesFromTheStoredCursorAndSequence() {
    for (int i = 1; i <= 4; i++) api.put("o" + i, Map.of("n", i));
    List<ChangeEvent<JsonNode>> first = new ArrayList<>();
    try (StateStore store = open()) {
      Poller<JsonNode> p = orders();
      engine(store, "first", p).on(p, first::add).tick();
    }
    clock.advance(INTERVAL);
    api.put("o2", Map.of("n", 20));
    api.put("o5", Map.of("n", 5));
    int before = api.requests();
    List<ChangeEvent<JsonNode>> second = new ArrayList<>();
    try (StateStore store = open()) {
      Poller<JsonNode> p = orders();
      engine(store, "second", p).on(p, second::add).tick();
    }

    assertThat(first)
        .extracting(e -> e.identity() + ":" + e.type().wire())
        .containsExactly("o1:created", "o2:created", "o3:created", "o4:created");
    assertThat(second)
        .extracting(e -> e.identity() + ":" + e.type().wire())
        .containsExactly("o2:updated", "o5:created");
    assertThat(second).extracting(ChangeEvent::sequence).containsExactly(5L, 6L);
    assertThat(api.requests() - before)
        .isEqualTo(1); // resumed from the watermark, not from the start
  }

  /**
   * G5: while instance a delivers under its lease, instance b (its own client of the same store)
   * skips the key as leased and sees nothing; once a has released the lease, b takes over where a
   * stopped, with no event twice.
   */
  @Test
  void twoInstancesOnOneStoreNeverPollTheSameKeyAtOnce() {
    for (int i = 1; i <= 2; i++) api.put("o" + i, Map.of("n", i));
    StateStore a = open();
    StateStore b = open();
    Poller<JsonNode> pa = orders();
    Poller<JsonNode> pb = orders();
    List<String> seenByB = new ArrayList<>();
    Watukuy wb = engine(b, "b", pb).on(pb, e -> seenByB.add(e.id()));
    AtomicReference<TickReport> duringA = new AtomicReference<>();
    List<String> seenByA = new ArrayList<>();
    Watukuy wa =
        engine(a, "a", pa)
            .on(
                pa,
                e -> {
                  seenByA.add(e.id());
                  if (duringA.get() == null) duringA.set(wb.tick());
                });

    wa.tick();

    assertThat(duringA.get().key(PollerKey.of("orders")).orElseThrow().outcome())
        .isEqualTo(KeyReport.Outcome.SKIPPED_LEASED);
    assertThat(seenByA).hasSize(2);
    assertThat(seenByB).isEmpty();

    // Once a has released the lease, b takes over where a stopped: no event twice.
    clock.advance(INTERVAL);
    api.put("o3", Map.of("n", 3));
    wb.tick();
    assertThat(seenByB).hasSize(1);
    assertThat(seenByA).doesNotContainAnyElementsOf(seenByB);
    assertThat(b.getLease(PollerKey.of("orders"))).isEmpty();
  }

  /**
   * An idle poll (due, an empty page, nothing pending) reaches the store twice: the lease with the
   * state, then the state with the lease's release (docs/architecture.md, "What an idle poll
   * costs"); a visit before the key is due only reads.
   */
  @Test
  void anIdlePollMakesTwoStoreCallsAndANotDueVisitOnlyReads() {
    for (int i = 1; i <= 2; i++) api.put("o" + i, Map.of("n", i));
    CountingStore store = new CountingStore(open());
    Poller<JsonNode> p = orders();
    List<String> delivered = new ArrayList<>();
    Watukuy w = engine(store, "a", p).on(p, e -> delivered.add(e.id()));
    w.tick(); // the first poll: two events committed and delivered
    clock.advance(INTERVAL);
    store.reset();

    KeyReport idle = w.tick().key(PollerKey.of("orders")).orElseThrow();

    assertThat(store.calls()).containsExactly("acquireLeaseAndLoad", "saveStateAndRelease");
    assertThat(idle.outcome()).isEqualTo(KeyReport.Outcome.POLLED);
    assertThat(idle.error()).isNull();
    assertThat(idle.pages()).isEqualTo(1);
    assertThat(idle.eventsCommitted()).isZero();
    assertThat(delivered).hasSize(2);
    assertThat(store.getLease(PollerKey.of("orders"))).isEmpty();
    assertThat(store.loadState(PollerKey.of("orders")).orElseThrow().schedule().nextDueAt())
        .isEqualTo(clock.now().plus(INTERVAL));

    clock.advance(INTERVAL.dividedBy(2));
    store.reset();
    KeyReport early = w.tick().key(PollerKey.of("orders")).orElseThrow();

    assertThat(early.outcome()).isEqualTo(KeyReport.Outcome.SKIPPED_NOT_DUE);
    assertThat(store.calls()).containsExactly("loadState", "countPending");
  }

  private static Poller<JsonNode> orders(FakeApi api) {
    return Poller.builder("orders", JsonNode.class)
        .identity(n -> n.get("id"))
        .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
        .fetch(api.timestampFetcher(3))
        .schedule(Schedule.every(INTERVAL).withAdaptive(false).withJitter(0))
        .build();
  }

  private static Watukuy engine(
      StateStore store, VirtualClock clock, String instanceId, Poller<?>... pollers) {
    Watukuy.Builder b =
        Watukuy.builder()
            .store(store)
            .time(clock)
            .random(SeededRandom.of(7))
            .instanceId(instanceId)
            .executor(Runnable::run)
            .handlerExecutor(Runnable::run)
            .delivery(new DeliveryOptions(1, 100));
    for (Poller<?> p : pollers) b.poller(p);
    return b.build();
  }
}
