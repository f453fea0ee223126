package io.watukuy.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.ScheduleState;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A poller state stored in schedule format 1 (before {@code listing}, {@code lastSuccessAt}, {@code
 * lastPoll.inconsistent} and {@code backfill.startedAt}) loads, with those fields empty: stores
 * keep rows across upgrades. The text is what format 1 wrote, every field set.
 */
class StateCodecFormatOneTest {
  static final String FORMAT_ONE =
      "{\"cursors\":{\"live\":\"{\\\"value\\\":\\\"2026-10-01T00:00:00Z\\\",\\\"tieBreak\\\":\\\"c2\\\"}\"},"
          + "\"schedule\":{\"v\":1,\"state\":\"circuitOpen\",\"paused\":null,"
          + "\"nextDueAt\":\"2026-10-21T07:36:30Z\",\"dueReason\":\"probe\",\"intervalMs\":30000,"
          + "\"consecutiveFailures\":5,\"throttledUntil\":null,"
          + "\"circuit\":{\"openedAt\":\"2026-10-21T07:26:30Z\",\"probeAt\":\"2026-10-21T07:36:30Z\"},"
          + "\"lastPoll\":{\"at\":\"2026-10-21T07:26:30Z\",\"pages\":2,\"items\":40,\"events\":3,"
          + "\"truncated\":true,\"notModified\":false,\"durationMs\":120},"
          + "\"lastError\":{\"name\":\"HttpStatusException\",\"message\":\"HTTP 503\","
          + "\"at\":\"2026-10-21T07:26:30Z\"},"
          + "\"lastReconcileAt\":\"2026-10-21T06:26:30Z\","
          + "\"backfill\":{\"from\":\"2026-01-01\",\"to\":null,\"force\":true,\"cursor\":null}},"
          + "\"schemaVersion\":1,\"lastSequence\":42,"
          + "\"createdAt\":\"2026-10-01T00:00:00Z\",\"updatedAt\":\"2026-10-21T07:26:30Z\"}";

  @Test
  void aFormatOneStateLoadsWithTheFormatTwoFieldsEmpty() {
    PollerState state = StateCodec.fromJson(FORMAT_ONE);
    ScheduleState s = state.schedule();

    assertThat(s.v()).isEqualTo(1);
    assertThat(s.state()).isEqualTo(ScheduleState.Status.CIRCUIT_OPEN);
    assertThat(s.consecutiveFailures()).isEqualTo(5);
    assertThat(s.circuit().openedAt()).isEqualTo(Instant.parse("2026-10-21T07:26:30Z"));
    assertThat(s.lastPoll().truncated()).isTrue();
    assertThat(s.lastPoll().inconsistent()).isFalse();
    assertThat(s.lastError().name()).isEqualTo("HttpStatusException");
    assertThat(s.backfill().force()).isTrue();
    assertThat(s.backfill().startedAt()).isNull();
    assertThat(s.listing()).isNull();
    assertThat(s.lastSuccessAt()).isNull();
    assertThat(state.lastSequence()).isEqualTo(42);
    assertThat(state.cursors()).containsKey("live");
  }

  @Test
  void aFormatTwoStateRoundTrips() {
    ScheduleState s =
        StateCodec.fromJson(FORMAT_ONE)
            .schedule()
            .withVersion(ScheduleState.FORMAT_VERSION)
            .withListing(new ScheduleState.Listing(1000, true, 2))
            .withLastSuccessAt(Instant.parse("2026-10-21T07:00:00Z"));

    assertThat(StateCodec.scheduleFromJson(StateCodec.scheduleToJson(s))).isEqualTo(s);
    assertThat(ScheduleState.FORMAT_VERSION).isEqualTo(2);
  }
}
