package io.watukuy.sink.jdbc;

/**
 * How a table sink writes (docs/sinks.md, "Database tables").
 *
 * @since 0.2
 */
public enum TableMode {
  /**
   * A row per event, keyed by the column mapped to {@code deliveryKey}: a history of every change,
   * where a redelivered batch meets its own rows ({@link OnConflict}).
   */
  INSERT,
  /**
   * A row per item, keyed by the column mapped to {@code identity}: created and updated upsert it,
   * deleted deletes it, and a row is only overwritten by an event of a higher sequence (the column
   * mapped to {@code sequence}), so a repeated older event never undoes a newer one.
   */
  MIRROR
}
