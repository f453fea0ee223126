package io.watukuy;

import java.util.Locale;

/**
 * Why a row was parked: {@code POISON}, an event whose handler failed {@code retry.attempts}
 * times; {@code INVALID}, an item the poller's validator rejected.
 *
 * @since 0.1
 */
public enum ParkedKind {
  POISON,
  INVALID;

  /** Lower-case name used in stores and JSON. */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static ParkedKind fromWire(String s) {
    return valueOf(s.toUpperCase(Locale.ROOT));
  }
}
