package io.watukuy;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.KeyHealth.Reason;
import io.watukuy.ScheduleState.Circuit;
import io.watukuy.ScheduleState.LastError;
import io.watukuy.ScheduleState.Listing;
import io.watukuy.ScheduleState.PauseReason;
import io.watukuy.ScheduleState.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyInspection#health()}, the one verdict of docs/operations.md, "Health": one test per
 * reason, paused keys healthy whatever holds, several reasons at once, and the JSON a health
 * endpoint shows.
 */
class KeyHealthTest {
  static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");
  static final long STALE_AFTER_MS = Duration.ofMinutes(30).toMillis();

  /** A healthy key's inspection, with the given facts changed. */
  static KeyInspection key(
      Status state,
      @Nullable PauseReason paused,
      int failures,
      @Nullable Circuit circuit,
      @Nullable LastError lastError,
      @Nullable Listing listing,
      long parked,
      boolean stale,
      @Nullable Long maxParked) {
    return new KeyInspection(
        "orders",
        "",
        state,
        paused,
        null,
        null,
        30_000,
        failures,
        null,
        circuit,
        null,
        Map.of(),
        null,
        0,
        parked,
        Map.of("poison", parked),
        0,
        null,
        lastError,
        null,
        null,
        listing,
        NOW.minusSeconds(60),
        STALE_AFTER_MS,
        stale,
        maxParked,
        null);
  }

  static KeyInspection healthy() {
    return key(Status.IDLE, null, 0, null, null, null, 0, false, null);
  }

  static final LastError HTTP_503 =
      new LastError("FetchException", "GET https://erp.example.com/orders returned HTTP 503", NOW);

  @Test
  void aKeyThatPollsIsHealthy() {
    KeyHealth h = healthy().health();

    assertThat(h.healthy()).isTrue();
    assertThat(h.reasons()).isEmpty();
    assertThat(h.problem()).isNull();
  }

  @Test
  void anOpenCircuitIsCircuitOpen() {
    KeyInspection k =
        key(
            Status.CIRCUIT_OPEN,
            null,
            5,
            new Circuit(NOW, NOW.plusSeconds(600)),
            HTTP_503,
            null,
            0,
            false,
            null);

    assertThat(k.health().reasons()).containsExactly(Reason.CIRCUIT_OPEN);
    assertThat(k.health().problem())
        .isEqualTo(
            "circuit open since 2026-03-01T10:00:00Z, after 5 failure(s) in a row; last error"
                + " FetchException: GET https://erp.example.com/orders returned HTTP 503");
    assertThat(k.problem()).isEqualTo(k.health().problem());
  }

  @Test
  void aPoisonHaltIsPoisonHaltNotCircuitOpen() {
    KeyInspection k =
        key(
            Status.CIRCUIT_OPEN,
            null,
            0,
            new Circuit(NOW, NOW.plusSeconds(600)),
            new LastError("PoisonHalt", "event o002 failed 1 time(s)", NOW),
            null,
            1,
            false,
            null);

    assertThat(k.health().reasons()).containsExactly(Reason.POISON_HALT);
    assertThat(k.health().problem()).startsWith("halted by a poison event since");
  }

  @Test
  void aStalledLaneIsStalledAndFailing() {
    KeyInspection k =
        key(
            Status.BACKING_OFF,
            null,
            1,
            null,
            new LastError("PageRepeated", "lane live page 2 repeats page 1", NOW),
            null,
            0,
            false,
            null);

    assertThat(k.health().reasons()).containsExactly(Reason.STALLED, Reason.FAILING);
    assertThat(k.health().problem()).startsWith("1 failed cycle(s) in a row since");
  }

  @Test
  void failedCyclesInARowAreFailing() {
    KeyInspection k = key(Status.BACKING_OFF, null, 2, null, HTTP_503, null, 0, false, null);

    assertThat(k.health().reasons()).containsExactly(Reason.FAILING);
  }

