package io.watukuy.store.postgres;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * Quoted names and DDL of one schema and table prefix (docs/architecture.md, "Schema overview").
 *
 * <p>Column types: instants are {@code timestamptz} (stored to the millisecond); the poller state
 * is {@code jsonb}; envelopes, items, payloads and errors are {@code json}, which PostgreSQL
 * validates but stores as written, because the store contract returns them byte for byte (jsonb
 * would reorder keys and drop whitespace) and because third-party data may carry {@code \u0000},
 * which jsonb refuses. Key columns use the {@code "C"} collation, so identities sort by code point
 * whatever the database's locale, as in SqliteStore. Every identifier is double-quoted; the schema
 * and prefix are validated identifiers ({@link PostgresOptions}), so nothing can be injected
 * through them.
 */
final class PostgresSchema {

  /** The schema version this release creates, recorded in the meta table. */
  static final int VERSION = 4;

  static final String VERSION_NAME = "schema_version";

  /** Length of the longest name suffix below: {@code outbox_status_seq}. */
  static final int LONGEST_SUFFIX = "outbox_status_seq".length();

  final String schemaName;
  final String prefix;
  final String schema;
  final String meta;
  final String pollers;
  final String items;
  final String outbox;
  final String parked;
  final String validators;
  final String log;
  final String credentials;
  final String effects;
  final String effectCursors;
  final String invocations;
  final String journal;
  final String subjects;

  PostgresSchema(String schemaName, String prefix) {
    this.schemaName = schemaName;
    this.prefix = prefix;
    schema = quote(schemaName);
    meta = table("meta");
    pollers = table("pollers");
    items = table("items");
    outbox = table("outbox");
    parked = table("parked");
    validators = table("validators");
    log = table("log");
    credentials = table("credentials");
    effects = table("effects");
    effectCursors = table("eff_cursors");
    invocations = table("invocations");
    journal = table("journal");
    subjects = table("subjects");
  }

  /**
   * Double-quotes an identifier. The identifiers here are validated, so the doubling of embedded
   * quotes never applies; it is kept so that quoting is correct on its own.
   */
  static String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  /** The qualified, quoted name of the table {@code <prefix><suffix>} in the schema. */
  String table(String suffix) {
    return schema + "." + quote(prefix + suffix);
  }

  private String index(String suffix) {
    return quote(prefix + suffix);
  }

