package io.watukuy.store.mariadb;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Table names and DDL of one table prefix (docs/stores.md, "MariaDbStore").
 *
 * <p>Every table is InnoDB, {@code ROW_FORMAT=DYNAMIC} (so an index key may take 3072 bytes),
 * character set {@code utf8mb4} with the collation {@value #COLLATION}: every text column compares
 * and sorts by its bytes, which for UTF-8 is code point order, so {@code ABC} and {@code abc},
 * {@code é} and {@code e}, {@code a} and {@code a } (a trailing space) are different keys. The
 * default collations ignore case and accents, and {@code utf8mb4_bin} is a PAD SPACE collation that
 * ignores trailing spaces; either would merge two identities into one row and lose an item.
 *
 * <p>Key columns are {@code VARCHAR}, as InnoDB indexes them whole: at 4 bytes per utf8mb4
 * character the items key {@code (poller, partition, identity)} takes {@value #MAX_POLLER} +
 * {@value #MAX_PARTITION} + {@value #MAX_IDENTITY} = 768 characters, exactly the 3072-byte limit.
 * Every other text column is {@code LONGTEXT}, which no value the store writes can overflow.
 * Instants are epoch milliseconds in {@code BIGINT} columns, where no time zone can shift them.
 * Indexes are declared inside {@code CREATE TABLE}, so each statement is idempotent as a whole
 * ({@code IF NOT EXISTS}) and MySQL, which lacks {@code CREATE INDEX IF NOT EXISTS}, could run the
 * same DDL.
 */
final class MariaDbSchema {

  /** The schema version this release creates, recorded in the meta table. */
  static final int VERSION = 3;

  static final String VERSION_NAME = "schema_version";

  /** Byte order, no padding: case, accents and trailing spaces all count. */
  static final String COLLATION = "utf8mb4_nopad_bin";

  /** Longest poller name: the most a {@code Poller} accepts. */
  static final int MAX_POLLER = 100;

  /** Longest partition. */
  static final int MAX_PARTITION = 128;

  /** Longest identity: what remains of InnoDB's 3072-byte key after poller and partition. */
  static final int MAX_IDENTITY = 768 - MAX_POLLER - MAX_PARTITION;

  /**
   * Longest event id, parked-row id and URL hash: the engine writes 64 hex digits, a decimal
   * sequence or {@code invalid-} and 16 hex digits.
   */
  static final int MAX_ID = 255;

  /** Longest credential name: what {@code StoredCredential} accepts. */
  static final int MAX_CREDENTIAL_NAME = 200;

  /** Longest effect name, as long as a poller name. */
  static final int MAX_EFFECT = MAX_POLLER;

  /** Longest subject of a sealed document's data key. */
  static final int MAX_SUBJECT = 255;

  /**
   * Length of the longest table suffix: {@code credentials} (since schema version 2), and {@code
   * eff_cursors} and {@code invocations} (since version 3) are as long.
   */
  static final int LONGEST_SUFFIX = "credentials".length();

  private static final String TABLE_OPTIONS =
      " ENGINE=InnoDB ROW_FORMAT=DYNAMIC DEFAULT CHARSET=utf8mb4 COLLATE=" + COLLATION;

  private static final String KEY =
      "poller VARCHAR("
          + MAX_POLLER
          + ") NOT NULL, `partition` VARCHAR("
          + MAX_PARTITION
          + ") NOT NULL, ";

  final String prefix;
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

  MariaDbSchema(String prefix) {
    this.prefix = prefix;
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

  /** Back-quotes an identifier; embedded back quotes are doubled. */
  static String quote(String identifier) {
    return '`' + identifier.replace("`", "``") + '`';
  }

  /** The quoted name of the table {@code <prefix><suffix>}. */
  String table(String suffix) {
    return quote(prefix + suffix);
  }

  String createMeta() {
    return "CREATE TABLE IF NOT EXISTS "
        + meta
        + " (name VARCHAR(64) NOT NULL PRIMARY KEY, value LONGTEXT NOT NULL)"
        + TABLE_OPTIONS;
  }

  /** Records {@link #VERSION} unless a version is recorded already (a newer one is kept). */
  String recordVersion() {
    return "INSERT INTO "
        + meta
        + " (name, value) VALUES ('"
        + VERSION_NAME
        + "', '"
        + VERSION
        + "') ON DUPLICATE KEY UPDATE name = name";
  }

  /**
   * The tables of schema version 3, each with its indexes, every statement idempotent: version 1's
   * tables, since version 2 the credentials table, since version 3 the effect tables.
   */
  List<String> tables() {
    return List.of(
        // state is null for a row that only carries a lease; epoch_counter outlives deleteKey.
        create(
            pollers,
            "state LONGTEXT NULL, lease_owner LONGTEXT NULL, lease_epoch BIGINT NULL,"
                + " lease_expires_at BIGINT NULL, epoch_counter BIGINT NOT NULL DEFAULT 0,"
                + " PRIMARY KEY (poller, `partition`)"),
        create(
            items,
            "identity VARCHAR("
                + MAX_IDENTITY
                + ") NOT NULL, version LONGTEXT NULL, hash LONGTEXT NOT NULL,"
                + " schema_version INT NOT NULL, payload LONGTEXT NULL,"
                + " ordering_key LONGTEXT NOT NULL, seen_at BIGINT NOT NULL,"
                + " PRIMARY KEY (poller, `partition`, identity)"),
        // Keyed by sequence: an event id can repeat (docs/architecture.md, "Ids, the outbox key").
        create(
            outbox,
            "seq BIGINT NOT NULL, event_id VARCHAR("
                + MAX_ID
                + ") NOT NULL, ordering_key LONGTEXT NOT NULL,"
                + " event LONGTEXT NOT NULL, status VARCHAR(16) NOT NULL DEFAULT 'pending',"
                + " attempts INT NOT NULL DEFAULT 0, next_attempt_at BIGINT NULL,"
                + " last_error LONGTEXT NULL, created_at BIGINT NOT NULL,"
                + " PRIMARY KEY (poller, `partition`, seq),"
                + " KEY outbox_event_id (poller, `partition`, event_id),"
                + " KEY outbox_status_seq (poller, `partition`, status, seq)"),
        // created_at keeps the outbox row's commit time so that retry restores it.
        create(
            parked,
            "id VARCHAR("
                + MAX_ID
                + ") NOT NULL, kind VARCHAR(16) NOT NULL CHECK (kind IN ('poison', 'invalid')),"
                + " seq BIGINT NULL, event_id LONGTEXT NULL, ordering_key LONGTEXT NOT NULL,"
                + " event LONGTEXT NULL, item LONGTEXT NULL, error LONGTEXT NOT NULL,"
                + " attempts INT NOT NULL, parked_at BIGINT NOT NULL, hold_key LONGTEXT NULL,"
                + " created_at BIGINT NULL, PRIMARY KEY (poller, `partition`, id),"
                + " KEY parked_parked_at (poller, `partition`, parked_at)"),
        create(
            validators,
            "url_hash VARCHAR("
                + MAX_ID
                + ") NOT NULL, etag LONGTEXT NULL, last_modified LONGTEXT NULL,"
                + " stored_at BIGINT NOT NULL, PRIMARY KEY (poller, `partition`, url_hash)"),
        create(
            log,
            "seq BIGINT NOT NULL, event LONGTEXT NOT NULL, created_at BIGINT NOT NULL,"
                + " PRIMARY KEY (poller, `partition`, seq),"
                + " KEY log_created_at (poller, `partition`, created_at)"),
        // Version 2: the credentials table (CredentialStore), keyed by name alone.
        "CREATE TABLE IF NOT EXISTS "
            + credentials
            + " (name VARCHAR("
            + MAX_CREDENTIAL_NAME
            + ") NOT NULL PRIMARY KEY, version BIGINT NOT NULL, sealed LONGTEXT NOT NULL,"
            + " claim_owner LONGTEXT NULL, claim_until BIGINT NULL, updated_at BIGINT NOT NULL)"
            + TABLE_OPTIONS,
        // Version 3: the effect tables (EffectStore). An effects row holds the lease and, once
        // updated_at is set, the quarantine and counters.
        "CREATE TABLE IF NOT EXISTS "
            + effects
            + " (name VARCHAR("
            + MAX_EFFECT
            + ") NOT NULL PRIMARY KEY, lease_owner LONGTEXT NULL, lease_epoch BIGINT NULL,"
            + " lease_expires_at BIGINT NULL, epoch_counter BIGINT NOT NULL DEFAULT 0,"
            + " quarantined_at BIGINT NULL, quarantine_reason LONGTEXT NULL,"
            + " terminal_skips BIGINT NOT NULL DEFAULT 0, last_terminal_error LONGTEXT NULL,"
            + " latest_collapsed BIGINT NOT NULL DEFAULT 0, updated_at BIGINT NULL)"
            + TABLE_OPTIONS,
        createForEffect(
            effectCursors,
            "watermark BIGINT NOT NULL, live_boundary BIGINT NULL, schemes LONGTEXT NOT NULL,"
                + " updated_at BIGINT NOT NULL, PRIMARY KEY (effect, poller, `partition`),"
                + " KEY eff_cursors_src (poller, `partition`, watermark)"),
        createForEffect(
            invocations,
            "position BIGINT NOT NULL, lane LONGTEXT NOT NULL, event_type LONGTEXT NOT NULL,"
                + " status VARCHAR(16) NOT NULL, attempt INT NOT NULL, error LONGTEXT NULL,"
                + " retry_at BIGINT NULL, skip_requested INT NOT NULL DEFAULT 0,"
                + " version LONGTEXT NOT NULL, started_at BIGINT NOT NULL,"
                + " updated_at BIGINT NOT NULL,"
                + " PRIMARY KEY (effect, poller, `partition`, position)"),
        createForEffect(
            journal,
            "position BIGINT NOT NULL, call_key VARCHAR(64) NOT NULL, ordinal INT NOT NULL,"
                + " label LONGTEXT NOT NULL, result LONGTEXT NOT NULL, subject LONGTEXT NULL,"
                + " created_at BIGINT NOT NULL,"
                + " PRIMARY KEY (effect, poller, `partition`, position, call_key)"),
        "CREATE TABLE IF NOT EXISTS "
            + subjects
            + " (subject VARCHAR("
            + MAX_SUBJECT
            + ") NOT NULL PRIMARY KEY, key_id LONGTEXT NOT NULL, wrapped_key LONGTEXT NOT NULL,"
            + " created_at BIGINT NOT NULL)"
            + TABLE_OPTIONS);
  }

  /** A table keyed by effect and source key first. */
  private static String createForEffect(String table, String columns) {
    return "CREATE TABLE IF NOT EXISTS "
        + table
        + " (effect VARCHAR("
        + MAX_EFFECT
        + ") NOT NULL, "
        + KEY
        + columns
        + ")"
        + TABLE_OPTIONS;
  }

  private static String create(String table, String columns) {
    return "CREATE TABLE IF NOT EXISTS " + table + " (" + KEY + columns + ")" + TABLE_OPTIONS;
  }

  /** Everything, in order: meta table, tables and their indexes, the version record. */
  List<String> ddl() {
    List<String> all = new ArrayList<>();
    all.add(createMeta());
    all.addAll(tables());
    all.add(recordVersion());
    return List.copyOf(all);
  }

  /** {@link #ddl()} as one script with a header, each statement ending in a semicolon. */
  String script() {
    String header =
        "-- watukuy MariaDbStore schema version "
            + VERSION
            + ", table prefix "
            + prefix
            + ", in the connection's database.\n"
            + "-- Every statement is idempotent. Generated by MariaDbStore.ddlScript(tablePrefix);\n"
            + "-- apply it with your own migration tool (Flyway, Liquibase) before the first poll.\n";
    return ddl().stream()
        .map(statement -> "\n" + statement + ";\n")
        .collect(Collectors.joining("", header, ""));
  }
}
