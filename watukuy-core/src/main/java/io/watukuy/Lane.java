package io.watukuy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The lane an event was observed in (How it works, "Lanes"). Serialized in lower case.
 *
 * @since 0.1
 */
public enum Lane {
  LIVE("live"),
  RECONCILE("reconcile"),
  BACKFILL("backfill"),
  REPLAY("replay");

  private final String wire;

  Lane(String wire) {
    this.wire = wire;
  }

  /** The lower-case name used in JSON, stores and event ids. */
  @JsonValue
  public String wire() {
    return wire;
  }

  /**
   * Parses the lower-case name.
   *
   * @throws IllegalArgumentException for an unknown name
   */
  @JsonCreator
  public static Lane fromWire(String s) {
    for (Lane v : values()) if (v.wire.equals(s)) return v;
    throw new IllegalArgumentException("unknown Lane '" + s + "'");
  }
}
