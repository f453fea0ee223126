package io.watukuy.store.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Connections borrowed from a {@link DataSource} for one call each and returned before the call
 * returns: no connection is held between calls, so calls run concurrently up to the pool's size.
 */
final class PooledConnections implements ConnectionSource {
  private final DataSource dataSource;
  private final boolean closeDataSource;

  // Host and database for messages; learned from the first connection when the data source did
  // not tell. Never holds credentials.
  private volatile @Nullable String endpoint;

  PooledConnections(DataSource dataSource, boolean closeDataSource) {
    this.dataSource = dataSource;
    this.closeDataSource = closeDataSource;
    this.endpoint = Endpoint.of(dataSource);
  }

  @Override
  public Borrowed acquire() throws SQLException {
    Connection c = borrow();
    learnEndpoint(c);
    return new Borrowed() {
      @Override
      public Connection connection() {
        return c;
      }

      @Override
      public void close() throws SQLException {
        c.close();
      }
    };
  }

  /**
   * A connection from the data source. Some pools throw unchecked exceptions when they cannot start
   * (HikariCP's {@code PoolInitializationException}); those become driver failures too.
   */
  private Connection borrow() throws SQLException {
    try {
      return dataSource.getConnection();
    } catch (RuntimeException e) {
      throw new SQLException("the data source gave no connection: " + e.getMessage(), "08001", e);
    }
  }

  /** Takes host and database from the first connection when the data source did not tell them. */
  private void learnEndpoint(Connection c) {
    if (endpoint != null) {
      return;
    }
    try {
      String url = c.getMetaData().getURL();
      if (url != null) {
        endpoint = Endpoint.fromJdbcUrl(url);
      }
    } catch (SQLException | RuntimeException e) {
      // Only messages lose detail; the call itself goes on.
    }
  }

  @Override
  public String where() {
    String e = endpoint;
    return e != null ? e : "(host unknown: " + dataSource.getClass().getSimpleName() + ")";
  }

  /** Closes the data source when the store owns it and it can be closed; otherwise nothing. */
  @Override
  public void close() throws Exception {
    if (closeDataSource && dataSource instanceof AutoCloseable) {
      ((AutoCloseable) dataSource).close();
    }
  }
}
