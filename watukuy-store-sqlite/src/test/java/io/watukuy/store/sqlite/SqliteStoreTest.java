package io.watukuy.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.watukuy.ConfigException;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteStoreTest {

  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final PollerKey KEY = PollerKey.of("orders", "eu");

  @TempDir Path dir;

  private final List<SqliteStore> opened = new ArrayList<>();
  private int files;

  @AfterEach
  void closeStores() {
    opened.forEach(SqliteStore::close);
  }

  // ---- options

  @Test
  void tablePrefixThatIsNotAnIdentifierIsRejectedNamingTheOptionAndTheValue() {
    SqliteStore.Builder builder = SqliteStore.builder(file());

    assertThatThrownBy(() -> builder.tablePrefix("bad-prefix;"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("tablePrefix")
        .hasMessageContaining("'bad-prefix;'");
    for (String bad : List.of("", "1st_", "a b", "x\"; DROP TABLE t; --", "p".repeat(42))) {
      assertThatThrownBy(() -> builder.tablePrefix(bad))
          .as("prefix %s", bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("tablePrefix");
    }
    assertThatThrownBy(() -> SqliteStore.ddl("no-dashes"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("tablePrefix");
  }

  @Test
  void identifierPrefixesUpToFortyOneCharactersAreAccepted() {
    for (String good : List.of("_", "w", "watukuy_", "Orders_2024_", "p".repeat(41))) {
      assertThat(SqliteStore.builder(file()).tablePrefix(good).build().tablePrefix())
          .isEqualTo(good);
    }
  }

  @Test
  void negativeBusyTimeoutIsRejectedNamingTheOptionAndTheValue() {
    assertThatThrownBy(() -> SqliteStore.builder(file()).busyTimeoutMs(-1))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("busyTimeoutMs")
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> SqliteStore.builder(file()).busyTimeoutMs(1L + Integer.MAX_VALUE))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("busyTimeoutMs");
  }

  @Test
  void blankPathIsRejected() {
    assertThatThrownBy(() -> SqliteStore.builder(" "))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("path");
  }

  @Test
  void defaultsAreThePrefixWatukuyAndFiveSecondsOfBusyTimeout() {
    SqliteStore store = SqliteStore.open(file());

    assertThat(store.tablePrefix())
        .isEqualTo("watukuy_")
        .isEqualTo(SqliteStore.DEFAULT_TABLE_PREFIX);
    assertThat(store.busyTimeoutMs())
        .isEqualTo(5000)
        .isEqualTo(SqliteStore.DEFAULT_BUSY_TIMEOUT_MS);
  }

  // ---- lifecycle and schema

  @Test
  void buildingAStorePerformsNoIo() {
    Path missingFolder = dir.resolve("not-yet").resolve("store.db");

    SqliteStore store = track(SqliteStore.builder(missingFolder).tablePrefix("x_").build());

    assertThat(missingFolder.getParent()).doesNotExist();
    assertThat(store.path()).isEqualTo(missingFolder.toString());
  }

  @Test
  void fileInAMissingFolderFailsOnFirstUseWithAStoreExceptionNamingThePath() {
    Path missingFolder = dir.resolve("not-yet").resolve("store.db");
    SqliteStore store = track(SqliteStore.open(missingFolder));

    assertThatThrownBy(() -> store.loadState(KEY))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(missingFolder.toString())
        .hasMessageContaining("loadState");
  }

  @Test
  void firstCallWithoutMigrateCreatesTheTables() throws SQLException {
    Path file = file();
    SqliteStore store = track(SqliteStore.open(file));
    assertThat(file).doesNotExist();

    assertThat(store.loadState(KEY)).isEmpty();

    assertThat(tables(file))
        .containsExactlyInAnyOrder(
            "watukuy_meta",
            "watukuy_pollers",
            "watukuy_items",
            "watukuy_outbox",
            "watukuy_parked",
            "watukuy_validators",
            "watukuy_log",
            "watukuy_credentials",
            "watukuy_effects",
            "watukuy_eff_cursors",
            "watukuy_invocations",
            "watukuy_journal",
            "watukuy_subjects");
    assertThat(schemaVersion(file, "watukuy_")).isEqualTo("3");
  }

  @Test
  void customPrefixCreatesEveryTableAndIndexWithThatPrefix() throws SQLException {
    Path file = file();
    SqliteStore store = track(SqliteStore.builder(file).tablePrefix("acme_").build());

    store.migrate();

    assertThat(tables(file))
        .containsExactlyInAnyOrder(
            "acme_meta",
            "acme_pollers",
            "acme_items",
            "acme_outbox",
            "acme_parked",
            "acme_validators",
            "acme_log",
            "acme_credentials",
            "acme_effects",
            "acme_eff_cursors",
            "acme_invocations",
            "acme_journal",
            "acme_subjects");
    assertThat(indexes(file))
        .containsExactlyInAnyOrder(
            "acme_outbox_event_id",
            "acme_outbox_status_seq",
            "acme_parked_parked_at",
            "acme_log_created_at",
            "acme_eff_cursors_src");
  }

  @Test
  void migrateTwiceIsANoOp() throws SQLException {
    Path file = file();
    SqliteStore store = track(SqliteStore.open(file));
    store.migrate();
    Lease lease = acquire(store, "a", T0);
    store.commitPoll(KEY, lease, batch(1, item("1")), T0);
    List<String> schemaBefore = schemaSql(file);

    store.migrate();
    track(SqliteStore.open(file)).migrate();

    assertThat(schemaSql(file)).isEqualTo(schemaBefore);
    assertThat(schemaVersion(file, "watukuy_")).isEqualTo("3");
    assertThat(store.countItems(KEY)).isEqualTo(1);
    assertThat(store.countPending(KEY)).isEqualTo(1);
    assertThat(store.getLease(KEY)).contains(lease);
  }

  @Test
  void schemaWrittenByANewerReleaseIsRefused() throws SQLException {
    Path file = file();
    track(SqliteStore.open(file)).migrate();
    execute(file, "UPDATE watukuy_meta SET value = '99' WHERE name = 'schema_version'");
    SqliteStore newer = track(SqliteStore.open(file));

    assertThatThrownBy(newer::migrate)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("schema version 99")
        .hasMessageContaining("upgrade");
  }

  @Test
  void publishedDdlCreatesASchemaTheStoreUsesWithoutMigrating() throws SQLException {
    Path file = file();
    for (String statement : SqliteStore.ddl("ext_")) {
      execute(file, statement);
    }
    List<String> schemaBefore = schemaSql(file);
    SqliteStore store = track(SqliteStore.builder(file).tablePrefix("ext_").build());

    Lease lease = acquire(store, "a", T0);
    store.commitPoll(KEY, lease, batch(1, item("1")), T0);

    assertThat(schemaSql(file)).isEqualTo(schemaBefore);
    assertThat(store.countItems(KEY)).isEqualTo(1);
  }

  @Test
  void connectionUsesWriteAheadLogging() throws SQLException {
    Path file = file();
    track(SqliteStore.open(file)).migrate();

    try (Connection c = connect(file);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo("wal");
    }
  }

  @Test
  void dataSurvivesCloseAndReopen() {
    Path file = file();
    SqliteStore first = SqliteStore.open(file);
    Lease lease = acquire(first, "a", T0);
    first.commitPoll(
        KEY,
        lease,
        new CommitBatch(
            StatePatch.NONE.withCursors(Map.of("live", "\"c1\"")).withLastSequence(1),
            List.of(item("1")),
            List.of(),
            List.of(event(1, "evt-1")),
            true,
            List.of()),
        T0);
    PollerState state = first.loadState(KEY).orElseThrow();
    first.close();

    SqliteStore reopened = track(SqliteStore.open(file));

    assertThat(reopened.loadState(KEY)).contains(state);
    assertThat(reopened.getLease(KEY)).contains(lease);
    assertThat(reopened.loadVersions(KEY, List.of("1"))).containsEntry("1", item("1"));
    assertThat(reopened.loadPending(KEY, 0, 10)).containsExactly(event(1, "evt-1"));
    assertThat(reopened.readLog(KEY, LogRange.ALL, 10)).hasSize(1);
    // The reopened store holds the lease's record, so the old holder keeps writing.
    reopened.ackEvents(KEY, lease, List.of(1L));
    assertThat(reopened.countPending(KEY)).isZero();
  }

  @Test
  void closeIsIdempotentAndLaterCallsFailAsMisuse() {
    SqliteStore store = SqliteStore.open(file());
    store.migrate();

    store.close();
    store.close();

    assertThatThrownBy(() -> store.loadState(KEY))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(store::migrate).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void closingAStoreThatWasNeverUsedCreatesNoFile() {
    Path file = file();

    SqliteStore.open(file).close();

    assertThat(file).doesNotExist();
  }

  // ---- memory

  @Test
  void memoryDatabaseWorksAndIsPrivateToItsStore() {
    SqliteStore store = track(SqliteStore.builder(SqliteStore.MEMORY).build());
    SqliteStore other = track(SqliteStore.builder(":memory:").build());

    Lease lease = acquire(store, "a", T0);
    store.commitPoll(KEY, lease, batch(1, item("1")), T0);

    assertThat(store.countItems(KEY)).isEqualTo(1);
    assertThat(store.countPending(KEY)).isEqualTo(1);
    assertThat(other.countItems(KEY)).isZero();
    assertThat(other.getLease(KEY)).isEmpty();
    assertThat(Path.of(SqliteStore.MEMORY)).doesNotExist();
  }

  @Test
  void memoryDatabaseIsGoneAfterClose() {
    SqliteStore store = SqliteStore.open(Path.of(SqliteStore.MEMORY));
    store.saveStateUnfenced(KEY, StatePatch.NONE, T0);
    assertThat(store.listKeys(null)).containsExactly(KEY);

    store.close();

    assertThat(track(SqliteStore.open(Path.of(SqliteStore.MEMORY))).listKeys(null)).isEmpty();
    assertThat(Path.of(SqliteStore.MEMORY)).doesNotExist();
  }

  // ---- several processes on one file

  @Test
  void twoStoresOnOneFileShareLeasesAndFencing() {
    Path file = file();
    SqliteStore a = track(SqliteStore.open(file));
    SqliteStore b = track(SqliteStore.open(file));

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
    assertThat(b.countPending(KEY)).isEqualTo(1);
    b.commitPoll(KEY, leaseB, batch(2, item("2")), leaseA.expiresAt());
    assertThat(a.countItems(KEY)).isEqualTo(2);
  }

  @Test
  void concurrentAcquisitionsFromManyStoresOnOneFileGrantExactlyOneLease() throws Exception {
    Path file = file();
    track(SqliteStore.open(file)).migrate();
    int contenders = 8;
    List<SqliteStore> stores =
        IntStream.range(0, contenders).mapToObj(i -> track(SqliteStore.open(file))).toList();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(contenders);
    try {
      List<Future<Optional<Lease>>> results = new ArrayList<>();
      for (int i = 0; i < contenders; i++) {
        SqliteStore store = stores.get(i);
        String owner = "instance-" + i;
        Callable<Optional<Lease>> attempt =
            () -> {
              start.await();
              return store.acquireLease(KEY, owner, TTL, T0);
            };
        results.add(pool.submit(attempt));
      }
      start.countDown();

      List<Lease> granted = new ArrayList<>();
      for (Future<Optional<Lease>> result : results) {
        result.get(30, TimeUnit.SECONDS).ifPresent(granted::add);
      }

      assertThat(granted).singleElement().satisfies(l -> assertThat(l.epoch()).isEqualTo(1));
      assertThat(stores.get(0).getLease(KEY)).contains(granted.get(0));
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void writeLockHeldLongerThanTheBusyTimeoutFailsWithAStoreExceptionAndWritesNothing()
      throws SQLException {
    Path file = file();
    SqliteStore store = track(SqliteStore.builder(file).busyTimeoutMs(0).build());
    Lease lease = acquire(store, "a", T0);

    try (Connection other = connect(file);
        Statement s = other.createStatement()) {
      s.execute("BEGIN IMMEDIATE");
      try {
        assertThatThrownBy(() -> store.commitPoll(KEY, lease, batch(1, item("1")), T0))
            .isInstanceOf(StoreException.class)
            .hasMessageContaining(file.toString())
            .hasMessageContaining("commitPoll")
            .hasMessageContaining(KEY.toString())
            .hasMessageContaining("busyTimeoutMs=0")
            .hasCauseInstanceOf(SQLException.class);
      } finally {
        s.execute("ROLLBACK");
      }
    }

    assertThat(store.countItems(KEY)).isZero();
    store.commitPoll(KEY, lease, batch(1, item("1")), T0);
    assertThat(store.countItems(KEY)).isEqualTo(1);
  }

  @Test
  void storesWithDifferentPrefixesInOneFileAreIndependent() {
    Path file = file();
    SqliteStore first = track(SqliteStore.builder(file).tablePrefix("one_").build());
    SqliteStore second = track(SqliteStore.builder(file).tablePrefix("two_").build());

    Lease lease = acquire(first, "a", T0);
    first.commitPoll(KEY, lease, batch(1, item("1")), T0);

    assertThat(second.getLease(KEY)).isEmpty();
    assertThat(second.countItems(KEY)).isZero();
    assertThat(second.acquireLease(KEY, "b", TTL, T0)).map(Lease::epoch).contains(1L);
  }

  @Test
  void deletedKeyKeepsFencingOutHoldersFromBeforeTheDelete() {
    SqliteStore store = track(SqliteStore.open(file()));
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

  // ---- outbox and bulk writes

  @Test
  void outboxKeepsTwoRowsWithTheSameEventId() throws SQLException {
    Path file = file();
    SqliteStore store = track(SqliteStore.open(file));
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
    try (Connection c = connect(file);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT COUNT(*) FROM watukuy_outbox WHERE event_id = 'same-id'")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(2);
    }
  }

  @Test
  void commitOfFiveHundredItemsAndEventsIsStoredInFull() {
    SqliteStore store = track(SqliteStore.open(file()));
    Lease lease = acquire(store, "a", T0);
    List<ItemRow> items = IntStream.range(0, 500).mapToObj(i -> item("item-" + i)).toList();
    List<OutboxRow> events =
        IntStream.rangeClosed(1, 500).mapToObj(i -> event(i, "evt-" + i)).toList();

    store.commitPoll(
        KEY,
        lease,
        new CommitBatch(
            StatePatch.NONE.withLastSequence(500), items, List.of(), events, true, List.of()),
        T0);

    assertThat(store.countItems(KEY)).isEqualTo(500);
    assertThat(store.countPending(KEY)).isEqualTo(500);
    assertThat(store.loadVersions(KEY, items.stream().map(ItemRow::identity).toList()))
        .hasSize(500);
  }

  @Test
  void streamIdentitiesHoldsNoCursorBetweenBatches() {
    SqliteStore store = track(SqliteStore.open(file()));
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
            // A write between batches neither blocks nor breaks the walk.
            store.saveState(KEY, lease, StatePatch.NONE, T0);
          });
    }

    assertThat(seen)
        .containsExactlyElementsOf(items.stream().map(ItemRow::identity).sorted().toList());
    assertThatThrownBy(() -> store.streamIdentities(KEY, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // ---- helpers

  private Path file() {
    return dir.resolve("store-" + ++files + ".db");
  }

  private SqliteStore track(SqliteStore store) {
    opened.add(store);
    return store;
  }

  private static Lease acquire(SqliteStore store, String owner, Instant now) {
    return store.acquireLease(KEY, owner, TTL, now).orElseThrow();
  }

  private static ItemRow item(String identity) {
    return new ItemRow(identity, "v1", "0".repeat(64), 1, null, "ok-" + identity, T0);
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

  private static Connection connect(Path file) throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + file);
  }

  private static void execute(Path file, String sql) throws SQLException {
    try (Connection c = connect(file);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static List<String> names(Path file, String type) throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection c = connect(file);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT name FROM sqlite_master WHERE type = '"
                    + type
                    + "' AND name NOT LIKE 'sqlite_%' ORDER BY name")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }

  private static List<String> tables(Path file) throws SQLException {
    return names(file, "table");
  }

  private static List<String> indexes(Path file) throws SQLException {
    return names(file, "index");
  }

  private static List<String> schemaSql(Path file) throws SQLException {
    List<String> sql = new ArrayList<>();
    try (Connection c = connect(file);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")) {
      while (rs.next()) {
        sql.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3));
      }
    }
    return sql;
  }

  private static String schemaVersion(Path file, String prefix) throws SQLException {
    try (Connection c = connect(file);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT value FROM " + prefix + "meta WHERE name = 'schema_version'")) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }
}
