package io.watukuy.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IsoInstantsTest {

  @Test
  void readsWhatInstantToStringWritesExactlyAsInstantParseDoes() {
    SplittableRandom random = new SplittableRandom(17);
    for (int i = 0; i < 10_000; i++) {
      Instant at =
          Instant.ofEpochSecond(
              random.nextLong(-62_000_000_000L, 253_000_000_000L),
              switch (i % 4) {
                case 0 -> 0;
                case 1 -> random.nextInt(1000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1000;
                default -> random.nextInt(1_000_000_000);
              });
      String text = at.toString();
      Instant fast = IsoInstants.parse(text);
      if (fast != null) assertThat(fast).as(text).isEqualTo(Instant.parse(text));
    }
    assertThat(IsoInstants.parse("2026-03-01T10:00:00.123Z"))
        .isEqualTo(Instant.parse("2026-03-01T10:00:00.123Z"));
    assertThat(IsoInstants.parse("2026-03-01T10:00:00Z"))
        .isEqualTo(Instant.parse("2026-03-01T10:00:00Z"));
    assertThat(IsoInstants.parse("1969-12-31T23:59:59.999999999Z"))
        .isEqualTo(Instant.parse("1969-12-31T23:59:59.999999999Z"));
  }

  @Test
  void leavesEveryOtherFormToTheGeneralParser() {
    assertThat(IsoInstants.parse("2026-03-01T10:00:00+01:00")).isNull();
    assertThat(IsoInstants.parse("2026-02-30T10:00:00Z")).isNull();
    assertThat(IsoInstants.parse("2026-03-01T24:00:00Z")).isNull();
    assertThat(IsoInstants.parse("2026-03-01T10:00:00.Z")).isNull();
    assertThat(IsoInstants.parse("2026-03-01 10:00:00Z")).isNull();
    assertThat(IsoInstants.parse("+12026-03-01T10:00:00Z")).isNull();
    assertThat(IsoInstants.parse("2026-03-01T10:00:00.1234567890Z")).isNull();
  }

  @Test
  void theEngineMapperReadsInstantsInEveryFormItReadBefore() throws Exception {
    assertThat(Json.MAPPER.readValue("\"2026-03-01T10:00:00.250Z\"", Instant.class))
        .isEqualTo(Instant.parse("2026-03-01T10:00:00.250Z"));
    assertThat(Json.MAPPER.readValue("\"2026-03-01T11:00:00+01:00\"", Instant.class))
        .isEqualTo(Instant.parse("2026-03-01T10:00:00Z"));
    assertThat(Json.MAPPER.readValue("1772359200", Instant.class))
        .isEqualTo(Instant.ofEpochSecond(1_772_359_200L));
  }

  @Test
  void writesWhatInstantToStringWrites() {
    SplittableRandom random = new SplittableRandom(29);
    for (int i = 0; i < 10_000; i++) {
      Instant at =
          Instant.ofEpochSecond(
              random.nextLong(-62_200_000_000L, 253_500_000_000L),
              switch (i % 4) {
                case 0 -> 0;
                case 1 -> random.nextInt(1000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1000;
                default -> random.nextInt(1_000_000_000);
              });
      assertThat(IsoInstants.format(at)).isEqualTo(at.toString());
    }
    for (String edge :
        new String[] {
          "0000-01-01T00:00:00Z",
          "9999-12-31T23:59:59.999999999Z",
          "1969-12-31T23:59:59.000001Z",
          "1970-01-01T00:00:00.100Z",
          "2026-03-01T10:00:00.120300Z"
        }) {
      assertThat(IsoInstants.format(Instant.parse(edge))).isEqualTo(edge);
    }
    Instant beyond = Instant.parse("+10000-01-01T00:00:00Z");
    assertThat(IsoInstants.format(beyond)).isEqualTo(beyond.toString());
    assertThat(IsoInstants.format(Instant.MIN)).isEqualTo(Instant.MIN.toString());
  }
}
