package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.ScheduleState;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.ParkedKind;
import io.watukuy.spi.ParkedRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StateStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link StateStore} passes (Stores document, "The StateStore contract";
 * guarantees G4, G5 and G7): leases and epoch fencing, the atomic {@code commitPoll}, the outbox
 * and parked lifecycles, items and snapshot streaming, state patches, HTTP validators and the
 * replay log.
 *
 * <p>Extend it with a class that returns a fresh, empty store from {@link #newStore()}; the suite
 * calls {@link StateStore#migrate()} itself before each test and {@link #destroy(StateStore)} after
 * it:
 *
 * <pre>{@code
 * class MyStoreContractTest extends StoreContractTest {
 *   @Override protected StateStore newStore() { return new MyStore(freshSchema()); }
 * }
 * }</pre>
 *
 * <p>Every {@code now} is a fixed instant derived from {@link #T0}, with millisecond precision, so
 * the suite never reads the clock and a store may keep instants in milliseconds. Tests of an
 * optional capability are skipped, not failed, when {@link StateStore#capabilities()} does not
 * declare it. No test depends on the order a collation gives; two tests check that keys are
 * compared exactly, so that identities, poller names and partitions that differ only in case,
 * accents, compatibility forms or trailing spaces are distinct (a collation that folds them, as
 * MariaDB's defaults and its PAD SPACE binary collation do, would merge two items into one row).
 *
 * @since 0.1
 */
public abstract class StoreContractTest {

  /** The instant every test starts at. */
  protected static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

  /** The lease time-to-live the suite acquires with. */
  protected static final Duration TTL = Duration.ofSeconds(30);

  /** The key most tests use. */
  protected static final PollerKey KEY = PollerKey.of("orders");

  private static final int NO_LIMIT = 10_000;
  private static final String OWNER_A = "instance-a";
  private static final String OWNER_B = "instance-b";

  /** A URL hash as the engine computes it: 64 hex characters. */
  private static final String URL_HASH = "a".repeat(64);

  private @Nullable StateStore store;

  /**
   * A fresh, empty store. Called once before each test; the suite calls {@code migrate()} on it.
   *
   * @return a store that shares no data with stores returned earlier
   */
  protected abstract StateStore newStore();

  /**
   * Tears down a store after a test. Defaults to {@link StateStore#close()}; override to also drop
   * tables, schemas or files. Called once per test, also when the test has already closed the
   * store.
   *
   * @param store the store returned by {@link #newStore()} for the test that just ran
   */
  protected void destroy(StateStore store) {
    store.close();
  }

  /**
   * The store of the running test.
   *
   * @return the store {@link #newStore()} returned for this test
   * @throws IllegalStateException if called outside a test
   */
  protected final StateStore store() {
    StateStore s = store;
    if (s == null) {
      throw new IllegalStateException("no store: called outside a test");
    }
    return s;
  }

  @BeforeEach
  final void createStore() {
    StateStore s = newStore();
    store = s;
    s.migrate();
  }

  @AfterEach
  final void destroyStore() {
    StateStore s = store;
    store = null;
    if (s != null) {
      destroy(s);
    }
  }

  // ------------------------------------------------------------------ lifecycle and capabilities

  @Test
  void storeDeclaresTransactionalCommits() {
    assertThat(store().capabilities().transactions()).isTrue();
  }

  @Test
  void migrateIsIdempotentAndKeepsStoredData() {
    Lease a = acquire(OWNER_A, T0);
    commit(
        a, batch(StatePatch.NONE.withLastSequence(1)).items(item("1", "v1")).events(event(1)), T0);

    store().migrate();
    store().migrate();

    assertThat(store().loadState(KEY)).map(PollerState::lastSequence).contains(1L);
    assertThat(store().countItems(KEY)).isEqualTo(1);
    assertThat(store().countPending(KEY)).isEqualTo(1);
    assertThat(store().getLease(KEY)).contains(a);
  }

  @Test
  void closeMayBeCalledMoreThanOnce() {
    store().close();
    store().close();
    // destroy(...) closes it once more after the test.
  }

  // ------------------------------------------------------------------ leases

  @Test
  void firstAcquisitionOfANewKeyHasEpochOne() {
    Optional<Lease> lease = store().acquireLease(KEY, OWNER_A, TTL, T0);

    assertThat(lease).contains(new Lease(OWNER_A, 1, T0.plus(TTL)));
    assertThat(store().getLease(KEY)).contains(new Lease(OWNER_A, 1, T0.plus(TTL)));
  }

  @Test
  void liveLeaseRefusesASecondOwner() {
    Lease a = acquire(OWNER_A, T0);

    Optional<Lease> refused = store().acquireLease(KEY, OWNER_B, TTL, a.expiresAt().minusMillis(1));

    assertThat(refused).isEmpty();
    assertThat(store().getLease(KEY)).contains(a);
  }

  @Test
  void liveLeaseRefusesItsOwnHolderToo() {
    Lease a = acquire(OWNER_A, T0);

    assertThat(store().acquireLease(KEY, OWNER_A, TTL, T0.plusSeconds(1))).isEmpty();
    assertThat(store().getLease(KEY)).contains(a);
  }

  @Test
  void expiredLeaseIsReacquiredAtExactlyItsExpiryWithHigherEpoch() {
    Lease a = acquire(OWNER_A, T0);

    Optional<Lease> b = store().acquireLease(KEY, OWNER_B, TTL, a.expiresAt());

    assertThat(b).contains(new Lease(OWNER_B, 2, a.expiresAt().plus(TTL)));
    assertThat(store().getLease(KEY)).isEqualTo(b);
  }

  @Test
  void sameOwnerReacquiringAfterReleaseGetsAHigherEpoch() {
    Lease first = acquire(OWNER_A, T0);
    store().releaseLease(KEY, first);

    Lease second = acquire(OWNER_A, T0.plusSeconds(1));

    assertThat(second.epoch()).isEqualTo(2);
    assertThat(second.owner()).isEqualTo(OWNER_A);
  }

  @Test
  void epochsKeepIncreasingOverManyAcquisitions() {
    Instant now = T0;
    for (int expected = 1; expected <= 5; expected++) {
      Lease lease = acquire(expected % 2 == 0 ? OWNER_B : OWNER_A, now);
      assertThat(lease.epoch()).isEqualTo(expected);
      now = lease.expiresAt();
    }
  }

  @Test
  void renewKeepsTheEpochAndExtendsTheExpiry() {
    Lease a = acquire(OWNER_A, T0);
    Instant later = T0.plusSeconds(10);

    Optional<Lease> renewed = store().renewLease(KEY, a, TTL, later);

    assertThat(renewed).contains(new Lease(OWNER_A, 1, later.plus(TTL)));
    assertThat(store().getLease(KEY)).isEqualTo(renewed);
    // The renewed lease keeps the key: at the old expiry another owner is still refused.
    assertThat(store().acquireLease(KEY, OWNER_B, TTL, a.expiresAt())).isEmpty();
  }

  @Test
  void renewOfAnExpiredLeaseNobodyTookSucceedsWithTheSameEpoch() {
    Lease a = acquire(OWNER_A, T0);
    Instant late = a.expiresAt().plusSeconds(5);

    assertThat(store().renewLease(KEY, a, TTL, late))
        .contains(new Lease(OWNER_A, 1, late.plus(TTL)));
  }

  @Test
  void renewOfAStolenLeaseReturnsEmptyAndKeepsTheNewHolder() {
    Lease a = acquire(OWNER_A, T0);
    Lease b = acquire(OWNER_B, a.expiresAt());

    assertThat(store().renewLease(KEY, a, TTL, a.expiresAt().plusSeconds(1))).isEmpty();
    assertThat(store().getLease(KEY)).contains(b);
  }

  @Test
  void renewOfAReleasedLeaseReturnsEmpty() {
    Lease a = acquire(OWNER_A, T0);
    store().releaseLease(KEY, a);

    assertThat(store().renewLease(KEY, a, TTL, T0.plusSeconds(1))).isEmpty();
    assertThat(store().getLease(KEY)).isEmpty();
  }

  @Test
  void releaseLetsAnotherOwnerAcquireAtOnce() {
    Lease a = acquire(OWNER_A, T0);

    store().releaseLease(KEY, a);

    assertThat(store().getLease(KEY)).isEmpty();
    assertThat(store().acquireLease(KEY, OWNER_B, TTL, T0.plusMillis(1)))
        .contains(new Lease(OWNER_B, 2, T0.plusMillis(1).plus(TTL)));
  }

  @Test
  void releaseOfAStaleLeaseLeavesTheNewHoldersLeaseIntact() {
    Lease a = acquire(OWNER_A, T0);
    Lease b = acquire(OWNER_B, a.expiresAt());

    store().releaseLease(KEY, a);
    store().releaseLease(KEY, new Lease(OWNER_A, b.epoch(), b.expiresAt()));

    assertThat(store().getLease(KEY)).contains(b);
    assertThat(store().acquireLease(KEY, OWNER_A, TTL, b.expiresAt().minusMillis(1))).isEmpty();
  }

  @Test
  void getLeaseIsEmptyForANewKeyThenReturnsTheCurrentHolder() {
    assertThat(store().getLease(KEY)).isEmpty();

    Lease a = acquire(OWNER_A, T0);
    // getLease takes no time, so it cannot tell an expired lease from a live one.
    assertThat(store().getLease(KEY)).contains(a);

    Lease b = acquire(OWNER_B, a.expiresAt());
    assertThat(store().getLease(KEY)).contains(b);
  }

  @Test
  void leasesOfDifferentKeysAreIndependent() {
    PollerKey other = PollerKey.of("orders", "eu");
    Lease a = acquire(OWNER_A, T0);

    Optional<Lease> b = store().acquireLease(other, OWNER_B, TTL, T0);

    assertThat(b).contains(new Lease(OWNER_B, 1, T0.plus(TTL)));
    assertThat(store().getLease(KEY)).contains(a);
  }

  // ------------------------------------------------------------------ fencing (G5)

  @Test
  void commitWithAStolenLeaseThrowsAndWritesNothing() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    Lease b = acquire(OWNER_B, a.expiresAt());
    Snapshot before = snapshot();

    assertThatThrownBy(() -> store().commitPoll(KEY, a, fullBatch(10), b.expiresAt()))
        .isInstanceOfSatisfying(
            LeaseLostException.class,
            e -> {
              assertThat(e.key()).isEqualTo(KEY);
              assertThat(e.heldEpoch()).isEqualTo(1);
              assertThat(e.currentEpoch()).isEqualTo(2L);
            });
    assertThat(snapshot()).isEqualTo(before);
    assertThat(store().getLease(KEY)).contains(b);
  }

  @Test
  void saveStateWithAStolenLeaseThrowsAndLeavesTheState() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    acquire(OWNER_B, a.expiresAt());
    Snapshot before = snapshot();

    assertLeaseLost(
        () ->
            store()
                .saveState(
                    KEY,
                    a,
                    StatePatch.NONE.withCursors(Map.of("live", "\"stale\"")),
                    T0.plusSeconds(40)));
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void ackWithAStolenLeaseThrowsAndKeepsThePendingRows() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    acquire(OWNER_B, a.expiresAt());
    Snapshot before = snapshot();

    assertLeaseLost(() -> store().ackEvents(KEY, a, List.of(1L, 2L)));
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void recordAttemptWithAStolenLeaseThrowsAndLeavesTheRow() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    acquire(OWNER_B, a.expiresAt());
    Snapshot before = snapshot();

    assertLeaseLost(() -> store().recordAttempt(KEY, a, 1, errorJson("late"), T0.plusSeconds(60)));
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void parkEventWithAStolenLeaseThrowsAndMovesNothing() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    acquire(OWNER_B, a.expiresAt());
    Snapshot before = snapshot();

    assertLeaseLost(
        () -> store().parkEvent(KEY, a, poison(event(1), 3, T0.plusSeconds(40), "ok-1")));
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void setValidatorWithAStolenLeaseThrowsAndKeepsTheStoredValidator() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    acquire(OWNER_B, a.expiresAt());
    Snapshot before = snapshot();

    assertLeaseLost(
        () ->
            store()
                .setValidator(
                    KEY, a, URL_HASH, new HttpValidator("\"stale\"", null, T0.plusSeconds(40))));
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void fencedWriteFromAnotherOwnerWithTheCurrentEpochIsRejected() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    Lease forged = new Lease(OWNER_B, a.epoch(), a.expiresAt());
    Snapshot before = snapshot();

    assertLeaseLost(() -> store().commitPoll(KEY, forged, fullBatch(10), T0.plusSeconds(1)));
    assertLeaseLost(() -> store().ackEvents(KEY, forged, List.of(1L)));
    assertLeaseLost(() -> store().saveState(KEY, forged, StatePatch.NONE, T0.plusSeconds(1)));
    assertThat(snapshot()).isEqualTo(before);
    assertThat(store().getLease(KEY)).contains(a);
  }

  @Test
  void fencedWriteWithAnOlderEpochOfTheSameOwnerIsRejected() {
    Lease first = acquire(OWNER_A, T0);
    Lease second = acquire(OWNER_A, first.expiresAt());
    seed(second);
    Snapshot before = snapshot();

    assertLeaseLost(() -> store().ackEvents(KEY, first, List.of(1L)));
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void fencedWriteWithAReleasedLeaseIsRejected() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    store().releaseLease(KEY, a);
    Snapshot before = snapshot();

    assertLeaseLost(() -> store().commitPoll(KEY, a, fullBatch(10), T0.plusSeconds(1)));
    assertLeaseLost(() -> store().ackEvents(KEY, a, List.of(1L)));
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void fencedWriteOnAKeyNeverLeasedIsRejected() {
    Lease invented = new Lease(OWNER_A, 1, T0.plus(TTL));

    assertLeaseLost(() -> store().commitPoll(KEY, invented, fullBatch(1), T0));
    assertLeaseLost(() -> store().saveState(KEY, invented, StatePatch.NONE, T0));
    assertThat(store().loadState(KEY)).isEmpty();
    assertThat(store().countPending(KEY)).isZero();
  }

  @Test
  void expiredLeaseStillWritesUntilAnotherOwnerAcquires() {
    // Fencing compares owner and epoch, not time: writes are safe until a higher epoch exists.
    Lease a = acquire(OWNER_A, T0);
    Instant late = a.expiresAt().plusSeconds(5);

    commit(a, batch(StatePatch.NONE.withLastSequence(1)).events(event(1)), late);
    store().ackEvents(KEY, a, List.of(1L));

    assertThat(store().loadState(KEY)).map(PollerState::lastSequence).contains(1L);
    assertThat(store().countPending(KEY)).isZero();
  }

  // ------------------------------------------------------------------ commitPoll atomicity (G4)

  @Test
  void rejectedCommitWritesNothingAtAllOnAFreshKey() {
    Lease a = acquire(OWNER_A, T0);
    acquire(OWNER_B, a.expiresAt());

    assertLeaseLost(() -> store().commitPoll(KEY, a, fullBatch(1), a.expiresAt()));

    assertThat(store().loadState(KEY)).isEmpty();
    assertThat(store().countItems(KEY)).isZero();
    assertThat(store().countPending(KEY)).isZero();
    assertThat(store().countParked(KEY)).isZero();
    if (store().capabilities().log()) {
      assertThat(store().readLog(KEY, LogRange.ALL, NO_LIMIT)).isEmpty();
    }
  }

  @Test
  void successfulCommitIsVisibleInFull() {
    Lease a = acquire(OWNER_A, T0);
    StatePatch patch =
        new StatePatch(
            Map.of("live", "{\"after\":\"2023-12-31T23:59:59Z\",\"id\":12345678901234567890}"),
            ScheduleState.initial(30_000).withState(ScheduleState.Status.POLLING),
            3,
            2L);
    ItemRow one = item("1", "v1");
    ItemRow two = item("2", null);
    ParkedRow invalid = invalid("inv-1", T0);

    commit(
        a,
        batch(patch).items(one, two).events(event(1), event(2)).log(true).parked(invalid),
        T0.plusMillis(250));

    assertThat(store().loadState(KEY)).contains(PollerState.create(patch, T0.plusMillis(250)));
    assertThat(store().loadVersions(KEY, List.of("1", "2")))
        .containsExactlyInAnyOrderEntriesOf(Map.of("1", one, "2", two));
    assertThat(store().loadPending(KEY, 0, NO_LIMIT)).containsExactly(event(1), event(2));
    assertThat(store().listParked(KEY, null, NO_LIMIT)).containsExactly(invalid);
    assertThat(store().listKeys(null)).containsExactly(KEY);
    if (store().capabilities().log()) {
      assertThat(store().readLog(KEY, LogRange.ALL, NO_LIMIT))
          .containsExactly(
              new LoggedEvent(1, event(1).event(), T0.plusMillis(250)),
              new LoggedEvent(2, event(2).event(), T0.plusMillis(250)));
    }
  }

  @Test
  void laterCommitReplacesTheCursorMapAndKeepsUnpatchedFields() {
    Lease a = acquire(OWNER_A, T0);
    ScheduleState schedule = ScheduleState.initial(60_000);
    commit(
        a,
        batch(new StatePatch(Map.of("live", "\"c1\"", "reconcile", "\"r1\""), schedule, 2, 5L)),
        T0);

    commit(
        a,
        batch(StatePatch.NONE.withCursors(Map.of("live", "\"c2\"")).withLastSequence(7)),
        T0.plusSeconds(5));

    PollerState state = store().loadState(KEY).orElseThrow();
    assertThat(state.cursors()).containsExactlyEntriesOf(Map.of("live", "\"c2\""));
    assertThat(state.schedule()).isEqualTo(schedule);
    assertThat(state.schemaVersion()).isEqualTo(2);
    assertThat(state.lastSequence()).isEqualTo(7);
    assertThat(state.createdAt()).isEqualTo(T0);
    assertThat(state.updatedAt()).isEqualTo(T0.plusSeconds(5));
  }

  @Test
  void commitUpsertsReplaceRowsAndDeletesRemoveThem() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE).items(item("1", "v1"), item("2", "v1"), item("3", "v1")), T0);
    ItemRow replaced =
        new ItemRow(
            "1",
            "v2",
            "b".repeat(64),
            2,
            "{\"id\":1,\"name\":\"Zoë ☃ 𝄞\",\"big\":12345678901234567890123}",
            "customer-9",
            T0.plusSeconds(5));

    commit(
        a, batch(StatePatch.NONE).items(replaced).deletes("2", "never-stored"), T0.plusSeconds(5));

    assertThat(store().loadVersions(KEY, List.of("1", "2", "3")))
        .containsOnlyKeys("1", "3")
        .containsEntry("1", replaced)
        .containsEntry("3", item("3", "v1"));
    assertThat(store().countItems(KEY)).isEqualTo(2);
  }

  @Test
  void commitWritesTheLogOnlyWhenAsked() {
    assumeTrue(store().capabilities().log(), "store keeps no replay log");
    Lease a = acquire(OWNER_A, T0);

    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(event(1), event(2)), T0);
    commit(
        a,
        batch(StatePatch.NONE.withLastSequence(3)).events(event(3)).log(true),
        T0.plusSeconds(1));

    assertThat(store().readLog(KEY, LogRange.ALL, NO_LIMIT))
        .containsExactly(new LoggedEvent(3, event(3).event(), T0.plusSeconds(1)));
    assertThat(store().countPending(KEY)).isEqualTo(3);
  }

  @Test
  void commitWithOnlyAStatePatchCreatesTheStateFromDefaults() {
    Lease a = acquire(OWNER_A, T0);
    StatePatch patch = StatePatch.NONE.withCursors(Map.of("live", "\"tok\""));

    store().commitPoll(KEY, a, CommitBatch.state(patch), T0);

    assertThat(store().loadState(KEY)).contains(PollerState.create(patch, T0));
  }

  // ------------------------------------------------------------------ state

  @Test
  void loadStateIsEmptyBeforeTheFirstWrite() {
    assertThat(store().loadState(KEY)).isEmpty();
    assertThat(store().listKeys(null)).isEmpty();
  }

  @Test
  void saveStateWithTheCurrentLeaseCreatesThenPatchesTheState() {
    Lease a = acquire(OWNER_A, T0);
    StatePatch first = StatePatch.NONE.withCursors(Map.of("live", "\"1\"")).withSchemaVersion(4);

    store().saveState(KEY, a, first, T0);
    store().saveState(KEY, a, StatePatch.NONE.withLastSequence(9), T0.plusSeconds(2));

    assertThat(store().loadState(KEY))
        .contains(
            PollerState.create(first, T0)
                .apply(StatePatch.NONE.withLastSequence(9), T0.plusSeconds(2)));
  }

  @Test
  void unfencedSaveCreatesAndPatchesStateWithoutTouchingTheLease() {
    Lease a = acquire(OWNER_A, T0);
    ScheduleState paused =
        ScheduleState.initial(30_000).withPaused(ScheduleState.PauseReason.MANUAL);

    store().saveStateUnfenced(KEY, StatePatch.schedule(paused), T0.plusSeconds(1));
    store().saveStateUnfenced(KEY, StatePatch.NONE.withCursors(Map.of()), T0.plusSeconds(2));

    PollerState state = store().loadState(KEY).orElseThrow();
    assertThat(state.schedule()).isEqualTo(paused);
    assertThat(state.cursors()).isEmpty();
    assertThat(state.createdAt()).isEqualTo(T0.plusSeconds(1));
    assertThat(state.updatedAt()).isEqualTo(T0.plusSeconds(2));
    assertThat(store().getLease(KEY)).contains(a);
    // The lease still fences: the holder keeps writing, others are still refused.
    store().saveState(KEY, a, StatePatch.NONE.withLastSequence(1), T0.plusSeconds(3));
    assertThat(store().acquireLease(KEY, OWNER_B, TTL, T0.plusSeconds(3))).isEmpty();
  }

  @Test
  void nullPatchFieldsLeaveTheStoredFieldsAlone() {
    StatePatch full =
        new StatePatch(Map.of("live", "\"c\""), ScheduleState.initial(45_000), 3, 12L);
    store().saveStateUnfenced(KEY, full, T0);

    store().saveStateUnfenced(KEY, StatePatch.NONE, T0.plusSeconds(1));

    PollerState state = store().loadState(KEY).orElseThrow();
    assertThat(state.cursors()).containsExactlyEntriesOf(Map.of("live", "\"c\""));
    assertThat(state.schedule()).isEqualTo(ScheduleState.initial(45_000));
    assertThat(state.schemaVersion()).isEqualTo(3);
    assertThat(state.lastSequence()).isEqualTo(12);
    assertThat(state.updatedAt()).isEqualTo(T0.plusSeconds(1));
  }

  @Test
  void scheduleStateRoundTripsWithEveryFieldSet() {
    ScheduleState schedule =
        new ScheduleState(
            ScheduleState.FORMAT_VERSION,
            ScheduleState.Status.CIRCUIT_OPEN,
            ScheduleState.PauseReason.PARTITION_REMOVED,
            T0.plusSeconds(600),
            ScheduleState.DueReason.CATCH_UP,
            123_456,
            7,
            T0.plusMillis(90_500),
            new ScheduleState.Circuit(T0.minusSeconds(60), T0.plusSeconds(540)),
            new ScheduleState.LastPoll(T0.minusMillis(1_500), 3, 250, 12, true, true, 1_234),
            new ScheduleState.LastError(
                "HttpStatusException", "HTTP 503 from https://api.example.com/orders?page=2", T0),
            T0.minusSeconds(3_600),
            new ScheduleState.Backfill(
                "2023-01-01T00:00:00Z", "\"tok|en\\x\"", true, "{\"page\":3}"));
    Map<String, String> cursors =
        Map.of(
            "live", "{\"after\":\"2023-12-31T23:59:59.999Z\",\"id\":12345678901234567890}",
            "reconcile", "\"tök€n-𝄞\"",
            "backfill", "42");
    StatePatch patch = new StatePatch(cursors, schedule, 2, Long.MAX_VALUE - 1);

    store().saveStateUnfenced(KEY, patch, T0.plusMillis(1));

    assertThat(store().loadState(KEY)).contains(PollerState.create(patch, T0.plusMillis(1)));
  }

  @Test
  void listKeysIsSortedAndFilteredByPoller() {
    List<PollerKey> written =
        List.of(
            PollerKey.of("orders", "b"),
            PollerKey.of("users"),
            PollerKey.of("orders", "a"),
            PollerKey.of("alpha", "x"),
            PollerKey.of("orders"));
    for (PollerKey k : written) {
      store().saveStateUnfenced(k, StatePatch.NONE, T0);
    }

    assertThat(store().listKeys(null))
        .containsExactly(
            PollerKey.of("alpha", "x"),
            PollerKey.of("orders"),
            PollerKey.of("orders", "a"),
            PollerKey.of("orders", "b"),
            PollerKey.of("users"));
    assertThat(store().listKeys("orders"))
        .containsExactly(
            PollerKey.of("orders"), PollerKey.of("orders", "a"), PollerKey.of("orders", "b"));
    assertThat(store().listKeys("nobody")).isEmpty();
  }

  @Test
  void deleteKeyRemovesEverythingStoredForTheKeyIncludingItsLease() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    PollerKey neighbour = PollerKey.of("orders", "eu");
    store().saveStateUnfenced(neighbour, StatePatch.NONE, T0);

    store().deleteKey(KEY);

    assertThat(store().loadState(KEY)).isEmpty();
    assertThat(store().getLease(KEY)).isEmpty();
    assertThat(store().countItems(KEY)).isZero();
    assertThat(store().loadVersions(KEY, List.of("1", "2"))).isEmpty();
    assertThat(store().countPending(KEY)).isZero();
    assertThat(store().countParked(KEY)).isZero();
    assertThat(store().heldKeys(KEY)).isEmpty();
    assertThat(store().getValidator(KEY, URL_HASH)).isEmpty();
    if (store().capabilities().log()) {
      assertThat(store().readLog(KEY, LogRange.ALL, NO_LIMIT)).isEmpty();
    }
    assertThat(store().listKeys(null)).containsExactly(neighbour);
    // The old holder is fenced out, and anyone may take the key at once.
    assertLeaseLost(() -> store().ackEvents(KEY, a, List.of(1L)));
    assertThat(store().acquireLease(KEY, OWNER_B, TTL, T0.plusSeconds(1))).isPresent();
  }

  @Test
  void deleteKeyKeepsTheEpochCounterSoAnEarlierHolderStaysFencedOut() {
    Lease first = acquire(OWNER_A, T0);
    store().deleteKey(KEY);

    Lease again = store().acquireLease(KEY, OWNER_A, TTL, T0).orElseThrow();

    assertThat(again.epoch()).isGreaterThan(first.epoch());
    assertLeaseLost(() -> store().saveState(KEY, first, StatePatch.NONE, T0));
  }

  // ------------------------------------------------------------------ items

  @Test
  void loadVersionsReturnsOnlyKnownIdentities() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE).items(item("1", "v1"), item("2", "v2")), T0);

    Map<String, ItemRow> rows = store().loadVersions(KEY, List.of("2", "404", "1", "2"));

    assertThat(rows).containsOnlyKeys("1", "2");
    assertThat(rows.get("2")).isEqualTo(item("2", "v2"));
    assertThat(store().loadVersions(KEY, List.of())).isEmpty();
    assertThat(store().loadVersions(PollerKey.of("unknown"), List.of("1"))).isEmpty();
  }

  @Test
  void clearItemsEmptiesTheSnapshotAndNothingElse() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    PollerState state = store().loadState(KEY).orElseThrow();

    store().clearItems(KEY);

    assertThat(store().countItems(KEY)).isZero();
    assertThat(store().loadVersions(KEY, List.of("1", "2"))).isEmpty();
    assertThat(store().loadState(KEY)).contains(state);
    assertThat(store().countPending(KEY)).isEqualTo(2);
    assertThat(store().countParked(KEY)).isEqualTo(2);
    assertThat(store().getLease(KEY)).contains(a);
  }

  @Test
  void streamIdentitiesWalksALargeSnapshotInFullBatches() {
    assumeTrue(store().capabilities().streaming(), "store does not stream identities");
    Lease a = acquire(OWNER_A, T0);
    List<ItemRow> rows =
        IntStream.range(0, 2_500).mapToObj(i -> item("item-%05d".formatted(i), "v1")).toList();
    commit(a, batch(StatePatch.NONE).items(rows), T0);

    List<List<String>> batches;
    try (Stream<List<String>> stream = store().streamIdentities(KEY, 1_000)) {
      batches = stream.toList();
    }

    assertThat(batches).extracting(List::size).containsExactly(1_000, 1_000, 500);
    assertThat(batches.stream().flatMap(List::stream))
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(rows.stream().map(ItemRow::identity).toList());
  }

  @Test
  void streamIdentitiesYieldsEveryIdentityOnceInBatchesNoLargerThanAsked() {
    Lease a = acquire(OWNER_A, T0);
    List<String> ids = List.of("a", "b", "c", "d", "e", "f", "g");
    commit(a, batch(StatePatch.NONE).items(ids.stream().map(i -> item(i, "v1")).toList()), T0);

    List<List<String>> batches;
    try (Stream<List<String>> stream = store().streamIdentities(KEY, 3)) {
      batches = stream.toList();
    }
    List<String> empty;
    try (Stream<List<String>> stream = store().streamIdentities(PollerKey.of("unknown"), 3)) {
      empty = stream.flatMap(List::stream).toList();
    }

    assertThat(batches).allSatisfy(b -> assertThat(b).hasSizeBetween(1, 3));
    assertThat(batches.stream().flatMap(List::stream))
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(ids);
    assertThat(empty).isEmpty();
  }

  // ------------------------------------------------------------------ outbox

  @Test
  void loadPendingReturnsRowsInSequenceOrderWhateverTheirNextAttempt() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(event(1), event(2)), T0);
    commit(
        a,
        batch(StatePatch.NONE.withLastSequence(4)).events(event(3), event(4)),
        T0.plusSeconds(1));
    // Row 1 waits far in the future, row 3 a little: both stay in place.
    store().recordAttempt(KEY, a, 1, errorJson("boom"), T0.plus(Duration.ofDays(1)));
    store().recordAttempt(KEY, a, 3, errorJson("boom"), T0.plusSeconds(5));

    assertThat(store().loadPending(KEY, 0, NO_LIMIT))
        .extracting(OutboxRow::sequence)
        .containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void loadPendingPagesByAfterSequenceAndLimit() {
    Lease a = acquire(OWNER_A, T0);
    commit(
        a,
        batch(StatePatch.NONE.withLastSequence(5))
            .events(event(1), event(2), event(3), event(4), event(5)),
        T0);

    assertThat(store().loadPending(KEY, 0, 2)).containsExactly(event(1), event(2));
    assertThat(store().loadPending(KEY, 2, 2)).containsExactly(event(3), event(4));
    assertThat(store().loadPending(KEY, 4, 2)).containsExactly(event(5));
    assertThat(store().loadPending(KEY, 5, 2)).isEmpty();
    assertThat(store().loadPending(KEY, 0, 0)).isEmpty();
    assertThat(store().loadPending(PollerKey.of("unknown"), 0, 10)).isEmpty();
  }

  @Test
  void rowsSharingAnEventIdAreAckedOneAtATimeBySequence() {
    // An item returning to an earlier state (A -> B -> A) repeats an id (DESIGN.md).
    Lease a = acquire(OWNER_A, T0);
    OutboxRow first = OutboxRow.pending(1, "same-id", "ok-1", "{\"seq\":1}", T0);
    OutboxRow second = OutboxRow.pending(2, "same-id", "ok-1", "{\"seq\":2}", T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(first, second), T0);

    store().ackEvents(KEY, a, List.of(1L));

    assertThat(store().loadPending(KEY, 0, NO_LIMIT)).containsExactly(second);
    assertThat(store().countPending(KEY)).isEqualTo(1);
  }

  @Test
  void ackOfUnknownOrAlreadyAckedSequencesIsANoOp() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(3)).events(event(1), event(2), event(3)), T0);

    store().ackEvents(KEY, a, List.of(2L));
    store().ackEvents(KEY, a, List.of(2L, 99L));
    store().ackEvents(KEY, a, List.of());

    assertThat(store().loadPending(KEY, 0, NO_LIMIT)).containsExactly(event(1), event(3));
  }

  @Test
  void countPendingCountsOnlyRowsNotYetAcked() {
    Lease a = acquire(OWNER_A, T0);
    assertThat(store().countPending(KEY)).isZero();
    commit(a, batch(StatePatch.NONE.withLastSequence(3)).events(event(1), event(2), event(3)), T0);

    store().ackEvents(KEY, a, List.of(1L, 3L));

    assertThat(store().countPending(KEY)).isEqualTo(1);
  }

  @Test
  void recordAttemptIncrementsAttemptsAndStoresTheErrorAndNextAttempt() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(event(1), event(2)), T0);
    String firstError = errorJson("first");
    String bothErrors =
        "[" + firstError.substring(1, firstError.length() - 1) + ",{\"attempt\":2}]";

    store().recordAttempt(KEY, a, 1, firstError, T0.plusSeconds(1));
    OutboxRow afterOne = store().loadPending(KEY, 0, 1).get(0);
    store().recordAttempt(KEY, a, 1, bothErrors, null);
    OutboxRow afterTwo = store().loadPending(KEY, 0, 1).get(0);

    assertThat(afterOne)
        .isEqualTo(
            new OutboxRow(
                1, "evt-1", "ok-1", event(1).event(), 1, T0.plusSeconds(1), firstError, T0));
    assertThat(afterTwo)
        .isEqualTo(new OutboxRow(1, "evt-1", "ok-1", event(1).event(), 2, null, bothErrors, T0));
    assertThat(store().loadPending(KEY, 1, 1)).containsExactly(event(2));
  }

  @Test
  void parkEventMovesTheRowFromTheOutboxToTheParkedRows() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(event(1), event(2)), T0);
    ParkedRow parked = poison(event(1), 3, T0.plusSeconds(30), "ok-1");

    store().parkEvent(KEY, a, parked);

    assertThat(store().countPending(KEY)).isEqualTo(1);
    assertThat(store().loadPending(KEY, 0, NO_LIMIT)).containsExactly(event(2));
    assertThat(store().countParked(KEY)).isEqualTo(1);
    assertThat(store().listParked(KEY, null, NO_LIMIT))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p).isEqualTo(parked);
              assertThat(p.id()).isEqualTo("1");
              assertThat(p.sequence()).isEqualTo(1L);
              assertThat(p.eventId()).isEqualTo("evt-1");
              assertThat(p.error()).isEqualTo(parked.error());
              assertThat(p.attempts()).isEqualTo(3);
              assertThat(p.holdKey()).isEqualTo("ok-1");
            });
  }

  @Test
  void heldKeysAreTheHoldKeysOfParkedRows() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(3)).events(event(1), event(2), event(3)), T0);
    assertThat(store().heldKeys(KEY)).isEmpty();

    store().parkEvent(KEY, a, poison(event(1), 3, T0.plusSeconds(1), "ok-1"));
    store().parkEvent(KEY, a, poison(event(2), 3, T0.plusSeconds(2), null));
    store().parkEvent(KEY, a, poison(event(3), 3, T0.plusSeconds(3), "ok-3"));

    assertThat(store().heldKeys(KEY)).containsExactlyInAnyOrder("ok-1", "ok-3");
  }

  @Test
  void retryPutsAPoisonEventBackAtItsOriginalSequenceAndReleasesItsKey() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(3)).events(event(1), event(2), event(3)), T0);
    store().recordAttempt(KEY, a, 2, errorJson("boom"), T0.plusSeconds(9));
    store().parkEvent(KEY, a, poison(event(2), 3, T0.plusSeconds(10), "ok-2"));
    store().ackEvents(KEY, a, List.of(1L));

    int retried = store().retryParked(KEY, List.of("2"));

    assertThat(retried).isEqualTo(1);
    assertThat(store().countParked(KEY)).isZero();
    assertThat(store().heldKeys(KEY)).isEmpty();
    List<OutboxRow> pending = store().loadPending(KEY, 0, NO_LIMIT);
    assertThat(pending).extracting(OutboxRow::sequence).containsExactly(2L, 3L);
    assertThat(pending.get(0))
        .satisfies(
            row -> {
              assertThat(row.eventId()).isEqualTo("evt-2");
              assertThat(row.orderingKey()).isEqualTo("ok-2");
              assertThat(row.event()).isEqualTo(event(2).event());
              assertThat(row.attempts()).isZero();
              assertThat(row.nextAttemptAt()).isNull();
              assertThat(row.lastError()).isNull();
            });
    assertThat(store().getLease(KEY)).contains(a);
  }

  @Test
  void retryRemovesParkedInvalidItemsWithoutQueueingAnything() {
    Lease a = acquire(OWNER_A, T0);
    commit(
        a,
        batch(StatePatch.NONE).parked(invalid("inv-1", T0), invalid("inv-2", T0.plusSeconds(1))),
        T0);

    int retried = store().retryParked(KEY, List.of("inv-1"));

    assertThat(retried).isEqualTo(1);
    assertThat(store().listParked(KEY, null, NO_LIMIT))
        .containsExactly(invalid("inv-2", T0.plusSeconds(1)));
    assertThat(store().countPending(KEY)).isZero();
  }

  @Test
  void discardDropsParkedRowsForGood() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(event(1), event(2)), T0);
    store().parkEvent(KEY, a, poison(event(1), 3, T0.plusSeconds(1), "ok-1"));
    commit(
        a, batch(StatePatch.NONE).parked(invalid("inv-1", T0.plusSeconds(2))), T0.plusSeconds(2));

    int discarded = store().discardParked(KEY, List.of("1", "inv-1"));

    assertThat(discarded).isEqualTo(2);
    assertThat(store().countParked(KEY)).isZero();
    assertThat(store().heldKeys(KEY)).isEmpty();
    assertThat(store().loadPending(KEY, 0, NO_LIMIT)).containsExactly(event(2));
    assertThat(store().getLease(KEY)).contains(a);
  }

  @Test
  void retryAndDiscardOfUnknownIdsReturnZero() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE).parked(invalid("inv-1", T0)), T0);

    assertThat(store().retryParked(KEY, List.of("404"))).isZero();
    assertThat(store().discardParked(KEY, List.of("404"))).isZero();
    assertThat(store().retryParked(KEY, List.of())).isZero();
    assertThat(store().discardParked(PollerKey.of("unknown"), List.of("inv-1"))).isZero();
    assertThat(store().countParked(KEY)).isEqualTo(1);
  }

  @Test
  void listParkedIsOldestFirstFilteredByKindAndLimited() {
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(2)).events(event(1), event(2)), T0);
    ParkedRow invalidLate = invalid("inv-late", T0.plusSeconds(40));
    ParkedRow invalidEarly = invalid("inv-early", T0.plusSeconds(10));
    commit(a, batch(StatePatch.NONE).parked(invalidLate, invalidEarly), T0.plusSeconds(40));
    ParkedRow poison2 = poison(event(2), 3, T0.plusSeconds(20), null);
    ParkedRow poison1 = poison(event(1), 3, T0.plusSeconds(30), null);
    store().parkEvent(KEY, a, poison2);
    store().parkEvent(KEY, a, poison1);

    assertThat(store().listParked(KEY, null, NO_LIMIT))
        .containsExactly(invalidEarly, poison2, poison1, invalidLate);
    assertThat(store().listParked(KEY, null, 2)).containsExactly(invalidEarly, poison2);
    assertThat(store().listParked(KEY, ParkedKind.POISON, NO_LIMIT))
        .containsExactly(poison2, poison1);
    assertThat(store().listParked(KEY, ParkedKind.INVALID, 1)).containsExactly(invalidEarly);
    assertThat(store().countParked(KEY)).isEqualTo(4);
  }

  // ------------------------------------------------------------------ HTTP validators

  @Test
  void getValidatorIsEmptyWhenNoneIsStored() {
    assertThat(store().getValidator(KEY, URL_HASH)).isEmpty();
  }

  @Test
  void validatorRoundTripsAWeakEtagByteForByte() {
    Lease a = acquire(OWNER_A, T0);
    HttpValidator validator =
        new HttpValidator("W/\"abc\"", "Mon, 01 Jan 2024 00:00:00 GMT", T0.plusMillis(5));

    store().setValidator(KEY, a, URL_HASH, validator);

    assertThat(store().getValidator(KEY, URL_HASH)).contains(validator);
    assertThat(store().getValidator(KEY, URL_HASH).orElseThrow().etag()).isEqualTo("W/\"abc\"");
  }

  @Test
  void setValidatorReplacesTheValidatorOfThatUrlOnly() {
    Lease a = acquire(OWNER_A, T0);
    String otherHash = "c".repeat(64);
    store().setValidator(KEY, a, URL_HASH, new HttpValidator("\"v1\"", null, T0));
    store()
        .setValidator(
            KEY, a, otherHash, new HttpValidator(null, "Sun, 31 Dec 2023 00:00:00 GMT", T0));

    HttpValidator replacement = new HttpValidator("\"v2\"", null, T0.plusSeconds(60));
    store().setValidator(KEY, a, URL_HASH, replacement);

    assertThat(store().getValidator(KEY, URL_HASH)).contains(replacement);
    assertThat(store().getValidator(KEY, otherHash))
        .contains(new HttpValidator(null, "Sun, 31 Dec 2023 00:00:00 GMT", T0));
  }

  // ------------------------------------------------------------------ replay log

  @Test
  void readLogFiltersByAfterSequenceFromTimeInclusiveAndToTimeExclusive() {
    assumeTrue(store().capabilities().log(), "store keeps no replay log");
    logFiveEvents();

    assertThat(logSequences(LogRange.ALL, NO_LIMIT)).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(logSequences(LogRange.after(2), NO_LIMIT)).containsExactly(3L, 4L, 5L);
    assertThat(logSequences(new LogRange(null, T0.plusSeconds(10), null), NO_LIMIT))
        .containsExactly(2L, 3L, 4L, 5L);
    assertThat(logSequences(new LogRange(null, null, T0.plusSeconds(20)), NO_LIMIT))
        .containsExactly(1L, 2L);
    assertThat(logSequences(new LogRange(1L, T0.plusSeconds(10), T0.plusSeconds(30)), NO_LIMIT))
        .containsExactly(2L, 3L);
    assertThat(logSequences(new LogRange(5L, null, null), NO_LIMIT)).isEmpty();
  }

  @Test
  void readLogReturnsAtMostLimitEventsInSequenceOrder() {
    assumeTrue(store().capabilities().log(), "store keeps no replay log");
    logFiveEvents();

    assertThat(store().readLog(KEY, LogRange.ALL, 2))
        .containsExactly(
            new LoggedEvent(1, event(1).event(), T0),
            new LoggedEvent(2, event(2).event(), T0.plusSeconds(10)));
    assertThat(logSequences(new LogRange(2L, T0.plusSeconds(20), null), 2)).containsExactly(3L, 4L);
  }

  @Test
  void pruneLogRemovesEventsCreatedStrictlyBeforeTheCutoff() {
    assumeTrue(store().capabilities().log(), "store keeps no replay log");
    logFiveEvents();

    int pruned = store().pruneLog(KEY, T0.plusSeconds(20));

    assertThat(pruned).isEqualTo(2);
    assertThat(logSequences(LogRange.ALL, NO_LIMIT)).containsExactly(3L, 4L, 5L);
    assertThat(store().pruneLog(KEY, T0.plusSeconds(20))).isZero();
    assertThat(store().pruneLog(PollerKey.of("unknown"), T0.plusSeconds(20))).isZero();
  }

  @Test
  void ackingAnEventLeavesItInTheLog() {
    assumeTrue(store().capabilities().log(), "store keeps no replay log");
    Lease a = acquire(OWNER_A, T0);
    commit(a, batch(StatePatch.NONE.withLastSequence(1)).events(event(1)).log(true), T0);

    store().ackEvents(KEY, a, List.of(1L));

    assertThat(logSequences(LogRange.ALL, NO_LIMIT)).containsExactly(1L);
  }

  // ------------------------------------------------------------------ keys compared exactly

  /**
   * Identities a collation that folds case, accents, compatibility forms or trailing spaces (a
   * database's default, or a PAD SPACE binary one) would merge into one row: each pair differs.
   */
  private static final List<String> LOOK_ALIKE_IDENTITIES =
      List.of(
          "abc",
          "ABC",
          "Abc",
          "e",
          "E",
          "\u00e9", // é, precomposed
          "e\u0301", // e and a combining acute accent
          "\u00c9",
          "a",
          "a ",
          "a  ",
          " a",
          "ss",
          "\u00df", // ß
          "fi",
          "\ufb01", // the ligature fi
          "\ud83d\ude00", // two emoji outside the BMP, which some collations weigh alike
          "\ud83d\ude01");

  @Test
  void identitiesThatDifferOnlyInCaseAccentsOrTrailingSpacesAreDistinctItems() {
    Lease a = acquire(OWNER_A, T0);
    List<ItemRow> rows =
        IntStream.range(0, LOOK_ALIKE_IDENTITIES.size())
            .mapToObj(i -> item(LOOK_ALIKE_IDENTITIES.get(i), "v" + i))
            .toList();
    commit(a, batch(StatePatch.NONE).items(rows), T0);

    assertThat(store().countItems(KEY)).isEqualTo(LOOK_ALIKE_IDENTITIES.size());
    Map<String, ItemRow> found = store().loadVersions(KEY, LOOK_ALIKE_IDENTITIES);
    assertThat(found).containsOnlyKeys(LOOK_ALIKE_IDENTITIES);
    for (ItemRow row : rows) {
      assertThat(found.get(row.identity())).as("item '%s'", row.identity()).isEqualTo(row);
    }
    assertThat(store().loadVersions(KEY, List.of("ABC ", "\u00e9 ", "A"))).isEmpty();
    List<String> streamed;
    try (Stream<List<String>> stream = store().streamIdentities(KEY, 4)) {
      streamed = stream.flatMap(List::stream).toList();
    }
    assertThat(streamed).containsExactlyInAnyOrderElementsOf(LOOK_ALIKE_IDENTITIES);

    // Deleting one of a pair leaves the other.
    commit(a, batch(StatePatch.NONE).deletes("a ", "ABC", "\u00e9", "\ud83d\ude00"), T0);

    assertThat(store().loadVersions(KEY, LOOK_ALIKE_IDENTITIES).keySet())
        .containsExactlyInAnyOrderElementsOf(
            LOOK_ALIKE_IDENTITIES.stream()
                .filter(id -> !List.of("a ", "ABC", "\u00e9", "\ud83d\ude00").contains(id))
                .toList());
  }

  @Test
  void pollerNamesAndPartitionsThatDifferOnlyInCaseAccentsOrTrailingSpacesAreDistinctKeys() {
    List<PollerKey> keys =
        List.of(
            PollerKey.of("orders", "eu"),
            PollerKey.of("Orders", "eu"),
            PollerKey.of("ORDERS", "eu"),
            PollerKey.of("orders", "EU"),
            PollerKey.of("orders", "eu "),
            PollerKey.of("orders", "\u00e9u"),
            PollerKey.of("orders", "e\u0301u"),
            PollerKey.of("orders", "\u00c9U"));
    List<Lease> leases = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      PollerKey k = keys.get(i);
      Optional<Lease> lease = store().acquireLease(k, "owner-" + i, TTL, T0);
      assertThat(lease).as("lease of %s", k).map(Lease::epoch).contains(1L);
      leases.add(lease.orElseThrow());
    }
    for (int i = 0; i < keys.size(); i++) {
      store()
          .commitPoll(
              keys.get(i),
              leases.get(i),
              batch(StatePatch.NONE.withLastSequence(i + 1))
                  .items(item("item-" + i, "v1"))
                  .events(event(i + 1))
                  .build(),
              T0);
    }

    assertThat(store().listKeys(null)).containsExactlyInAnyOrderElementsOf(keys);
    for (int i = 0; i < keys.size(); i++) {
      PollerKey k = keys.get(i);
      assertThat(store().getLease(k)).as("lease of %s", k).contains(leases.get(i));
      assertThat(store().loadState(k).map(PollerState::lastSequence))
          .as("state of %s", k)
          .contains((long) i + 1);
      assertThat(store().loadVersions(k, List.of("item-0", "item-" + i)).keySet())
          .as("items of %s", k)
          .containsExactly("item-" + i);
      assertThat(store().loadPending(k, 0, NO_LIMIT))
          .as("outbox of %s", k)
          .extracting(OutboxRow::sequence)
          .containsExactly((long) i + 1);
    }
    // Another key's lease fences nothing here; deleting one key leaves its look-alikes.
    assertLeaseLost(
        () -> store().saveState(keys.get(1), leases.get(0), StatePatch.NONE, T0.plusSeconds(1)));
    store().deleteKey(keys.get(4));
    assertThat(store().listKeys("orders")).doesNotContain(keys.get(4)).contains(keys.get(0));
    assertThat(store().countItems(keys.get(0))).isEqualTo(1);
    assertThat(store().listKeys("Orders")).containsExactly(keys.get(1));
  }

  // ------------------------------------------------------------------ isolation and copies

  @Test
  void keysAreIsolatedFromEachOther() {
    PollerKey keyA = PollerKey.of("orders", "a");
    PollerKey keyB = PollerKey.of("orders", "b");
    PollerKey otherPoller = PollerKey.of("orders-archive", "a");
    Lease a = store().acquireLease(keyA, OWNER_A, TTL, T0).orElseThrow();
    store()
        .commitPoll(
            keyA,
            a,
            batch(StatePatch.NONE.withLastSequence(2))
                .items(item("1", "v1"))
                .events(event(1), event(2))
                .log(true)
                .parked(invalid("inv-1", T0))
                .build(),
            T0);
    store().parkEvent(keyA, a, poison(event(2), 3, T0.plusSeconds(1), "ok-2"));
    store().setValidator(keyA, a, URL_HASH, new HttpValidator("\"e\"", null, T0));

    for (PollerKey k : List.of(keyB, otherPoller)) {
      assertThat(store().loadState(k)).isEmpty();
      assertThat(store().getLease(k)).isEmpty();
      assertThat(store().countItems(k)).isZero();
      assertThat(store().loadVersions(k, List.of("1"))).isEmpty();
      assertThat(store().countPending(k)).isZero();
      assertThat(store().loadPending(k, 0, NO_LIMIT)).isEmpty();
      assertThat(store().countParked(k)).isZero();
      assertThat(store().heldKeys(k)).isEmpty();
      assertThat(store().getValidator(k, URL_HASH)).isEmpty();
      if (store().capabilities().log()) {
        assertThat(store().readLog(k, LogRange.ALL, NO_LIMIT)).isEmpty();
      }
      // A fresh key starts its own epochs, and the lease of keyA does not fence it.
      assertThat(store().acquireLease(k, OWNER_B, TTL, T0)).map(Lease::epoch).contains(1L);
    }
    // Administrative writes on keyB leave keyA alone.
    store().clearItems(keyB);
    store().deleteKey(keyB);
    assertThat(store().discardParked(keyB, List.of("inv-1", "2"))).isZero();
    assertThat(store().countItems(keyA)).isEqualTo(1);
    assertThat(store().countPending(keyA)).isEqualTo(1);
    assertThat(store().countParked(keyA)).isEqualTo(2);
    assertThat(store().getLease(keyA)).contains(a);
  }

  @Test
  void mutatingReturnedCollectionsCannotChangeTheStore() {
    Lease a = acquire(OWNER_A, T0);
    seed(a);
    Snapshot before = snapshot();

    tryToMutate(() -> store().loadPending(KEY, 0, NO_LIMIT).clear());
    tryToMutate(() -> store().loadPending(KEY, 0, NO_LIMIT).add(event(99)));
    tryToMutate(() -> store().loadVersions(KEY, List.of("1", "2")).clear());
    tryToMutate(() -> store().loadVersions(KEY, List.of("1")).put("3", item("3", "v3")));
    tryToMutate(() -> store().listParked(KEY, null, NO_LIMIT).clear());
    tryToMutate(() -> store().heldKeys(KEY).clear());
    tryToMutate(() -> store().heldKeys(KEY).add("ok-99"));
    tryToMutate(() -> store().listKeys(null).clear());
    tryToMutate(() -> store().loadState(KEY).orElseThrow().cursors().clear());
    tryToMutate(
        () -> {
          try (Stream<List<String>> stream = store().streamIdentities(KEY, 10)) {
            stream.forEach(List::clear);
          }
        });
    if (store().capabilities().log()) {
      tryToMutate(() -> store().readLog(KEY, LogRange.ALL, NO_LIMIT).clear());
    }

    assertThat(snapshot()).isEqualTo(before);
    assertThat(store().listKeys(null)).containsExactly(KEY);
    assertThat(store().heldKeys(KEY)).containsExactly("ok-3");
  }

  // ================================================================== helpers

  private Lease acquire(String owner, Instant now) {
    Optional<Lease> lease = store().acquireLease(KEY, owner, TTL, now);
    assertThat(lease).as("lease of %s for %s at %s", KEY, owner, now).isPresent();
    return lease.orElseThrow();
  }

  private void commit(Lease lease, BatchBuilder batch, Instant now) {
    store().commitPoll(KEY, lease, batch.build(), now);
  }

  private static void assertLeaseLost(ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOf(LeaseLostException.class);
  }

  /** Runs a mutation of a returned collection: it may throw or be ignored, but never write. */
  private static void tryToMutate(Runnable mutation) {
    try {
      mutation.run();
    } catch (UnsupportedOperationException expected) {
      // Unmodifiable: the preferred outcome.
    }
  }

  /**
   * A key with something in every table: state (cursor, lastSequence 3), items 1 and 2, pending
   * events 1 and 2, event 3 parked holding "ok-3", an invalid item parked, a validator, and the
   * events logged.
   */
  private void seed(Lease lease) {
    commit(
        lease,
        batch(new StatePatch(Map.of("live", "\"cursor-1\""), ScheduleState.initial(30_000), 1, 3L))
            .items(item("1", "v1"), item("2", "v1"))
            .events(event(1), event(2), event(3))
            .log(true)
            .parked(invalid("inv-1", T0)),
        T0);
    store().parkEvent(KEY, lease, poison(event(3), 3, T0.plusSeconds(1), "ok-3"));
    store().setValidator(KEY, lease, URL_HASH, new HttpValidator("W/\"seed\"", null, T0));
  }

  /** A commit touching every part of the key, with events from {@code firstSequence}. */
  private static CommitBatch fullBatch(long firstSequence) {
    return batch(
            new StatePatch(
                Map.of("live", "\"cursor-new\""),
                ScheduleState.initial(1_000),
                9,
                firstSequence + 1))
        .items(item("1", "v-new"), item("new", "v1"))
        .deletes("2")
        .events(event(firstSequence), event(firstSequence + 1))
        .log(true)
        .parked(invalid("inv-new", T0))
        .build();
  }

  private void logFiveEvents() {
    Lease a = acquire(OWNER_A, T0);
    for (int seq = 1; seq <= 5; seq++) {
      commit(
          a,
          batch(StatePatch.NONE.withLastSequence(seq)).events(event(seq)).log(true),
          T0.plusSeconds(10L * (seq - 1)));
    }
    // Logged at T0, T0+10s, T0+20s, T0+30s, T0+40s.
  }

  private List<Long> logSequences(LogRange range, int limit) {
    return store().readLog(KEY, range, limit).stream().map(LoggedEvent::sequence).toList();
  }

  /** Everything observable for {@link #KEY} through the read methods. */
  private Snapshot snapshot() {
    StateStore s = store();
    List<String> identities;
    try (Stream<List<String>> stream = s.streamIdentities(KEY, 100)) {
      identities = stream.flatMap(List::stream).sorted().toList();
    }
    return new Snapshot(
        s.loadState(KEY),
        s.countItems(KEY),
        identities,
        s.loadVersions(KEY, identities),
        s.countPending(KEY),
        s.loadPending(KEY, 0, NO_LIMIT),
        s.countParked(KEY),
        s.listParked(KEY, null, NO_LIMIT),
        Set.copyOf(s.heldKeys(KEY)),
        s.getValidator(KEY, URL_HASH),
        s.capabilities().log() ? s.readLog(KEY, LogRange.ALL, NO_LIMIT) : List.of());
  }

  private record Snapshot(
      Optional<PollerState> state,
      long itemCount,
      List<String> identities,
      Map<String, ItemRow> items,
      long pendingCount,
      List<OutboxRow> pending,
      long parkedCount,
      List<ParkedRow> parked,
      Set<String> heldKeys,
      Optional<HttpValidator> validator,
      List<LoggedEvent> log) {
    Snapshot {
      items = Map.copyOf(items);
      pending = List.copyOf(pending);
      parked = List.copyOf(parked);
      log = List.copyOf(log);
    }
  }

  // ---- fixtures

  private static ItemRow item(String identity, @Nullable String version) {
    String hash = Integer.toHexString((identity + "|" + version).hashCode());
    return new ItemRow(
        identity, version, "0".repeat(64 - hash.length()) + hash, 1, null, "ok-" + identity, T0);
  }

  private static OutboxRow event(long sequence) {
    return OutboxRow.pending(
        sequence,
        "evt-" + sequence,
        "ok-" + sequence,
        "{\"id\":\"evt-" + sequence + "\",\"type\":\"created\",\"sequence\":" + sequence + "}",
        T0);
  }

  private static String errorJson(String message) {
    return "[{\"attempt\":1,\"at\":\"2024-01-01T00:00:01.000Z\",\"name\":\"IllegalStateException\","
        + "\"message\":\""
        + message
        + "\",\"stack\":\"at Handler.handle(Handler.java:1)\"}]";
  }

  private static ParkedRow poison(
      OutboxRow row, int attempts, Instant parkedAt, @Nullable String holdKey) {
    return new ParkedRow(
        Long.toString(row.sequence()),
        ParkedKind.POISON,
        row.sequence(),
        row.eventId(),
        row.orderingKey(),
        row.event(),
        null,
        "{\"name\":\"IllegalStateException\",\"message\":\"handler failed\",\"stack\":\"...\","
            + "\"history\":"
            + errorJson("handler failed")
            + "}",
        attempts,
        parkedAt,
        holdKey);
  }

  private static ParkedRow invalid(String id, Instant parkedAt) {
    return new ParkedRow(
        id,
        ParkedKind.INVALID,
        null,
        null,
        "ok-" + id,
        null,
        "{\"id\":\"" + id + "\",\"price\":-1}",
        "{\"messages\":[\"/price: must be >= 0\"]}",
        0,
        parkedAt,
        null);
  }

  private static BatchBuilder batch(StatePatch patch) {
    return new BatchBuilder(patch);
  }

  /** Builds a {@link CommitBatch} field by field. */
  private static final class BatchBuilder {
    private final StatePatch patch;
    private final List<ItemRow> upserts = new ArrayList<>();
    private final List<String> deletes = new ArrayList<>();
    private final List<OutboxRow> events = new ArrayList<>();
    private final List<ParkedRow> parked = new ArrayList<>();
    private boolean log;

    BatchBuilder(StatePatch patch) {
      this.patch = patch;
    }

    BatchBuilder items(ItemRow... rows) {
      return items(List.of(rows));
    }

    BatchBuilder items(Collection<ItemRow> rows) {
      upserts.addAll(rows);
      return this;
    }

    BatchBuilder deletes(String... identities) {
      deletes.addAll(List.of(identities));
      return this;
    }

    BatchBuilder events(OutboxRow... rows) {
      events.addAll(List.of(rows));
      return this;
    }

    BatchBuilder log(boolean value) {
      log = value;
      return this;
    }

    BatchBuilder parked(ParkedRow... rows) {
      parked.addAll(List.of(rows));
      return this;
    }

    CommitBatch build() {
      return new CommitBatch(patch, upserts, deletes, events, log, parked);
    }
  }
}
