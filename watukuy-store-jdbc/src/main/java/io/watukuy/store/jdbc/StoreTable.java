package io.watukuy.store.jdbc;

/**
 * The tables of a SQL store (docs/architecture.md, "Schema overview"). A {@link SqlDialect} names
 * each one ({@link SqlDialect#tableName}); its DDL creates them with the columns the engine reads
 * and writes. Every table but {@link #META} and {@link #CREDENTIALS} is keyed by {@code (poller,
 * "partition", ...)}.
 *
 * @since 0.1
 */
public enum StoreTable {
  /** {@code (name, value)}: the schema version under the name {@code schema_version}. */
  META("meta"),
  /**
   * One row per key: {@code state} (the poller state JSON, null while the key only ever had a
   * lease), {@code lease_owner}, {@code lease_epoch}, {@code lease_expires_at}, {@code
   * epoch_counter} (never lowered, so epochs never repeat).
   */
  POLLERS("pollers"),
  /**
   * The snapshot: {@code identity, version, hash, schema_version, payload, ordering_key, seen_at}.
   */
  ITEMS("items"),
  /**
   * Pending events keyed by {@code seq}: {@code event_id, ordering_key, event, status, attempts,
   * next_attempt_at, last_error, created_at}.
   */
  OUTBOX("outbox"),
  /**
   * Parked rows keyed by {@code id}: {@code kind, seq, event_id, ordering_key, event, item, error,
   * attempts, parked_at, hold_key, created_at} (the outbox row's commit time, restored by retry).
   */
  PARKED("parked"),
  /** HTTP validators keyed by {@code url_hash}: {@code etag, last_modified, stored_at}. */
  VALIDATORS("validators"),
  /** The replay log keyed by {@code seq}: {@code event, created_at}. */
  LOG("log"),
  /**
   * The credentials table ({@link io.watukuy.spi.CredentialStore}), keyed by {@code name} alone:
   * {@code version} (a 64-bit integer), {@code sealed} (text, kept as written), {@code
   * claim_owner}, {@code claim_until} (both null when nobody holds the claim), {@code updated_at}.
   * Since schema version 3 of PostgreSQL and version 2 of SQLite and MariaDB.
   *
   * @since 0.2
   */
  CREDENTIALS("credentials");

  private final String suffix;

  StoreTable(String suffix) {
    this.suffix = suffix;
  }

  /**
   * The name after the store's table prefix, e.g. {@code outbox} for {@code watukuy_outbox}.
   *
   * @return the lower-case suffix
   */
  public String suffix() {
    return suffix;
  }
}
