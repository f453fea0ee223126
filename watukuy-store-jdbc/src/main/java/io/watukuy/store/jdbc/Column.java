package io.watukuy.store.jdbc;

import java.util.Objects;

/**
 * A column the engine writes, as a {@link RowBatch} lists it.
 *
 * @param name the column name as it appears in SQL, already quoted by {@link SqlDialect#quote} when
 *     it is a keyword of some database (only {@code "partition"} is)
 * @param type how values of the column are bound
 * @since 0.1
 */
public record Column(String name, ColumnType type) {

  /**
   * Checks the components.
   *
   * @param name the column name as it appears in SQL
   * @param type how values of the column are bound
   * @throws NullPointerException if either is null
   */
  public Column {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
  }
}
