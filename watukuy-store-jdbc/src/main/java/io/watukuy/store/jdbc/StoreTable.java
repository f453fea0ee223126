package io.watukuy.store.jdbc;

/**
 * The tables of a SQL store (docs/architecture.md, "Schema overview"). A {@link SqlDialect} names
 * each one ({@link SqlDialect#tableName}); its DDL creates them with the columns the engine reads
 * and writes. The tables of a key are keyed by {@code (poller, "partition", ...)}; {@link #META},
 * {@link #CREDENTIALS}, {@link #EFFECTS} and {@link #SUBJECTS} by a name alone, and the other
 * effect tables by {@code (effect, poller, "partition", ...)}.
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
  CREDENTIALS("credentials"),
  /**
   * One row per effect ({@link io.watukuy.spi.EffectStore}), keyed by {@code name}: its lease
   * ({@code lease_owner}, {@code lease_epoch}, {@code lease_expires_at}, {@code epoch_counter},
   * never lowered) and its record ({@code quarantined_at}, {@code quarantine_reason}, {@code
   * terminal_skips}, {@code last_terminal_error}, {@code latest_collapsed}, {@code updated_at},
   * null until the first quarantine or count). Since schema version 4 of PostgreSQL and version 3
   * of SQLite and MariaDB, like every effect table.
   *
   * @since 0.3
   */
  EFFECTS("effects"),
  /**
   * An effect's cursor per source key, keyed by {@code (effect, poller, "partition")}: {@code
   * watermark}, {@code live_boundary}, {@code schemes} (a JSON object of text), {@code updated_at}.
   *
   * @since 0.3
   */
  EFFECT_CURSORS("eff_cursors"),
  /**
   * Invocation rows keyed by {@code (effect, poller, "partition", position)}: {@code lane,
   * event_type, status} (the enum constant's name), {@code attempt, error, retry_at,
   * skip_requested} (0 or 1), {@code version, started_at, updated_at}.
   *
   * @since 0.3
   */
  INVOCATIONS("invocations"),
  /**
   * The journal keyed by {@code (effect, poller, "partition", position, call_key)}: {@code ordinal,
   * label, result, subject, created_at}.
   *
   * @since 0.3
   */
  JOURNAL("journal"),
  /**
   * Subjects' wrapped data keys keyed by {@code subject}: {@code key_id, wrapped_key, created_at}.
   *
   * @since 0.3
   */
  SUBJECTS("subjects");

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
