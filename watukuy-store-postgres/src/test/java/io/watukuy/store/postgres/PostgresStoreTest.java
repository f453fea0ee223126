package io.watukuy.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.ConfigException;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.testing.TestPostgres;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * PostgresStore on the local PostgreSQL beyond the contract: options and identifier quoting,
 * migration (idempotent, concurrent, the exported DDL, a role without DDL rights), lease races
 * between instances, json columns, and failures (server down, a backend terminated mid-commit).
 * Every test works in schemas of its own, each dropped after its test.
 */
class PostgresStoreTest {

  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final PollerKey KEY = PollerKey.of("orders", "eu");

  /** Never a real credential: the server trusts loopback, so it is sent and ignored. */
  private static final String PASSWORD = "pg-secret-never-shown";

  @RegisterExtension static final TestPostgres postgres = TestPostgres.local();

  private static HikariDataSource pool;
  private static String run;

  private final List<PostgresStore> opened = new ArrayList<>();
  private final List<AutoCloseable> resources = new ArrayList<>();

  @BeforeAll
  static void openPool() {
    run = PgTest.unique("wk_store");
    pool = PgTest.pool(postgres, run.replace('_', '-'), 8);
  }

  @AfterEach
  void closeStores() throws Exception {
    opened.forEach(PostgresStore::close);
    for (AutoCloseable r : resources) {
      r.close();
    }
  }

  // ---- options and identifiers

  @Test
  void defaultsAreSchemaPublicPrefixWatukuyAndTheCallerOwnsTheDataSource() {
    PostgresStore store = PostgresStore.create(pool);

    assertThat(store.schema()).isEqualTo("public").isEqualTo(PostgresStore.DEFAULT_SCHEMA);
    assertThat(store.tablePrefix())
        .isEqualTo("watukuy_")
        .isEqualTo(PostgresStore.DEFAULT_TABLE_PREFIX);
    assertThat(store.closeClient()).isFalse();
    assertThat(store.capabilities().transactions()).isTrue();
  }

