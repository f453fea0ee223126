package io.watukuy.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import io.watukuy.spi.StoredCredential;
import io.watukuy.testing.compat.CompatScenario;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database file written by SqliteStore at commit 0e79de2 (schema version 1; {@code
 * src/test/resources/compat/README.md} says what it holds) opens with the current SqliteStore,
 * which polls on where the old one stopped: the pending events once, then only the new changes,
 * never an acknowledged event again, and the file's schema as it was plus what versions 2 and 3
 * add: the credentials table, which works at once, and the effect tables.
 */
class SqliteCompatTest {
  static final String FIXTURE = "/compat/old-0e79de2.db";

  /** The catalog port of this fixture (the PostgreSQL fixture has its own). */
  static final int PORT = 28461;

  @TempDir Path dir;

  @Test
  void aDatabaseWrittenAt0e79de2OpensAndPollsOnWithoutAnEventTwice() throws Exception {
    Path file = copyFixture();
    List<String> schemaBefore = schema(file);
    assertThat(schemaBefore)
        .containsExactly(
            "index watukuy_log_created_at on watukuy_log",
            "index watukuy_outbox_event_id on watukuy_outbox",
            "index watukuy_outbox_status_seq on watukuy_outbox",
            "index watukuy_parked_parked_at on watukuy_parked",
            "table watukuy_items",
            "table watukuy_log",
            "table watukuy_meta",
            "table watukuy_outbox",
            "table watukuy_parked",
            "table watukuy_pollers",
            "table watukuy_validators");
    assertThat(schemaVersion(file)).isEqualTo("1");

    try (SqliteStore store = SqliteStore.open(file)) {
      new CompatScenario(PORT).check(store);

      StoredCredential first =
          new StoredCredential("refresh", 1, "sealed", null, null, Instant.EPOCH);
      assertThat(store.compareAndSetCredential(0, first)).isTrue();
      assertThat(store.loadCredential("refresh")).contains(first);
    }

    // Version 1 to 3 adds the credentials table (2) and the effect tables (3), and changes
    // nothing else.
    assertThat(schemaVersion(file)).isEqualTo("3");
    List<String> ddlAfter = ddl(file);
    List<String> pristine = ddl(fixtureCopy("pristine.db"));
    assertThat(ddlAfter).containsAll(pristine);
    List<String> added = new ArrayList<>(ddlAfter);
    added.removeAll(pristine);
    assertThat(added)
        .contains(
            "table watukuy_credentials: CREATE TABLE watukuy_credentials (name TEXT NOT NULL"
                + " PRIMARY KEY, version INTEGER NOT NULL, sealed TEXT NOT NULL, claim_owner TEXT,"
                + " claim_until INTEGER, updated_at INTEGER NOT NULL)");
    List<String> effectObjects =
        List.of(
            "index watukuy_eff_cursors_src on watukuy_eff_cursors",
            "table watukuy_eff_cursors",
            "table watukuy_effects",
            "table watukuy_invocations",
            "table watukuy_journal",
            "table watukuy_subjects");
    assertThat(added).hasSize(1 + effectObjects.size());
    List<String> schemaAfter = new ArrayList<>(schema(file));
    assertThat(schemaAfter.remove("table watukuy_credentials")).isTrue();
    assertThat(schemaAfter.removeAll(effectObjects)).isTrue();
    assertThat(schemaAfter).isEqualTo(schemaBefore);
  }

  @Test
  void theFixtureIsOneSelfContainedFileInWalMode() throws Exception {
    // Checkpointed when the generator closed it: no -wal or -shm file goes with it.
    assertThat(SqliteCompatTest.class.getResource(FIXTURE + "-wal")).isNull();
    assertThat(SqliteCompatTest.class.getResource(FIXTURE + "-shm")).isNull();
    byte[] header = new byte[100];
    try (InputStream in = SqliteCompatTest.class.getResourceAsStream(FIXTURE)) {
      assertThat(in.readNBytes(header, 0, 100)).isEqualTo(100);
    }
    assertThat(new String(header, 0, 15, StandardCharsets.US_ASCII)).isEqualTo("SQLite format 3");
    // File format write and read versions 2: WAL, as SqliteStore sets it (journal_mode persists).
    assertThat(header[18]).isEqualTo((byte) 2);
    assertThat(header[19]).isEqualTo((byte) 2);
  }

  private Path copyFixture() throws IOException {
    return fixtureCopy("old-0e79de2.db");
  }

  private Path fixtureCopy(String name) throws IOException {
    Path file = dir.resolve(name);
    try (InputStream in = SqliteCompatTest.class.getResourceAsStream(FIXTURE)) {
      assertThat(in).as("test resource " + FIXTURE).isNotNull();
      Files.copy(in, file);
    }
    return file;
  }

  /** Every table and index of the file, as "type name [on table]", sorted by type and name. */
  private static List<String> schema(Path file) throws SQLException {
    return query(
        file,
        "SELECT type || ' ' || name || CASE WHEN type = 'index' THEN ' on ' || tbl_name ELSE ''"
            + " END FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name");
  }

  /** The DDL SQLite keeps for every table and index, as written. */
  private static List<String> ddl(Path file) throws SQLException {
    return query(
        file,
        "SELECT type || ' ' || name || ': ' || sql FROM sqlite_master WHERE sql IS NOT NULL"
            + " ORDER BY type, name");
  }

  private static String schemaVersion(Path file) throws SQLException {
    List<String> v = query(file, "SELECT value FROM watukuy_meta WHERE name = 'schema_version'");
    assertThat(v).hasSize(1);
    return v.get(0);
  }

  private static List<String> query(Path file, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) out.add(rs.getString(1));
    }
    return out;
  }
}
