package io.watukuy.store.redis;

import static io.watukuy.spi.InvocationStatus.DONE;
import static io.watukuy.spi.InvocationStatus.FAILED;
import static io.watukuy.store.redis.RedisStoreTest.slot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.spi.JournalEntry;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.SubjectKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * RedisStore's effect tables beyond the contract: the key layout and its cluster slots, the
 * source's mirror of watermarks, written before a first cursor and never above one, atomic skip
 * requests and journal appends under races, exact order past 2<sup>53</sup>, and messages that name
 * the effect but never a stored value.
 */
class RedisEffectStoreTest {
  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
  static final Duration TTL = Duration.ofSeconds(30);
  static final String EFFECT = "NotifyCustomer";
  static final PollerKey SOURCE = PollerKey.of("orders", "eu");

  @RegisterExtension static final TestRedis redis = TestRedis.local();

  // ---- key layout

  @Test
  void everyCallNamesKeysOfOneClusterSlotAndEveryKeyIsWhereTheDocsSay() {
    String prefix = redis.newPrefix("effect-layout");
    Recording recording = new Recording(redis.client());
    RedisStore redisStore = RedisStore.builder(recording).prefix(prefix).build();
    EffectStore store = effects(redisStore);
    String effect = "Notify{x}|%";
    PollerKey source = PollerKey.of("or|ders", "{eu}");

    Lease lease = store.acquireEffectLease(effect, "a", TTL, T0).orElseThrow();
    store.saveCursor(new EffectCursor(effect, source, 2, 1L, Map.of("created", "c"), T0), lease);
    store.rewind(effect, source, 2, true, lease, T0);
    store.saveInvocation(row(effect, source, 3, DONE), lease);
    store.saveInvocation(row(effect, source, 4, FAILED), lease);
    store.appendJournalEntry(entry(effect, source, 3, 1, 0));
    store.requestSkip(effect, source, 4, T0);
    store.addCounts(effect, 1, "fail", 0, T0);
    store.setQuarantine(effect, "operator", T0);
    store.putSubjectKeyIfAbsent(new SubjectKey("c-1", "k-1", "wrapped", T0));
    store.listEffects();
    store.lowestWatermark(source);
    store.listInvocations(effect, source, 0, Set.of(FAILED), 10);
    store.listJournal(effect, source, 3, 0, 10);
    store.sweepInvocations(effect, source, T0.plusSeconds(1), 10);
    store.renewEffectLease(effect, lease, TTL, T0);

    assertThat(recording.calls).isNotEmpty();
    assertThat(recording.calls)
        .allSatisfy(
            keys ->
                assertThat(keys)
                    .as("keys of one call")
                    .allSatisfy(k -> assertThat(slot(k)).isEqualTo(slot(keys.get(0)))));
    String base = prefix + "{effect:Notify%7Bx%7D%7C%25}:";
    String tag = "or%7Cders|%7Beu%7D";
    assertThat(redis.keys(prefix))
        .containsExactlyInAnyOrder(
            base + "lease",
            base + "record",
            base + "cursors",
            base + "sources",
            base + "written",
            base + "invocations:" + tag,
            base + "positions:" + tag,
            base + "completed:" + tag,
            base + "journal:" + tag,
            base + "calls:" + tag,
            prefix + "{" + tag + "}:effects",
            prefix + "effects",
            prefix + "subjects");
    // Position 3 is done and old, but above the watermark: the sweep kept it.
    assertThat(store.countInvocations(effect, source, 0)).isEqualTo(2);
    // The rewind to 2 left the source's mirror at watermark 2, written by the lease's epoch.
    assertThat(redis.commands().hgetall(prefix + "{" + tag + "}:effects"))
        .containsExactlyEntriesOf(Map.of(effect, "0000000000000000002 " + lease.epoch()));
    assertThat(slot(prefix + "{" + tag + "}:effects"))
        .isEqualTo(slot(redisStore.keyNames(source).get(0)));
  }

  // ---- the source's mirror of watermarks comes before the cursor and never above it

