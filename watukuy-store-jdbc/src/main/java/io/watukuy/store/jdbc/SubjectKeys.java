package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.Sql.ms;

import io.watukuy.StoreException;
import io.watukuy.spi.SubjectKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The subjects table ({@link StoreTable#SUBJECTS}): wrapped data keys, one per subject. A put is an
 * insert-if-absent and, when a concurrent caller won, a read of the winner's row; erasing is one
 * {@code DELETE}.
 */
final class SubjectKeys {
  /** Puts that find the row gone again (erased between insert and read) before giving up. */
  private static final int PUT_ATTEMPTS = 3;

  private final EffectTables tables;
  private final SqlDialect dialect;
  private final Sql sql;

  SubjectKeys(EffectTables tables) {
    this.tables = tables;
    this.dialect = tables.dialect();
    this.sql = tables.sql();
  }

  Optional<SubjectKey> load(String subject) {
    Objects.requireNonNull(subject, "subject");
    return tables
        .runner()
        .autoCommit("loadSubjectKey", null, c -> Optional.ofNullable(read(c, subject)));
  }

  SubjectKey putIfAbsent(SubjectKey candidate) {
    Objects.requireNonNull(candidate, "candidate");
    SubjectKey stored =
        new SubjectKey(
            candidate.subject(),
            candidate.keyId(),
            candidate.wrappedKey(),
            ms(candidate.createdAt()));
    String insert =
        "INSERT INTO "
            + sql.subjects
            + " (subject, key_id, wrapped_key, created_at)"
            + " VALUES (?, ?, ?, ?)";
    return tables
        .runner()
        .autoCommit(
            "putSubjectKeyIfAbsent",
            null,
            c -> {
              for (int attempt = 1; ; attempt++) {
                boolean written =
                    tables.insertIfAbsent(
                        c,
                        insert,
                        List.of("subject"),
                        ps -> {
                          ps.setString(1, stored.subject());
                          ps.setString(2, stored.keyId());
                          ps.setString(3, stored.wrappedKey());
                          dialect.setInstant(ps, 4, stored.createdAt());
                        });
                if (written) {
                  return stored;
                }
                SubjectKey first = read(c, stored.subject());
                if (first != null) {
                  return first;
                }
                if (attempt == PUT_ATTEMPTS) {
                  throw new StoreException(
                      tables.runner().prefix()
                          + "putSubjectKeyIfAbsent: the subject's key was erased each time it was"
                          + " put ("
                          + PUT_ATTEMPTS
                          + " times); nothing is stored, try again",
                      null);
                }
              }
            });
  }

  boolean erase(String subject) {
    Objects.requireNonNull(subject, "subject");
    return tables
        .runner()
        .autoCommit(
            "eraseSubject",
            null,
            c -> {
              try (PreparedStatement ps =
                  c.prepareStatement("DELETE FROM " + sql.subjects + " WHERE subject = ?")) {
                ps.setString(1, subject);
                return ps.executeUpdate() > 0;
              }
            });
  }

  private @Nullable SubjectKey read(Connection c, String subject) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT key_id, wrapped_key, created_at FROM " + sql.subjects + " WHERE subject = ?")) {
      ps.setString(1, subject);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        return new SubjectKey(
            subject,
            rs.getString(1),
            rs.getString(2),
            Objects.requireNonNull(dialect.getInstant(rs, 3), "created_at"));
      }
    }
  }
}