  @Test
  void schemaOrPrefixThatIsNotAPlainIdentifierIsRejectedNamingTheOptionAndTheValue() {
    PostgresStore.Builder builder = PostgresStore.builder(pool);
    assertThatThrownBy(() -> builder.schema("information_schema"))
        .isInstanceOf(ConfigException.class)
        .hasMessage("schema must not be a system schema, but was 'information_schema'");
    List<String> bad =
        List.of(
            "",
            "1st",
            "a b",
            "a-b",
            "Orders",
            "x\"; DROP TABLE t; --",
            "x\".\"y",
            "public; DROP SCHEMA public CASCADE",
            "é",
            "x\u0000");
    for (String value : bad) {
      assertThatThrownBy(() -> builder.schema(value))
          .as("schema %s", value)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("schema must be")
          .hasMessageContaining("'" + value + "'");
      assertThatThrownBy(() -> builder.tablePrefix(value))
          .as("prefix %s", value)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("tablePrefix must be")
          .hasMessageContaining("'" + value + "'");
    }
    assertThatThrownBy(() -> builder.schema("pg_temp"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("pg_");
    assertThatThrownBy(() -> builder.schema("s".repeat(64)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("1 to 63");
    assertThatThrownBy(() -> builder.tablePrefix("p".repeat(47)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("1 to 46");
    assertThatThrownBy(() -> PostgresStore.ddl("public", "no-dashes"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("tablePrefix");
    assertThatThrownBy(() -> PostgresStore.ddlScript("Public", "watukuy_"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("schema");
  }

  @Test
  void everyIdentifierIsQuotedSoAReservedWordWorksAsTheSchema() throws SQLException {
    // ORDER is reserved: unquoted, the DDL and every statement would fail. The name cannot be
    // made unique, so concurrent runs take turns under an advisory lock.
    String schema = "order";
    try (Connection guard = postgres.connect();
        Statement s = guard.createStatement()) {
      s.execute("SELECT pg_advisory_lock(hashtext('watukuy-test-schema-order'))");
      try {
        PgTest.dropSchema(pool, schema);
        PostgresStore store =
            track(PostgresStore.builder(pool).schema(schema).tablePrefix("select_").build());

        Lease lease = acquire(store, "a", T0);
        store.commitPoll(KEY, lease, batch(1, item("1")), T0);

        assertThat(store.countItems(KEY)).isEqualTo(1);
        assertThat(tables(schema))
            .containsExactly(
                "select_credentials",
                "select_eff_cursors",
                "select_effects",
                "select_invocations",
                "select_items",
                "select_journal",
                "select_log",
                "select_meta",
                "select_outbox",
                "select_parked",
                "select_pollers",
                "select_subjects",
                "select_validators");
        for (String statement : PostgresStore.ddl(schema, "select_").subList(1, 14)) {
          assertThat(statement).contains("\"order\".\"select_");
        }
      } finally {
        opened.forEach(PostgresStore::close);
        PgTest.dropSchema(pool, schema);
        s.execute("SELECT pg_advisory_unlock(hashtext('watukuy-test-schema-order'))");
      }
    }
  }

  @Test
  void longestSchemaAndPrefixCreateEveryNameWithoutTruncation() throws SQLException {
    String schema = schema("s");
    schema = schema + "_" + "x".repeat(63 - schema.length() - 1);
    postgres.dropAfter(schema);
    String prefix = "p".repeat(46);
    PostgresStore store =
        track(PostgresStore.builder(pool).schema(schema).tablePrefix(prefix).build());

    store.migrate();

    assertThat(schema).hasSize(63);
    assertThat(indexes(schema))
        .contains(
            prefix + "outbox_status_seq", prefix + "parked_parked_at", prefix + "validators_pkey");
    Lease lease = acquire(store, "a", T0);
    store.commitPoll(KEY, lease, batch(1, item("1")), T0);
    assertThat(store.countPending(KEY)).isEqualTo(1);
  }

  @Test
  void buildingAStorePerformsNoIoAndNamesTheServerFromTheJdbcUrl() {
    CountingDataSource counting = new CountingDataSource(pool);

    PostgresStore store = PostgresStore.builder(counting).schema(schema("noio")).build();
    PostgresStore hikari = PostgresStore.create(pool);

    assertThat(counting.borrowed.get()).isZero();
    assertThat(hikari.toString()).contains("127.0.0.1:5432/test").doesNotContain("user=");
    // A data source that tells no URL is named from its first connection.
    assertThat(store.toString()).contains("host unknown");
    store.countItems(KEY);
    assertThat(store.toString()).contains("127.0.0.1:5432/test");
    assertThat(counting.borrowed.get()).isPositive();
  }

  // ---- migration

  @Test
  void migrateCreatesTheMissingSchemaAndIsANoOpTheSecondTime() throws SQLException {
    String schema = schema("migrate");
    PostgresStore store = track(PostgresStore.builder(pool).schema(schema).build());
    assertThat(schemaExists(schema)).isFalse();

    store.migrate();
    List<String> catalogue = catalogue(schema);
    Lease lease = acquire(store, "a", T0);
    store.commitPoll(KEY, lease, batch(1, item("1")), T0);
    store.migrate();
    track(PostgresStore.builder(pool).schema(schema).build()).migrate();

    assertThat(schemaExists(schema)).isTrue();
    assertThat(tables(schema))
        .containsExactly(
            "watukuy_credentials",
            "watukuy_eff_cursors",
            "watukuy_effects",
            "watukuy_invocations",
            "watukuy_items",
            "watukuy_journal",
            "watukuy_log",
            "watukuy_meta",
            "watukuy_outbox",
            "watukuy_parked",
            "watukuy_pollers",
            "watukuy_subjects",
            "watukuy_validators");
    assertThat(catalogue(schema)).isEqualTo(catalogue);
    assertThat(schemaVersion(schema, "watukuy_")).isEqualTo("4");
    assertThat(store.countItems(KEY)).isEqualTo(1);
    assertThat(store.getLease(KEY)).contains(lease);
  }

  @Test
  void firstCallWithoutMigrateCreatesTheTables() throws SQLException {
    String schema = schema("lazy");
    PostgresStore store = track(PostgresStore.builder(pool).schema(schema).build());

    assertThat(store.loadState(KEY)).isEmpty();

    assertThat(tables(schema)).hasSize(13);
  }

  @Test
  void threeInstancesMigratingAtOnceAllSucceedWithOneSchema() throws Exception {
    String schema = schema("concurrent");
    int instances = 3;
    List<HikariDataSource> pools = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      // A pool each, as three processes would have.
      HikariDataSource p = PgTest.pool(postgres, run.replace('_', '-') + "-m" + i, 1);
      pools.add(p);
    }
    for (int round = 0; round < 3; round++) {
      // Round 0 creates the schema; later rounds race on a current schema (and on the version).
      if (round == 2) {
        PgTest.execute(pool, "DELETE FROM \"" + schema + "\".watukuy_meta");
      }
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService threads = Executors.newFixedThreadPool(instances);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (HikariDataSource p : pools) {
          PostgresStore store = track(PostgresStore.builder(p).schema(schema).build());
          done.add(
              threads.submit(
                  () -> {
                    start.await();
                    store.migrate();
                    return null;
                  }));
        }
        start.countDown();
        for (Future<?> f : done) {
          f.get(30, TimeUnit.SECONDS);
        }
      } finally {
        threads.shutdownNow();
      }
      assertThat(tables(schema)).as("round %d", round).hasSize(13);
      assertThat(schemaVersion(schema, "watukuy_")).isEqualTo("4");
    }
  }

  @Test
  void aVersionOneSchemaIsUpgradedKeepingItsRowsAndStopsCompressingOutboxEvents()
      throws SQLException {
    String schema = schema("upgrade");
    PostgresStore old = track(PostgresStore.builder(pool).schema(schema).build());
    old.migrate();
    Lease lease = acquire(old, "a", T0);
    old.commitPoll(KEY, lease, batch(1, item("1")), T0);
    // What version 1 left: the default storage (extended: compressed) and version '1'.
    PgTest.execute(
        pool,
        "ALTER TABLE \"" + schema + "\".watukuy_outbox ALTER COLUMN event SET STORAGE EXTENDED");
    PgTest.execute(
        pool,
        "UPDATE \"" + schema + "\".watukuy_meta SET value = '1' WHERE name = 'schema_version'");
    assertThat(eventStorage(schema)).isEqualTo("x");

    track(PostgresStore.builder(pool).schema(schema).build()).migrate();

    assertThat(schemaVersion(schema, "watukuy_")).isEqualTo("4");
    assertThat(eventStorage(schema)).as("pg_attribute.attstorage of outbox.event").isEqualTo("e");
    assertThat(old.countItems(KEY)).isEqualTo(1);
    assertThat(old.countPending(KEY)).isEqualTo(1);
  }

  private static String eventStorage(String schema) throws SQLException {
    try (Connection c = postgres.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT attstorage FROM pg_attribute WHERE attrelid = '\""
                    + schema
                    + "\".watukuy_outbox'::regclass AND attname = 'event'")) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }

  @Test
  void schemaWrittenByANewerReleaseIsRefused() {
    String schema = schema("newer");
    track(PostgresStore.builder(pool).schema(schema).build()).migrate();
    PgTest.execute(
        pool,
        "UPDATE \"" + schema + "\".watukuy_meta SET value = '5' WHERE name = 'schema_version'");

    PostgresStore later = track(PostgresStore.builder(pool).schema(schema).build());

    assertThatThrownBy(() -> later.loadState(KEY))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("schema version 5")
        .hasMessageContaining("newer than this release supports (4)")
        .hasMessageContaining("127.0.0.1:5432/test");
    assertThatThrownBy(later::migrate).isInstanceOf(StoreException.class);
  }

  @Test
  void exportedDdlIsTheResourceAndCreatesWhatMigrateCreates() throws SQLException {
    assertThat(PostgresStore.ddlResource())
        .as(
            "src/main/resources/%s is written from PostgresStore.DDL; after a schema change,"
                + " write it again",
            PostgresStore.DDL_RESOURCE)
        .isEqualTo(PostgresStore.DDL)
        .isEqualTo(PostgresStore.ddlScript("public", "watukuy_"));
    assertThat(PostgresStore.DDL)
        .startsWith("-- watukuy PostgresStore schema version 4")
        .contains("CREATE TABLE IF NOT EXISTS \"public\".\"watukuy_pollers\"")
        .contains(" state jsonb,")
        .contains(" event json NOT NULL,")
        .endsWith(
            "INSERT INTO \"public\".\"watukuy_meta\" (name, value) VALUES ('schema_version', '4')"
                + " ON CONFLICT (name) DO NOTHING;\n");
    assertThat(PostgresStore.ddl("public", "watukuy_")).hasSize(21);

    String byScript = schema("script");
    String byMigrate = schema("migrated");
    String script = PostgresStore.ddlScript(byScript, "watukuy_");
    try (Connection c = postgres.connect();
        Statement s = c.createStatement()) {
      // The script as a migration tool runs it: one text, twice (every statement idempotent).
      s.execute(script);
      s.execute(script);
    }
    track(PostgresStore.builder(pool).schema(byMigrate).build()).migrate();

    assertThat(catalogue(byScript)).isNotEmpty().isEqualTo(catalogue(byMigrate));
    assertThat(schemaVersion(byScript, "watukuy_")).isEqualTo("4");
  }

  @Test
  void roleWithoutCreatePrivilegesUsesASchemaMigratedByTheDdlAndRunsNoDdl() throws SQLException {
    String schema = schema("flyway");
    String role = PgTest.unique("wk_app");
    try (Connection c = postgres.connect();
        Statement s = c.createStatement()) {
      s.execute(PostgresStore.ddlScript(schema, "watukuy_"));
      s.execute("CREATE ROLE " + role + " LOGIN");
      s.execute("GRANT USAGE ON SCHEMA \"" + schema + "\" TO " + role);
      s.execute(
          "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA \""
              + schema
              + "\" TO "
              + role);
    }
    try {
      PGSimpleDataSource app = new PGSimpleDataSource();
      app.setUrl("jdbc:postgresql://127.0.0.1:5432/test?user=" + role);
      PostgresStore store = track(PostgresStore.builder(app).schema(schema).build());

      store.migrate();
      Lease lease = acquire(store, "a", T0);
      store.commitPoll(KEY, lease, batch(1, item("1")), T0);
      assertThat(store.countPending(KEY)).isEqualTo(1);

      // Where the schema is missing, the role cannot create it: a StoreException says why.
      PostgresStore missing = track(PostgresStore.builder(app).schema(schema("denied")).build());
      assertThatThrownBy(() -> missing.loadState(KEY))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("loadState orders[eu] failed while checking or creating the schema")
          .hasMessageContaining("permission denied")
          .hasMessageContaining("42501");
    } finally {
      try (Connection c = postgres.connect();
          Statement s = c.createStatement()) {
        s.execute("DROP OWNED BY " + role);
        s.execute("DROP ROLE " + role);
      }
    }
  }

  // ---- several instances on one schema

  @Test
  void twoStoresOnOneSchemaShareLeasesAndFencing() {
    String schema = schema("shared");
    PostgresStore a = track(PostgresStore.builder(pool).schema(schema).build());
    PostgresStore b = track(PostgresStore.builder(pool).schema(schema).build());

    Lease leaseA = acquire(a, "instance-a", T0);
    assertThat(b.acquireLease(KEY, "instance-b", TTL, T0.plusSeconds(29))).isEmpty();
    assertThat(b.getLease(KEY)).contains(leaseA);
    a.commitPoll(KEY, leaseA, batch(1, item("1")), T0.plusSeconds(1));
    assertThat(b.countPending(KEY)).isEqualTo(1);

    Lease leaseB = acquire(b, "instance-b", leaseA.expiresAt());

    assertThat(leaseB.epoch()).isEqualTo(2);
    assertThat(a.getLease(KEY)).contains(leaseB);
    assertThatThrownBy(() -> a.commitPoll(KEY, leaseA, batch(2, item("2")), leaseA.expiresAt()))
        .isInstanceOfSatisfying(
            LeaseLostException.class,
            e -> {
              assertThat(e.key()).isEqualTo(KEY);
              assertThat(e.heldEpoch()).isEqualTo(1);
              assertThat(e.currentEpoch()).isEqualTo(2L);
            });
    assertThat(b.countItems(KEY)).isEqualTo(1);
    b.commitPoll(KEY, leaseB, batch(2, item("2")), leaseA.expiresAt());
    assertThat(a.countItems(KEY)).isEqualTo(2);
  }

  @Test
  void instancesRacingForAKeyNeverBothHoldItsLease() throws Exception {
    String schema = schema("race");
    int contenders = 6;
    List<PostgresStore> stores =
        IntStream.range(0, contenders)
            .mapToObj(i -> track(PostgresStore.builder(pool).schema(schema).build()))
            .toList();
    stores.get(0).migrate();
    ExecutorService threads = Executors.newFixedThreadPool(contenders);
    try {
      Instant now = T0;
      long epoch = 0;
      for (int round = 0; round < 15; round++) {
        // Every round starts at the previous lease's expiry: all contenders may steal it at once.
        List<Lease> granted = race(threads, stores, now);
        assertThat(granted).as("round %d", round).hasSize(1);
        Lease winner = granted.get(0);
        assertThat(winner.epoch()).isEqualTo(++epoch);
        assertThat(stores.get(0).getLease(KEY)).contains(winner);
        now = winner.expiresAt();
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void racesAreAlsoSafeWhenThePoolRunsSerializableTransactions() throws Exception {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(postgres.url());
    config.setMaximumPoolSize(4);
    config.setTransactionIsolation("TRANSACTION_SERIALIZABLE");
    config.setConnectionInitSql("SET synchronous_commit = off");
    HikariDataSource serializable = new HikariDataSource(config);
    resources.add(serializable);
    String schema = schema("serializable");
    List<PostgresStore> stores =
        IntStream.range(0, 4)
            .mapToObj(i -> track(PostgresStore.builder(serializable).schema(schema).build()))
            .toList();
    stores.get(0).migrate();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Lease> first = race(threads, stores, T0);
      assertThat(first).hasSize(1);
      Lease lease = first.get(0);
      stores.get(1).commitPoll(KEY, lease, batch(1, item("1")), T0);
      List<Lease> second = race(threads, stores, lease.expiresAt());
      assertThat(second).singleElement().satisfies(l -> assertThat(l.epoch()).isEqualTo(2));
      assertThatThrownBy(() -> stores.get(2).commitPoll(KEY, lease, batch(2, item("2")), T0))
          .isInstanceOf(LeaseLostException.class);
      assertThat(stores.get(3).countPending(KEY)).isEqualTo(1);
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void leaseTakenOverWhileAFencedWriteWaitsForTheRowLockFailsThatWrite() throws Exception {
    String schema = schema("waiting");
    PostgresStore store = track(PostgresStore.builder(pool).schema(schema).build());
    Lease stale = acquire(store, "instance-a", T0);
    store.commitPoll(KEY, stale, batch(1, item("1")), T0);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (Connection other = postgres.connect()) {
      other.setAutoCommit(false);
      // Another instance takes the row lock and the lease (as acquireLease does after expiry).
      try (Statement s = other.createStatement()) {
        s.executeUpdate(
            "UPDATE \""
                + schema
                + "\".watukuy_pollers SET lease_owner = 'instance-b',"
                + " lease_epoch = epoch_counter + 1, epoch_counter = epoch_counter + 1");
      }
      Future<?> commit =
          thread.submit(() -> store.commitPoll(KEY, stale, batch(2, item("2")), T0.plusSeconds(1)));
      awaitWaitingOnALock(run.replace('_', '-'));

      other.commit();

      assertThatThrownBy(() -> commit.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(LeaseLostException.class);
    } finally {
      thread.shutdownNow();
    }
    assertThat(store.getLease(KEY)).map(Lease::owner).contains("instance-b");
    assertThat(store.countItems(KEY)).isEqualTo(1);
    assertThat(store.loadState(KEY)).map(PollerState::lastSequence).contains(1L);
  }

  @Test
  void deletedKeyKeepsFencingOutHoldersFromBeforeTheDelete() {
    PostgresStore store = track(PostgresStore.builder(pool).schema(schema("deleted")).build());
    Lease before = acquire(store, "instance-a", T0);
    store.commitPoll(KEY, before, batch(1, item("1")), T0);

    store.deleteKey(KEY);
    Lease after = acquire(store, "instance-a", T0.plusSeconds(1));

    assertThat(after.epoch()).isGreaterThan(before.epoch());
    assertThat(store.listKeys(null)).isEmpty();
    assertThatThrownBy(() -> store.commitPoll(KEY, before, batch(2, item("2")), T0.plusSeconds(1)))
        .isInstanceOf(LeaseLostException.class);
    assertThat(store.countItems(KEY)).isZero();
  }

  @Test
  void storesWithDifferentPrefixesOrSchemasAreIndependent() {
    String schema = schema("prefixes");
    PostgresStore first =
        track(PostgresStore.builder(pool).schema(schema).tablePrefix("one_").build());
    PostgresStore second =
        track(PostgresStore.builder(pool).schema(schema).tablePrefix("two_").build());
    PostgresStore third =
        track(PostgresStore.builder(pool).schema(schema("other")).tablePrefix("one_").build());

    Lease lease = acquire(first, "a", T0);
    first.commitPoll(KEY, lease, batch(1, item("1")), T0);

    for (PostgresStore other : List.of(second, third)) {
      assertThat(other.getLease(KEY)).isEmpty();
      assertThat(other.countItems(KEY)).isZero();
      assertThat(other.acquireLease(KEY, "b", TTL, T0)).map(Lease::epoch).contains(1L);
    }
  }

  // ---- storage

  @Test
  void jsonRoundTripsByteForByteIncludingBigNumbersUnicodeAndEscapedNul() throws SQLException {
    String schema = schema("json");
    PostgresStore store = track(PostgresStore.builder(pool).schema(schema).build());
    Lease lease = acquire(store, "a", T0);
    String payload =
        "{\"z\": 1, \"a\":[1.10, 2E3, 12345678901234567890123456789],"
            + " \"s\":\"x\\u0000y\", \"u\":\"\u00fc\ud83d\ude00\"}";
    String event = "{ \"id\" : \"evt-1\",\"type\":\"created\",\"data\":" + payload + " }";
    ItemRow item = new ItemRow("\u00fc-1", "v1", "0".repeat(64), 1, payload, "ok", T0);
    OutboxRow row = OutboxRow.pending(1, "evt-1", "ok", event, T0.plusMillis(7));

    store.commitPoll(
        KEY,
        lease,
        new CommitBatch(
            StatePatch.NONE.withLastSequence(1),
            List.of(item),
            List.of(),
            List.of(row),
            true,
            List.of()),
        T0);

    assertThat(store.loadVersions(KEY, List.of("\u00fc-1"))).containsEntry("\u00fc-1", item);
    assertThat(store.loadPending(KEY, 0, 10)).containsExactly(row);
    assertThat(store.readLog(KEY, LogRange.ALL, 10)).containsExactly(new LoggedEvent(1, event, T0));
    assertThat(columnTypes(schema))
        .contains(
            "watukuy_pollers.state jsonb",
            "watukuy_pollers.lease_expires_at timestamp with time zone",
            "watukuy_items.payload json",
            "watukuy_outbox.event json",
            "watukuy_outbox.last_error json",
            "watukuy_parked.error json",
            "watukuy_log.event json");
  }

  @Test
  void instantsAreKeptToTheMillisecond() {
    PostgresStore store = track(PostgresStore.builder(pool).schema(schema("millis")).build());
    Instant now = T0.plusNanos(123_456_789);

    Lease lease = store.acquireLease(KEY, "a", TTL, now).orElseThrow();

    assertThat(lease.expiresAt()).isEqualTo(T0.plus(TTL).plusMillis(123));
    assertThat(store.getLease(KEY)).contains(lease);
  }

  @Test
  void outboxKeepsTwoRowsWithTheSameEventId() throws SQLException {
    String schema = schema("sameid");
    PostgresStore store = track(PostgresStore.builder(pool).schema(schema).build());
    Lease lease = acquire(store, "a", T0);

    store.commitPoll(
        KEY,
        lease,
        new CommitBatch(
            StatePatch.NONE.withLastSequence(2),
            List.of(),
            List.of(),
            List.of(event(1, "same-id"), event(2, "same-id")),
            false,
            List.of()),
        T0);

    assertThat(store.loadPending(KEY, 0, 10))
        .extracting(OutboxRow::sequence)
        .containsExactly(1L, 2L);
    assertThat(
            queryLong(
                "SELECT count(*) FROM \""
                    + schema
                    + "\".watukuy_outbox WHERE event_id = 'same-id'"))
        .isEqualTo(2);
  }

  /**
   * What a failed commit says (that it writes nothing is StoreContractTest's
   * commitReusingAPendingSequenceFailsAndWritesNothing): one line with the operation, the key, the
   * server's message, its SQLState and its detail.
   */
  @Test
  void aFailedCommitIsReportedOnOneLineWithTheOperationTheSqlStateAndTheServersDetail() {
    PostgresStore store = track(PostgresStore.builder(pool).schema(schema("reuse")).build());
    Lease lease = acquire(store, "a", T0);
    store.commitPoll(KEY, lease, batch(1, item("1")), T0);

    assertThatThrownBy(() -> store.commitPoll(KEY, lease, batch(1, item("2")), T0))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("commitPoll orders[eu] failed")
        .hasMessageContaining("duplicate key")
        .hasMessageContaining("SQLState 23505")
        .hasMessageContaining(
            "; Detail: Key (poller, partition, seq)=(orders, eu, 1) already exists")
        .hasMessageNotContaining("\n")
        .hasCauseInstanceOf(SQLException.class);
  }

  @Test
  void commitOfFiveThousandItemsAndEventsIsStoredInFull() {
    PostgresStore store = track(PostgresStore.builder(pool).schema(schema("bulk")).build());
    Lease lease = acquire(store, "a", T0);
    List<ItemRow> items = IntStream.range(0, 5000).mapToObj(i -> item("item-" + i)).toList();
    List<OutboxRow> events =
        IntStream.rangeClosed(1, 5000).mapToObj(i -> event(i, "evt-" + i)).toList();

    store.commitPoll(
        KEY,
        lease,
        new CommitBatch(
            StatePatch.NONE.withLastSequence(5000), items, List.of(), events, true, List.of()),
        T0);

    assertThat(store.countItems(KEY)).isEqualTo(5000);
    assertThat(store.countPending(KEY)).isEqualTo(5000);
    assertThat(store.loadVersions(KEY, items.stream().map(ItemRow::identity).toList()))
        .hasSize(5000);
    store.ackEvents(KEY, lease, events.stream().map(OutboxRow::sequence).toList());
    assertThat(store.countPending(KEY)).isZero();
  }

  /**
   * A long-lived daemon's ack runs on the server's generic plan, whose statistics may date from a
   * small outbox. With {@code seq = ANY (?)} that plan compared every row of the key with the whole
   * list: 70,000 sequences took 8 s on an idle server, 30 ms on a fresh plan. The bound is far from
   * both, so a loaded machine does not fail it and the quadratic plan cannot pass it.
   */
  @Test
  void anAckOfManySequencesStaysFastOnAGenericPlanWithStatisticsOfASmallOutbox() {
    HikariDataSource single = PgTest.pool(postgres, run.replace('_', '-') + "-generic", 1);
    String schema = schema("generic");
    PostgresStore store = track(PostgresStore.builder(single).schema(schema).build());
    PgTest.execute(single, "SET plan_cache_mode = force_generic_plan"); // the one connection
    Lease lease = acquire(store, "a", T0);
    int count = 70_000;
    List<OutboxRow> events =
        LongStream.rangeClosed(1, count).mapToObj(i -> event(i, "evt-" + i)).toList();
    store.commitPoll(
        KEY,
        lease,
        new CommitBatch(
            StatePatch.NONE.withLastSequence(3),
            List.of(),
            List.of(),
            events.subList(0, 3),
            true,
            List.of()),
        T0);
    PgTest.execute(single, "ANALYZE \"" + schema + "\".watukuy_outbox"); // three rows
    store.ackEvents(KEY, lease, List.of(1L, 2L, 3L));
    store.commitPoll(
        KEY,
        lease,
        new CommitBatch(
            StatePatch.NONE.withLastSequence(count),
            List.of(),
            List.of(),
            events.subList(3, count),
            true,
            List.of()),
        T0);

    long started = System.nanoTime();
    store.ackEvents(KEY, lease, events.stream().map(OutboxRow::sequence).toList());
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(store.countPending(KEY)).isZero();
    assertThat(took).as("ack of %d sequences", count).isLessThan(Duration.ofSeconds(3));
  }

  @Test
  void streamIdentitiesHoldsNoConnectionBetweenBatches() {
    HikariDataSource single = PgTest.pool(postgres, run.replace('_', '-') + "-single", 1);
    PostgresStore store = track(PostgresStore.builder(single).schema(schema("stream")).build());
    Lease lease = acquire(store, "a", T0);
    List<ItemRow> items = IntStream.range(0, 10).mapToObj(i -> item("id-" + i)).toList();
    store.commitPoll(
        KEY,
        lease,
        new CommitBatch(StatePatch.NONE, items, List.of(), List.of(), false, List.of()),
        T0);

    List<String> seen = new ArrayList<>();
    try (var stream = store.streamIdentities(KEY, 4)) {
      stream.forEach(
          batch -> {
            seen.addAll(batch);
            // With a pool of one connection, a write between batches works only if the stream
            // holds none.
            store.saveState(KEY, lease, StatePatch.NONE, T0);
          });
    }

    assertThat(seen)
        .containsExactlyElementsOf(items.stream().map(ItemRow::identity).sorted().toList());
  }

  // ---- lifecycle

  @Test
  void closeClientClosesThePoolAndOnlyThen() {
    HikariDataSource owned = PgTest.pool(postgres, run.replace('_', '-') + "-owned", 1);
    HikariDataSource kept = PgTest.pool(postgres, run.replace('_', '-') + "-kept", 1);
    String schema = schema("close");
    PostgresStore closing = PostgresStore.builder(owned).schema(schema).closeClient(true).build();
    PostgresStore leaving = PostgresStore.builder(kept).schema(schema).build();
    closing.countItems(KEY);
    leaving.countItems(KEY);

    closing.close();
    closing.close();
    leaving.close();

    assertThat(owned.isClosed()).isTrue();
    assertThat(kept.isClosed()).isFalse();
    assertThatThrownBy(() -> leaving.countItems(KEY))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  // ---- failures

  @Test
  void serverDownFailsWithAStoreExceptionNamingHostDatabaseAndOperationButNoPassword()
      throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    String url =
        "jdbc:postgresql://127.0.0.1:"
            + port
            + "/test?user=postgres&password="
            + PASSWORD
            + "&connectTimeout=2";
    PGSimpleDataSource plain = new PGSimpleDataSource();
    plain.setUrl(url);
    HikariDataSource hikari = new HikariDataSource();
    hikari.setJdbcUrl(url);
    hikari.setConnectionTimeout(1_000);
    resources.add(hikari);

    for (DataSource down : List.of(plain, hikari)) {
      PostgresStore store = track(PostgresStore.builder(down).schema(schema("down")).build());

      assertThatThrownBy(() -> store.acquireLease(KEY, "a", TTL, T0))
          .as("%s", down.getClass().getSimpleName())
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("postgres store 127.0.0.1:" + port + "/test")
          .hasMessageContaining("acquireLease orders[eu] failed")
          .hasMessageNotContaining(PASSWORD)
          .hasMessageNotContaining("password")
          .hasCauseInstanceOf(SQLException.class);
      assertThatThrownBy(store::migrate)
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("127.0.0.1:" + port + "/test")
          .hasMessageContaining("migrate failed")
          .hasMessageNotContaining(PASSWORD);
    }
  }

  @Test
  void backendTerminatedMidCommitFailsThatCommitWholeAndTheStoreRecovers() throws Exception {
    String application = run.replace('_', '-') + "-terminated";
    // One connection, so the pool must replace the terminated one; a password in the URL that
    // no message may show.
    HikariDataSource single =
        PgTest.pool(postgres, application, 1, postgres.url() + "&password=" + PASSWORD);
    String schema = schema("terminate");
    PostgresStore store = track(PostgresStore.builder(single).schema(schema).build());
    Lease lease = acquire(store, "a", T0);
    store.commitPoll(
        KEY,
        lease,
        new CommitBatch(
            StatePatch.NONE.withLastSequence(1),
            List.of(item("1"), item("2")),
            List.of(),
            List.of(event(1, "evt-1")),
            false,
            List.of()),
        T0);
    CommitBatch second =
        new CommitBatch(
            StatePatch.NONE.withLastSequence(2),
            List.of(item("0", "v2"), item("2", "v2")),
            List.of(),
            List.of(event(2, "evt-2")),
            true,
            List.of());

    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (Connection blocker = postgres.connect()) {
      blocker.setAutoCommit(false);
      try (Statement s = blocker.createStatement()) {
        // Holds item 2: the commit writes the state and item 0, then waits here.
        s.executeQuery(
                "SELECT 1 FROM \"" + schema + "\".watukuy_items WHERE identity = '2' FOR UPDATE")
            .close();
      }
      Future<?> commit =
          thread.submit(() -> store.commitPoll(KEY, lease, second, T0.plusSeconds(1)));
      awaitWaitingOnALock(application);

      assertThat(terminate(application)).isEqualTo(1);

      assertThatThrownBy(() -> commit.get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("postgres store 127.0.0.1:5432/test (schema " + schema)
          .hasMessageContaining("commitPoll orders[eu] failed")
          .hasMessageContaining("57P01")
          .hasMessageNotContaining(PASSWORD)
          .hasCauseInstanceOf(SQLException.class);
      blocker.rollback();
    } finally {
      thread.shutdownNow();
    }

    // Nothing of the failed commit stayed.
    assertThat(store.loadState(KEY)).map(PollerState::lastSequence).contains(1L);
    assertThat(store.loadVersions(KEY, List.of("0", "1", "2")))
        .containsOnlyKeys("1", "2")
        .allSatisfy((id, row) -> assertThat(row.version()).isEqualTo("v1"));
    assertThat(store.loadPending(KEY, 0, 10)).extracting(OutboxRow::sequence).containsExactly(1L);
    assertThat(store.readLog(KEY, LogRange.ALL, 10)).isEmpty();
    // The store recovered by itself (the pool replaced the connection): the same commit now lands.
    store.commitPoll(KEY, lease, second, T0.plusSeconds(1));
    assertThat(store.loadState(KEY)).map(PollerState::lastSequence).contains(2L);
    assertThat(store.loadPending(KEY, 0, 10))
        .extracting(OutboxRow::sequence)
        .containsExactly(1L, 2L);
  }

  // ---- helpers

  /** A fresh schema name of this run, dropped after the test. */
  private static String schema(String name) {
    return postgres.dropAfter(run + "_" + name);
  }

  private PostgresStore track(PostgresStore store) {
    opened.add(store);
    return store;
  }

  private static Lease acquire(PostgresStore store, String owner, Instant now) {
    return store.acquireLease(KEY, owner, TTL, now).orElseThrow();
  }

  private static List<Lease> race(ExecutorService threads, List<PostgresStore> stores, Instant now)
      throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Optional<Lease>>> results = new ArrayList<>();
    for (int i = 0; i < stores.size(); i++) {
      PostgresStore store = stores.get(i);
      String owner = "instance-" + i;
      Callable<Optional<Lease>> attempt =
          () -> {
            start.await();
            return store.acquireLease(KEY, owner, TTL, now);
          };
      results.add(threads.submit(attempt));
    }
    start.countDown();
    List<Lease> granted = new ArrayList<>();
    for (Future<Optional<Lease>> result : results) {
      result.get(30, TimeUnit.SECONDS).ifPresent(granted::add);
    }
    return granted;
  }

  private static ItemRow item(String identity) {
    return item(identity, "v1");
  }

  private static ItemRow item(String identity, String version) {
    return new ItemRow(identity, version, "0".repeat(64), 1, null, "ok-" + identity, T0);
  }

  private static OutboxRow event(long sequence, String eventId) {
    return OutboxRow.pending(
        sequence, eventId, "ok-" + sequence, "{\"sequence\":" + sequence + "}", T0);
  }

  private static CommitBatch batch(long sequence, ItemRow item) {
    return new CommitBatch(
        StatePatch.NONE.withLastSequence(sequence),
        List.of(item),
        List.of(),
        List.of(event(sequence, "evt-" + sequence)),
        false,
        List.of());
  }

  /** Waits (at most 10 s) until a backend of {@code application} waits for a lock. */
  private static void awaitWaitingOnALock(String application) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (queryLong(
              "SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
                  + application
                  + "' AND wait_event_type = 'Lock'")
          > 0) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no backend of " + application + " waited for a lock within 10 s");
  }

  private static long terminate(String application) throws SQLException {
    return queryLong(
        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            + " WHERE datname = 'test' AND pid <> pg_backend_pid() AND application_name = '"
            + application
            + "') t");
  }

  private static long queryLong(String sql) throws SQLException {
    try (Connection c = postgres.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static List<String> strings(String sql, String schema) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = postgres.connect();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, schema);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  private static boolean schemaExists(String schema) throws SQLException {
    return !strings("SELECT nspname FROM pg_namespace WHERE nspname = ?", schema).isEmpty();
  }

  private static List<String> tables(String schema) throws SQLException {
    return strings(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = ?"
            + " ORDER BY table_name",
        schema);
  }

  private static List<String> indexes(String schema) throws SQLException {
    return strings(
        "SELECT indexname FROM pg_indexes WHERE schemaname = ? ORDER BY indexname", schema);
  }

  private static List<String> columnTypes(String schema) throws SQLException {
    return strings(
        "SELECT table_name || '.' || column_name || ' ' || data_type FROM information_schema.columns"
            + " WHERE table_schema = ? ORDER BY 1",
        schema);
  }

  /**
   * Columns (type, nullability, default, collation), indexes and constraints of a schema, with the
   * schema's name replaced, so two schemas can be compared.
   */
  private static List<String> catalogue(String schema) throws SQLException {
    List<String> all = new ArrayList<>();
    all.addAll(
        strings(
            "SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable"
                + " || ' ' || coalesce(column_default, '-') || ' ' || coalesce(collation_name, '-')"
                + " FROM information_schema.columns WHERE table_schema = ?"
                + " ORDER BY table_name, ordinal_position",
            schema));
    for (String index :
        strings(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = ? ORDER BY indexname", schema)) {
      all.add(index.replace(schema, "S"));
    }
    all.addAll(
        strings(
                "SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)"
                    + " FROM pg_constraint WHERE connamespace = (SELECT oid FROM pg_namespace"
                    + " WHERE nspname = ?) ORDER BY conname",
                schema)
            .stream()
            .map(s -> s.replace(schema, "S"))
            .toList());
    return all;
  }

  private static String schemaVersion(String schema, String prefix) throws SQLException {
    try (Connection c = postgres.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT value FROM \""
                    + schema
                    + "\"."
                    + prefix
                    + "meta WHERE name = 'schema_version'")) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }

  /** Counts the connections borrowed; tells no URL, as a wrapped data source would not. */
  private static final class CountingDataSource implements DataSource {
    private final DataSource delegate;
    final AtomicInteger borrowed = new AtomicInteger();

    CountingDataSource(DataSource delegate) {
      this.delegate = delegate;
    }

    @Override
    public Connection getConnection() throws SQLException {
      borrowed.incrementAndGet();
      return delegate.getConnection();
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      borrowed.incrementAndGet();
      return delegate.getConnection(user, password);
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return false;
    }
  }
}
