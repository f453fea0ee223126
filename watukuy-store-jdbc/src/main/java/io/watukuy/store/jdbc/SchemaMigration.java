package io.watukuy.store.jdbc;

import io.watukuy.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Brings a database to the dialect's {@link SqlDialect#schemaVersion()}. The recorded version is
 * read first, in auto-commit: when it is current, nothing else runs (no DDL, no lock), so a role
 * without DDL privileges works on a schema migrated by someone else, and processes that open the
 * store at once do not queue for a lock. Otherwise one transaction takes the migration lock (the
 * dialect's {@link SqlDialect#begin} or {@link SqlDialect#beginMigration}), reads the version
 * again, runs the dialect's idempotent statements and records the version. A newer version is
 * refused.
 */
final class SchemaMigration {

  /** The name of the version row in the meta table. */
  static final String VERSION_NAME = "schema_version";

  private final SqlDialect dialect;
  private final Sql sql;
  private final SqlRunner runner;

  SchemaMigration(SqlDialect dialect, Sql sql, SqlRunner runner) {
    this.dialect = dialect;
    this.sql = sql;
    this.runner = runner;
  }

  void run() throws SQLException {
    int current = dialect.schemaVersion();
    Integer stored = runner.onConnection(false, this::readVersion);
    if (stored != null && stored == current) {
      return;
    }
    checkNotNewer(stored);
    runner.onConnection(
        true,
        dialect::endMigration,
        c -> {
          dialect.beginMigration(c);
          SqlDialect.execute(c, dialect.createMetaTable());
          // Read again under the lock: another process may have migrated meanwhile.
          Integer again = readVersion(c);
          checkNotNewer(again);
          if (again == null || again < current) {
            for (String ddl : dialect.migrationStatements(again)) {
              SqlDialect.execute(c, ddl);
            }
            recordVersion(c);
          }
          return null;
        });
  }

  /** The recorded schema version, or null when nothing is recorded or no meta table exists yet. */
  private @Nullable Integer readVersion(Connection c) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT value FROM " + sql.meta + " WHERE name = ?")) {
      ps.setString(1, VERSION_NAME);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        String value = rs.getString(1);
        try {
          return Integer.valueOf(value.trim());
        } catch (NumberFormatException e) {
          throw new StoreException(
              runner.prefix()
                  + "schema version '"
                  + value
                  + "' in "
                  + sql.meta
                  + " is not a number; the table was changed by hand",
              e);
        }
      }
    } catch (SQLException e) {
      // Nothing migrated yet. Only in auto-commit: inside the migration's transaction the meta
      // table was just created, and an error there may have spoiled the transaction.
      if (dialect.isUndefinedTable(e) && c.getAutoCommit()) {
        return null;
      }
      throw e;
    }
  }

  private void checkNotNewer(@Nullable Integer stored) {
    if (stored != null && stored > dialect.schemaVersion()) {
      throw new StoreException(
          runner.prefix()
              + "schema version "
              + stored
              + " in "
              + sql.meta
              + " is newer than this release supports ("
              + dialect.schemaVersion()
              + "); upgrade watukuy",
          null);
    }
  }

  private void recordVersion(Connection c) throws SQLException {
    String insert = "INSERT INTO " + sql.meta + " (name, value) VALUES (?, ?)";
    try (PreparedStatement ps =
        c.prepareStatement(dialect.upsert(insert, List.of("name"), List.of("value")))) {
      ps.setString(1, VERSION_NAME);
      ps.setString(2, Integer.toString(dialect.schemaVersion()));
      ps.executeUpdate();
    }
  }
}
