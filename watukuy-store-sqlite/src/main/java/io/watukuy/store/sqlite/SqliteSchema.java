package io.watukuy.store.sqlite;

import java.util.ArrayList;
import java.util.List;

/**
 * Table names and DDL of one table prefix (docs/architecture.md, "Schema overview"). Instants are
 * epoch milliseconds in INTEGER columns; JSON is TEXT. {@code "partition"} is quoted everywhere
 * because PARTITION is an SQLite keyword since window functions arrived.
 */
final class SqliteSchema {

  /** The schema version this release creates, recorded in the meta table. */
  static final int VERSION = 3;

  static final String VERSION_NAME = "schema_version";

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

  SqliteSchema(String prefix) {
    meta = prefix + "meta";
    pollers = prefix + "pollers";
    items = prefix + "items";
    outbox = prefix + "outbox";
    parked = prefix + "parked";
    validators = prefix + "validators";
    log = prefix + "log";
    credentials = prefix + "credentials";
    effects = prefix + "effects";
    effectCursors = prefix + "eff_cursors";
    invocations = prefix + "invocations";
    journal = prefix + "journal";
    subjects = prefix + "subjects";
  }

  /** {@link #ddl()} plus the statement that records {@link #VERSION}, for external tools. */
  List<String> ddlWithVersion() {
    List<String> all = new ArrayList<>(ddl());
    all.add(
        "INSERT OR IGNORE INTO "
            + meta
            + " (name, value) VALUES ('"
            + VERSION_NAME
            + "', '"
            + VERSION
            + "')");
    return List.copyOf(all);
  }

  String createMeta() {
    return "CREATE TABLE IF NOT EXISTS "
        + meta
        + " (name TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL)";
  }

