package io.watukuy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The lane an event was observed in (docs/architecture.md, "Lanes"). Serialized in lower case.
 *
 * @since 0.1
 */
public enum Lane {
  /** The scheduled lane that follows the cursor strategy; the only one this release runs. */
  LIVE("live"),
  /** A periodic full listing that finds deletes for incremental strategies. */
  RECONCILE("reconcile"),
  /** A re-poll from an older cursor up to a target cursor. */
  BACKFILL("backfill"),
  /** Logged events copied back into the outbox with their original ids. */
  REPLAY("replay");

  private final String wire;

  Lane(String wire) {
    this.wire = wire;
  }

  /**
   * The lower-case name used in JSON, stores and event ids.
   *
   * @return the wire name, e.g. {@code live}
   */
  @JsonValue
  public String wire() {
    return wire;
  }

  /**
   * Parses the lower-case name.
   *
   * @param s a name returned by {@link #wire()}; case-sensitive
   * @return the constant
   * @throws IllegalArgumentException for an unknown name
   */
  @JsonCreator
  public static Lane fromWire(String s) {
    for (Lane v : values()) if (v.wire.equals(s)) return v;
    throw new IllegalArgumentException("unknown Lane '" + s + "'");
  }
}
