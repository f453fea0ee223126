package io.watukuy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * {@link TimestampCursor.Builder#formatter}: one pattern with a zone parses the API's timestamps
 * and writes the overlap value (docs/config.md, "Timestamp formats").
 */
class TimestampCursorFormatterTest {
  private static final DateTimeFormatter PARIS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT)
          .withZone(ZoneId.of("Europe/Paris"));

  @Test
  void parsesInTheFormattersZoneAndWritesBackInIt() {
    TimestampCursor c = Cursors.timestamp("updated").formatter(PARIS).build();

    // Paris is UTC+2 in May.
    assertThat(c.parse().apply("2024-05-01 14:03:59"))
        .isEqualTo(Instant.parse("2024-05-01T12:03:59Z"));
    assertThat(c.format().apply(Instant.parse("2024-05-01T12:01:59Z")))
        .isEqualTo("2024-05-01 14:01:59");
  }

  @Test
  void anOffsetInTheTextWinsOverTheZone() {
    DateTimeFormatter withOffset =
        DateTimeFormatter.ofPattern("dd/MM/yyyy HH:mm XXX", Locale.ROOT)
            .withZone(ZoneId.of("Europe/Paris"));
    TimestampCursor c = Cursors.timestamp("updated").formatter(withOffset).build();

    assertThat(c.parse().apply("01/05/2024 14:03 -05:00"))
        .isEqualTo(Instant.parse("2024-05-01T19:03:00Z"));
  }

  @Test
  void aFormatterWithoutAZoneOrATimeOfDayIsRefused() {
    assertThatThrownBy(
            () -> Cursors.timestamp("u").formatter(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("has no zone");
    DateTimeFormatter dateOnly =
        DateTimeFormatter.ofPattern("yyyy-MM-dd", Locale.ROOT).withZone(ZoneId.of("UTC"));
    assertThatThrownBy(() -> Cursors.timestamp("u").formatter(dateOnly))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("must hold the date and the time of day");
  }
}
