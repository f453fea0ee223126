package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.Sql.ms;

import io.watukuy.spi.StoredCredential;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The credentials table ({@link StoreTable#CREDENTIALS}; docs/stores.md, "CredentialStore"): every
 * call is one statement in auto-commit, so a row is read and written whole. A compare-and-set on
 * version {@code v > 0} is one {@code UPDATE ... WHERE name = ? AND version = ?}, which the
 * database runs under the row's lock and re-checks against the newest committed row (PostgreSQL at
 * READ COMMITTED, InnoDB's locking read, SQLite's single writer), so of racing writers exactly one
 * matches. An insert (version 0) is a plain {@code INSERT}; a primary-key conflict ({@link
 * SqlDialect#isDuplicateKey}) means the row exists and the call returns false.
 */
final class Credentials {
  private static final String COLUMNS =
      "name, version, sealed, claim_owner, claim_until, updated_at";

  private final SqlRunner runner;
  private final SqlDialect dialect;
  private final Sql sql;

  Credentials(SqlRunner runner, SqlDialect dialect, Sql sql) {
    this.runner = runner;
    this.dialect = dialect;
    this.sql = sql;
  }

  Optional<StoredCredential> load(String name) {
    Objects.requireNonNull(name, "name");
    return runner.autoCommit(
        "loadCredential " + name,
        null,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT " + COLUMNS + " FROM " + sql.credentials + " WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return Optional.<StoredCredential>empty();
              }
              return Optional.of(
                  new StoredCredential(
                      rs.getString(1),
                      rs.getLong(2),
                      rs.getString(3),
                      rs.getString(4),
                      dialect.getInstant(rs, 5),
                      Objects.requireNonNull(dialect.getInstant(rs, 6), "updated_at")));
            }
          }
        });
  }

  boolean compareAndSet(long expectedVersion, StoredCredential next) {
    Objects.requireNonNull(next, "next");
    if (next.version() != expectedVersion + 1) {
      throw new IllegalArgumentException(
          "next version must be " + (expectedVersion + 1) + ", but was " + next.version());
    }
    String op = "compareAndSetCredential " + next.name();
    if (expectedVersion == 0) {
      return runner.autoCommit(
          op,
          null,
          c -> {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "INSERT INTO "
                        + sql.credentials
                        + " ("
                        + COLUMNS
                        + ") VALUES (?, ?, ?, ?, ?, ?)")) {
              ps.setString(1, next.name());
              ps.setLong(2, next.version());
              bindContent(ps, 3, next);
              return ps.executeUpdate() == 1;
            } catch (SQLException e) {
              // The row exists: the insert lost, exactly like a stale version.
              if (dialect.isDuplicateKey(e)) {
                return false;
              }
              throw e;
            }
          });
    }
    return runner.autoCommit(
        op,
        null,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + sql.credentials
                      + " SET version = ?, sealed = ?, claim_owner = ?, claim_until = ?,"
                      + " updated_at = ? WHERE name = ? AND version = ?")) {
            ps.setLong(1, next.version());
            bindContent(ps, 2, next);
            ps.setString(6, next.name());
            ps.setLong(7, expectedVersion);
            // The version changes whenever the row matches, so "found" and "changed" rows agree
            // (the MariaDB driver reports found rows).
            return ps.executeUpdate() == 1;
          }
        });
  }

  /** Binds sealed, claim_owner, claim_until, updated_at from {@code index}. */
  private void bindContent(PreparedStatement ps, int index, StoredCredential row)
      throws SQLException {
    ps.setString(index, row.sealed());
    ps.setString(index + 1, row.claimOwner());
    dialect.setInstant(ps, index + 2, row.claimUntil() == null ? null : ms(row.claimUntil()));
    dialect.setInstant(ps, index + 3, ms(row.updatedAt()));
  }

  boolean delete(String name) {
    Objects.requireNonNull(name, "name");
    return runner.autoCommit(
        "deleteCredential " + name,
        null,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement("DELETE FROM " + sql.credentials + " WHERE name = ?")) {
            ps.setString(1, name);
            return ps.executeUpdate() > 0;
          }
        });
  }

  List<String> list() {
    return runner.autoCommit(
        "listCredentials",
        null,
        c -> {
          List<String> names = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement("SELECT name FROM " + sql.credentials);
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              names.add(rs.getString(1));
            }
          }
          // String order (UTF-16), as CredentialStore promises, whatever the column's collation.
          names.sort(null);
          return List.copyOf(names);
        });
  }
}
