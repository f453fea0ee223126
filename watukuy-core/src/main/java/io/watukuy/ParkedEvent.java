package io.watukuy;

import java.util.Objects;

/**
 * A parked row and the key it belongs to.
 *
 * @since 0.1
 */
public record ParkedEvent(PollerKey key, ParkedRow row) {
  public ParkedEvent {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(row, "row");
  }
}
