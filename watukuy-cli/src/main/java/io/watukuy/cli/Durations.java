package io.watukuy.cli;

import java.util.Locale;

/** Durations as a person reads them in a table or a status line: {@code 850ms}, {@code 3m20s}. */
final class Durations {
  private static final long SECOND = 1000;
  private static final long MINUTE = 60 * SECOND;
  private static final long HOUR = 60 * MINUTE;
  private static final long DAY = 24 * HOUR;

  private Durations() {}

  /**
   * {@code ms} in its largest sensible units: {@code 850ms}, {@code 12.5s} (tenths below a minute,
   * {@code 12s} when whole), {@code 3m20s}, {@code 2h5m}, {@code 1d3h} below ten days, then whole
   * days ({@code 1595d}). Each form is cut, not rounded, so it never overstates.
   *
   * @param ms milliseconds; a negative value gets a leading {@code -}
   */
  static String human(long ms) {
    if (ms < 0) return "-" + human(-ms);
    if (ms < SECOND) return ms + "ms";
    if (ms < MINUTE) {
      long tenths = ms / 100;
      return tenths % 10 == 0
          ? tenths / 10 + "s"
          : String.format(Locale.ROOT, "%d.%ds", tenths / 10, tenths % 10);
    }
    if (ms < HOUR) return two(ms / MINUTE, "m", ms % MINUTE / SECOND, "s");
    if (ms < DAY) return two(ms / HOUR, "h", ms % HOUR / MINUTE, "m");
    long days = ms / DAY;
    return days < 10 ? two(days, "d", ms % DAY / HOUR, "h") : days + "d";
  }

  private static String two(long big, String bigUnit, long small, String smallUnit) {
    return big + bigUnit + (small == 0 ? "" : small + smallUnit);
  }
}
