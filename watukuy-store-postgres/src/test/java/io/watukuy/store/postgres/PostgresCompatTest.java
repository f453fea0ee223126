package io.watukuy.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.spi.StoredCredential;
import io.watukuy.testing.TestPostgres;
import io.watukuy.testing.compat.CompatScenario;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A schema written by PostgresStore at commit 0e79de2 (schema version 2), dumped with pg_dump
 * ({@code src/test/resources/compat/README.md} says what it holds), replayed into a fresh schema
 * and opened with the current PostgresStore, which polls on where the old one stopped: the pending
 * events once, then only the new changes, never an acknowledged event again, and the schema's
 * tables, columns, constraints and indexes as they were, plus what versions 3 and 4 add: the effect
 * tables (4) and the credentials table, which works at once.
 */
class PostgresCompatTest {
  static final String DUMP = "/compat/old-0e79de2.sql";

  /** The schema the dump was taken from; every statement names it, the loader renames it. */
  static final String DUMPED_SCHEMA = "compat_0e79de2";

  /** The catalog port of this fixture (the SQLite fixture has its own). */
  static final int PORT = 28462;

  @RegisterExtension static final TestPostgres postgres = TestPostgres.local();

  private static HikariDataSource pool;
  private static String schema;

  @BeforeAll
  static void load() throws Exception {
    pool = PgTest.pool(postgres, PgTest.unique("watukuy-compat"), 4);
    schema = postgres.newSchema("wk_compat");
    List<String> statements = statements(readDump());
    // A dedicated connection: the dump empties search_path for its session.
    try (Connection c = postgres.connect()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        for (String sql : statements) s.execute(sql);
      }
      c.commit();
    }
  }

  @AfterAll
  static void dropSchema() throws SQLException {
    // Dropped here to see it gone; the extension's drop after the class then finds nothing.
    PgTest.dropSchema(pool, schema);
    assertThat(query("SELECT nspname FROM pg_namespace WHERE nspname = ?", schema)).isEmpty();
  }

  @Test
  void aSchemaWrittenAt0e79de2OpensAndPollsOnWithoutAnEventTwice() throws Exception {
    List<String> before = catalogOfSchema();
    assertThat(before).hasSize(7 + 8 + 4 + 54); // tables, constraints, indexes, columns
    assertThat(before)
        .contains(
            "constraint watukuy_parked watukuy_parked_kind_check"
                + " CHECK ((kind = ANY (ARRAY['poison'::text, 'invalid'::text])))",
            "index watukuy_outbox_status_seq CREATE INDEX watukuy_outbox_status_seq"
                + " ON <schema>.watukuy_outbox USING btree (poller, partition, status, seq)",
            "column watukuy_items.identity text not null collate C storage x",
            "column watukuy_pollers.state jsonb storage x",
            "column watukuy_outbox.event json not null storage e");
    assertThat(schemaVersion()).isEqualTo("2");

    try (PostgresStore store = PostgresStore.builder(pool).schema(schema).build()) {
      new CompatScenario(PORT).check(store);

      StoredCredential first = new StoredCredential("refresh", 1, "sealed", null, null, T0);
      assertThat(store.compareAndSetCredential(0, first)).isTrue();
      assertThat(store.loadCredential("refresh")).contains(first);
      assertThat(store.deleteCredential("refresh")).isTrue();
    }

    // Version 2 to 4 adds the credentials table (3) and the effect tables (4), and changes
    // nothing else.
    assertThat(schemaVersion()).isEqualTo("4");
    List<String> after = catalogOfSchema();
    assertThat(after).containsAll(before);
    List<String> added = new ArrayList<>(after);
    added.removeAll(before);
    List<String> effectTables =
        List.of(
            "watukuy_effects",
            "watukuy_eff_cursors",
            "watukuy_invocations",
            "watukuy_journal",
            "watukuy_subjects");
    assertThat(added)
        .filteredOn(line -> effectTables.stream().anyMatch(line::contains))
        .contains(
            "table watukuy_effects",
            "table watukuy_eff_cursors",
            "table watukuy_invocations",
            "table watukuy_journal",
            "table watukuy_subjects");
    added.removeIf(line -> effectTables.stream().anyMatch(line::contains));
    assertThat(added)
        .containsExactlyInAnyOrder(
            "table watukuy_credentials",
            "constraint watukuy_credentials watukuy_credentials_pkey PRIMARY KEY (name)",
            "column watukuy_credentials.name text not null collate C storage x",
            "column watukuy_credentials.version bigint not null storage p",
            "column watukuy_credentials.sealed text not null storage x",
            "column watukuy_credentials.claim_owner text storage x",
            "column watukuy_credentials.claim_until timestamp with time zone storage p",
            "column watukuy_credentials.updated_at timestamp with time zone not null storage p");
  }

  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");

  private static String schemaVersion() throws SQLException {
    List<String> v =
        query("SELECT value FROM \"" + schema + "\".watukuy_meta WHERE name = ?", "schema_version");
    assertThat(v).hasSize(1);
    return v.get(0);
  }

  /**
   * The schema's shape: each table, primary key, index and check constraint with its definition,
   * and each column with its type, nullability, default, collation and storage ({@code e},
   * external: the outbox event since version 2, stored uncompressed). The schema's name reads
   * {@code <schema>}.
   */
  private static List<String> catalogOfSchema() throws SQLException {
    List<String> out = new ArrayList<>();
    out.addAll(
        query(
            "SELECT 'table ' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid ="
                + " c.relnamespace WHERE n.nspname = ? AND c.relkind = 'r' ORDER BY 1",
            schema));
    out.addAll(
        query(
            "SELECT 'constraint ' || t.relname || ' ' || c.conname || ' '"
                + " || pg_get_constraintdef(c.oid) FROM pg_constraint c JOIN pg_class t"
                + " ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = c.connamespace"
                + " WHERE n.nspname = ? ORDER BY 1",
            schema));
    out.addAll(
        query(
            "SELECT 'index ' || indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname = ?"
                + " AND indexname NOT LIKE '%_pkey' ORDER BY 1",
            schema));
    out.addAll(
        query(
            "SELECT 'column ' || c.relname || '.' || a.attname || ' '"
                + " || format_type(a.atttypid, a.atttypmod)"
                + " || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END"
                + " || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')"
                + " || coalesce(' collate ' || co.collname, '') || ' storage ' || a.attstorage::text"
                + " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
                + " LEFT JOIN pg_collation co ON co.oid = a.attcollation"
                + " AND a.attcollation <> 100" // the type's default collation is not named
                + " WHERE n.nspname = ? AND c.relkind = 'r' AND a.attnum > 0"
                + " AND NOT a.attisdropped ORDER BY c.relname, a.attnum",
            schema));
    return out.stream().map(line -> line.replace(schema, "<schema>")).toList();
  }

  private static List<String> query(String sql, String parameter) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, parameter);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static String readDump() throws IOException {
    try (InputStream in = PostgresCompatTest.class.getResourceAsStream(DUMP)) {
      assertThat(in).as("test resource " + DUMP).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static final Pattern DUMPED_NAME =
      Pattern.compile("\\b" + Pattern.quote(DUMPED_SCHEMA) + "\\b");

  /**
   * The dump's SQL statements, in order, with the dumped schema renamed to this test's schema.
   * Skips comments and psql's meta-commands ({@code \restrict}); a statement ends at a semicolon
   * outside a quoted literal or identifier; names are renamed only outside literals, so no row
   * changes.
   */
  static List<String> statements(String dump) {
    List<String> out = new ArrayList<>();
    StringBuilder statement = new StringBuilder();
    StringBuilder code = new StringBuilder(); // the part outside literals, not yet renamed
    int i = 0;
    int n = dump.length();
    boolean lineStart = true;
    while (i < n) {
      char ch = dump.charAt(i);
      if (lineStart && ch == '\\') {
        i = endOfLine(dump, i); // a psql meta-command
        continue;
      }
      lineStart = false;
      if (ch == '-' && i + 1 < n && dump.charAt(i + 1) == '-') {
        i = endOfLine(dump, i);
        code.append('\n');
        lineStart = true;
        continue;
      }
      if (ch == '\'' || ch == '"') {
        statement.append(rename(code));
        code.setLength(0);
        int end = i + 1;
        while (true) {
          end = dump.indexOf(ch, end);
          if (end < 0) throw new IllegalStateException("unterminated quote at " + i);
          if (end + 1 < n && dump.charAt(end + 1) == ch) {
            end += 2; // a doubled quote inside
            continue;
          }
          break;
        }
        String quoted = dump.substring(i, end + 1);
        // A quoted identifier may be the schema; a literal is data and stays as it is.
        statement.append(
            ch == '"' && quoted.equals("\"" + DUMPED_SCHEMA + "\"")
                ? "\"" + schema + "\""
                : quoted);
        i = end + 1;
        continue;
      }
      if (ch == ';') {
        statement.append(rename(code));
        code.setLength(0);
        String sql = statement.toString().strip();
        if (!sql.isEmpty()) out.add(sql);
        statement.setLength(0);
        i++;
        continue;
      }
      code.append(ch);
      if (ch == '\n') lineStart = true;
      i++;
    }
    statement.append(rename(code));
    assertThat(statement.toString().strip()).as("text after the last statement").isEmpty();
    return out;
  }

  private static String rename(CharSequence code) {
    return DUMPED_NAME.matcher(code).replaceAll(Matcher.quoteReplacement("\"" + schema + "\""));
  }

  private static int endOfLine(String s, int from) {
    int eol = s.indexOf('\n', from);
    return eol < 0 ? s.length() : eol + 1;
  }
}
