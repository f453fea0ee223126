package io.watukuy.cli;

import io.watukuy.ConfigException;
import io.watukuy.Cursors;
import io.watukuy.cli.ConfigReader.At;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * {@code cursor.format} and {@code cursor.zone} of a timestamp poller (docs/config.md, "Timestamp
 * formats"): a {@link DateTimeFormatter} pattern for APIs whose timestamps are neither ISO 8601 nor
 * epoch digits, read in {@code zone} (default UTC) unless the text carries its own offset. The same
 * formatter parses item values and writes the overlap value the request gets.
 */
final class CursorFormat {
  /** The zone of a pattern without an offset of its own. */
  static final ZoneId DEFAULT_ZONE = ZoneOffset.UTC;

  private CursorFormat() {}

  /**
   * The formatter, or null without {@code format}.
   *
   * @throws ConfigException naming the file, line, poller, key and value: a pattern {@link
   *     DateTimeFormatter#ofPattern} refuses, one without a date and a time of day, a zone {@link
   *     ZoneId#of} does not know, a zone without a format
   */
  static @Nullable DateTimeFormatter read(At cursor) {
    At formatAt = cursor.child("format");
    At zoneAt = cursor.child("zone");
    if (formatAt.missing()) {
      if (!zoneAt.missing()) throw zoneAt.error("needs format: (the zone of its timestamps)");
      return null;
    }
    String pattern = formatAt.string("");
    ZoneId zone = DEFAULT_ZONE;
    if (!zoneAt.missing()) {
      String name = zoneAt.string("");
      try {
        zone = ZoneId.of(name);
      } catch (DateTimeException e) {
        throw zoneAt.error(
            "'" + name + "' is not a zone (UTC, +02:00, Europe/Paris): " + e.getMessage());
      }
    }
    DateTimeFormatter formatter;
    try {
      // ROOT: month and day names as the APIs write them (Tue, May), whatever the host's locale.
      formatter = DateTimeFormatter.ofPattern(pattern, Locale.ROOT).withZone(zone);
    } catch (IllegalArgumentException e) {
      throw formatAt.error(
          "'" + pattern + "' is not a DateTimeFormatter pattern: " + e.getMessage());
    }
    try {
      Cursors.timestamp("probe").formatter(formatter);
    } catch (ConfigException e) {
      throw formatAt.error(
          "'" + pattern + "': " + e.getMessage().replace("the cursor formatter ", ""));
    }
    return formatter;
  }
}
