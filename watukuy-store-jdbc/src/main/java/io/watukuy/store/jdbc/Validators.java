package io.watukuy.store.jdbc;

import static io.watukuy.store.jdbc.Sql.bindKey;

import io.watukuy.PollerKey;
import io.watukuy.spi.HttpValidator;
import io.watukuy.spi.Lease;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** The HTTP validators (ETag, Last-Modified) of each key, by URL hash. */
final class Validators {
  private final SqlRunner runner;
  private final SqlDialect dialect;
  private final Sql sql;
  private final Rows rows;
  private final Fencing fencing;

  Validators(SqlRunner runner, SqlDialect dialect, Sql sql, Rows rows, Fencing fencing) {
    this.runner = runner;
    this.dialect = dialect;
    this.sql = sql;
    this.rows = rows;
    this.fencing = fencing;
  }

  Optional<HttpValidator> get(PollerKey key, String urlHash) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(urlHash, "urlHash");
    return runner.autoCommit(
        "getValidator",
        key,
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT etag, last_modified, stored_at FROM "
                      + sql.validators
                      + sql.whereKey
                      + " AND url_hash = ?")) {
            bindKey(ps, 1, key);
            ps.setString(3, urlHash);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return Optional.<HttpValidator>empty();
              }
              return Optional.of(rows.validator(rs));
            }
          }
        });
  }

  void set(PollerKey key, Lease lease, String urlHash, HttpValidator validator) {
    Objects.requireNonNull(urlHash, "urlHash");
    Objects.requireNonNull(validator, "validator");
    RowBatch one =
        new RowBatch(
            sql.validators,
            Objects.requireNonNull(key, "key"),
            rows.validatorColumns,
            List.<@Nullable Object[]>of(Rows.validator(urlHash, validator)),
            List.of("url_hash"));
    fencing.fenced(
        "setValidator",
        key,
        lease,
        false,
        (c, state) -> {
          try (PreparedStatement ps = c.prepareStatement(one.statement(dialect))) {
            one.bindRow(dialect, ps, 0);
            ps.executeUpdate();
          }
          return null;
        });
  }
}
