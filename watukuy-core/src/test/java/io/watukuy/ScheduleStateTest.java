package io.watukuy;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.ScheduleState.Backfill;
import io.watukuy.ScheduleState.Circuit;
import io.watukuy.ScheduleState.DueReason;
import io.watukuy.ScheduleState.LastError;
import io.watukuy.ScheduleState.LastPoll;
import io.watukuy.ScheduleState.Listing;
import io.watukuy.ScheduleState.PauseReason;
import io.watukuy.ScheduleState.Status;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Each wither of {@link ScheduleState} changes its own components and keeps every other one. */
class ScheduleStateTest {
  private static final Instant T = Instant.parse("2026-10-21T07:26:30Z");

  /** Every component set, none to its default, through the canonical constructor. */
  private static final ScheduleState FULL =
      new ScheduleState(
          ScheduleState.FORMAT_VERSION,
          Status.CIRCUIT_OPEN,
          PauseReason.MANUAL,
          T.plusSeconds(60),
          DueReason.PROBE,
          20_000,
          4,
          T.plusSeconds(30),
          new Circuit(T.minusSeconds(60), T.plusSeconds(60)),
          new LastPoll(T.minusSeconds(1), 2, 40, 3, false, false, 120, true),
          new LastError("IllegalStateException", "down", T.minusSeconds(1)),
          T.minusSeconds(3600),
          new Backfill("1", "9", false, null),
          new Listing(12, true, 2),
          T.minusSeconds(7200));

  @Test
  void withListingChangesTheListingOnlyAndStoresNothingForAnEmptyOne() {
    Listing l = new Listing(3, false, 0);
    assertChangesOnly(s -> s.withListing(l), Set.of("listing"));
    assertThat(FULL.withListing(l).listing()).isEqualTo(l);
    assertThat(FULL.withListing(Listing.NONE).listing()).isNull();
  }

  @Test
  void withLastSuccessAtChangesTheSuccessTimeOnly() {
    assertChangesOnly(s -> s.withLastSuccessAt(T), Set.of("lastSuccessAt"));
    assertThat(FULL.withLastSuccessAt(null).lastSuccessAt()).isNull();
  }

  @Test
  void theFormatOneConstructorLeavesTheFormatTwoFieldsEmpty() {
    ScheduleState old =
        new ScheduleState(
            1,
            Status.IDLE,
            null,
            null,
            null,
            30_000,
            0,
            null,
            null,
            new LastPoll(T, 1, 2, 3, false, false, 4),
            null,
            null,
            null);
    assertThat(old.listing()).isNull();
    assertThat(old.lastSuccessAt()).isNull();
    assertThat(old.lastPoll().inconsistent()).isFalse();
  }

  @Test
  void withVersionChangesTheVersionOnly() {
    assertChangesOnly(s -> s.withVersion(0), Set.of("v"));
    assertThat(FULL.withVersion(0).v()).isZero();
  }

  @Test
  void withThrottledUntilChangesTheThrottleOnly() {
    assertChangesOnly(s -> s.withThrottledUntil(null), Set.of("throttledUntil"));
    assertThat(FULL.withThrottledUntil(T).throttledUntil()).isEqualTo(T);
  }

  @Test
  void withCircuitChangesTheCircuitOnly() {
    Circuit c = new Circuit(T, T.plusSeconds(1));
    assertChangesOnly(s -> s.withCircuit(c), Set.of("circuit"));
    assertThat(FULL.withCircuit(c).circuit()).isEqualTo(c);
    assertThat(FULL.withCircuit(null).circuit()).isNull();
  }

  @Test
  void withLastErrorChangesTheLastErrorOnly() {
    LastError e = new LastError("X", "y", T);
    assertChangesOnly(s -> s.withLastError(e), Set.of("lastError"));
    assertThat(FULL.withLastError(e).lastError()).isEqualTo(e);
  }

  @Test
  void withLastReconcileAtChangesTheReconcileTimeOnly() {
    assertChangesOnly(s -> s.withLastReconcileAt(T), Set.of("lastReconcileAt"));
    assertThat(FULL.withLastReconcileAt(null).lastReconcileAt()).isNull();
  }

  @Test
  void withBackfillChangesTheBackfillOnly() {
    Backfill b = new Backfill(null, null, true, "\"c\"");
    assertChangesOnly(s -> s.withBackfill(b), Set.of("backfill"));
    assertThat(FULL.withBackfill(b).backfill()).isEqualTo(b);
    assertThat(FULL.withBackfill(null).backfill()).isNull();
  }

  @Test
  void theEarlierWithersChangeTheirOwnComponentsOnly() {
    assertChangesOnly(s -> s.withState(Status.IDLE), Set.of("state"));
    assertChangesOnly(s -> s.withNextDue(T, DueReason.TRIGGER), Set.of("nextDueAt", "dueReason"));
    assertChangesOnly(s -> s.withInterval(1), Set.of("intervalMs"));
    assertChangesOnly(s -> s.withFailures(0, null), Set.of("consecutiveFailures", "lastError"));
    assertChangesOnly(s -> s.withLastPoll(null), Set.of("lastPoll"));
    assertChangesOnly(s -> s.withPaused(PauseReason.PARTITION_REMOVED), Set.of("paused", "state"));
  }

  private static void assertChangesOnly(UnaryOperator<ScheduleState> wither, Set<String> changed) {
    ScheduleState after = wither.apply(FULL);
    for (RecordComponent c : ScheduleState.class.getRecordComponents()) {
      Object before = value(c, FULL);
      Object now = value(c, after);
      if (changed.contains(c.getName()))
        assertThat(now).as("%s changes", c.getName()).isNotEqualTo(before);
      else assertThat(now).as("%s is kept", c.getName()).isEqualTo(before);
    }
  }

  private static Object value(RecordComponent c, ScheduleState s) {
    try {
      return c.getAccessor().invoke(s);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }
}
