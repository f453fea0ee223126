package io.watukuy.sink.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.EventLog;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RequestOptions;
import io.watukuy.Schedule;
import io.watukuy.TickReport;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.sink.Destination;
import io.watukuy.sink.EventFormat;
import io.watukuy.store.jdbc.JdbcStore;
import io.watukuy.store.postgres.PostgresStore;
import io.watukuy.store.sqlite.SqliteStore;
import io.watukuy.testing.ChildJvm;
import io.watukuy.testing.MutatingVendor.Item;
import io.watukuy.testing.MutatingVendor.Listing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The engine half of {@link TableKillCampaign}, run in its own JVM so the parent can SIGKILL it: a
 * {@link PostgresStore} in a schema or a {@link SqliteStore} file, a poller of the parent's
 * mutating {@code /items} listing, and a {@link TableSink} writing every event as a row of {@code
 * <schema>.kill_rows}, with or without {@code sameDatabase}.
 *
 * <p>Usage: {@code TableKillChild <postgres|sqlite> <url> <schema|-> <baseUrl> <readyFile>
 * <run|finish> <sameDatabase>} ({@code -}: no schema, SQLite). {@code run} starts the daemon
 * ({@link Watukuy#start()}), writes {@code readyFile} and waits to be killed; {@code finish} ticks
 * until the poller has caught up with an empty outbox, then exits 0. Exit codes: 2 bad arguments, 3
 * {@code finish} did not catch up in time, 4 the parent went away, 5 {@code run} was not killed
 * within its maximum lifetime.
 */
public final class TableKillChild {
  static final PollerKey KEY = PollerKey.of("items");
  static final int CONCURRENCY = 2;
  static final int BATCH_SIZE = 5;
  static final Duration LEASE_TTL = Duration.ofMillis(900);
  private static final Duration INTERVAL = Duration.ofMillis(50);
  private static final Duration FINISH_DEADLINE = Duration.ofSeconds(40);
  private static final Duration MAX_LIFETIME = Duration.ofSeconds(60);

  private TableKillChild() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 7
        || !(args[0].equals("postgres") || args[0].equals("sqlite"))
        || !(args[5].equals("run") || args[5].equals("finish"))) {
      System.err.println(
          "usage: TableKillChild <postgres|sqlite> <url> <schema|-> <baseUrl> <readyFile>"
              + " <run|finish> <sameDatabase>");
      System.exit(2);
    }
    boolean sqlite = args[0].equals("sqlite");
    String url = args[1];
    String schema = args[2].equals("-") ? null : args[2];
    String baseUrl = args[3];
    Path ready = Path.of(args[4]);
    boolean finish = args[5].equals("finish");
    boolean sameDatabase = Boolean.parseBoolean(args[6]);
    ChildJvm.haltWhenParentGoes();
    int code;
    try (StoreHandle handle = openStore(sqlite, url, schema)) {
      JdbcStore store = handle.store();
      store.migrate();
      Poller<Item> poller = poller(baseUrl);
      TableSink sink = new TableSink(settings(url, schema, sameDatabase), store);
      Watukuy watukuy =
          Watukuy.builder()
              .store(store)
              .poller(poller)
              .sink(poller, sink)
              .leaseTtl(LEASE_TTL)
              .delivery(new DeliveryOptions(CONCURRENCY, 100, BATCH_SIZE))
              .instanceId("table-kill-" + ProcessHandle.current().pid())
              .listener(
                  new WatukuyListener() {
                    @Override
                    public void onCycle(KeyReport r) {
                      if (r.outcome() == KeyReport.Outcome.SKIPPED_NOT_DUE) return;
                      System.out.printf(
                          "%s pages=%d committed=%d delivered=%d%s%n",
                          r.outcome(),
                          r.pages(),
                          r.eventsCommitted(),
                          r.delivered(),
                          r.error() == null ? "" : " error=" + r.error());
                    }
                  })
              .build();
      watukuy.openSinks();
      code = finish ? finish(watukuy, store) : run(watukuy, ready);
    }
    System.exit(code);
  }

  /** The store, and the pool it runs on (PostgreSQL) to close after it. */
  record StoreHandle(JdbcStore store, @Nullable HikariDataSource pool) implements AutoCloseable {
    @Override
    public void close() {
      store.close();
      if (pool != null) pool.close();
    }
  }

  /** A {@link SqliteStore} in the file of a {@code jdbc:sqlite:} URL, or a PostgreSQL store. */
  static StoreHandle openStore(boolean sqlite, String url, @Nullable String schema) {
    if (sqlite) return new StoreHandle(SqliteStore.open(Path.of(sqliteFile(url))), null);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(4);
    config.setMinimumIdle(0);
    HikariDataSource pool = new HikariDataSource(config);
    return new StoreHandle(
        PostgresStore.builder(pool).schema(Objects.requireNonNull(schema, "schema")).build(), pool);
  }

  /** The file of {@code jdbc:sqlite:FILE[?params]}. */
  static String sqliteFile(String url) {
    String file = url.substring("jdbc:sqlite:".length());
    int query = file.indexOf('?');
    return query < 0 ? file : file.substring(0, query);
  }

  static TableSettings settings(String url, @Nullable String schema, boolean sameDatabase) {
    Map<String, EventField> columns = new LinkedHashMap<>();
    columns.put("delivery_key", EventField.DELIVERY_KEY);
    columns.put("event_id", EventField.ID);
    columns.put("item_id", EventField.IDENTITY);
    columns.put("seq", EventField.SEQUENCE);
    columns.put("kind", EventField.TYPE);
    return new TableSettings(
        sameDatabase ? null : url,
        null,
        null,
        Destination.parse(schema == null ? "kill_rows" : schema + ".kill_rows"),
        TableMode.INSERT,
        columns,
        OnConflict.IGNORE,
        sameDatabase,
        EventFormat.ENVELOPE);
  }

  private static Poller<Item> poller(String baseUrl) {
    return Poller.builder(KEY.poller(), Item.class)
        .identity(Item::id)
        .version(Item::rev)
        .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
        .fetch(
            ctx -> {
              Watermark cursor = ctx.cursor();
              Listing page =
                  ctx.http()
                      .get(
                          baseUrl + "/items",
                          RequestOptions.builder()
                              .query("updated_since", cursor.value())
                              .query("after_id", cursor.tieBreak())
                              .query("limit", 25)
                              .build())
                      .json(Listing.class);
              return Page.of(page.items()).withHasMore(page.hasMore());
            })
        .schedule(Schedule.every(INTERVAL).withAdaptive(false))
        // The replay log keeps every committed event: the parent's proof of what was committed.
        .log(EventLog.keep(Duration.ofDays(1)))
        .build();
  }

  /** The daemon polls, commits and hands batches to the sink until the parent kills us. */
  private static int run(Watukuy watukuy, Path ready) throws Exception {
    watukuy.start();
    Files.writeString(ready, Long.toString(ProcessHandle.current().pid()));
    Thread.sleep(MAX_LIFETIME.toMillis());
    System.err.println("run: not killed within " + MAX_LIFETIME);
    return 5;
  }

  private static int finish(Watukuy watukuy, JdbcStore store) throws InterruptedException {
    long deadline = System.nanoTime() + FINISH_DEADLINE.toNanos();
    int quiet = 0;
    while (System.nanoTime() < deadline) {
      TickReport report = watukuy.tick();
      KeyReport key = report.key(KEY).orElseThrow();
      if (key.outcome() == KeyReport.Outcome.POLLED) {
        boolean idle =
            key.error() == null
                && key.pages() > 0
                && !key.truncated()
                && key.eventsCommitted() == 0
                && store.countPending(KEY) == 0;
        quiet = idle ? quiet + 1 : 0;
        if (key.error() != null) System.err.println("finish: cycle failed: " + key.error());
      }
      if (quiet >= 2) {
        watukuy.close();
        return 0;
      }
      Thread.sleep(60);
    }
    watukuy.close();
    return 3;
  }
}