  @Test
  void theSourceNamesTheEffectBeforeItsFirstCursorIsWritten() {
    String prefix = redis.newPrefix("effect-index");
    Recording recording = new Recording(redis.client());
    RedisStore redisStore = RedisStore.builder(recording).prefix(prefix).build();
    EffectStore store = effects(redisStore);
    Lease lease = store.acquireEffectLease(EFFECT, "a", TTL, T0).orElseThrow();
    String sourceSet = prefix + "{orders|eu}:effects";
    // The cursor write that follows the source's set fails, as a connection lost there would.
    recording.failWhen = keys -> recording.sawKey(sourceSet) && keys.get(0).endsWith(":lease");

    assertThatThrownBy(() -> store.saveCursor(cursor(7), lease))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("saveCursor effect NotifyCustomer on orders[eu]")
        .hasMessageContaining(prefix);
    recording.failWhen = keys -> false;

    assertThat(redis.commands().hkeys(sourceSet)).containsExactly(EFFECT);
    assertThat(store.loadCursors(EFFECT)).isEmpty();
    assertThat(store.lowestWatermark(SOURCE)).isEmpty();

    store.saveCursor(cursor(7), lease);
    assertThat(store.lowestWatermark(SOURCE)).hasValue(7);
    int before = recording.calls.size();
    store.saveCursor(cursor(9), lease);
    // An advance writes the cursor, then raises the mirror after it.
    assertThat(recording.calls.size() - before).as("calls of a cursor advance").isEqualTo(2);
    before = recording.calls.size();
    store.saveCursor(cursor(9), lease);
    assertThat(recording.calls.size() - before).as("calls of a cursor that stays").isEqualTo(1);
    assertThat(store.lowestWatermark(SOURCE)).hasValue(9);
    // Deleting the poller key's data (a partition change) leaves the effects reading it named.
    redisStore.deleteKey(SOURCE);
    assertThat(store.lowestWatermark(SOURCE)).hasValue(9);
  }

  @Test
  void aRewindLowersTheMirrorEvenWhenItsCursorWriteThenFails() {
    String prefix = redis.newPrefix("effect-mirror");
    Recording recording = new Recording(redis.client());
    RedisStore store = RedisStore.builder(recording).prefix(prefix).build();
    Lease lease = effects(store).acquireEffectLease(EFFECT, "a", TTL, T0).orElseThrow();
    effects(store).saveCursor(cursor(4), lease);
    logEvents(store, 5);
    String mirror = prefix + "{orders|eu}:effects";
    // Every effect-slot call after the mirror's is lost, as a connection dropped there would.
    int seen = recording.calls.size();
    recording.failWhen =
        keys -> keys.get(0).endsWith(":lease") && recording.sawKeyAfter(seen, mirror);

    assertThatThrownBy(() -> effects(store).rewind(EFFECT, SOURCE, 1, false, lease, T0))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("rewind effect NotifyCustomer on orders[eu]");
    recording.failWhen = keys -> false;

    assertThat(effects(store).loadCursors(EFFECT))
        .singleElement()
        .returns(4L, EffectCursor::watermark);
    // The log's floor went down first: events 2..4, which the rewind re-delivers, stay.
    assertThat(store.pruneLog(SOURCE, T0.plusSeconds(3600))).isEqualTo(1);
    assertThat(store.readLog(SOURCE, LogRange.after(0), 10))
        .extracting(LoggedEvent::sequence)
        .containsExactly(2L, 3L, 4L, 5L);
    assertThat(redis.commands().hget(mirror, EFFECT))
        .isEqualTo("0000000000000000001 " + lease.epoch());
  }

  /** Logs events 1..count on SOURCE, all created at T0. */
  private static void logEvents(RedisStore store, int count) {
    Lease poller = store.acquireLease(SOURCE, "poller", TTL, T0).orElseThrow();
    List<OutboxRow> events = new ArrayList<>();
    for (long seq = 1; seq <= count; seq++) {
      events.add(RedisStoreTest.event(seq, "{\"s\":" + seq + "}"));
    }
    store.commitPoll(
        SOURCE,
        poller,
        new CommitBatch(
            StatePatch.NONE.withLastSequence(count), List.of(), List.of(), events, true, List.of()),
        T0);
  }

  @Test
  void aStaleHoldersLateRaiseCannotLiftTheMirrorAboveANewerHoldersRewind() {
    String prefix = redis.newPrefix("effect-mirror-stale");
    Recording recording = new Recording(redis.client());
    RedisStore stale = RedisStore.builder(recording).prefix(prefix).build();
    RedisStore newer = redis.store(prefix);
    Lease a = effects(stale).acquireEffectLease(EFFECT, "a", TTL, T0).orElseThrow();
    effects(stale).saveCursor(cursor(4), a);
    logEvents(stale, 10);
    String mirror = prefix + "{orders|eu}:effects";
    // Between a's cursor write to 8 and its raise of the mirror, its lease expires and b rewinds.
    AtomicInteger rewinds = new AtomicInteger();
    int seen = recording.calls.size();
    recording.failWhen =
        keys -> {
          if (keys.contains(mirror)
              && recording.sawKeyAfter(seen, prefix + "{effect:NotifyCustomer}:lease")
              && rewinds.getAndIncrement() == 0) {
            Instant later = T0.plus(TTL).plusSeconds(1);
            Lease b = effects(newer).acquireEffectLease(EFFECT, "b", TTL, later).orElseThrow();
            effects(newer).rewind(EFFECT, SOURCE, 2, false, b, later);
          }
          return false;
        };

    effects(stale).saveCursor(cursor(8), a);

    assertThat(rewinds).hasValue(1);
    assertThat(effects(newer).loadCursors(EFFECT))
        .singleElement()
        .returns(2L, EffectCursor::watermark);
    assertThat(redis.commands().hget(mirror, EFFECT)).startsWith("0000000000000000002 ");
    assertThat(newer.pruneLog(SOURCE, T0.plusSeconds(3600))).isEqualTo(2);
  }

