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
import io.watukuy.store.postgres.PostgresStore;
import io.watukuy.testing.ChildJvm;
import io.watukuy.testing.MutatingVendor.Item;
import io.watukuy.testing.MutatingVendor.Listing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The engine half of {@link TableKillTest}, run in its own JVM so the parent can SIGKILL it: a
 * {@link PostgresStore} in a schema, a poller of the parent's mutating {@code /items} listing, and
 * a {@link TableSink} writing every event as a row of {@code <schema>.kill_rows}, with or without
 * {@code sameDatabase}.
 *
 * <p>Usage: {@code TableKillChild <url> <schema> <baseUrl> <readyFile> <run|finish>
 * <sameDatabase>}. {@code run} writes {@code readyFile} and ticks until killed; {@code finish}
 * ticks until the poller has caught up with an empty outbox, then exits 0. Exit codes: 2 bad
 * arguments, 3 {@code finish} did not catch up in time, 4 the parent went away, 5 {@code run} was
 * not killed within its maximum lifetime.
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
    if (args.length != 6 || !(args[4].equals("run") || args[4].equals("finish"))) {
      System.err.println(
          "usage: TableKillChild <url> <schema> <baseUrl> <readyFile> <run|finish> <sameDatabase>");
      System.exit(2);
    }
    String url = args[0];
    String schema = args[1];
    String baseUrl = args[2];
    Path ready = Path.of(args[3]);
    boolean finish = args[4].equals("finish");
    boolean sameDatabase = Boolean.parseBoolean(args[5]);
    ChildJvm.haltWhenParentGoes();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(4);
    config.setMinimumIdle(0);
    int code;
    try (HikariDataSource pool = new HikariDataSource(config);
        PostgresStore store = PostgresStore.builder(pool).schema(schema).build()) {
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

  static TableSettings settings(String url, String schema, boolean sameDatabase) {
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
        Destination.parse(schema + ".kill_rows"),
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

  /** Ticks until killed: each tick polls, commits and hands batches to the sink. */
  private static int run(Watukuy watukuy, Path ready) throws Exception {
    Files.writeString(ready, Long.toString(ProcessHandle.current().pid()));
    long end = System.nanoTime() + MAX_LIFETIME.toNanos();
    while (System.nanoTime() < end) {
      watukuy.tick();
      Thread.sleep(INTERVAL.toMillis());
    }
    System.err.println("run: not killed within " + MAX_LIFETIME);
    return 5;
  }

  private static int finish(Watukuy watukuy, PostgresStore store) throws InterruptedException {
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
