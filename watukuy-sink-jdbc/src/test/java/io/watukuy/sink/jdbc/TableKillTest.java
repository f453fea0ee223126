package io.watukuy.sink.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.PollerState;
import io.watukuy.store.postgres.PostgresStore;
import io.watukuy.testing.ChildJvm;
import io.watukuy.testing.MutatingVendor;
import io.watukuy.testing.WholeEventLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly-once into a table of the store's own database (docs/sinks.md, "Database tables"): a child
 * JVM (engine, PostgresStore, a {@link TableSink} with {@code sameDatabase: true}, polling a local
 * API whose items keep changing) is SIGKILLed at random moments at least 20 times while it writes
 * batches; then a last child catches up, and the table is read back. Every committed event (the
 * store's replay log) is a row, and every row was written once: a trigger records each committed
 * insert attempt in {@code kill_writes}, where a delivery key appears once and an item's sequences
 * increase.
 */
class TableKillTest {
  private static final String URL = PostgresTableSinkTest.URL;
  private static final int KILLS = Integer.getInteger("watukuy.table.kills", 20);
  private static final int KILLS_OWN_CONNECTIONS = 10;
  private static final int MAX_ITEMS = 30;
  private static final Duration MUTATE_EVERY = Duration.ofMillis(10);
  private static final int KILL_AFTER_MAX_ROWS = 12;
  private static final Duration KILL_AFTER_MAX_WAIT = Duration.ofSeconds(2);
  private static final long KILL_AFTER_MAX_MS = 20;
  private static final Duration KILL_PHASE = Duration.ofSeconds(150);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration FINISH_TIMEOUT = Duration.ofSeconds(50);

  @TempDir Path dir;
  private final String schema =
      "wk_kill_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

  @BeforeEach
  void createTables() throws Exception {
    TableSinkScenarios.execute(URL, "CREATE SCHEMA " + schema);
    TableSinkScenarios.execute(
        URL,
        "CREATE TABLE "
            + schema
            + ".kill_rows (delivery_key text PRIMARY KEY, event_id text NOT NULL,"
            + " item_id text NOT NULL, seq bigint NOT NULL, kind text NOT NULL)");
    TableSinkScenarios.execute(
        URL,
        "CREATE TABLE "
            + schema
            + ".kill_writes (n bigserial PRIMARY KEY, delivery_key text, item_id text, seq bigint)");
    TableSinkScenarios.execute(
        URL,
        "CREATE FUNCTION "
            + schema
            + ".kill_audit() RETURNS trigger AS $$ BEGIN INSERT INTO "
            + schema
            + ".kill_writes (delivery_key, item_id, seq) VALUES (NEW.delivery_key, NEW.item_id,"
            + " NEW.seq); RETURN NEW; END $$ LANGUAGE plpgsql");
    TableSinkScenarios.execute(
        URL,
        "CREATE TRIGGER kill_audit BEFORE INSERT ON "
            + schema
            + ".kill_rows FOR EACH ROW EXECUTE FUNCTION "
            + schema
            + ".kill_audit()");
  }

  @AfterEach
  void dropSchema() throws Exception {
    TableSinkScenarios.execute(URL, "DROP SCHEMA " + schema + " CASCADE");
  }

  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void sigkilledWithSameDatabaseTheTableHasEveryCommittedEventOnceInOrderPerItem()
      throws Exception {
    campaign(true, KILLS);
  }

  /**
   * The same without {@code sameDatabase} (the sink's own connections): the table still holds every
   * committed event once (the delivery key's conflict), but a kill between the sink's commit and
   * the engine's ack repeats the write, at most {@code concurrency × batchSize} per kill (G9).
   */
  @Test
  @Timeout(value = 4, unit = TimeUnit.MINUTES)
  void sigkilledWithItsOwnConnectionsTheSinkRepeatsAtMostConcurrencyTimesBatchSizePerKill()
      throws Exception {
    campaign(false, KILLS_OWN_CONNECTIONS);
  }

  private void campaign(boolean sameDatabase, int wantedKills) throws Exception {
    assumeThat(System.getProperty("os.name")).startsWith("Linux");
    SplittableRandom random = new SplittableRandom(18L);
    List<String> violations = new ArrayList<>();
    int kills = 0;
    ChildJvm child = null;
    try (MutatingVendor vendor = MutatingVendor.start(18L, MAX_ITEMS);
        Connection watch = DriverManager.getConnection(URL)) {
      vendor.startMutating(MUTATE_EVERY);
      long end = System.nanoTime() + KILL_PHASE.toNanos();
      while (kills < wantedKills && System.nanoTime() < end) {
        child = launch(vendor.baseUrl(), "run", kills + 1, sameDatabase);
        if (!child.awaitFile(dir.resolve("ready"), READY_TIMEOUT)) {
          violations.add("run " + (kills + 1) + ": child never reported ready");
          break;
        }
        // Mid-delivery: once the table grew by a few rows, plus a moment into the next batch.
        long grown = writes(watch) + 1 + random.nextInt(KILL_AFTER_MAX_ROWS);
        child.awaitProgress(() -> writes(watch), grown, KILL_AFTER_MAX_WAIT);
        Thread.sleep(random.nextLong(KILL_AFTER_MAX_MS + 1));
        if (!child.isAlive()) {
          violations.add("run " + (kills + 1) + ": child exited with " + child.exitValue());
          break;
        }
        int exit = child.sigkill();
        if (exit != ChildJvm.SIGKILL_EXIT) violations.add("run " + (kills + 1) + ": exit " + exit);
        child = null;
        kills++;
      }
      vendor.stopMutating();
      if (violations.isEmpty()) {
        child = launch(vendor.baseUrl(), "finish", kills + 1, sameDatabase);
        if (!child.awaitExit(FINISH_TIMEOUT))
          violations.add("finish: still running after " + FINISH_TIMEOUT);
        else if (child.exitValue() != 0)
          violations.add("finish: exit " + child.exitValue() + " (3: it did not catch up)");
      }
    } finally {
      if (child != null) child.close();
    }
    assertThat(violations).as(childOutput()).isEmpty();
    assertThat(kills).as(childOutput()).isGreaterThanOrEqualTo(wantedKills);

    TreeSet<Long> committed = new TreeSet<>();
    long pending;
    long lastSequence;
    try (HikariDataSource pool = pool();
        PostgresStore store = PostgresStore.builder(pool).schema(schema).build()) {
      pending = store.countPending(TableKillChild.KEY);
      lastSequence = store.loadState(TableKillChild.KEY).map(PollerState::lastSequence).orElse(0L);
      for (LoggedEvent e : WholeEventLog.read(store, TableKillChild.KEY))
        committed.add(e.sequence());
    }
    assertThat(pending).as("outbox pending at the end").isZero();
    assertThat(committed).as("committed events").isNotEmpty().hasSize((int) lastSequence);

    TreeSet<Long> rows = new TreeSet<>();
    for (Map<String, Object> r :
        TableSinkScenarios.rows(URL, "SELECT seq FROM " + schema + ".kill_rows"))
      rows.add((Long) r.get("seq"));
    assertThat(rows).as("0 losses: every committed event is a row").isEqualTo(committed);

    List<Map<String, Object>> writes =
        TableSinkScenarios.rows(
            URL, "SELECT delivery_key, item_id, seq FROM " + schema + ".kill_writes ORDER BY n");
    Map<String, Integer> copies = new HashMap<>();
    for (Map<String, Object> w : writes)
      copies.merge((String) w.get("delivery_key"), 1, Integer::sum);
    System.out.printf(
        "table kill test (sameDatabase %s): %d kills, %d events committed, %d rows, %d writes%n",
        sameDatabase, kills, committed.size(), rows.size(), writes.size());
    if (!sameDatabase) {
      // Each kill repeats at most the batches in flight: concurrency × batchSize events (G9).
      assertThat(writes.size() - rows.size())
          .as("repeated writes after %d kills", kills)
          .isLessThanOrEqualTo(kills * TableKillChild.CONCURRENCY * TableKillChild.BATCH_SIZE);
      return;
    }
    assertThat(copies.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey))
        .as("0 duplicates: committed writes of one delivery key")
        .isEmpty();
    assertThat(writes).as("one committed write per row").hasSize(rows.size());
    Map<String, Long> lastSeqOfItem = new HashMap<>();
    for (Map<String, Object> w : writes) {
      String item = (String) w.get("item_id");
      long seq = (Long) w.get("seq");
      Long before = lastSeqOfItem.put(item, seq);
      assertThat(before == null || before < seq)
          .as("order per item: %s wrote sequence %s after %s", item, seq, before)
          .isTrue();
    }
  }

  /** The committed writes so far. */
  private long writes(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + schema + ".kill_writes")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private HikariDataSource pool() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(URL);
    config.setMaximumPoolSize(2);
    config.setMinimumIdle(0);
    return new HikariDataSource(config);
  }

  private ChildJvm launch(String baseUrl, String mode, int run, boolean sameDatabase)
      throws IOException {
    Path ready = dir.resolve("ready");
    Files.deleteIfExists(ready);
    Path out = output();
    ChildJvm.mark(out, "=== run " + run + " (" + mode + ")");
    return ChildJvm.start(
        TableKillChild.class,
        List.of(),
        out,
        URL,
        schema,
        baseUrl,
        ready.toString(),
        mode,
        Boolean.toString(sameDatabase));
  }

  /** The children's output, kept in target/ for a failure's inspection. */
  private Path output() throws IOException {
    Path folder = Path.of("target", "table-kill").toAbsolutePath();
    Files.createDirectories(folder);
    return folder.resolve(schema + ".out");
  }

  private String childOutput() {
    try {
      return ChildJvm.tail(output(), 60);
    } catch (IOException e) {
      return "(no child output)";
    }
  }
}
