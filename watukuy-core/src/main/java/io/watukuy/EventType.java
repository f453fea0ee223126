package io.watukuy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * The kind of change an event reports. Serialized in lower case.
 *
 * @since 0.1
 */
public enum EventType {
  CREATED("created"),
  UPDATED("updated"),
  DELETED("deleted");

  private final String wire;

  EventType(String wire) {
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
  public static EventType fromWire(String s) {
    for (EventType v : values()) if (v.wire.equals(s)) return v;
    throw new IllegalArgumentException("unknown EventType '" + s + "'");
  }
}