  @Test
  void deletesHeldByTheDeleteGuardAreDeletesHeld() {
    KeyInspection k =
        key(Status.IDLE, null, 0, null, null, new Listing(40, false, 0), 0, false, null);

    assertThat(k.health().reasons()).containsExactly(Reason.DELETES_HELD);
    assertThat(k.health().problem())
        .isEqualTo("40 deletes held by the delete guard; watukuy confirm-deletes releases them");
  }

  @Test
  void aStaleKeyIsStale() {
    KeyInspection k = key(Status.THROTTLED, null, 0, null, null, null, 0, true, null);

    assertThat(k.health().reasons()).containsExactly(Reason.STALE);
    assertThat(k.health().problem())
        .isEqualTo(
            "stale: no successful poll since 2026-03-01T09:59:00Z, longer than staleAfter (30m)");
  }

  @Test
  void parkedRowsOverMaxParkedAreParkedOverAndAtTheLimitAreNot() {
    assertThat(key(Status.IDLE, null, 0, null, null, null, 3, false, 2L).health().reasons())
        .containsExactly(Reason.PARKED_OVER);
    assertThat(key(Status.IDLE, null, 0, null, null, null, 2, false, 2L).health().healthy())
        .isTrue();
    assertThat(key(Status.IDLE, null, 0, null, null, null, 500, false, null).health().healthy())
        .as("without maxParked, parked rows alone never make a key unhealthy")
        .isTrue();
  }

  @Test
  void aPausedKeyIsHealthyWhateverElseHolds() {
    for (PauseReason why : PauseReason.values()) {
      KeyInspection k =
          key(
              Status.PAUSED,
              why,
              5,
              new Circuit(NOW, NOW.plusSeconds(600)),
              HTTP_503,
              new Listing(3, false, 0),
              10,
              true,
              1L);

      assertThat(k.health().healthy()).as(why.wire()).isTrue();
      assertThat(k.problem()).isNull();
      assertThat(k.stale()).as("the fact stays in the inspection").isTrue();
    }
  }

  @Test
  void everyReasonThatHoldsIsListedAndTheProblemNamesTheFirst() {
    KeyInspection k =
        key(
            Status.CIRCUIT_OPEN,
            null,
            5,
            new Circuit(NOW, NOW.plusSeconds(600)),
            HTTP_503,
            new Listing(3, false, 0),
            10,
            true,
            1L);

    assertThat(k.health().reasons())
        .containsExactly(
            Reason.CIRCUIT_OPEN, Reason.DELETES_HELD, Reason.STALE, Reason.PARKED_OVER);
    assertThat(k.health().problem()).startsWith("circuit open since");
  }

  @Test
  void healthGathersTheKeysAndItsJsonNamesTheReasons() {
    KeyInspection stale = key(Status.IDLE, null, 0, null, null, null, 0, true, null);
    Health h = Health.of(new Inspection(NOW, List.of(stale)));

    assertThat(h.healthy()).isFalse();
    assertThat(h.unhealthy()).extracting(KeyHealth::key).containsExactly(PollerKey.of("orders"));
    assertThat(h.toJson())
        .isEqualTo(
            "{\"at\":\"2026-03-01T10:00:00Z\",\"healthy\":false,\"keys\":[{\"poller\":\"orders\","
                + "\"partition\":\"\",\"healthy\":false,\"reasons\":[\"stale\"],\"problem\":\"stale:"
                + " no successful poll since 2026-03-01T09:59:00Z, longer than staleAfter"
                + " (30m)\"}]}");
    assertThat(new Inspection(NOW, List.of(stale)).toJson())
        .contains(
            "\"staleAfterMs\":1800000,\"stale\":true,\"maxParked\":null,\"logHeldAbove\":null,"
                + "\"health\":{");
    assertThat(Health.of(new Inspection(NOW, List.of(healthy()))).healthy()).isTrue();
  }
}
