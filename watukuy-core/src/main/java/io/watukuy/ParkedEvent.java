package io.watukuy;

import io.watukuy.spi.ParkedRow;
import java.util.Objects;

/**
 * A parked row and the key it belongs to, as listed by {@link ParkedEvents}.
 *
 * @param key the key whose outbox or page the row came from
 * @param row the parked row; pass {@link ParkedRow#id()} to {@link ParkedEvents#retry} or {@link
 *     ParkedEvents#discard}
 * @since 0.1
 */
public record ParkedEvent(PollerKey key, ParkedRow row) {
  /**
   * Creates the pair.
   *
   * @param key the key
   * @param row the parked row
   * @throws NullPointerException if an argument is null
   */
  public ParkedEvent {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(row, "row");
  }
}
