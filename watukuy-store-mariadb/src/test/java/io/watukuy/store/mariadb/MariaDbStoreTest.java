package io.watukuy.store.mariadb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.ConfigException;
import io.watukuy.LeaseLostException;
import io.watukuy.PollerKey;
import io.watukuy.StoreException;
import io.watukuy.spi.CommitBatch;
import io.watukuy.spi.EffectStore;
import io.watukuy.spi.ItemRow;
import io.watukuy.spi.Lease;
import io.watukuy.spi.LogRange;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.OutboxRow;
import io.watukuy.spi.PollerState;
import io.watukuy.spi.StatePatch;
import io.watukuy.spi.StoredCredential;
import java.net.ServerSocket;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * MariaDbStore on the local MariaDB beyond the contract: options, migration (idempotent,
 * concurrent, the exported DDL), key lengths, lease races between instances, the isolation of its
 * transactions, storage, and failures (lock wait timeouts, a connection killed mid-commit, the
 * server down). Every test works with a table prefix of its own in a database of this class,
 * dropped after it.
 */
class MariaDbStoreTest {

  private static final Instant T0 = Instant.parse("2024-01-01T00:00:00Z");
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final PollerKey KEY = PollerKey.of("orders", "eu");

  /** Never a real credential: root has no password here, so it is sent and refused or ignored. */
  private static final String PASSWORD = "maria-secret-never-shown";

  private static String database;
  private static HikariDataSource pool;
  private static int prefixes;

  private final List<MariaDbStore> opened = new ArrayList<>();
  private final List<AutoCloseable> resources = new ArrayList<>();

  @BeforeAll
  static void openPool() {
    database = MariaDbTest.createDatabase("wk_store");
    pool = MariaDbTest.pool(database, "watukuy-store", 8);
  }

  @AfterAll
  static void dropDatabase() {
    try {
      pool.close();
    } finally {
      MariaDbTest.dropDatabase(database);
    }
  }

  @AfterEach
  void closeStores() throws Exception {
    opened.forEach(MariaDbStore::close);
    for (AutoCloseable r : resources) {
      r.close();
    }
  }

  // ---- options

  @Test
  void defaultsArePrefixWatukuyAndTheCallerOwnsTheDataSource() {
    MariaDbStore store = track(MariaDbStore.create(pool));

    assertThat(store.tablePrefix()).isEqualTo("watukuy_");
    assertThat(store.closeClient()).isFalse();
    assertThat(store.capabilities().transactions()).isTrue();
    assertThat(store.toString())
        .isEqualTo("MariaDbStore[127.0.0.1:3306/" + database + ", tablePrefix=watukuy_]");
  }

