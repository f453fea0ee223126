package io.watukuy.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.ScheduleState;
import io.watukuy.ScheduleState.Backfill;
import io.watukuy.ScheduleState.Circuit;
import io.watukuy.ScheduleState.LastError;
import io.watukuy.ScheduleState.LastPoll;
import io.watukuy.ScheduleState.Listing;
import io.watukuy.StoreException;
import io.watukuy.internal.Json;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The token-by-token codec of the stored state gives the same text as data binding, and reads back
 * what data binding reads, for schedules with every field set, empty or in between (seeded random
 * schedules); what it leaves to data binding is still accepted or refused as before.
 */
class StateCodecFastPathTest {
  private static final int SCHEDULES = 2_000;

  @Test
  void theScheduleTextIsThatOfDataBinding() {
    Random random = new Random(20261202L);
    for (int i = 0; i < SCHEDULES; i++) {
      ScheduleState s = schedule(random);
      String bound = Json.write(s);

      assertThat(StateCodec.scheduleToJson(s)).isEqualTo(bound);
      assertThat(StateCodec.scheduleFromJson(bound)).isEqualTo(s);
      assertThat(Json.read(StateCodec.scheduleToJson(s), ScheduleState.class)).isEqualTo(s);
    }
  }

  @Test
  void aStateRoundTripsAndItsScheduleIsTheBoundOne() {
    Random random = new Random(7L);
    for (int i = 0; i < SCHEDULES; i++) {
      ScheduleState s = schedule(random);
      Map<String, String> cursors = new LinkedHashMap<>();
      if (random.nextBoolean()) cursors.put("live", "{\"value\":\"" + i + "\",\"q\":\"\\\"\"}");
      if (random.nextBoolean()) cursors.put("backfill", "{\"page\":" + i + "}");
      PollerState state =
          new PollerState(
              cursors, s, 1 + random.nextInt(3), random.nextLong(), at(random), at(random));
      String text = StateCodec.toJson(state);

      assertThat(StateCodec.fromJson(text)).isEqualTo(state);
      // The schedule inside is data binding's text: the stored form did not change.
      assertThat(Json.tree(text).get("schedule")).isEqualTo(Json.tree(Json.write(s)));
    }
  }

  @Test
  void whatTheFastReaderLeavesIsReadByDataBinding() {
    // A number as a string, an instant with an offset, an unknown field, a format-1 lastPoll: all
    // accepted by data binding, so still accepted.
    String text =
        "{\"cursors\":{\"live\":\"c\"},\"schedule\":{\"v\":\"2\",\"state\":\"idle\","
            + "\"nextDueAt\":\"2026-10-21T09:36:30+02:00\",\"intervalMs\":30000,\"extra\":[1,{}],"
            + "\"lastPoll\":{\"at\":\"2026-10-21T07:26:30Z\",\"pages\":1,\"items\":0,\"events\":0,"
            + "\"truncated\":false,\"notModified\":true,\"durationMs\":3}},"
            + "\"schemaVersion\":1,\"lastSequence\":0,"
            + "\"createdAt\":\"2026-10-01T00:00:00Z\",\"updatedAt\":\"2026-10-21T07:26:30Z\"}";

    ScheduleState s = StateCodec.fromJson(text).schedule();

    assertThat(s.v()).isEqualTo(2);
    assertThat(s.nextDueAt()).isEqualTo(Instant.parse("2026-10-21T07:36:30Z"));
    assertThat(s.lastPoll().notModified()).isTrue();
    assertThat(s.lastPoll().inconsistent()).isFalse();
    assertThat(StateCodec.scheduleFromJson(Json.write(s))).isEqualTo(s);
  }

  @Test
  void whatDataBindingRefusesIsStillRefused() {
    String unknownState =
        "{\"cursors\":{},\"schedule\":{\"v\":2,\"state\":\"sleeping\",\"intervalMs\":1},"
            + "\"createdAt\":\"2026-10-01T00:00:00Z\",\"updatedAt\":\"2026-10-21T07:26:30Z\"}";

    assertThatThrownBy(() -> StateCodec.fromJson(unknownState))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("sleeping");
    assertThatThrownBy(() -> StateCodec.fromJson("{\"cursors\":{}}"))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("schedule");
    assertThatThrownBy(() -> StateCodec.scheduleFromJson("{\"v\":2,\"state\":\"nope\"}"))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("nope");
  }

  private static ScheduleState schedule(Random r) {
    return new ScheduleState(
        1 + r.nextInt(2),
        pick(r, ScheduleState.Status.values()),
        r.nextBoolean() ? null : pick(r, ScheduleState.PauseReason.values()),
        maybeAt(r),
        r.nextBoolean() ? null : pick(r, ScheduleState.DueReason.values()),
        r.nextInt(4) == 0 ? Long.MAX_VALUE - r.nextInt(5) : r.nextInt(3_600_000),
        r.nextInt(4) == 0 ? Integer.MAX_VALUE : r.nextInt(10),
        maybeAt(r),
        r.nextBoolean() ? null : new Circuit(at(r), at(r)),
        r.nextBoolean()
            ? null
            : new LastPoll(
                at(r),
                r.nextInt(100),
                r.nextInt(),
                r.nextInt(1000),
                r.nextBoolean(),
                r.nextBoolean(),
                r.nextLong(),
                r.nextBoolean()),
        r.nextBoolean() ? null : new LastError("HttpStatusException", text(r), at(r)),
        maybeAt(r),
        r.nextBoolean()
            ? null
            : new Backfill(
                r.nextBoolean() ? null : text(r),
                r.nextBoolean() ? null : text(r),
                r.nextBoolean(),
                r.nextBoolean() ? null : "{\"page\":3}",
                maybeAt(r)),
        r.nextBoolean() ? null : new Listing(r.nextInt(1000), r.nextBoolean(), r.nextInt(4)),
        maybeAt(r));
  }

  /** Instants of every precision the engine writes: seconds, milli-, micro- and nanoseconds. */
  private static Instant at(Random r) {
    Instant base = Instant.ofEpochSecond(1_700_000_000L + r.nextInt(200_000_000));
    return switch (r.nextInt(4)) {
      case 0 -> base;
      case 1 -> base.plusMillis(r.nextInt(1000));
      case 2 -> base.plusNanos(1000L * r.nextInt(1_000_000));
      default -> base.plusNanos(r.nextInt(1_000_000_000));
    };
  }

  private static Instant maybeAt(Random r) {
    return r.nextBoolean() ? null : at(r);
  }

  /** Text with what JSON must escape: quotes, backslashes, control and non-ASCII characters. */
  private static String text(Random r) {
    String[] parts = {
      "HTTP 503", "\"quoted\"", "back\\slash", "line\nbreak", "tab\t", "é ü 😀", ""
    };
    StringBuilder b = new StringBuilder();
    for (int i = r.nextInt(4); i >= 0; i--) b.append(parts[r.nextInt(parts.length)]);
    return b.toString();
  }

  private static <T> T pick(Random r, T[] values) {
    return values[r.nextInt(values.length)];
  }
}
