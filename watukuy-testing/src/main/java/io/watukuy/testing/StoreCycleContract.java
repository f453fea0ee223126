package io.watukuy.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.ScheduleState;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LeasedState;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Store contract, the start and end of a poll cycle in one call each ({@code acquireLeaseAndLoad},
 * {@code saveStateAndRelease}; docs/architecture.md, "What an idle poll costs"): they lease, read,
 * write and release exactly as the calls they combine, with the same fencing (G5), and the end of a
 * cycle never overwrites a schedule an unfenced operation stored meanwhile. Runs as part of {@link
 * StoreContractTest}, against the store's own implementation or the defaults of the SPI.
 */
abstract class StoreCycleContract extends StoreLeaseContract {
  private static final ScheduleState SCHEDULE =
      ScheduleState.initial(30_000)
          .withNextDue(T0.plusSeconds(30), ScheduleState.DueReason.SCHEDULE);

  /** A key with a state (cursor, schedule, lastSequence 2) and two pending events, leased by a. */
  private Lease seeded() {
    Lease a = acquire(OWNER_A, T0);
    commit(
        a,
        batch(new StatePatch(Map.of("live", "\"c-1\""), SCHEDULE, 1, 2L))
            .events(event(1), event(2)),
        T0);
    return a;
  }

  // ------------------------------------------------------------------ acquireLeaseAndLoad

  @Test
  void acquireLeaseAndLoadOfANewKeyLeasesEpochOneWithNoStateAndNothingPending() {
    Optional<LeasedState> start = store().acquireLeaseAndLoad(KEY, OWNER_A, TTL, T0);

    assertThat(start).contains(new LeasedState(new Lease(OWNER_A, 1, T0.plus(TTL)), null, false));
    assertThat(store().getLease(KEY)).contains(new Lease(OWNER_A, 1, T0.plus(TTL)));
    assertThat(store().loadState(KEY)).isEmpty();
    assertThat(store().listKeys(null)).isEmpty();
  }

  @Test
  void acquireLeaseAndLoadReadsTheStoredStateAndSeesPendingRows() {
    Lease a = seeded();
    PollerState stored = store().loadState(KEY).orElseThrow();
    store().releaseLease(KEY, a);
    Instant later = T0.plusSeconds(40);

    LeasedState start = store().acquireLeaseAndLoad(KEY, OWNER_B, TTL, later).orElseThrow();

    assertThat(start.lease()).isEqualTo(new Lease(OWNER_B, 2, later.plus(TTL)));
    assertThat(start.state()).isEqualTo(stored);
    assertThat(start.state().cursors()).containsEntry("live", "\"c-1\"");
    assertThat(start.state().schedule()).isEqualTo(SCHEDULE);
    assertThat(start.pending()).isTrue();
    assertThat(store().getLease(KEY)).contains(start.lease());
  }

  @Test
  void acquireLeaseAndLoadSaysNothingIsPendingOnceEveryRowIsAcked() {
    Lease a = seeded();
    store().ackEvents(KEY, a, List.of(1L, 2L));
    store().releaseLease(KEY, a);

    LeasedState start =
        store().acquireLeaseAndLoad(KEY, OWNER_A, TTL, T0.plusSeconds(1)).orElseThrow();

    assertThat(start.pending()).isFalse();
    assertThat(start.state()).isNotNull();
  }

  @Test
  void acquireLeaseAndLoadIsRefusedWhileAnotherLeaseLives() {
    Lease a = seeded();

    Optional<LeasedState> refused =
        store().acquireLeaseAndLoad(KEY, OWNER_B, TTL, a.expiresAt().minusMillis(1));

    assertThat(refused).isEmpty();
    assertThat(store().getLease(KEY)).contains(a);
  }

  @Test
  void acquireLeaseAndLoadTakesOverAnExpiredLeaseWithTheNextEpoch() {
    Lease a = seeded();

    LeasedState b = store().acquireLeaseAndLoad(KEY, OWNER_B, TTL, a.expiresAt()).orElseThrow();

    assertThat(b.lease().epoch()).isEqualTo(a.epoch() + 1);
    assertLeaseLost(() -> store().saveState(KEY, a, StatePatch.NONE, a.expiresAt()));
    assertThat(b.state().lastSequence()).isEqualTo(2);
  }

  // ------------------------------------------------------------------ saveStateAndRelease

