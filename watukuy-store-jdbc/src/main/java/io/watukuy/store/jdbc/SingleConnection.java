package io.watukuy.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One connection, opened on first use, that calls take turns on: a call holds it (and the lock)
 * from {@link #acquire()} until its handle is closed. Fits an embedded database that admits one
 * writer at a time anyway (SQLite).
 */
final class SingleConnection implements ConnectionSource {
  private final String where;
  private final JdbcStoreEngine.ConnectionOpener opener;
  private final Supplier<String> name;
  private final ReentrantLock lock = new ReentrantLock();

  // Guarded by lock.
  private @Nullable Connection connection;
  // Guarded by lock.
  private boolean closed;

  SingleConnection(String where, JdbcStoreEngine.ConnectionOpener opener, Supplier<String> name) {
    this.where = where;
    this.opener = opener;
    this.name = name;
  }

  @Override
  public Borrowed acquire() throws SQLException {
    lock.lock();
    try {
      if (closed) {
        // close() ran while this call waited for the connection.
        throw new IllegalStateException(name.get() + " is closed");
      }
      Connection c = connection;
      if (c == null) {
        c = opener.open();
        connection = c;
      }
      Connection lent = c;
      return new Borrowed() {
        @Override
        public Connection connection() {
          return lent;
        }

        @Override
        public void close() {
          lock.unlock();
        }
      };
    } catch (SQLException | RuntimeException | Error e) {
      lock.unlock();
      throw e;
    }
  }

  @Override
  public String where() {
    return where;
  }

  /** Waits for a call in progress on another thread to finish, then closes the connection. */
  @Override
  public void close() throws SQLException {
    lock.lock();
    try {
      closed = true;
      Connection c = connection;
      connection = null;
      if (c != null) {
        c.close();
      }
    } finally {
      lock.unlock();
    }
  }
}
