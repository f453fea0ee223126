package io.watukuy.testing;

import static io.watukuy.spi.InvocationStatus.DONE;
import static io.watukuy.spi.InvocationStatus.FAILED;
import static io.watukuy.spi.InvocationStatus.RUNNING;
import static io.watukuy.spi.InvocationStatus.SKIPPED;
import static io.watukuy.spi.InvocationStatus.TERMINAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.PollerKey;
import io.watukuy.spi.EffectCursor;
import io.watukuy.spi.EffectRecord;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.InvocationRow;
import io.watukuy.spi.JournalEntry;
import io.watukuy.spi.Lease;
import io.watukuy.spi.StateStore;
import io.watukuy.spi.SubjectKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link EffectStore} passes (docs/stores.md, "EffectStore"; the interface's
 * Javadoc): the effect lease and its epochs, fenced writes that throw and change nothing, cursors
 * and the lowest watermark per source key, invocation rows (a skip request survives a later write),
 * the insert-if-absent journal in ordinal order, rewind, the retention sweep bounded by the stored
 * watermark, quarantine and counters, subject keys, and instants kept to the millisecond.
 *
 * <p>Every store module's {@link StateStore} returns an {@link EffectStore} from {@link
 * StateStore#effects()}, in the same database as the event log, so the suite takes a {@code
 * StateStore}, checks that it keeps effect tables first, and calls {@link StateStore#migrate()}
 * before each test and {@link #destroy} after it:
 *
 * <pre>{@code
 * class MyEffectStoreContractTest extends EffectStoreContractTest {
 *   @Override protected StateStore newStore() { return new MyStore(freshSchema()); }
 * }
 * }</pre>
 *
 * <p>The suite never reads the clock; threads (one test) are bounded by 60 s.
 *
 * @since 0.3
 */
public abstract class EffectStoreContractTest extends EffectContractSupport {

  /** Creates the suite; a store module extends it. */
  protected EffectStoreContractTest() {}

  @Test
  void theStateStoreKeepsEffectTablesAndStartsEmpty() {
    assertThat(stateStore().effects()).as("effects() of %s", stateStore()).isPresent();
    assertThat(effects().listEffects()).isEmpty();
    assertThat(effects().effectLease(EFFECT)).isEmpty();
    assertThat(effects().loadEffect(EFFECT)).isEmpty();
    assertThat(effects().loadCursors(EFFECT)).isEmpty();
    assertThat(effects().lowestWatermark(SOURCE)).isEmpty();
    assertThat(effects().loadSubjectKey("c-1")).isEmpty();
  }

  // ------------------------------------------------------------------ lease

  @Test
  void anotherOwnerIsRefusedUntilTheLeaseExpiresThenGetsAHigherEpoch() {
    Lease a = lease();
    assertThat(a.owner()).isEqualTo(OWNER_A);
    assertThat(a.expiresAt()).isEqualTo(T0.plus(TTL));
    assertThat(effects().effectLease(EFFECT)).contains(a);

    assertThat(effects().acquireEffectLease(EFFECT, OWNER_B, TTL, T0.plus(TTL).minusMillis(1)))
        .isEmpty();
    Lease b = lease(EFFECT, OWNER_B, T0.plus(TTL));

    assertThat(b.epoch()).isGreaterThan(a.epoch());
    assertThat(effects().effectLease(EFFECT)).contains(b);
  }

  @Test
  void ofOwnersRacingForAFreeLeaseExactlyOneWins() throws Exception {
    List<Boolean> won =
        race(t -> effects().acquireEffectLease(EFFECT, "instance-" + t, TTL, T0).isPresent());

    assertThat(won).filteredOn(b -> b).hasSize(1);
    assertThat(effects().effectLease(EFFECT).orElseThrow().owner())
        .isEqualTo("instance-" + won.indexOf(true));
  }

  @Test
  void theSameOwnerTakesItsLeaseAgainWithTheSameEpoch() {
    Lease first = lease();

    Lease again = lease(EFFECT, OWNER_A, T0.plusSeconds(5));
    Lease afterExpiry = lease(EFFECT, OWNER_A, T0.plusSeconds(100));

    assertThat(again.epoch()).isEqualTo(first.epoch());
    assertThat(again.expiresAt()).isEqualTo(T0.plusSeconds(5).plus(TTL));
    assertThat(afterExpiry.epoch()).isEqualTo(first.epoch());
    // Still fencing with it works.
    effects().saveCursor(cursor(SOURCE, 1, null), afterExpiry);
  }

  @Test
  void renewExtendsTheHeldLeaseAndIsEmptyForALostOne() {
    Lease a = lease();

    Lease renewed =
        effects()
            .renewEffectLease(EFFECT, a, Duration.ofSeconds(60), T0.plusSeconds(20))
            .orElseThrow();
    assertThat(renewed.epoch()).isEqualTo(a.epoch());
    assertThat(renewed.expiresAt()).isEqualTo(T0.plusSeconds(80));
    assertThat(effects().effectLease(EFFECT)).contains(renewed);

    Lease b = lease(EFFECT, OWNER_B, T0.plusSeconds(80));
    assertThat(effects().renewEffectLease(EFFECT, a, TTL, T0.plusSeconds(81))).isEmpty();
    assertThat(effects().effectLease(EFFECT)).contains(b);
  }

  @Test
  void releaseFreesTheLeaseOnlyForItsHolderAndTheNextEpochIsHigher() {
    Lease a = lease();
    Lease forged = new Lease(OWNER_B, a.epoch(), a.expiresAt());
    effects().releaseEffectLease(EFFECT, forged);
    assertThat(effects().effectLease(EFFECT)).contains(a);

    effects().releaseEffectLease(EFFECT, a);
    assertThat(effects().effectLease(EFFECT)).isEmpty();

    Lease next = lease(EFFECT, OWNER_A, T0.plusSeconds(1));
    assertThat(next.epoch()).isGreaterThan(a.epoch());
    assertLeaseLost(EFFECT, () -> effects().saveCursor(cursor(SOURCE, 1, null), a));
  }

  @Test
  void leasesOfTwoEffectsAreIndependent() {
    Lease a = lease();
    Lease other = lease(OTHER_EFFECT, OWNER_B, T0);

    assertThat(effects().effectLease(EFFECT)).contains(a);
    assertThat(effects().effectLease(OTHER_EFFECT)).contains(other);
    Lease foreign = new Lease(OWNER_A, a.epoch() + 100, a.expiresAt());
    assertLeaseLost(
        OTHER_EFFECT,
        () ->
            effects()
                .saveCursor(
                    new EffectCursor(OTHER_EFFECT, SOURCE, 1, null, Map.of(), T0), foreign));
  }

  @Test
  void fencedWritesUnderALostLeaseThrowAndChangeNothing() {
    Lease a = lease();
    effects().saveCursor(cursor(SOURCE, 2, 1L), a);
    effects().saveInvocation(row(3, FAILED, T0), a);
    append(entry(3, 1, 0, "r1"));
    Lease b = lease(EFFECT, OWNER_B, T0.plus(TTL));
    Lease forged = new Lease(OWNER_A, b.epoch(), b.expiresAt());

    for (Lease stale : List.of(a, forged)) {
      assertLeaseLost(EFFECT, () -> effects().saveCursor(cursor(SOURCE, 9, null), stale));
      assertLeaseLost(EFFECT, () -> effects().saveInvocation(row(3, DONE, T0), stale));
      assertLeaseLost(EFFECT, () -> effects().saveInvocation(row(4, DONE, T0), stale));
      assertLeaseLost(EFFECT, () -> effects().rewind(EFFECT, SOURCE, 0, true, stale, T0));
    }
    effects().releaseEffectLease(EFFECT, b);
    assertLeaseLost(EFFECT, () -> effects().saveCursor(cursor(SOURCE, 9, null), b));

    assertThat(effects().loadCursors(EFFECT)).containsExactly(cursor(SOURCE, 2, 1L));
    assertThat(effects().loadInvocation(EFFECT, SOURCE, 3)).contains(row(3, FAILED, T0));
    assertThat(effects().loadInvocation(EFFECT, SOURCE, 4)).isEmpty();
    assertThat(effects().listJournal(EFFECT, SOURCE, 3, 0, 10)).hasSize(1);
  }

  // ------------------------------------------------------------------ cursors

  @Test
  void aCursorRoundTripsAndIsReplacedPerSourceKey() {
    Lease a = lease();
    EffectCursor eu =
        new EffectCursor(
            EFFECT, SOURCE_EU, 7, null, Map.of("created", "customer", "deleted", "id"), T0);
    effects().saveCursor(eu, a);
    effects().saveCursor(cursor(SOURCE, 1, 0L), a);
    EffectCursor moved = new EffectCursor(EFFECT, SOURCE, 5, 0L, Map.of(), T0.plusMillis(250));
    effects().saveCursor(moved, a);

    assertThat(effects().loadCursors(EFFECT)).containsExactly(moved, eu);
    assertThat(effects().loadCursors(OTHER_EFFECT)).isEmpty();
    tryToMutate(() -> effects().loadCursors(EFFECT).clear());
    assertThat(effects().loadCursors(EFFECT)).hasSize(2);
  }

  @Test
  void lowestWatermarkIsTheMinimumOverEveryEffectOnThatSourceOnly() {
    Lease a = lease();
    Lease other = lease(OTHER_EFFECT, OWNER_A, T0);
    effects().saveCursor(cursor(SOURCE, 40, null), a);
    effects().saveCursor(cursor(SOURCE_EU, 3, null), a);
    effects().saveCursor(new EffectCursor(OTHER_EFFECT, SOURCE, 12, null, Map.of(), T0), other);

    assertThat(effects().lowestWatermark(SOURCE)).hasValue(12);
    assertThat(effects().lowestWatermark(SOURCE_EU)).hasValue(3);
    assertThat(effects().lowestWatermark(PollerKey.of("invoices"))).isEmpty();

    effects().saveCursor(new EffectCursor(OTHER_EFFECT, SOURCE, 50, null, Map.of(), T0), other);
    assertThat(effects().lowestWatermark(SOURCE)).hasValue(40);
  }

  @Test
  void pruneLogNeverRemovesAnEventAboveTheLowestWatermarkOnItsKey() {
    logEvents(SOURCE, 5);
    logEvents(SOURCE_EU, 3);
    Lease a = lease();
    Lease other = lease(OTHER_EFFECT, OWNER_A, T0);
    effects().saveCursor(cursor(SOURCE, 4, null), a);
    effects().saveCursor(new EffectCursor(OTHER_EFFECT, SOURCE, 2, null, Map.of(), T0), other);
    Instant pastRetention = T0.plusSeconds(3600);

    assertThat(stateStore().pruneLog(SOURCE, pastRetention)).isEqualTo(2);
    assertThat(logged(SOURCE)).containsExactly(3L, 4L, 5L);

    // The floor rises with the slowest effect; a cursor on another partition holds only that one.
    effects().saveCursor(new EffectCursor(OTHER_EFFECT, SOURCE, 5, null, Map.of(), T0), other);
    assertThat(stateStore().pruneLog(SOURCE, pastRetention)).isEqualTo(2);
    assertThat(logged(SOURCE)).containsExactly(5L);
    assertThat(stateStore().pruneLog(SOURCE_EU, pastRetention)).isEqualTo(3);
    assertThat(logged(SOURCE_EU)).isEmpty();

    // Age still decides below the floor.
    logEvents(PollerKey.of("invoices"), 3);
    effects()
        .saveCursor(new EffectCursor(EFFECT, PollerKey.of("invoices"), 3, null, Map.of(), T0), a);
    assertThat(stateStore().pruneLog(PollerKey.of("invoices"), T0.plusSeconds(15))).isEqualTo(2);
    assertThat(logged(PollerKey.of("invoices"))).containsExactly(3L);
  }

  // ------------------------------------------------------------------ invocations

  @Test
  void anInvocationRoundTripsAndASaveReplacesIt() {
    Lease a = lease();
    InvocationRow failed = row(4, FAILED, T0.plusSeconds(1));
    effects().saveInvocation(failed, a);
    assertThat(effects().loadInvocation(EFFECT, SOURCE, 4)).contains(failed);

    InvocationRow done = withStatus(failed, DONE, T0.plusSeconds(2));
    effects().saveInvocation(done, a);

    assertThat(effects().loadInvocation(EFFECT, SOURCE, 4)).contains(done);
    assertThat(effects().loadInvocation(EFFECT, SOURCE_EU, 4)).isEmpty();
    assertThat(effects().loadInvocation(OTHER_EFFECT, SOURCE, 4)).isEmpty();
    assertThat(effects().countInvocations(EFFECT, SOURCE, 0)).isEqualTo(1);
  }

  @Test
  void listInvocationsFiltersByPositionAndStatusInPositionOrderUpToTheLimit() {
    Lease a = lease();
    for (long p : new long[] {7, 2, 5, 3, 6, 4}) {
      effects().saveInvocation(row(p, p % 2 == 0 ? DONE : FAILED, T0), a);
    }
    effects().saveInvocation(row(EFFECT, SOURCE_EU, 9, FAILED, T0), a);

    assertThat(positions(effects().listInvocations(EFFECT, SOURCE, 2, Set.of(), 100)))
        .containsExactly(3L, 4L, 5L, 6L, 7L);
    assertThat(positions(effects().listInvocations(EFFECT, SOURCE, 0, Set.of(FAILED), 100)))
        .containsExactly(3L, 5L, 7L);
    assertThat(positions(effects().listInvocations(EFFECT, SOURCE, 0, Set.of(FAILED, DONE), 3)))
        .containsExactly(2L, 3L, 4L);
    assertThat(positions(effects().listInvocations(EFFECT, SOURCE, 3, Set.of(FAILED), 1)))
        .containsExactly(5L);
    assertThat(effects().listInvocations(EFFECT, SOURCE, 0, Set.of(RUNNING), 100)).isEmpty();
    assertThat(effects().countInvocations(EFFECT, SOURCE, 4)).isEqualTo(3);
    assertThat(effects().countInvocations(EFFECT, SOURCE, 0)).isEqualTo(6);
    assertThat(effects().countInvocations(EFFECT, SOURCE_EU, 0)).isEqualTo(1);
    assertThat(effects().countInvocations(OTHER_EFFECT, SOURCE, 0)).isZero();
    tryToMutate(() -> effects().listInvocations(EFFECT, SOURCE, 0, Set.of(), 100).clear());
    assertThat(effects().countInvocations(EFFECT, SOURCE, 0)).isEqualTo(6);
  }

  @Test
  void aSkipIsRecordedOnlyOnAFailedRowAndSurvivesALaterSave() {
    Lease a = lease();
    InvocationRow failed = row(3, FAILED, T0);
    effects().saveInvocation(failed, a);
    effects().saveInvocation(row(4, RUNNING, T0), a);
    effects().saveInvocation(row(5, DONE, T0), a);

    assertThat(effects().requestSkip(EFFECT, SOURCE, 4, T0.plusSeconds(1))).isFalse();
    assertThat(effects().requestSkip(EFFECT, SOURCE, 5, T0.plusSeconds(1))).isFalse();
    assertThat(effects().requestSkip(EFFECT, SOURCE, 6, T0.plusSeconds(1))).isFalse();
    assertThat(effects().loadInvocation(EFFECT, SOURCE, 4)).contains(row(4, RUNNING, T0));
    assertThat(effects().loadInvocation(EFFECT, SOURCE, 5)).contains(row(5, DONE, T0));
    assertThat(effects().loadInvocation(EFFECT, SOURCE, 6)).isEmpty();

    assertThat(effects().requestSkip(EFFECT, SOURCE, 3, T0.plusSeconds(1))).isTrue();
    InvocationRow skipped = effects().loadInvocation(EFFECT, SOURCE, 3).orElseThrow();
    assertThat(skipped.skipRequested()).isTrue();
    assertThat(skipped.status()).isEqualTo(FAILED);
    assertThat(skipped.updatedAt()).isEqualTo(T0.plusSeconds(1));

    // The engine writes the row again (its copy from before the request says false).
    InvocationRow retried = row(3, FAILED, T0.plusSeconds(2));
    effects().saveInvocation(retried, a);
    assertThat(effects().loadInvocation(EFFECT, SOURCE, 3)).contains(withSkip(retried, true));
  }

  // ------------------------------------------------------------------ journal

  @Test
  void aSecondAppendOfOneCallKeepsTheFirst() {
    JournalEntry first = entry(3, 1, 0, "{\"id\":\"crm-1\"}");
    assertThat(effects().appendJournalEntry(first)).isTrue();

    JournalEntry second = entry(3, 1, 0, "{\"id\":\"crm-2\"}");
    assertThat(effects().appendJournalEntry(second)).isFalse();

    assertThat(effects().loadJournalEntry(EFFECT, SOURCE, 3, callKey(1))).contains(first);
    assertThat(effects().loadJournalEntry(EFFECT, SOURCE, 3, callKey(2))).isEmpty();
    assertThat(effects().loadJournalEntry(EFFECT, SOURCE, 4, callKey(1))).isEmpty();
    assertThat(effects().loadJournalEntry(EFFECT, SOURCE_EU, 3, callKey(1))).isEmpty();
    assertThat(effects().loadJournalEntry(OTHER_EFFECT, SOURCE, 3, callKey(1))).isEmpty();
  }

  @Test
  void aJournalEntryKeepsItsResultAndSubjectExactly() {
    String result = "line\n\"quoted\" ü 日本 😀 '\\%_ " + "x".repeat(20_000);
    JournalEntry sealed =
        new JournalEntry(
            EFFECT, SOURCE, 8, callKey(9), 0, "charge", result, "c-42", T0.plusMillis(7));
    JournalEntry empty = new JournalEntry(EFFECT, SOURCE, 8, callKey(10), 1, "", "", null, T0);
    append(sealed);
    append(empty);

    assertThat(effects().loadJournalEntry(EFFECT, SOURCE, 8, callKey(9))).contains(sealed);
    assertThat(effects().loadJournalEntry(EFFECT, SOURCE, 8, callKey(10))).contains(empty);
  }

  @Test
  void theJournalListsInOrdinalOrderAndPages() {
    int[] ordinals = {3, 0, 4, 1, 2};
    for (int ordinal : ordinals) {
      append(entry(5, 100 - ordinal, ordinal, "r" + ordinal));
    }
    append(entry(6, 1, 0, "other position"));

    assertThat(ordinals(effects().listJournal(EFFECT, SOURCE, 5, 0, 100)))
        .containsExactly(0, 1, 2, 3, 4);
    assertThat(ordinals(effects().listJournal(EFFECT, SOURCE, 5, 0, 2))).containsExactly(0, 1);
    assertThat(ordinals(effects().listJournal(EFFECT, SOURCE, 5, 2, 2))).containsExactly(2, 3);
    assertThat(ordinals(effects().listJournal(EFFECT, SOURCE, 5, 4, 2))).containsExactly(4);
    assertThat(effects().listJournal(EFFECT, SOURCE, 5, 5, 2)).isEmpty();
    assertThat(effects().listJournal(EFFECT, SOURCE, 5, 0, 100).get(0))
        .isEqualTo(entry(5, 100, 0, "r0"));
    assertThat(effects().listJournal(EFFECT, SOURCE, 7, 0, 100)).isEmpty();
  }

  // ------------------------------------------------------------------ rewind

  @Test
  void rewindDeletesRowsAndJournalAboveSetsTheWatermarkAndClearsSchemes() {
    Lease a = lease();
    effects().saveCursor(cursor(SOURCE, 4, 2L), a);
    effects().saveCursor(cursor(SOURCE_EU, 6, null), a);
    for (long p = 3; p <= 7; p++) {
      effects().saveInvocation(row(p, p == 6 ? FAILED : DONE, T0), a);
      append(entry(p, 1, 0, "r" + p));
    }
    effects().saveInvocation(row(EFFECT, SOURCE_EU, 7, DONE, T0), a);
    append(entry(EFFECT, SOURCE_EU, 7, 1, 0, "eu"));

    long deleted = effects().rewind(EFFECT, SOURCE, 4, false, a, T0.plusSeconds(9));

    assertThat(deleted).isEqualTo(3);
    assertThat(positions(effects().listInvocations(EFFECT, SOURCE, 0, Set.of(), 100)))
        .containsExactly(3L, 4L);
    assertThat(effects().listJournal(EFFECT, SOURCE, 4, 0, 10)).hasSize(1);
    for (long p = 5; p <= 7; p++) {
      assertThat(effects().listJournal(EFFECT, SOURCE, p, 0, 10)).as("journal of %d", p).isEmpty();
    }
    assertThat(effects().loadCursors(EFFECT))
        .containsExactly(
            new EffectCursor(EFFECT, SOURCE, 4, 2L, Map.of(), T0.plusSeconds(9)),
            cursor(SOURCE_EU, 6, null));
    assertThat(effects().countInvocations(EFFECT, SOURCE_EU, 0)).isEqualTo(1);
    assertThat(effects().listJournal(EFFECT, SOURCE_EU, 7, 0, 10)).hasSize(1);
  }

  @Test
  void rewindLowersTheLiveBoundaryOnlyWhenAskedAndNeverRaisesIt() {
    Lease a = lease();
    effects().saveCursor(cursor(SOURCE, 10, 8L), a);

    effects().rewind(EFFECT, SOURCE, 5, false, a, T0);
    assertThat(effects().loadCursors(EFFECT).get(0).liveBoundary()).isEqualTo(8L);

    effects().rewind(EFFECT, SOURCE, 5, true, a, T0);
    assertThat(effects().loadCursors(EFFECT).get(0).liveBoundary()).isEqualTo(5L);

    effects().rewind(EFFECT, SOURCE, 3, true, a, T0);
    effects().rewind(EFFECT, SOURCE, 4, true, a, T0);
    EffectCursor c = effects().loadCursors(EFFECT).get(0);
    assertThat(c.watermark()).isEqualTo(4);
    assertThat(c.liveBoundary()).isEqualTo(3L);
  }

  @Test
  void rewindToTheCurrentWatermarkDiscardsTheRowsAboveIt() {
    Lease a = lease();
    effects().saveCursor(cursor(SOURCE, 2, null), a);
    effects().saveInvocation(row(3, DONE, T0), a);
    effects().saveInvocation(row(5, FAILED, T0), a);

    assertThat(effects().countInvocations(EFFECT, SOURCE, 2)).isEqualTo(2);
    assertThat(effects().rewind(EFFECT, SOURCE, 2, false, a, T0)).isEqualTo(2);

    assertThat(effects().countInvocations(EFFECT, SOURCE, 0)).isZero();
    assertThat(effects().loadCursors(EFFECT))
        .containsExactly(new EffectCursor(EFFECT, SOURCE, 2, null, Map.of(), T0));
    assertThatThrownBy(() -> effects().rewind(EFFECT, SOURCE, -1, false, a, T0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ------------------------------------------------------------------ sweep

  @Test
  void aSweepDeletesOnlyOldCompletedRowsAtOrBelowTheWatermarkWithTheirJournals() {
    Lease a = lease();
    effects().saveCursor(cursor(SOURCE, 5, null), a);
    Instant old = T0;
    Instant cut = T0.plusSeconds(60);
    effects().saveInvocation(row(1, DONE, old), a);
    effects().saveInvocation(row(2, TERMINAL, old), a);
    effects().saveInvocation(row(3, SKIPPED, old), a);
    effects().saveInvocation(row(4, DONE, cut), a); // not older than the cut-off
    effects().saveInvocation(row(5, FAILED, old), a); // not completed
    effects().saveInvocation(row(6, DONE, old), a); // above the watermark
    for (long p = 1; p <= 6; p++) {
      append(entry(p, 1, 0, "r" + p));
    }

    assertThat(effects().sweepInvocations(EFFECT, SOURCE, cut, 2)).isEqualTo(2);
    assertThat(effects().sweepInvocations(EFFECT, SOURCE, cut, 100)).isEqualTo(1);
    assertThat(effects().sweepInvocations(EFFECT, SOURCE, cut, 100)).isZero();

    assertThat(positions(effects().listInvocations(EFFECT, SOURCE, 0, Set.of(), 100)))
        .containsExactly(4L, 5L, 6L);
    for (long p = 1; p <= 3; p++) {
      assertThat(effects().listJournal(EFFECT, SOURCE, p, 0, 10)).as("journal of %d", p).isEmpty();
    }
    for (long p = 4; p <= 6; p++) {
      assertThat(effects().listJournal(EFFECT, SOURCE, p, 0, 10)).as("journal of %d", p).hasSize(1);
    }
  }

  @Test
  void aSweepDeletesNothingWithoutACursorOnThatSource() {
    Lease a = lease();
    effects().saveCursor(cursor(SOURCE_EU, 100, null), a);
    effects().saveInvocation(row(1, DONE, T0), a);
    append(entry(1, 1, 0, "r1"));

    assertThat(effects().sweepInvocations(EFFECT, SOURCE, T0.plusSeconds(3600), 100)).isZero();
    assertThat(effects().sweepInvocations(OTHER_EFFECT, SOURCE, T0.plusSeconds(3600), 100))
        .isZero();

    assertThat(effects().loadInvocation(EFFECT, SOURCE, 1)).isPresent();
    assertThat(effects().listJournal(EFFECT, SOURCE, 1, 0, 10)).hasSize(1);
  }

  // ------------------------------------------------------------------ effect-wide state

  @Test
  void quarantineIsSetKeptWhileInPlaceAndReleased() {
    effects().addCounts(EFFECT, 2, "fail: no such customer", 5, T0);
    effects().setQuarantine(EFFECT, "operator", T0.plusSeconds(1));
    effects().setQuarantine(EFFECT, "20 failures in a row", T0.plusSeconds(2));

    EffectRecord quarantined = effects().loadEffect(EFFECT).orElseThrow();
    assertThat(quarantined.quarantined()).isTrue();
    assertThat(quarantined.quarantinedAt()).isEqualTo(T0.plusSeconds(1));
    assertThat(quarantined.quarantineReason()).isEqualTo("operator");
    assertThat(quarantined.terminalSkips()).isEqualTo(2);

    effects().setQuarantine(EFFECT, null, T0.plusSeconds(3));
    EffectRecord released = effects().loadEffect(EFFECT).orElseThrow();
    assertThat(released.quarantined()).isFalse();
    assertThat(released.quarantineReason()).isNull();
    assertThat(released.terminalSkips()).isEqualTo(2);
    assertThat(released.lastTerminalError()).isEqualTo("fail: no such customer");
    assertThat(released.latestCollapsed()).isEqualTo(5);

    effects().setQuarantine(OTHER_EFFECT, null, T0);
    assertThat(effects().loadEffect(OTHER_EFFECT)).isEmpty();
    effects().setQuarantine(OTHER_EFFECT, "operator", T0.plusSeconds(4));
    assertThat(effects().loadEffect(OTHER_EFFECT))
        .contains(
            new EffectRecord(
                OTHER_EFFECT, T0.plusSeconds(4), "operator", 0, null, 0, T0.plusSeconds(4)));
  }

  @Test
  void countersAddUpAndANullErrorKeepsTheStoredOne() {
    effects().addCounts(EFFECT, 1, "first", 0, T0);
    effects().addCounts(EFFECT, 0, null, 99, T0.plusSeconds(1));
    effects().addCounts(EFFECT, 2, "second", 1, T0.plusSeconds(2));
    effects().addCounts(EFFECT, 0, null, 0, T0.plusSeconds(3));

    assertThat(effects().loadEffect(EFFECT))
        .contains(new EffectRecord(EFFECT, null, null, 3, "second", 100, T0.plusSeconds(3)));
    // Every store refuses with the one message of EffectStore.checkCounts: the effect and both
    // counts.
    assertThatThrownBy(() -> effects().addCounts(EFFECT, -1, "x", 0, T0.plusSeconds(4)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContainingAll(EFFECT, "terminalSkips -1", "latestCollapsed 0");
    assertThatThrownBy(() -> effects().addCounts(EFFECT, 0, "x", -1, T0.plusSeconds(4)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContainingAll(EFFECT, "terminalSkips 0", "latestCollapsed -1");
    assertThat(effects().loadEffect(EFFECT).orElseThrow().terminalSkips()).isEqualTo(3);
    assertThat(effects().loadEffect(EFFECT).orElseThrow().lastTerminalError()).isEqualTo("second");
  }

  @Test
  void concurrentAddsLoseNoCount() throws Exception {
    int adds = 25;
    race(
        t -> {
          for (int i = 0; i < adds; i++) {
            effects().addCounts(EFFECT, 1, null, 2, T0);
          }
          return true;
        });
    EffectRecord r = effects().loadEffect(EFFECT).orElseThrow();
    assertThat(r.terminalSkips()).isEqualTo((long) RACERS * adds);
    assertThat(r.latestCollapsed()).isEqualTo(2L * RACERS * adds);
  }

  @Test
  void listEffectsNamesEveryEffectWithARecordCursorOrLeaseSorted() {
    effects().addCounts("zeta", 1, null, 0, T0);
    Lease lease = lease("Alpha", OWNER_A, T0);
    effects().saveCursor(new EffectCursor("Alpha", SOURCE, 0, null, Map.of(), T0), lease);
    lease("mid", OWNER_A, T0);
    Lease released = lease("gone", OWNER_A, T0);
    effects().releaseEffectLease("gone", released);
    effects().setQuarantine("é", "operator", T0);

    assertThat(effects().listEffects()).containsExactly("Alpha", "mid", "zeta", "é");
    tryToMutate(() -> effects().listEffects().clear());
    assertThat(effects().listEffects()).hasSize(4);
  }

  // ------------------------------------------------------------------ forget

  @Test
  void forgetDeletesEveryRowOfTheEffectOnEverySourceAndNothingOfAnother() {
    Lease a = lease();
    effects().saveCursor(cursor(SOURCE, 2, 1L), a);
    effects().saveCursor(cursor(SOURCE_EU, 1, null), a);
    effects().saveInvocation(row(3, FAILED, T0), a);
    effects().saveInvocation(row(4, DONE, T0), a);
    effects().saveInvocation(row(EFFECT, SOURCE_EU, 2, DONE, T0), a);
    append(entry(4, 1, 0, "{}"));
    append(entry(EFFECT, SOURCE_EU, 2, 2, 0, "{}"));
    effects().addCounts(EFFECT, 1, "no customer", 2, T0);
    effects().setQuarantine(EFFECT, "operator", T0);
    Lease other = lease(OTHER_EFFECT, OWNER_A, T0);
    effects().saveCursor(new EffectCursor(OTHER_EFFECT, SOURCE, 5, null, Map.of(), T0), other);
    effects().saveInvocation(row(OTHER_EFFECT, SOURCE, 6, FAILED, T0), other);
    append(entry(OTHER_EFFECT, SOURCE, 6, 3, 0, "{}"));

    assertThat(effects().forgetEffect(EFFECT)).isTrue();

    assertThat(effects().listEffects()).containsExactly(OTHER_EFFECT);
    assertThat(effects().loadCursors(EFFECT)).isEmpty();
    assertThat(effects().loadEffect(EFFECT)).isEmpty();
    assertThat(effects().effectLease(EFFECT)).isEmpty();
    assertThat(effects().countInvocations(EFFECT, SOURCE, 0)).isZero();
    assertThat(effects().countInvocations(EFFECT, SOURCE_EU, 0)).isZero();
    assertThat(effects().loadInvocation(EFFECT, SOURCE, 3)).isEmpty();
    assertThat(effects().listJournal(EFFECT, SOURCE, 4, 0, 10)).isEmpty();
    assertThat(effects().listJournal(EFFECT, SOURCE_EU, 2, 0, 10)).isEmpty();
    assertThat(effects().loadJournalEntry(EFFECT, SOURCE, 4, callKey(1))).isEmpty();
    assertThat(effects().lowestWatermark(SOURCE)).hasValue(5);
    assertThat(effects().lowestWatermark(SOURCE_EU)).isEmpty();
    // The other effect keeps all of its own.
    assertThat(effects().loadCursors(OTHER_EFFECT)).hasSize(1);
    assertThat(effects().countInvocations(OTHER_EFFECT, SOURCE, 0)).isEqualTo(1);
    assertThat(effects().listJournal(OTHER_EFFECT, SOURCE, 6, 0, 10)).hasSize(1);
    assertThat(effects().effectLease(OTHER_EFFECT)).contains(other);
    // Nothing is left to forget.
    assertThat(effects().forgetEffect(EFFECT)).isFalse();
    assertThat(effects().forgetEffect("NeverRan")).isFalse();
  }

  @Test
  void forgetDeletesRowsAndJournalOnASourceThatHasNoCursorYet() {
    // An engine writes an invocation and its calls before the first cursor of a source key is
    // saved; a store that finds an effect's sources through its cursors must still find these.
    Lease a = lease();
    effects().saveCursor(cursor(SOURCE, 1, null), a);
    effects().saveInvocation(row(EFFECT, SOURCE_EU, 2, FAILED, T0), a);
    append(entry(EFFECT, SOURCE_EU, 2, 1, 0, "{}"));
    assertThat(effects().loadCursors(EFFECT)).extracting(EffectCursor::source).containsOnly(SOURCE);

    assertThat(effects().forgetEffect(EFFECT)).isTrue();

    assertThat(effects().countInvocations(EFFECT, SOURCE_EU, 0)).isZero();
    assertThat(effects().loadInvocation(EFFECT, SOURCE_EU, 2)).isEmpty();
    assertThat(effects().listJournal(EFFECT, SOURCE_EU, 2, 0, 10)).isEmpty();
    assertThat(effects().loadJournalEntry(EFFECT, SOURCE_EU, 2, callKey(1))).isEmpty();
    assertThat(effects().listEffects()).doesNotContain(EFFECT);
    // An effect declared again under the name starts afresh there: the old row and call are gone,
    // so the same call key appends anew.
    Lease again = lease(EFFECT, OWNER_B, T0);
    effects().saveInvocation(row(EFFECT, SOURCE_EU, 5, RUNNING, T0), again);
    assertThat(positions(effects().listInvocations(EFFECT, SOURCE_EU, 0, Set.of(), 10)))
        .containsExactly(5L);
    assertThat(effects().appendJournalEntry(entry(EFFECT, SOURCE_EU, 2, 1, 0, "{}"))).isTrue();
  }

  @Test
  void forgetDeletesAJournalWrittenOnASourceWithNoRowOrCursor() {
    Lease a = lease();
    append(entry(EFFECT, SOURCE_EU, 3, 4, 0, "{}"));

    assertThat(effects().forgetEffect(EFFECT)).isTrue();

    assertThat(effects().loadJournalEntry(EFFECT, SOURCE_EU, 3, callKey(4))).isEmpty();
    assertThat(effects().listJournal(EFFECT, SOURCE_EU, 3, 0, 10)).isEmpty();
    assertLeaseLost(EFFECT, () -> effects().saveCursor(cursor(SOURCE_EU, 3, null), a));
  }

  @Test
  void aForgottenEffectsLeaseIsLostAndItStartsAfreshUnderAHigherEpoch() {
    Lease a = lease();
    effects().saveCursor(cursor(SOURCE, 7, null), a);

    assertThat(effects().forgetEffect(EFFECT)).isTrue();

    assertLeaseLost(EFFECT, () -> effects().saveCursor(cursor(SOURCE, 8, null), a));
    assertThat(effects().loadCursors(EFFECT)).isEmpty();
    Lease again = lease(EFFECT, OWNER_B, T0);
    assertThat(again.epoch()).isGreaterThan(a.epoch());
    effects().saveCursor(cursor(SOURCE, 0, null), again);
    assertThat(effects().listEffects()).containsExactly(EFFECT);
    assertThat(effects().lowestWatermark(SOURCE)).hasValue(0);
    assertThat(effects().loadCursors(EFFECT).get(0).watermark()).isZero();
  }

  @Test
  void aForgottenEffectNoLongerHoldsTheLog() {
    logEvents(SOURCE, 5);
    Lease a = lease();
    effects().saveCursor(cursor(SOURCE, 1, null), a);
    Instant pastRetention = T0.plusSeconds(3600);
    assertThat(stateStore().pruneLog(SOURCE, pastRetention)).isEqualTo(1);
    assertThat(logged(SOURCE)).containsExactly(2L, 3L, 4L, 5L);

    effects().forgetEffect(EFFECT);

    assertThat(stateStore().pruneLog(SOURCE, pastRetention)).isEqualTo(4);
    assertThat(logged(SOURCE)).isEmpty();
  }

  // ------------------------------------------------------------------ subject keys

  @Test
  void aSubjectKeyIsPutOnceErasedAndThenMadeAgain() {
    SubjectKey first = new SubjectKey("c-1", "k-1", "wrapped-1", T0);
    SubjectKey racer = new SubjectKey("c-1", "k-2", "wrapped-2", T0.plusMillis(1));

    assertThat(effects().putSubjectKeyIfAbsent(first)).isEqualTo(first);
    assertThat(effects().putSubjectKeyIfAbsent(racer)).isEqualTo(first);
    assertThat(effects().loadSubjectKey("c-1")).contains(first);
    assertThat(effects().loadSubjectKey("C-1")).isEmpty();

    assertThat(effects().eraseSubject("c-1")).isTrue();
    assertThat(effects().eraseSubject("c-1")).isFalse();
    assertThat(effects().loadSubjectKey("c-1")).isEmpty();

    SubjectKey next = new SubjectKey("c-1", "k-3", "wrapped-3", T0.plusSeconds(1));
    assertThat(effects().putSubjectKeyIfAbsent(next)).isEqualTo(next);
    assertThat(effects().loadSubjectKey("c-1")).contains(next);
    assertThat(next.toString()).contains("c-1", "k-3").doesNotContain("wrapped-3");
  }

  // ------------------------------------------------------------------ instants

  @Test
  void everyInstantIsKeptToTheMillisecond() {
    Instant fine = T0.plusNanos(5_432_123);
    Instant ms = T0.plusMillis(5);
    Lease a = effects().acquireEffectLease(EFFECT, OWNER_A, TTL, fine).orElseThrow();
    assertThat(effects().effectLease(EFFECT).orElseThrow().expiresAt()).isEqualTo(ms.plus(TTL));
    assertThat(a.expiresAt()).isEqualTo(ms.plus(TTL));
    effects().saveCursor(new EffectCursor(EFFECT, SOURCE, 1, null, Map.of(), fine), a);
    InvocationRow r =
        new InvocationRow(
            EFFECT, SOURCE, 2, "l", "created", FAILED, 1, "e", fine, false, "v", fine, fine);
    effects().saveInvocation(r, a);
    append(new JournalEntry(EFFECT, SOURCE, 2, callKey(1), 0, "c", "r", null, fine));
    effects().putSubjectKeyIfAbsent(new SubjectKey("s", "k", "w", fine));
    effects().setQuarantine(EFFECT, "operator", fine);

    assertThat(effects().loadCursors(EFFECT).get(0).updatedAt()).isEqualTo(ms);
    InvocationRow loaded = effects().loadInvocation(EFFECT, SOURCE, 2).orElseThrow();
    assertThat(List.of(loaded.retryAt(), loaded.startedAt(), loaded.updatedAt())).containsOnly(ms);
    assertThat(effects().loadJournalEntry(EFFECT, SOURCE, 2, callKey(1)).orElseThrow().createdAt())
        .isEqualTo(ms);
    assertThat(effects().loadSubjectKey("s").orElseThrow().createdAt()).isEqualTo(ms);
    EffectRecord record = effects().loadEffect(EFFECT).orElseThrow();
    assertThat(List.of(record.quarantinedAt(), record.updatedAt())).containsOnly(ms);
  }

  @Test
  void limitsAndOffsetsOutOfRangeAreRefused() {
    assertThatThrownBy(() -> effects().listInvocations(EFFECT, SOURCE, 0, Set.of(), 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> effects().listJournal(EFFECT, SOURCE, 1, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> effects().listJournal(EFFECT, SOURCE, 1, -1, 5))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> effects().sweepInvocations(EFFECT, SOURCE, T0, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ------------------------------------------------------------------ helpers

  /** Threads of {@link #race}. */
  private static final int RACERS = 8;

  /** A task of one racer, given its index. */
  @FunctionalInterface
  private interface Racer {
    boolean run(int index) throws Exception;
  }

  /** Runs {@code racer} on {@link #RACERS} threads released at once; bounded by 60 s. */
  private static List<Boolean> race(Racer racer) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(RACERS);
    try {
      List<Future<Boolean>> futures = new ArrayList<>();
      for (int t = 0; t < RACERS; t++) {
        int index = t;
        futures.add(
            pool.submit(
                () -> {
                  assertThat(start.await(60, TimeUnit.SECONDS)).isTrue();
                  return racer.run(index);
                }));
      }
      start.countDown();
      List<Boolean> results = new ArrayList<>();
      for (Future<Boolean> f : futures) {
        results.add(f.get(60, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static List<Long> positions(List<InvocationRow> rows) {
    return rows.stream().map(InvocationRow::position).toList();
  }

  private static List<Integer> ordinals(List<JournalEntry> entries) {
    return entries.stream().map(JournalEntry::ordinal).toList();
  }
}