  @Test
  void prefixThatIsNotAPlainIdentifierIsRejectedNamingTheOptionAndTheValue() {
    for (String bad : List.of("", "Orders_", "1x", "a-b", "a`b", "x".repeat(54))) {
      assertThatThrownBy(() -> MariaDbStore.builder(pool).tablePrefix(bad))
          .as("'%s'", bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("tablePrefix")
          .hasMessageContaining("'" + bad + "'");
    }
    assertThatThrownBy(() -> MariaDbStore.ddl("DROP TABLE x"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'DROP TABLE x'");
  }

  @Test
  void longestPrefixCreatesEveryTable() throws SQLException {
    String prefix = "p" + "x".repeat(MariaDbOptions.MAX_PREFIX_LENGTH - 1);
    MariaDbStore store = track(MariaDbStore.builder(pool).tablePrefix(prefix).build());

    store.migrate();

    assertThat(tables(prefix)).hasSize(13).allSatisfy(t -> assertThat(t).hasSizeLessThan(65));
  }

  // ---- migration and DDL

  @Test
  void migrateCreatesTheTablesAndIsANoOpTheSecondTime() throws SQLException {
    String prefix = prefix();
    MariaDbStore store = track(MariaDbStore.builder(pool).tablePrefix(prefix).build());

    store.migrate();
    store.migrate();

    assertThat(tables(prefix))
        .containsExactly(
            prefix + "credentials",
            // information_schema's collation compares letters as capitals, which sort before '_'
            prefix + "effects",
            prefix + "eff_cursors",
            prefix + "invocations",
            prefix + "items",
            prefix + "journal",
            prefix + "log",
            prefix + "meta",
            prefix + "outbox",
            prefix + "parked",
            prefix + "pollers",
            prefix + "subjects",
            prefix + "validators");
    assertThat(schemaVersion(prefix)).isEqualTo("3");
  }

  @Test
  void threeInstancesMigratingAtOnceAllSucceedWithOneSchema() throws Exception {
    String prefix = prefix();
    ExecutorService threads = Executors.newFixedThreadPool(3);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> runs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        MariaDbStore store = track(MariaDbStore.builder(pool).tablePrefix(prefix).build());
        runs.add(
            threads.submit(
                () -> {
                  start.await();
                  store.migrate();
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> run : runs) {
        run.get(60, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(tables(prefix)).hasSize(13);
    assertThat(schemaVersion(prefix)).isEqualTo("3");
  }

  @Test
  void aVersionOneSchemaGainsTheCredentialsTableKeepingItsRows() throws SQLException {
    String prefix = prefix();
    MariaDbStore old = track(MariaDbStore.builder(pool).tablePrefix(prefix).build());
    old.migrate();
    Lease lease = acquire(old, "a", T0);
    old.commitPoll(KEY, lease, batch(1, item("1")), T0);
    // What version 1 left: no credentials table, version '1'.
    execute("DROP TABLE `" + prefix + "credentials`");
    execute("UPDATE `" + prefix + "meta` SET value = '1' WHERE name = 'schema_version'");

    MariaDbStore upgraded = track(MariaDbStore.builder(pool).tablePrefix(prefix).build());
    upgraded.migrate();

    assertThat(schemaVersion(prefix)).isEqualTo("3");
    assertThat(tables(prefix)).contains(prefix + "credentials").hasSize(13);
    assertThat(upgraded.countItems(KEY)).isEqualTo(1);
    assertThat(upgraded.countPending(KEY)).isEqualTo(1);
    StoredCredential first = new StoredCredential("refresh", 1, "sealed", null, null, T0);
    assertThat(upgraded.compareAndSetCredential(0, first)).isTrue();
    assertThat(upgraded.loadCredential("refresh")).contains(first);
  }

  @Test
  void schemaWrittenByANewerReleaseIsRefused() throws SQLException {
    String prefix = prefix();
    MariaDbStore store = track(MariaDbStore.builder(pool).tablePrefix(prefix).build());
    store.migrate();
    execute("UPDATE `" + prefix + "meta` SET value = '99' WHERE name = 'schema_version'");

    MariaDbStore later = track(MariaDbStore.builder(pool).tablePrefix(prefix).build());

    assertThatThrownBy(later::migrate)
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("schema version 99")
        .hasMessageContaining("upgrade watukuy");
  }

  @Test
  void exportedDdlIsTheResourceAndCreatesWhatMigrateCreates() throws SQLException {
    assertThat(MariaDbStore.ddlResource()).isEqualTo(MariaDbStore.DDL);
    assertThat(MariaDbStore.ddlScript("watukuy_")).isEqualTo(MariaDbStore.DDL);
    String migrated = prefix();
    String scripted = prefix();
    track(MariaDbStore.builder(pool).tablePrefix(migrated).build()).migrate();
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      for (String statement : MariaDbStore.ddl(scripted)) {
        s.execute(statement);
      }
    }

    assertThat(catalogue(scripted)).isEqualTo(catalogue(migrated)).isNotEmpty();
    assertThat(schemaVersion(scripted)).isEqualTo("3");
    // The scripted schema is current: the store runs no DDL on it and works.
    MariaDbStore store = track(MariaDbStore.builder(pool).tablePrefix(scripted).build());
    assertThat(store.acquireLease(KEY, "a", TTL, T0)).isPresent();
  }

  @Test
  void everyTextColumnComparesByBytesAndInstantsAreIntegers() throws SQLException {
    String prefix = prefix();
    track(MariaDbStore.builder(pool).tablePrefix(prefix).build()).migrate();

    List<String> columns =
        strings(
            "SELECT CONCAT(table_name, '.', column_name, ' ', data_type, ' ',"
                + " COALESCE(collation_name, '-')) FROM information_schema.columns"
                + " WHERE table_schema = DATABASE() AND table_name LIKE ? ORDER BY 1",
            prefix + "%");

    assertThat(columns)
        .filteredOn(c -> c.contains("char") || c.contains("text"))
        .isNotEmpty()
        .allSatisfy(c -> assertThat(c).endsWith(" utf8mb4_nopad_bin"));
    assertThat(columns)
        .contains(
            prefix + "items.identity varchar utf8mb4_nopad_bin",
            prefix + "pollers.lease_expires_at bigint -",
            prefix + "outbox.created_at bigint -",
            prefix + "log.created_at bigint -");
  }

  // ---- key lengths

  @Test
  void keysAndIdentitiesOfTheLongestLengthsFitAndLongerOnesFailNamingTheValue() {
    MariaDbStore store = track(MariaDbStore.builder(pool).tablePrefix(prefix()).build());
    // Four-byte characters: the limits are in characters, and 768 of them fill 3072 bytes.
    String emoji = "\ud83d\ude00";
    PollerKey longest = PollerKey.of("p".repeat(100), emoji.repeat(128));
    String identity = emoji.repeat(540);
    Lease lease = store.acquireLease(longest, "a", TTL, T0).orElseThrow();
    store.commitPoll(longest, lease, batch(1, item(identity)), T0);
    assertThat(store.loadVersions(longest, List.of(identity))).containsOnlyKeys(identity);

    String tooLong = identity + "x";
    assertThatThrownBy(() -> store.commitPoll(longest, lease, batch(2, item(tooLong)), T0))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("mariadb store 127.0.0.1:3306/" + database)
        .hasMessageContaining("commitPoll")
        .hasMessageContaining("identity '" + emoji.repeat(60) + "...' has 541 characters")
        .hasMessageContaining("more than the 540")
        .hasMessageContaining("nothing was written");
    assertThat(store.loadState(longest)).map(PollerState::lastSequence).contains(1L);
    assertThat(store.countPending(longest)).isEqualTo(1);

    PollerKey longPartition = PollerKey.of("orders", "r".repeat(129));
    assertThatThrownBy(() -> store.acquireLease(longPartition, "a", TTL, T0))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("acquireLease")
        .hasMessageContaining("partition '" + "r".repeat(60) + "...' has 129 characters")
        .hasMessageContaining("more than the 128");
    PollerKey longPoller = PollerKey.of("o".repeat(101));
    assertThatThrownBy(() -> store.loadState(longPoller))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("poller name '")
        .hasMessageContaining("has 101 characters, more than the 100");
    assertThat(store.loadVersions(longest, List.of(tooLong))).isEmpty();
    // The effect tables check a source key the same way, before any statement.
    EffectStore effects = store.effects().orElseThrow();
    assertThatThrownBy(() -> effects.lowestWatermark(longPoller))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("lowestWatermark")
        .hasMessageContaining("has 101 characters, more than the 100");
  }

  // ---- leases and isolation

  @Test
  void instancesRacingForANewKeyOrAnExpiredLeaseNeverBothHoldIt() throws Exception {
    String prefix = prefix();
    int contenders = 6;
    List<MariaDbStore> stores =
        IntStream.range(0, contenders)
            .mapToObj(i -> track(MariaDbStore.builder(pool).tablePrefix(prefix).build()))
            .toList();
    stores.get(0).migrate();
    ExecutorService threads = Executors.newFixedThreadPool(contenders);
    try {
      for (int k = 0; k < 10; k++) {
        // A key without a row: every contender inserts it, the losers fail and run again.
        PollerKey key = PollerKey.of("race", "new-" + k);
        assertThat(race(threads, stores, key, T0)).as("new key %d", k).hasSize(1);
      }
      Instant now = T0;
      long epoch = 0;
      for (int round = 0; round < 10; round++) {
        // Every round starts at the previous lease's expiry: all contenders may steal it at once.
        List<Lease> granted = race(threads, stores, KEY, now);
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
  void transactionsRunAtReadCommittedAndLeaveTheSessionsLevelAlone() throws Exception {
    String prefix = prefix();
    MariaDbStore store = track(MariaDbStore.builder(pool).tablePrefix(prefix).build());
    Lease lease = acquire(store, "a", T0);
    store.commitPoll(KEY, lease, batch(1, item("1")), T0);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (Connection blocker = MariaDbTest.connect(database)) {
      blocker.setAutoCommit(false);
      lockItem(blocker, prefix, "1");
      Future<?> commit =
          thread.submit(() -> store.commitPoll(KEY, lease, batch(2, item("1", "v2")), T0));

      List<String> waiting = awaitWaiting(blocker);
      assertThat(waiting).singleElement().isEqualTo("READ COMMITTED");

      blocker.rollback();
      commit.get(30, TimeUnit.SECONDS);
    } finally {
      thread.shutdownNow();
    }
    assertThat(store.loadVersions(KEY, List.of("1")).get("1").version()).isEqualTo("v2");
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@session.tx_isolation")) {
      rs.next();
      assertThat(rs.getString(1)).isEqualTo("REPEATABLE-READ");
    }
  }

  @Test
  void leaseTakenOverWhileAFencedWriteWaitsForTheRowLockFailsThatWrite() throws Exception {
    String prefix = prefix();
    MariaDbStore store = track(MariaDbStore.builder(pool).tablePrefix(prefix).build());
    Lease stale = acquire(store, "instance-a", T0);
    store.commitPoll(KEY, stale, batch(1, item("1")), T0);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (Connection other = MariaDbTest.connect(database)) {
      other.setAutoCommit(false);
      // Another instance takes the row lock and the lease (as acquireLease does after expiry).
      try (Statement s = other.createStatement()) {
        s.executeUpdate(
            "UPDATE `"
                + prefix
                + "pollers` SET lease_owner = 'instance-b',"
                + " lease_epoch = epoch_counter + 1, epoch_counter = epoch_counter + 1");
      }
      Future<?> commit =
          thread.submit(() -> store.commitPoll(KEY, stale, batch(2, item("2")), T0.plusSeconds(1)));
      awaitWaiting(other);

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
  void lockWaitTimeoutsAreRetriedThenFailNamingTheError() throws Exception {
    String prefix = prefix();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(MariaDbTest.url(database));
    config.setMaximumPoolSize(2);
    config.setConnectionInitSql("SET SESSION innodb_lock_wait_timeout = 1");
    HikariDataSource impatient = new HikariDataSource(config);
    resources.add(impatient);
    MariaDbStore store = track(MariaDbStore.builder(impatient).tablePrefix(prefix).build());
    Lease lease = acquire(store, "a", T0);
    store.commitPoll(KEY, lease, batch(1, item("1")), T0);

    try (Connection blocker = MariaDbTest.connect(database)) {
      blocker.setAutoCommit(false);
      lockItem(blocker, prefix, "1");
      long started = System.nanoTime();

      assertThatThrownBy(() -> store.commitPoll(KEY, lease, batch(2, item("1", "v2")), T0))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("commitPoll orders[eu] failed")
          .hasMessageContaining("error 1205");

      // Three attempts of a one-second wait each: more than two waits' worth. The server's lock
      // timer may end a wait a few milliseconds short of its second (2.995 s was seen for three).
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThan(Duration.ofMillis(2_500));
      blocker.rollback();
    }
    assertThat(store.loadState(KEY)).map(PollerState::lastSequence).contains(1L);
    assertThat(store.countPending(KEY)).isEqualTo(1);
    store.commitPoll(KEY, lease, batch(2, item("1", "v2")), T0);
    assertThat(store.countPending(KEY)).isEqualTo(2);
  }

  // ---- storage

  @Test
  void jsonRoundTripsByteForByteIncludingBigNumbersUnicodeAndEscapedNul() {
    MariaDbStore store = track(MariaDbStore.builder(pool).tablePrefix(prefix()).build());
    Lease lease = acquire(store, "a", T0);
    String payload =
        "{\"z\": 1, \"a\":[1.10, 2E3, 12345678901234567890123456789],"
            + " \"s\":\"x\\u0000y\", \"u\":\"\u00fc\ud83d\ude00\", \"t\":\"trailing  \"}";
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
  }

  @Test
  void instantsAreKeptToTheMillisecondWhateverTheSessionTimeZone() throws SQLException {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(MariaDbTest.url(database));
    config.setMaximumPoolSize(1);
    config.setConnectionInitSql("SET time_zone = '+09:30'");
    HikariDataSource faraway = new HikariDataSource(config);
    resources.add(faraway);
    String prefix = prefix();
    MariaDbStore here = track(MariaDbStore.builder(pool).tablePrefix(prefix).build());
    MariaDbStore there = track(MariaDbStore.builder(faraway).tablePrefix(prefix).build());
    Instant now = T0.plusNanos(123_456_789);

    Lease lease = here.acquireLease(KEY, "a", TTL, now).orElseThrow();

    assertThat(lease.expiresAt()).isEqualTo(T0.plus(TTL).plusMillis(123));
    assertThat(there.getLease(KEY)).contains(lease);
    assertThat(there.acquireLease(KEY, "b", TTL, lease.expiresAt().minusMillis(1))).isEmpty();
    assertThat(there.acquireLease(KEY, "b", TTL, lease.expiresAt())).isPresent();
  }

  /**
   * What a failed commit says (that it writes nothing is StoreContractTest's
   * commitReusingAPendingSequenceFailsAndWritesNothing): one line with the operation, the key, the
   * server's message and its error code.
   */
  @Test
  void aFailedCommitIsReportedOnOneLineWithTheOperationAndTheServersErrorCode() {
    MariaDbStore store = track(MariaDbStore.builder(pool).tablePrefix(prefix()).build());
    Lease lease = acquire(store, "a", T0);
    store.commitPoll(KEY, lease, batch(1, item("1")), T0);

    assertThatThrownBy(() -> store.commitPoll(KEY, lease, batch(1, item("2")), T0))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("commitPoll orders[eu] failed")
        .hasMessageContaining("Duplicate entry")
        .hasMessageContaining("error 1062")
        .hasMessageNotContaining("\n")
        .hasCauseInstanceOf(SQLException.class);
  }

  @Test
  void commitOfFiveThousandItemsAndEventsIsStoredInFull() {
    MariaDbStore store = track(MariaDbStore.builder(pool).tablePrefix(prefix()).build());
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

  // ---- lifecycle and failures

  @Test
  void closeClientClosesThePoolAndOnlyThen() {
    HikariDataSource owned = MariaDbTest.pool(database, "watukuy-owned", 1);
    HikariDataSource kept = MariaDbTest.pool(database, "watukuy-kept", 1);
    resources.add(kept);
    resources.add(owned);
    String prefix = prefix();
    MariaDbStore closing =
        MariaDbStore.builder(owned).tablePrefix(prefix).closeClient(true).build();
    MariaDbStore leaving = MariaDbStore.builder(kept).tablePrefix(prefix).build();
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

  @Test
  void serverDownFailsWithAStoreExceptionNamingHostDatabaseAndOperationButNoPassword()
      throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    String url =
        "jdbc:mariadb://127.0.0.1:"
            + port
            + "/test?user=root&password="
            + PASSWORD
            + "&connectTimeout=2000";
    MariaDbDataSource plain = new MariaDbDataSource(url);
    HikariDataSource hikari = new HikariDataSource();
    hikari.setJdbcUrl(url);
    hikari.setConnectionTimeout(1_000);
    resources.add(hikari);

    for (javax.sql.DataSource down : List.<javax.sql.DataSource>of(plain, hikari)) {
      MariaDbStore store = track(MariaDbStore.builder(down).tablePrefix(prefix()).build());

      assertThatThrownBy(() -> store.acquireLease(KEY, "a", TTL, T0))
          .as("%s", down.getClass().getSimpleName())
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("mariadb store 127.0.0.1:" + port + "/test")
          .hasMessageContaining("acquireLease orders[eu] failed")
          .hasMessageNotContaining(PASSWORD)
          .hasCauseInstanceOf(SQLException.class);
    }
  }

  @Test
  void connectionKilledMidCommitFailsThatCommitWholeAndTheStoreRecovers() throws Exception {
    String prefix = prefix();
    HikariDataSource single = MariaDbTest.pool(database, "watukuy-killed", 1);
    resources.add(single);
    MariaDbStore store = track(MariaDbStore.builder(single).tablePrefix(prefix).build());
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
    try (Connection blocker = MariaDbTest.connect(database)) {
      blocker.setAutoCommit(false);
      // Holds item 2: the commit writes the state and item 0, then waits here.
      lockItem(blocker, prefix, "2");
      Future<?> commit =
          thread.submit(() -> store.commitPoll(KEY, lease, second, T0.plusSeconds(1)));
      long waiter = awaitWaitingThread(blocker);

      execute("KILL CONNECTION " + waiter);

      assertThatThrownBy(() -> commit.get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("mariadb store 127.0.0.1:3306/" + database + " (prefix " + prefix)
          .hasMessageContaining("commitPoll orders[eu] failed")
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
    // The pool replaced the connection: the same commit now lands.
    store.commitPoll(KEY, lease, second, T0.plusSeconds(1));
    assertThat(store.loadState(KEY)).map(PollerState::lastSequence).contains(2L);
  }

  @Test
  void theServersErrorNumberIsFoundWhereverTheDriverPutIt() {
    SQLException deadlock = new SQLException("Deadlock found", "40001", 1213);
    BatchUpdateException batch =
        new BatchUpdateException("batch", "40001", 0, new int[0], deadlock);
    SQLException nextOnly = new SQLException("outer");
    nextOnly.setNextException(new SQLException("Lock wait timeout", "HY000", 1205));
    MariaDbDialect dialect = new MariaDbDialect(new MariaDbOptions("watukuy_", false));

    assertThat(dialect.isRetryable(deadlock)).isTrue();
    assertThat(dialect.isRetryable(batch)).isTrue();
    assertThat(dialect.isRetryable(nextOnly)).isTrue();
    assertThat(dialect.isRetryable(new SQLException("Duplicate entry", "23000", 1062))).isTrue();
    assertThat(dialect.isRetryable(new SQLException("Data too long", "22001", 1406))).isFalse();
    assertThat(dialect.isRetryable(new SQLException("Connection refused", "08000"))).isFalse();
    assertThat(dialect.isUndefinedTable(new SQLException("no such table", "42S02", 1146))).isTrue();
    assertThat(dialect.describe(batch)).contains("(error 1213)");
  }

  // ---- helpers

  /** A fresh table prefix of this class's database. */
  private static String prefix() {
    return "t" + ++prefixes + "_";
  }

  private MariaDbStore track(MariaDbStore store) {
    opened.add(store);
    return store;
  }

  private static Lease acquire(MariaDbStore store, String owner, Instant now) {
    return store.acquireLease(KEY, owner, TTL, now).orElseThrow();
  }

  private static List<Lease> race(
      ExecutorService threads, List<MariaDbStore> stores, PollerKey key, Instant now)
      throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Optional<Lease>>> results = new ArrayList<>();
    for (int i = 0; i < stores.size(); i++) {
      MariaDbStore store = stores.get(i);
      String owner = "instance-" + i;
      Callable<Optional<Lease>> attempt =
          () -> {
            start.await();
            return store.acquireLease(key, owner, TTL, now);
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

  private static void lockItem(Connection c, String prefix, String identity) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT 1 FROM `" + prefix + "items` WHERE identity = ? FOR UPDATE")) {
      ps.setString(1, identity);
      ps.executeQuery().close();
    }
  }

  /**
   * Waits (at most 10 s) until a transaction waits for a lock that {@code blocker} holds; returns
   * the isolation levels of those transactions.
   */
  private static List<String> awaitWaiting(Connection blocker) throws Exception {
    return awaitLockWait(blocker, "trx_isolation_level");
  }

  /** As {@link #awaitWaiting}, returning the waiting connection's id. */
  private static long awaitWaitingThread(Connection blocker) throws Exception {
    return Long.parseLong(awaitLockWait(blocker, "trx_mysql_thread_id").get(0));
  }

  private static List<String> awaitLockWait(Connection blocker, String column) throws Exception {
    String id;
    try (Statement s = blocker.createStatement();
        ResultSet rs = s.executeQuery("SELECT CONNECTION_ID()")) {
      rs.next();
      id = rs.getString(1);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      List<String> found =
          strings(
              "SELECT r."
                  + column
                  + " FROM information_schema.innodb_lock_waits w"
                  + " JOIN information_schema.innodb_trx r ON r.trx_id = w.requesting_trx_id"
                  + " JOIN information_schema.innodb_trx b ON b.trx_id = w.blocking_trx_id"
                  + " WHERE b.trx_mysql_thread_id = ?",
              id);
      if (!found.isEmpty()) {
        return found;
      }
      // InnoDB refreshes these tables only when nobody read them for 0.1 s.
      Thread.sleep(150);
    }
    throw new AssertionError(
        "no transaction waited for connection "
            + id
            + " within 10 s; transactions: "
            + strings(
                "SELECT CONCAT(trx_mysql_thread_id, ' ', trx_state, ' ', COALESCE(trx_query, '-'))"
                    + " FROM information_schema.innodb_trx WHERE trx_mysql_thread_id <> ?",
                "0"));
  }

  private static void execute(String sql) throws SQLException {
    try (Connection c = MariaDbTest.connect(database);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static List<String> strings(String sql, String parameter) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = MariaDbTest.connect(database);
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, parameter);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  private static List<String> tables(String prefix) throws SQLException {
    return strings(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()"
            + " AND table_name LIKE ? ORDER BY table_name",
        prefix.replace("_", "\\_") + "%");
  }

  /** Columns and indexes of a prefix's tables, with the prefix replaced. */
  private static List<String> catalogue(String prefix) throws SQLException {
    List<String> all = new ArrayList<>();
    String like = prefix.replace("_", "\\_") + "%";
    all.addAll(
        strings(
            "SELECT CONCAT(table_name, '.', column_name, ' ', column_type, ' ', is_nullable, ' ',"
                + " COALESCE(column_default, '-'), ' ', COALESCE(collation_name, '-'))"
                + " FROM information_schema.columns WHERE table_schema = DATABASE()"
                + " AND table_name LIKE ? ORDER BY table_name, ordinal_position",
            like));
    all.addAll(
        strings(
            "SELECT CONCAT(table_name, ' ', index_name, ' ', seq_in_index, ' ', column_name)"
                + " FROM information_schema.statistics WHERE table_schema = DATABASE()"
                + " AND table_name LIKE ? ORDER BY table_name, index_name, seq_in_index",
            like));
    all.addAll(
        strings(
            "SELECT CONCAT(table_name, ' ', engine, ' ', row_format, ' ', table_collation)"
                + " FROM information_schema.tables WHERE table_schema = DATABASE()"
                + " AND table_name LIKE ? ORDER BY table_name",
            like));
    return all.stream().map(s -> s.replace(prefix, "P_")).toList();
  }

  private static String schemaVersion(String prefix) throws SQLException {
    return strings("SELECT value FROM `" + prefix + "meta` WHERE name = ?", "schema_version")
        .get(0);
  }
}