  @Test
  void saveStateAndReleaseWritesThePatchAndFreesTheKeyAtOnce() {
    Lease a = seeded();
    PollerState before = store().loadState(KEY).orElseThrow();
    ScheduleState next = SCHEDULE.withNextDue(T0.plusSeconds(60), ScheduleState.DueReason.SCHEDULE);
    Instant now = T0.plusSeconds(2);

    boolean written =
        store()
            .saveStateAndRelease(
                KEY,
                a,
                before.schedule(),
                new StatePatch(Map.of("live", "\"c-2\""), next, null, null),
                now);

    assertThat(written).isTrue();
    assertThat(store().loadState(KEY))
        .contains(before.apply(new StatePatch(Map.of("live", "\"c-2\""), next, null, null), now));
    assertThat(store().getLease(KEY)).isEmpty();
    // Released, not expired: another instance leases at once, with the next epoch.
    assertThat(store().acquireLease(KEY, OWNER_B, TTL, now))
        .contains(new Lease(OWNER_B, a.epoch() + 1, now.plus(TTL)));
  }

  @Test
  void saveStateAndReleaseWritesNothingAndKeepsTheLeaseWhenAnOperationChangedTheSchedule() {
    Lease a = seeded();
    ScheduleState paused = SCHEDULE.withPaused(ScheduleState.PauseReason.MANUAL);
    store().saveStateUnfenced(KEY, StatePatch.schedule(paused), T0.plusSeconds(1));
    PollerState afterPause = store().loadState(KEY).orElseThrow();

    boolean written =
        store()
            .saveStateAndRelease(
                KEY,
                a,
                SCHEDULE,
                StatePatch.schedule(
                    SCHEDULE.withNextDue(T0.plusSeconds(60), ScheduleState.DueReason.SCHEDULE)),
                T0.plusSeconds(2));

    assertThat(written).isFalse();
    assertThat(store().loadState(KEY)).contains(afterPause);
    assertThat(store().getLease(KEY)).contains(a);
    // The lease still fences: the caller goes on with saveState and releaseLease.
    store().saveState(KEY, a, StatePatch.schedule(paused), T0.plusSeconds(3));
    store().releaseLease(KEY, a);
    assertThat(store().getLease(KEY)).isEmpty();
  }

  @Test
  void saveStateAndReleaseWithALostLeaseThrowsAndWritesNothing() {
    Lease a = seeded();
    PollerState before = store().loadState(KEY).orElseThrow();
    Lease b = store().acquireLease(KEY, OWNER_B, TTL, a.expiresAt()).orElseThrow();

    assertLeaseLost(
        () ->
            store()
                .saveStateAndRelease(
                    KEY,
                    a,
                    before.schedule(),
                    StatePatch.schedule(
                        SCHEDULE.withNextDue(T0.plusSeconds(90), ScheduleState.DueReason.SCHEDULE)),
                    a.expiresAt()));

    assertThat(store().loadState(KEY)).contains(before);
    assertThat(store().getLease(KEY)).contains(b);
  }

  @Test
  void saveStateAndReleaseAfterTheReleaseThrowsLeaseLost() {
    Lease a = seeded();
    ScheduleState stored = store().loadState(KEY).orElseThrow().schedule();
    assertThat(store().saveStateAndRelease(KEY, a, stored, StatePatch.NONE, T0.plusSeconds(1)))
        .isTrue();

    assertLeaseLost(
        () -> store().saveStateAndRelease(KEY, a, stored, StatePatch.NONE, T0.plusSeconds(2)));
    assertThat(store().getLease(KEY)).isEmpty();
  }

  @Test
  void saveStateAndReleaseCreatesTheStateOfAKeyThatHadNone() {
    Lease a = acquire(OWNER_A, T0);
    StatePatch patch = new StatePatch(Map.of("live", "\"c-1\""), SCHEDULE, 1, 0L);

    boolean written = store().saveStateAndRelease(KEY, a, null, patch, T0.plusSeconds(1));

    assertThat(written).isTrue();
    assertThat(store().loadState(KEY)).contains(PollerState.create(patch, T0.plusSeconds(1)));
    assertThat(store().getLease(KEY)).isEmpty();
    assertThat(store().listKeys(null)).containsExactly(KEY);
  }

  @Test
  void saveStateAndReleaseExpectingNoStateWritesNothingWhenOneWasStored() {
    Lease a = acquire(OWNER_A, T0);
    store().saveStateUnfenced(KEY, StatePatch.schedule(SCHEDULE), T0.plusSeconds(1));
    PollerState stored = store().loadState(KEY).orElseThrow();

    boolean written =
        store()
            .saveStateAndRelease(KEY, a, null, StatePatch.schedule(ScheduleState.initial(1)), T0);

    assertThat(written).isFalse();
    assertThat(store().loadState(KEY)).contains(stored);
    assertThat(store().getLease(KEY)).contains(a);
  }

