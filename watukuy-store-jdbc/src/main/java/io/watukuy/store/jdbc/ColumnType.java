package io.watukuy.store.jdbc;

/**
 * What a bound value is, so that a {@link SqlDialect} can write it the way its database stores it:
 * the SQL placeholder ({@link SqlDialect#placeholder}), the JDBC setter ({@link SqlDialect#bind})
 * and, for dialects that send many rows as arrays, the element type.
 *
 * <p>The Java value of each type, as the engine passes it: {@code String} for {@link #TEXT}, {@link
 * #JSON} and {@link #STATE}; {@code Integer} for {@link #INT}; {@code Long} for {@link #LONG};
 * {@code java.time.Instant}, already truncated to the millisecond, for {@link #INSTANT}; {@code
 * null} for SQL NULL in every type.
 *
 * @since 0.1
 */
public enum ColumnType {
  /** Plain text: names, identities, versions, hashes, ids. Compared by the engine. */
  TEXT,
  /**
   * A JSON document the store returns byte for byte (event envelopes, payloads, errors): never
   * re-encoded, so a database type that normalizes JSON (PostgreSQL {@code jsonb}) does not fit.
   */
  JSON,
  /** The poller state JSON, read back only through {@code StateCodec}; may be normalized. */
  STATE,
  /** A 32-bit integer: attempts, item schema versions. */
  INT,
  /** A 64-bit integer: outbox and log sequences, lease epochs. */
  LONG,
  /** An instant, stored to the millisecond; the dialect's time codec decides the column type. */
  INSTANT
}