  @Test
  void aMirrorWrittenAsASetOfEffectsHoldsTheWholeLogUntilTheCursorAdvances() {
    String prefix = redis.newPrefix("effect-mirror-set");
    RedisStore store = redis.store(prefix);
    Lease lease = effects(store).acquireEffectLease(EFFECT, "a", TTL, T0).orElseThrow();
    effects(store).saveCursor(cursor(3), lease);
    logEvents(store, 5);
    String mirror = prefix + "{orders|eu}:effects";
    redis.commands().del(mirror);
    redis.commands().sadd(mirror, EFFECT);

    assertThat(store.pruneLog(SOURCE, T0.plusSeconds(3600))).isZero();
    assertThat(effects(store).lowestWatermark(SOURCE)).hasValue(3);
    effects(store).saveCursor(cursor(4), lease);
    assertThat(store.pruneLog(SOURCE, T0.plusSeconds(3600))).isEqualTo(4);
  }

  // ---- atomicity under races

  @Test
  void aSkipRequestSurvivesRowWritesRacingItFromAnotherConnection() throws Exception {
    String prefix = redis.newPrefix("effect-skip");
    EffectStore writer = effects(redis.connect().store(prefix));
    EffectStore operator = effects(redis.store(prefix));
    Lease lease = writer.acquireEffectLease(EFFECT, "engine", TTL, T0).orElseThrow();
    writer.saveInvocation(row(EFFECT, SOURCE, 5, FAILED), lease);
    AtomicInteger writes = new AtomicInteger();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> engine =
          pool.submit(
              () -> {
                for (int i = 0; i < 300; i++) {
                  writer.saveInvocation(row(EFFECT, SOURCE, 5, FAILED), lease);
                  writes.incrementAndGet();
                }
              });
      while (writes.get() < 50) {
        Thread.onSpinWait();
      }
      assertThat(operator.requestSkip(EFFECT, SOURCE, 5, T0.plusSeconds(1))).isTrue();
      engine.get(60, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }

    assertThat(writes.get()).isEqualTo(300);
    assertThat(operator.loadInvocation(EFFECT, SOURCE, 5).orElseThrow().skipRequested()).isTrue();
  }

