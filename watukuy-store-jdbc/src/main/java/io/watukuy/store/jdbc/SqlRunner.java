package io.watukuy.store.jdbc;

import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * How every call of the engine runs: on a connection from the {@link ConnectionSource}, after the
 * lazy schema check, in auto-commit or in one transaction, with a retry of what the dialect calls
 * retryable, and with every driver failure mapped to one {@link StoreException} message.
 */
final class SqlRunner {

  /** Work on a connection that may throw the driver's exception. */
  @FunctionalInterface
  interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  private final SqlDialect dialect;
  private final Sql sql;
  private final ConnectionSource source;
  private final Supplier<String> name;
  private final SchemaMigration migration;
  private final ReentrantLock migrationLock = new ReentrantLock();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean migrated;

  SqlRunner(SqlDialect dialect, Sql sql, ConnectionSource source, Supplier<String> name) {
    this.dialect = dialect;
    this.sql = sql;
    this.source = source;
    this.name = name;
    this.migration = new SchemaMigration(dialect, sql, this);
  }

  /** Runs {@code work} in auto-commit: reads and single-statement writes. */
  <T> T autoCommit(String op, @Nullable PollerKey key, SqlWork<T> work) {
    return call(op, key, false, work);
  }

  /** Runs {@code work} in one transaction, committed when it returns, rolled back otherwise. */
  <T> T transaction(String op, @Nullable PollerKey key, SqlWork<T> work) {
    return call(op, key, true, work);
  }

  /**
   * Migrates lazily, then runs {@code work}; runs it again after a failure the dialect calls
   * retryable (the attempt was rolled back, so it wrote nothing), and wraps any other driver
   * failure.
   */
  private <T> T call(String op, @Nullable PollerKey key, boolean transaction, SqlWork<T> work) {
    ensureOpen();
    if (!migrated) {
      migrationLock.lock();
      try {
        if (!migrated) {
          migration.run();
          migrated = true;
        }
      } catch (SQLException e) {
        throw failure(op, key, dialect.schemaCheckPhase(), e);
      } finally {
        migrationLock.unlock();
      }
    }
    for (int attempt = 1; ; attempt++) {
      try {
        return onConnection(transaction, work);
      } catch (SQLException e) {
        if (attempt < JdbcStoreEngine.MAX_ATTEMPTS && dialect.isRetryable(e)) {
          continue;
        }
        throw failure(op, key, null, e);
      }
    }
  }

  /** {@code SELECT COUNT(*)} of a key's rows in {@code table}, with an extra condition. */
  long count(String op, String table, PollerKey key, String condition) {
    Objects.requireNonNull(key, "key");
    return autoCommit(
        op,
        key,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement("SELECT COUNT(*) FROM " + table + sql.whereKey + condition)) {
            Sql.bindKey(ps, 1, key);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              return rs.getLong(1);
            }
          }
        });
  }

  /** Runs {@code work} once on a connection, without the schema check. */
  <T> T onConnection(boolean transaction, SqlWork<T> work) throws SQLException {
    return onConnection(transaction, c -> {}, work);
  }

  /** Something to run on a connection after its call's transaction ended. */
  @FunctionalInterface
  interface AfterWork {
    void run(Connection c) throws SQLException;
  }

  /**
   * Runs {@code work} once on a connection, without the schema check, then {@code after} on the
   * same connection whether or not the work succeeded.
   */
  <T> T onConnection(boolean transaction, AfterWork after, SqlWork<T> work) throws SQLException {
    try (ConnectionSource.Borrowed lent = source.acquire()) {
      Connection c = lent.connection();
      T result;
      try {
        result = transaction ? inTransaction(c, work) : inAutoCommit(c, work);
      } catch (Throwable t) {
        try {
          after.run(c);
        } catch (SQLException | RuntimeException e) {
          t.addSuppressed(e);
        }
        throw t;
      }
      after.run(c);
      return result;
    }
  }

  private static <T> T inAutoCommit(Connection c, SqlWork<T> work) throws SQLException {
    // A pool may hand out connections with auto-commit off; a lone write would then be rolled back
    // when the connection returns.
    if (!c.getAutoCommit()) {
      c.setAutoCommit(true);
    }
    return work.run(c);
  }

  private <T> T inTransaction(Connection c, SqlWork<T> work) throws SQLException {
    dialect.begin(c);
    T result;
    try {
      result = work.run(c);
      dialect.commit(c);
    } catch (Throwable t) {
      rollback(c, t);
      throw t;
    }
    return result;
  }

  private void rollback(Connection c, Throwable cause) {
    try {
      dialect.rollback(c);
    } catch (SQLException | RuntimeException e) {
      // A connection that broke mid-transaction cannot roll back; the server already has.
      cause.addSuppressed(e);
    }
  }

  /**
   * Reads the recorded schema version again and migrates when it is missing or older, even after a
   * lazy migration.
   */
  void migrate() {
    ensureOpen();
    migrationLock.lock();
    try {
      migration.run();
      migrated = true;
    } catch (SQLException e) {
      throw failure("migrate", null, null, e);
    } finally {
      migrationLock.unlock();
    }
  }

  /** Marks the engine closed and closes its source. Idempotent. */
  void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      source.close();
    } catch (SQLException e) {
      throw failure("close", null, null, e);
    } catch (Exception e) {
      throw new StoreException(
          prefix() + "close failed: " + Endpoint.redact(String.valueOf(e.getMessage())), e);
    }
  }

  void ensureOpen() {
    if (closed.get()) {
      throw new IllegalStateException(name.get() + " is closed");
    }
  }

  String where() {
    return source.where();
  }

  /** The start of every message: the dialect's name for this store. */
  String prefix() {
    return dialect.messagePrefix(source.where());
  }

  /**
   * The exception for a driver failure: {@code <prefix><op> <key> failed[ <phase>]: <driver's
   * side>}, on one line (the server's error may span lines: Detail, Hint), with credential-like
   * values masked.
   */
  StoreException failure(
      String op, @Nullable PollerKey key, @Nullable String phase, SQLException e) {
    StringBuilder message = new StringBuilder(prefix()).append(op);
    if (key != null) {
      message.append(' ').append(key);
    }
    message.append(" failed");
    if (phase != null) {
      message.append(' ').append(phase);
    }
    message.append(": ").append(dialect.describe(e));
    String oneLine = message.toString().replaceAll("\\s*\\R\\s*", "; ");
    return new StoreException(Endpoint.redact(oneLine), e);
  }
}