  /**
   * The key of the transaction-scoped advisory lock that serializes migrations. Derived from the
   * schema alone, not the prefix, so that stores with different prefixes in one schema do not race
   * on {@code CREATE SCHEMA} either.
   */
  long migrationLockKey() {
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-256")
              .digest(("watukuy.migrate|" + schemaName).getBytes(StandardCharsets.UTF_8));
      long key = 0;
      for (int i = 0; i < 8; i++) {
        key = (key << 8) | (d[i] & 0xff);
      }
      return key;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required on every Java platform", e);
    }
  }

  String createSchema() {
    return "CREATE SCHEMA IF NOT EXISTS " + schema;
  }

  String createMeta() {
    return "CREATE TABLE IF NOT EXISTS "
        + meta
        + " (name text COLLATE \"C\" NOT NULL PRIMARY KEY, value text NOT NULL)";
  }

  /** Records {@link #VERSION} unless a version is recorded already (a newer one is kept). */
  String recordVersion() {
    return "INSERT INTO "
        + meta
        + " (name, value) VALUES ('"
        + VERSION_NAME
        + "', '"
        + VERSION
        + "') ON CONFLICT (name) DO NOTHING";
  }

  /** The tables and indexes of the current schema version, every statement idempotent. */
  List<String> tables() {
    String key = "poller text COLLATE \"C\" NOT NULL, \"partition\" text COLLATE \"C\" NOT NULL, ";
    return List.of(
        // state is null for a row that only carries a lease; epoch_counter outlives deleteKey.
        "CREATE TABLE IF NOT EXISTS "
            + pollers
            + " ("
            + key
            + "state jsonb, lease_owner text, lease_epoch bigint, lease_expires_at timestamptz,"
            + " epoch_counter bigint NOT NULL DEFAULT 0,"
            + " PRIMARY KEY (poller, \"partition\"))",
        "CREATE TABLE IF NOT EXISTS "
            + items
            + " ("
            + key
            + "identity text COLLATE \"C\" NOT NULL, version text, hash text NOT NULL,"
            + " schema_version integer NOT NULL, payload json, ordering_key text NOT NULL,"
            + " seen_at timestamptz NOT NULL,"
            + " PRIMARY KEY (poller, \"partition\", identity))",
        // Keyed by sequence: an event id can repeat (docs/architecture.md, "Ids, the outbox key").
        "CREATE TABLE IF NOT EXISTS "
            + outbox
            + " ("
            + key
            + "seq bigint NOT NULL, event_id text NOT NULL, ordering_key text NOT NULL,"
            + " event json NOT NULL, status text NOT NULL DEFAULT 'pending',"
            + " attempts integer NOT NULL DEFAULT 0, next_attempt_at timestamptz,"
            + " last_error json, created_at timestamptz NOT NULL,"
            + " PRIMARY KEY (poller, \"partition\", seq))",
        // Version 2. An outbox row lives from commit to ack: compressing its event (pglz, for
        // any row over 2 kB) cost more than a third of writing a page of events, for nothing.
        "ALTER TABLE " + outbox + " ALTER COLUMN event SET STORAGE EXTERNAL",
        "CREATE INDEX IF NOT EXISTS "
            + index("outbox_event_id")
            + " ON "
            + outbox
            + " (poller, \"partition\", event_id)",
        "CREATE INDEX IF NOT EXISTS "
            + index("outbox_status_seq")
            + " ON "
            + outbox
            + " (poller, \"partition\", status, seq)",
        // created_at keeps the outbox row's commit time so that retry restores it.
        "CREATE TABLE IF NOT EXISTS "
            + parked
            + " ("
            + key
            + "id text COLLATE \"C\" NOT NULL,"
            + " kind text NOT NULL CHECK (kind IN ('poison', 'invalid')), seq bigint,"
            + " event_id text, ordering_key text NOT NULL, event json, item json,"
            + " error json NOT NULL, attempts integer NOT NULL, parked_at timestamptz NOT NULL,"
            + " hold_key text, created_at timestamptz,"
            + " PRIMARY KEY (poller, \"partition\", id))",
        "CREATE INDEX IF NOT EXISTS "
            + index("parked_parked_at")
            + " ON "
            + parked
            + " (poller, \"partition\", parked_at)",
        "CREATE TABLE IF NOT EXISTS "
            + validators
            + " ("
            + key
            + "url_hash text COLLATE \"C\" NOT NULL, etag text, last_modified text,"
            + " stored_at timestamptz NOT NULL,"
            + " PRIMARY KEY (poller, \"partition\", url_hash))",
        "CREATE TABLE IF NOT EXISTS "
            + log
            + " ("
            + key
            + "seq bigint NOT NULL, event json NOT NULL, created_at timestamptz NOT NULL,"
            + " PRIMARY KEY (poller, \"partition\", seq))",
        "CREATE INDEX IF NOT EXISTS "
            + index("log_created_at")
            + " ON "
            + log
            + " (poller, \"partition\", created_at)",
        // Version 3: the credentials table (CredentialStore), keyed by name alone. The sealed
        // secret is text, kept as written.
        "CREATE TABLE IF NOT EXISTS "
            + credentials
            + " (name text COLLATE \"C\" NOT NULL PRIMARY KEY, version bigint NOT NULL,"
            + " sealed text NOT NULL, claim_owner text, claim_until timestamptz,"
            + " updated_at timestamptz NOT NULL)",
        // Version 4: the effect tables (EffectStore). An effects row holds the lease and, once
        // updated_at is set, the quarantine and counters. Results and labels are text, kept as
        // written.
        "CREATE TABLE IF NOT EXISTS "
            + effects
            + " (name text COLLATE \"C\" NOT NULL PRIMARY KEY, lease_owner text,"
            + " lease_epoch bigint, lease_expires_at timestamptz,"
            + " epoch_counter bigint NOT NULL DEFAULT 0, quarantined_at timestamptz,"
            + " quarantine_reason text, terminal_skips bigint NOT NULL DEFAULT 0,"
            + " last_terminal_error text, latest_collapsed bigint NOT NULL DEFAULT 0,"
            + " updated_at timestamptz)",
        "CREATE TABLE IF NOT EXISTS "
            + effectCursors
            + " (effect text COLLATE \"C\" NOT NULL, "
            + key
            + "watermark bigint NOT NULL, live_boundary bigint, schemes text NOT NULL,"
            + " updated_at timestamptz NOT NULL, PRIMARY KEY (effect, poller, \"partition\"))",
        "CREATE INDEX IF NOT EXISTS "
            + index("eff_cursors_src")
            + " ON "
            + effectCursors
            + " (poller, \"partition\", watermark)",
        "CREATE TABLE IF NOT EXISTS "
            + invocations
            + " (effect text COLLATE \"C\" NOT NULL, "
            + key
            + "position bigint NOT NULL, lane text NOT NULL, event_type text NOT NULL,"
            + " status text NOT NULL, attempt integer NOT NULL, error text,"
            + " retry_at timestamptz, skip_requested integer NOT NULL DEFAULT 0,"
            + " version text NOT NULL, started_at timestamptz NOT NULL,"
            + " updated_at timestamptz NOT NULL,"
            + " PRIMARY KEY (effect, poller, \"partition\", position))",
        "CREATE TABLE IF NOT EXISTS "
            + journal
            + " (effect text COLLATE \"C\" NOT NULL, "
            + key
            + "position bigint NOT NULL, call_key text COLLATE \"C\" NOT NULL,"
            + " ordinal integer NOT NULL, label text NOT NULL, result text NOT NULL,"
            + " subject text, created_at timestamptz NOT NULL,"
            + " PRIMARY KEY (effect, poller, \"partition\", position, call_key))",
        "CREATE TABLE IF NOT EXISTS "
            + subjects
            + " (subject text COLLATE \"C\" NOT NULL PRIMARY KEY, key_id text NOT NULL,"
            + " wrapped_key text NOT NULL, created_at timestamptz NOT NULL)");
  }

  /** Everything, in order: schema, meta table, tables and indexes, the version record. */
  List<String> ddl() {
    List<String> all = new ArrayList<>();
    all.add(createSchema());
    all.add(createMeta());
    all.addAll(tables());
    all.add(recordVersion());
    return List.copyOf(all);
  }

  /** {@link #ddl()} as one script with a header, each statement ending in a semicolon. */
  String script() {
    StringBuilder s =
        new StringBuilder()
            .append("-- watukuy PostgresStore schema version ")
            .append(VERSION)
            .append(", schema ")
            .append(schemaName)
            .append(", table prefix ")
            .append(prefix)
            .append(".\n")
            .append("-- Every statement is idempotent. Generated by PostgresStore.ddlScript(")
            .append("schema, tablePrefix);\n")
            .append("-- apply it with your own migration tool (Flyway, Liquibase) before the")
            .append(" first poll.\n");
    for (String statement : ddl()) {
      s.append('\n').append(statement).append(";\n");
    }
    return s.toString();
  }
}
