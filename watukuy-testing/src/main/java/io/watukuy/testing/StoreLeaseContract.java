package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.Lease;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Store contract, part one: lifecycle and capabilities, leases, and the epoch fencing of every
 * write (G5). Runs as part of {@link StoreContractTest}.
 */
abstract class StoreLeaseContract extends StoreContractSupport {
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
}