  @Test
  void racingAppendsOfOneCallKeepExactlyTheFirst() throws Exception {
    String prefix = redis.newPrefix("effect-journal");
    List<EffectStore> stores =
        List.of(effects(redis.store(prefix)), effects(redis.connect().store(prefix)));
    int threads = 8;
    CountDownLatch start = new CountDownLatch(1);
    List<Integer> winners = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int n = t;
        futures.add(
            pool.submit(
                () -> {
                  start.await(60, TimeUnit.SECONDS);
                  JournalEntry e = entryWithResult(3, "result of " + n);
                  if (stores.get(n % 2).appendJournalEntry(e)) {
                    winners.add(n);
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(winners).hasSize(1);
    List<JournalEntry> journal = stores.get(0).listJournal(EFFECT, SOURCE, 3, 0, 10);
    assertThat(journal).containsExactly(entryWithResult(3, "result of " + winners.get(0)));
  }

  // ---- order

  @Test
  void positionsAboveTwoToTheFiftyThreeKeepExactOrder() {
    RedisStore redisStore = redis.store(redis.newPrefix("effect-order"));
    EffectStore store = effects(redisStore);
    Lease lease = store.acquireEffectLease(EFFECT, "a", TTL, T0).orElseThrow();
    long p = 1L << 53;
    for (long position : List.of(Long.MAX_VALUE, p + 1, Long.MAX_VALUE - 1, p)) {
      store.saveInvocation(row(EFFECT, SOURCE, position, DONE), lease);
      store.appendJournalEntry(entry(EFFECT, SOURCE, position, 1, 0));
    }
    store.saveCursor(cursor(p + 1), lease);

    assertThat(store.listInvocations(EFFECT, SOURCE, 0, Set.of(), 10))
        .extracting(InvocationRow::position)
        .containsExactly(p, p + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE);
    assertThat(store.countInvocations(EFFECT, SOURCE, p)).isEqualTo(3);
    assertThat(store.lowestWatermark(SOURCE)).hasValue(p + 1);

    assertThat(store.rewind(EFFECT, SOURCE, p + 1, false, lease, T0)).isEqualTo(2);
    assertThat(store.listJournal(EFFECT, SOURCE, Long.MAX_VALUE, 0, 10)).isEmpty();
    assertThat(store.listJournal(EFFECT, SOURCE, p + 1, 0, 10)).hasSize(1);
    assertThat(store.sweepInvocations(EFFECT, SOURCE, T0.plusSeconds(1), 10)).isEqualTo(2);
    assertThat(store.countInvocations(EFFECT, SOURCE, 0)).isZero();
    assertThat(store.listJournal(EFFECT, SOURCE, p, 0, 10)).isEmpty();
  }

  private static EffectStore effects(RedisStore store) {
    return store.effects().orElseThrow();
  }

  // ---- messages

  @Test
  void anUnreadableStoredValueNamesWhatAndWhoseButNeverTheValue() {
    String prefix = redis.newPrefix("effect-corrupt");
    RedisStore redisStore = redis.store(prefix);
    EffectStore store = effects(redisStore);
    redis.commands().hset(prefix + "subjects", "c-1", "5:k-1~wrapped-SECRET-key");
    store.appendJournalEntry(entryWithResult(3, "ok"));
    String journal = prefix + "{effect:" + EFFECT + "}:journal:orders|eu";
    String field = RowCodec.member(3) + ":" + callKey(1);
    redis.commands().hset(journal, field, "9:personal-DATA");

    assertThatThrownBy(() -> store.loadSubjectKey("c-1"))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("subject c-1")
        .hasMessageNotContaining("SECRET");
    assertThatThrownBy(() -> store.loadJournalEntry(EFFECT, SOURCE, 3, callKey(1)))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("effect " + EFFECT)
        .hasMessageNotContaining("DATA");
  }

  // ---- fixtures

  static EffectCursor cursor(long watermark) {
    return new EffectCursor(EFFECT, SOURCE, watermark, null, Map.of(), T0);
  }

  static InvocationRow row(String effect, PollerKey source, long position, InvocationStatus s) {
    return new InvocationRow(
        effect,
        source,
        position,
        "customer:c-1",
        "created",
        s,
        1,
        s == FAILED ? "503" : null,
        null,
        false,
        "1.0",
        T0,
        T0);
  }

  static String callKey(int n) {
    return String.format("%064x", n);
  }

  static JournalEntry entry(String effect, PollerKey source, long position, int n, int ordinal) {
    return new JournalEntry(
        effect, source, position, callKey(n), ordinal, "POST /contacts", "r", null, T0);
  }

  static JournalEntry entryWithResult(long position, String result) {
    return new JournalEntry(
        EFFECT, SOURCE, position, callKey(1), 0, "POST /contacts", result, null, T0);
  }

  /** Passes calls to the real client, recording each one's keys; fails those a test picks. */
  static final class Recording implements RedisLike {
    final RedisLike delegate;
    final List<List<String>> calls = Collections.synchronizedList(new ArrayList<>());
    volatile Predicate<List<String>> failWhen = keys -> false;

    Recording(RedisLike delegate) {
      this.delegate = delegate;
    }

    /** Whether a call after the first {@code from} calls named {@code key}. */
    boolean sawKeyAfter(int from, String key) {
      synchronized (calls) {
        return calls.stream().skip(from).anyMatch(keys -> keys.contains(key));
      }
    }

    boolean sawKey(String key) {
      synchronized (calls) {
        return calls.stream().anyMatch(keys -> keys.contains(key));
      }
    }

    private void record(List<String> keys) {
      if (failWhen.test(keys)) {
        throw new IllegalStateException("connection lost");
      }
      calls.add(List.copyOf(keys));
    }

    @Override
    public Object evalsha(String sha1, List<String> keys, List<String> args) {
      record(keys);
      return delegate.evalsha(sha1, keys, args);
    }

    @Override
    public Object eval(String script, List<String> keys, List<String> args) {
      return delegate.eval(script, keys, args);
    }

    @Override
    public String endpoint() {
      return delegate.endpoint();
    }
  }
}
