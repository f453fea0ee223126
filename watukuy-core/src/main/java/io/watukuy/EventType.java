package io.watukuy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The kind of change an event reports. Serialized in lower case.
 *
 * @since 0.1
 */
public enum EventType {
  /** The item appeared: its identity was not in the snapshot. */
  CREATED("created"),
  /**
   * The item changed: its hash differs from the stored one. With a version function, only items
   * whose version changed are hashed and compared.
   */
  UPDATED("updated"),
  /** The item is gone: reported as a tombstone, or missing from a completed full listing. */
  DELETED("deleted");

  private final String wire;

  EventType(String wire) {
    this.wire = wire;
  }

  /**
   * The lower-case name used in JSON, stores and event ids.
   *
   * @return the wire name, e.g. {@code created}
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
  public static EventType fromWire(String s) {
    for (EventType v : values()) if (v.wire.equals(s)) return v;
    throw new IllegalArgumentException("unknown EventType '" + s + "'");
  }
}
