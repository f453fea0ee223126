package io.watukuy.sink.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.watukuy.spi.LoggedEvent;
import io.watukuy.spi.PollerState;
import io.watukuy.store.jdbc.JdbcStore;
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
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly-once into a table of the store's own database (docs/sinks.md, "Database tables"): a child
 * JVM (engine run by its daemon, {@code start()}, as users run it; a SQL store, a {@link TableSink}
 * with {@code sameDatabase: true}, polling a local API whose items keep changing) is SIGKILLed at
 * random moments at least 20 times while it writes batches; then a last child catches up, and the
 * table is read back. Every committed event (the store's replay log) is a row, and every row was
 * written once: a trigger records each committed insert attempt in {@code kill_writes}, where a
 * delivery key appears once and an item's sequences increase. Each database runs it through a
 * subclass, which creates the two tables and the trigger.
 */
abstract class TableKillCampaign {
  /** The kills of a sameDatabase campaign (issue 18: at least 20). */
  static final int KILLS = Integer.getInteger("watukuy.table.kills", 20);

  private static final int MAX_ITEMS = 30;
  private static final Duration MUTATE_EVERY = Duration.ofMillis(10);
  private static final int KILL_AFTER_MAX_ROWS = 12;
  // Returns as soon as the table grew; long enough that a slow, busy machine (a child JVM that
  // takes seconds to its first batch) still kills mid-delivery rather than before it.
  private static final Duration KILL_AFTER_MAX_WAIT = Duration.ofSeconds(10);
  private static final long KILL_AFTER_MAX_MS = 20;
  private static final Duration KILL_PHASE = Duration.ofSeconds(150);
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration FINISH_TIMEOUT = Duration.ofSeconds(50);

  @TempDir Path dir;

  /** {@code postgres} or {@code sqlite}: the child's store. */
  protected abstract String database();

  /** The JDBC URL of the store's database, which also holds the table. */
  protected abstract String url();

  /** The store's schema, or null (SQLite). */
  protected abstract @Nullable String schema();

  /**
   * {@code kill_rows (delivery_key unique, event_id, item_id, seq, kind)}, {@code kill_writes (n
   * ascending, delivery_key, item_id, seq)} and a trigger adding a {@code kill_writes} row for each
   * insert into {@code kill_rows}, in {@link #schema()}.
   */
  protected abstract void createTables() throws Exception;

  @BeforeEach
  final void setUpTables() throws Exception {
    createTables();
  }

  /** {@code name} qualified by {@link #schema()}. */
  private String table(String name) {
    return schema() == null ? name : schema() + "." + name;
  }

  /**
   * Kills the child {@code wantedKills} times, lets a last one catch up, and checks the table: 0
   * losses, and with {@code sameDatabase} 0 duplicates and order per item; without it, at most
   * {@code concurrency × batchSize} repeated writes per kill (G9).
   */
  final void campaign(boolean sameDatabase, int wantedKills) throws Exception {
    assumeThat(System.getProperty("os.name")).startsWith("Linux");
    SplittableRandom random = new SplittableRandom(18L);
    List<String> violations = new ArrayList<>();
    int kills = 0;
    int grewBeforeKill = 0;
    ChildJvm child = null;
    try (MutatingVendor vendor = MutatingVendor.start(18L, MAX_ITEMS);
        Connection watch = DriverManager.getConnection(url())) {
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
        if (writes(watch) >= grown) grewBeforeKill++;
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
    // The daemon writes within the wait: most kills land while the table grows, not before it.
    assertThat(grewBeforeKill)
        .as("kills after the daemon grew the table (of %d)", kills)
        .isGreaterThanOrEqualTo(kills / 2);

    TreeSet<Long> committed = new TreeSet<>();
    long pending;
    long lastSequence;
    try (TableKillChild.StoreHandle handle =
        TableKillChild.openStore(database().equals("sqlite"), url(), schema())) {
      JdbcStore store = handle.store();
      pending = store.countPending(TableKillChild.KEY);
      lastSequence = store.loadState(TableKillChild.KEY).map(PollerState::lastSequence).orElse(0L);
      for (LoggedEvent e : WholeEventLog.read(store, TableKillChild.KEY))
        committed.add(e.sequence());
    }
    assertThat(pending).as("outbox pending at the end").isZero();
    assertThat(committed).as("committed events").isNotEmpty().hasSize((int) lastSequence);

    TreeSet<Long> rows = new TreeSet<>();
    for (Map<String, Object> r :
        TableSinkScenarios.rows(url(), "SELECT seq FROM " + table("kill_rows")))
      rows.add((Long) r.get("seq"));
    assertThat(rows).as("0 losses: every committed event is a row").isEqualTo(committed);

    List<Map<String, Object>> writes =
        TableSinkScenarios.rows(
            url(),
            "SELECT delivery_key, item_id, seq FROM " + table("kill_writes") + " ORDER BY n");
    Map<String, Integer> copies = new HashMap<>();
    for (Map<String, Object> w : writes)
      copies.merge((String) w.get("delivery_key"), 1, Integer::sum);
    System.out.printf(
        "table kill test (%s, sameDatabase %s): %d kills, %d events committed, %d rows, %d writes%n",
        database(), sameDatabase, kills, committed.size(), rows.size(), writes.size());
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
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table("kill_writes"))) {
      rs.next();
      return rs.getLong(1);
    }
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
        database(),
        url(),
        schema() == null ? "-" : schema(),
        baseUrl,
        ready.toString(),
        mode,
        Boolean.toString(sameDatabase));
  }

  /** The children's output, kept in target/ for a failure's inspection. */
  private Path output() throws IOException {
    Path folder = Path.of("target", "table-kill").toAbsolutePath();
    Files.createDirectories(folder);
    return folder.resolve(database() + "-" + dir.getFileName() + ".out");
  }

  private String childOutput() {
    try {
      return ChildJvm.tail(output(), 60);
    } catch (IOException e) {
      return "(no child output)";
    }
  }
}
