package io.watukuy.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Where the engine's connections come from: a pool borrowed from per call ({@link
 * PooledConnections}) or one connection that calls take turns on ({@link SingleConnection}).
 */
interface ConnectionSource {

  /**
   * A connection for one call, held until the returned handle is closed.
   *
   * @throws SQLException when no connection can be had
   * @throws IllegalStateException when the source was closed
   */
  Borrowed acquire() throws SQLException;

  /**
   * Where the database is, for messages: a file, or {@code host:port/database}; never credentials.
   */
  String where();

  /** Releases what the source holds; the engine calls it once. */
  void close() throws Exception;

  /** A connection lent for one call; closing the handle gives it back. */
  interface Borrowed extends AutoCloseable {
    Connection connection();

    @Override
    void close() throws SQLException;
  }
}
