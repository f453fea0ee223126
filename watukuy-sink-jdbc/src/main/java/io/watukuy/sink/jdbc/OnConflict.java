package io.watukuy.sink.jdbc;

/**
 * What an insert-mode table sink does when a row with the event's delivery key is already there: a
 * batch delivered again after a crash (G9).
 *
 * @since 0.2
 */
public enum OnConflict {
  /** Keep the row that is there (the default): the redelivered event is the same event. */
  IGNORE,
  /** Overwrite the row's mapped columns with the redelivered event's values. */
  UPDATE
}