  /**
   * The DDL of schema version 3, every statement idempotent: version 1's tables, since version 2
   * the credentials table, since version 3 the effect tables.
   */
  List<String> ddl() {
    return List.of(
        createMeta(),
        // state is null for a row that only carries a lease.
        "CREATE TABLE IF NOT EXISTS "
            + pollers
            + " (poller TEXT NOT NULL, \"partition\" TEXT NOT NULL, state TEXT,"
            + " lease_owner TEXT, lease_epoch INTEGER, lease_expires_at INTEGER,"
            + " epoch_counter INTEGER NOT NULL DEFAULT 0,"
            + " PRIMARY KEY (poller, \"partition\"))",
        "CREATE TABLE IF NOT EXISTS "
            + items
            + " (poller TEXT NOT NULL, \"partition\" TEXT NOT NULL, identity TEXT NOT NULL,"
            + " version TEXT, hash TEXT NOT NULL, schema_version INTEGER NOT NULL, payload TEXT,"
            + " ordering_key TEXT NOT NULL, seen_at INTEGER NOT NULL,"
            + " PRIMARY KEY (poller, \"partition\", identity))",
        // Keyed by sequence: an event id can repeat (docs/architecture.md, "Ids, the outbox key").
        "CREATE TABLE IF NOT EXISTS "
            + outbox
            + " (poller TEXT NOT NULL, \"partition\" TEXT NOT NULL, seq INTEGER NOT NULL,"
            + " event_id TEXT NOT NULL, ordering_key TEXT NOT NULL, event TEXT NOT NULL,"
            + " status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,"
            + " next_attempt_at INTEGER, last_error TEXT, created_at INTEGER NOT NULL,"
            + " PRIMARY KEY (poller, \"partition\", seq))",
        "CREATE INDEX IF NOT EXISTS "
            + outbox
            + "_event_id ON "
            + outbox
            + " (poller, \"partition\", event_id)",
        "CREATE INDEX IF NOT EXISTS "
            + outbox
            + "_status_seq ON "
            + outbox
            + " (poller, \"partition\", status, seq)",
        // created_at keeps the outbox row's commit time so that retry restores it.
        "CREATE TABLE IF NOT EXISTS "
            + parked
            + " (poller TEXT NOT NULL, \"partition\" TEXT NOT NULL, id TEXT NOT NULL,"
            + " kind TEXT NOT NULL, seq INTEGER, event_id TEXT, ordering_key TEXT NOT NULL,"
            + " event TEXT, item TEXT, error TEXT NOT NULL, attempts INTEGER NOT NULL,"
            + " parked_at INTEGER NOT NULL, hold_key TEXT, created_at INTEGER,"
            + " PRIMARY KEY (poller, \"partition\", id))",
        "CREATE INDEX IF NOT EXISTS "
            + parked
            + "_parked_at ON "
            + parked
            + " (poller, \"partition\", parked_at)",
        "CREATE TABLE IF NOT EXISTS "
            + validators
            + " (poller TEXT NOT NULL, \"partition\" TEXT NOT NULL, url_hash TEXT NOT NULL,"
            + " etag TEXT, last_modified TEXT, stored_at INTEGER NOT NULL,"
            + " PRIMARY KEY (poller, \"partition\", url_hash))",
        "CREATE TABLE IF NOT EXISTS "
            + log
            + " (poller TEXT NOT NULL, \"partition\" TEXT NOT NULL, seq INTEGER NOT NULL,"
            + " event TEXT NOT NULL, created_at INTEGER NOT NULL,"
            + " PRIMARY KEY (poller, \"partition\", seq))",
        "CREATE INDEX IF NOT EXISTS "
            + log
            + "_created_at ON "
            + log
            + " (poller, \"partition\", created_at)",
        // Version 2: the credentials table (CredentialStore), keyed by name alone.
        "CREATE TABLE IF NOT EXISTS "
            + credentials
            + " (name TEXT NOT NULL PRIMARY KEY, version INTEGER NOT NULL, sealed TEXT NOT NULL,"
            + " claim_owner TEXT, claim_until INTEGER, updated_at INTEGER NOT NULL)",
        // Version 3: the effect tables (EffectStore). An effects row holds the lease and, once
        // updated_at is set, the quarantine and counters.
        "CREATE TABLE IF NOT EXISTS "
            + effects
            + " (name TEXT NOT NULL PRIMARY KEY, lease_owner TEXT, lease_epoch INTEGER,"
            + " lease_expires_at INTEGER, epoch_counter INTEGER NOT NULL DEFAULT 0,"
            + " quarantined_at INTEGER, quarantine_reason TEXT,"
            + " terminal_skips INTEGER NOT NULL DEFAULT 0, last_terminal_error TEXT,"
            + " latest_collapsed INTEGER NOT NULL DEFAULT 0, updated_at INTEGER)",
        "CREATE TABLE IF NOT EXISTS "
            + effectCursors
            + " (effect TEXT NOT NULL, poller TEXT NOT NULL, \"partition\" TEXT NOT NULL,"
            + " watermark INTEGER NOT NULL, live_boundary INTEGER, schemes TEXT NOT NULL,"
            + " updated_at INTEGER NOT NULL, PRIMARY KEY (effect, poller, \"partition\"))",
        "CREATE INDEX IF NOT EXISTS "
            + effectCursors
            + "_src ON "
            + effectCursors
            + " (poller, \"partition\", watermark)",
        "CREATE TABLE IF NOT EXISTS "
            + invocations
            + " (effect TEXT NOT NULL, poller TEXT NOT NULL, \"partition\" TEXT NOT NULL,"
            + " position INTEGER NOT NULL, lane TEXT NOT NULL, event_type TEXT NOT NULL,"
            + " status TEXT NOT NULL, attempt INTEGER NOT NULL, error TEXT, retry_at INTEGER,"
            + " skip_requested INTEGER NOT NULL DEFAULT 0, version TEXT NOT NULL,"
            + " started_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,"
            + " PRIMARY KEY (effect, poller, \"partition\", position))",
        "CREATE TABLE IF NOT EXISTS "
            + journal
            + " (effect TEXT NOT NULL, poller TEXT NOT NULL, \"partition\" TEXT NOT NULL,"
            + " position INTEGER NOT NULL, call_key TEXT NOT NULL, ordinal INTEGER NOT NULL,"
            + " label TEXT NOT NULL, result TEXT NOT NULL, subject TEXT,"
            + " created_at INTEGER NOT NULL,"
            + " PRIMARY KEY (effect, poller, \"partition\", position, call_key))",
        "CREATE TABLE IF NOT EXISTS "
            + subjects
            + " (subject TEXT NOT NULL PRIMARY KEY, key_id TEXT NOT NULL,"
            + " wrapped_key TEXT NOT NULL, created_at INTEGER NOT NULL)");
  }
}
