package io.watukuy.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Writes of a caller's own that run on the store's connection, inside the store's transaction
 * ({@link JdbcStore#ackWithin}), or reads that check the caller's tables ({@link
 * JdbcStore#withConnection}). The work must not commit, roll back or change the connection's
 * auto-commit or isolation: the store owns the transaction.
 *
 * @param <T> what the work returns
 * @since 0.2
 */
@FunctionalInterface
public interface CallerWork<T> {
  /**
   * Runs the work.
   *
   * @param connection the store's connection, in the store's transaction for {@link
   *     JdbcStore#ackWithin}
   * @return the work's result
   * @throws SQLException on a driver failure: the store's transaction rolls back, nothing of the
   *     work or of the acks is written
   */
  T run(Connection connection) throws SQLException;
}