  @Test
  void aCycleStartedWithAcquireLeaseAndLoadEndsWithTheScheduleItRead() {
    Lease a = seeded();
    store().releaseLease(KEY, a);
    Instant now = T0.plusSeconds(31);
    LeasedState start = store().acquireLeaseAndLoad(KEY, OWNER_A, TTL, now).orElseThrow();
    ScheduleState next =
        start.state().schedule().withNextDue(now.plusSeconds(30), ScheduleState.DueReason.SCHEDULE);

    boolean written =
        store()
            .saveStateAndRelease(
                KEY, start.lease(), start.state().schedule(), StatePatch.schedule(next), now);

    assertThat(written).isTrue();
    assertThat(store().loadState(KEY).map(PollerState::schedule)).contains(next);
    assertThat(store().getLease(KEY)).isEmpty();
  }

  @Test
  void aCycleStartedWithAcquireLeaseAndLoadWritesNothingWhenAnOperationChangedTheSchedule() {
    Lease a = seeded();
    store().releaseLease(KEY, a);
    Instant now = T0.plusSeconds(31);
    LeasedState start = store().acquireLeaseAndLoad(KEY, OWNER_A, TTL, now).orElseThrow();
    ScheduleState paused = start.state().schedule().withPaused(ScheduleState.PauseReason.MANUAL);
    store().saveStateUnfenced(KEY, StatePatch.schedule(paused), now.plusSeconds(1));
    PollerState afterPause = store().loadState(KEY).orElseThrow();

    boolean written =
        store()
            .saveStateAndRelease(
                KEY,
                start.lease(),
                start.state().schedule(),
                StatePatch.schedule(
                    start
                        .state()
                        .schedule()
                        .withNextDue(now.plusSeconds(30), ScheduleState.DueReason.SCHEDULE)),
                now.plusSeconds(2));

    assertThat(written).isFalse();
    assertThat(store().loadState(KEY)).contains(afterPause);
    assertThat(store().getLease(KEY)).contains(start.lease());
  }

  @Test
  void aCycleStartedWithAcquireLeaseAndLoadThatLostItsLeaseThrowsAndWritesNothing() {
    Lease a = seeded();
    store().releaseLease(KEY, a);
    Instant now = T0.plusSeconds(31);
    LeasedState start = store().acquireLeaseAndLoad(KEY, OWNER_A, TTL, now).orElseThrow();
    PollerState before = store().loadState(KEY).orElseThrow();
    Lease b = store().acquireLease(KEY, OWNER_B, TTL, start.lease().expiresAt()).orElseThrow();

    assertLeaseLost(
        () ->
            store()
                .saveStateAndRelease(
                    KEY,
                    start.lease(),
                    start.state().schedule(),
                    StatePatch.schedule(
                        start
                            .state()
                            .schedule()
                            .withNextDue(now.plusSeconds(30), ScheduleState.DueReason.SCHEDULE)),
                    start.lease().expiresAt()));

    assertThat(store().loadState(KEY)).contains(before);
    assertThat(store().getLease(KEY)).contains(b);
  }

  @Test
  void aCycleThatCommittedAPageEndsWithItsCursorAndSchedule() {
    Lease a = seeded();
    store().releaseLease(KEY, a);
    Instant now = T0.plusSeconds(31);
    LeasedState start = store().acquireLeaseAndLoad(KEY, OWNER_A, TTL, now).orElseThrow();
    commit(
        start.lease(),
        batch(new StatePatch(Map.of("live", "\"c-9\""), null, null, 3L)).events(event(3)),
        now);
    ScheduleState next =
        start.state().schedule().withNextDue(now.plusSeconds(30), ScheduleState.DueReason.SCHEDULE);

    boolean written =
        store()
            .saveStateAndRelease(
                KEY, start.lease(), start.state().schedule(), StatePatch.schedule(next), now);

    assertThat(written).isTrue();
    PollerState end = store().loadState(KEY).orElseThrow();
    assertThat(end.schedule()).isEqualTo(next);
    assertThat(end.cursors()).containsEntry("live", "\"c-9\"");
    assertThat(end.lastSequence()).isEqualTo(3);
    assertThat(store().getLease(KEY)).isEmpty();
  }
}
