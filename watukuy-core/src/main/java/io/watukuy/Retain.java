package io.watukuy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * What the item snapshot keeps per item: {@code HASH} (default) keeps identity, version and hash
 * only; {@code PAYLOAD} also keeps the last payload in the store, so updated events carry {@code
 * previous} and deleted events carry the last {@code data}. Serialized in lower case.
 *
 * @since 0.1
 */
public enum Retain {
  /** Keep no payload: the item row holds identity, version and hash. The default. */
  HASH("hash"),
  /** Also keep the item's last JSON payload, for {@code previous} and a deleted {@code data}. */
  PAYLOAD("payload");

  private final String wire;

  Retain(String wire) {
    this.wire = wire;
  }

  /**
   * The lower-case name used in JSON, stores and event ids.
   *
   * @return the wire name, e.g. {@code hash}
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
  public static Retain fromWire(String s) {
    for (Retain v : values()) if (v.wire.equals(s)) return v;
    throw new IllegalArgumentException("unknown Retain '" + s + "'");
  }
}
