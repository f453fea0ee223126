package io.watukuy.spi;

import io.watukuy.RetryPolicy;
import io.watukuy.Validator;
import java.util.Locale;

/**
 * Why a row was parked: {@code POISON}, an event whose handler failed {@code retry.attempts} times;
 * {@code INVALID}, an item the poller's validator rejected.
 *
 * @since 0.1
 */
public enum ParkedKind {
  /** An event whose handler failed every attempt of its {@link RetryPolicy}. */
  POISON,
  /** An item the poller's {@link Validator} rejected; it produced no event. */
  INVALID;

  /**
   * The lower-case name used in stores and JSON.
   *
   * @return {@code poison} or {@code invalid}
   */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a name, ignoring case.
   *
   * @param s {@code poison} or {@code invalid}
   * @return the constant
   * @throws IllegalArgumentException for any other name
   */
  public static ParkedKind fromWire(String s) {
    return valueOf(s.toUpperCase(Locale.ROOT));
  }
}
