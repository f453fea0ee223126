package io.watukuy.sink.rabbitmq;

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
import io.watukuy.sink.SinkConfig;
import io.watukuy.store.sqlite.SqliteStore;
import io.watukuy.testing.ChildJvm;
import io.watukuy.testing.MutatingVendor.Item;
import io.watukuy.testing.MutatingVendor.Listing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The engine half of {@link RabbitMqProcessKillTest}, in a JVM of its own so the parent can SIGKILL
 * it: a poller of the parent's mutating {@code /items} listing, a {@link SqliteStore} file, and a
 * {@link RabbitMqSink} to the parent's exchange, {@value #CONCURRENCY} batches of up to {@value
 * #BATCH_SIZE} in flight.
 *
 * <p>Usage: {@code RabbitKillChild <db> <baseUrl> <exchange> <run|finish>}. {@code run} starts the
 * daemon, writes {@code <db>.ready} and lives until killed; {@code finish} ticks until caught up,
 * then exits 0. Exit codes: 2 bad arguments, 3 not caught up in time, 4 the parent went away, 5
 * {@code run} outlived its maximum lifetime.
 */
public final class RabbitKillChild {
  static final String POLLER = "items";
  static final PollerKey KEY = PollerKey.of(POLLER);
  static final int CONCURRENCY = 2;
  static final int BATCH_SIZE = 5;

  /** Short, so the next child takes the lease soon after a kill. */
  private static final Duration LEASE_TTL = Duration.ofMillis(800);

  private static final int PAGE_SIZE = 7;
  private static final Duration INTERVAL = Duration.ofMillis(50);
  private static final Duration FINISH_DEADLINE = Duration.ofSeconds(60);
  private static final Duration FINISH_PAUSE = Duration.ofMillis(60);
  private static final Duration MAX_LIFETIME = Duration.ofSeconds(60);

  private RabbitKillChild() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4 || !(args[3].equals("run") || args[3].equals("finish"))) {
      System.err.println("usage: RabbitKillChild <db> <baseUrl> <exchange> <run|finish>");
      System.exit(2);
    }
    Path db = Path.of(args[0]);
    ChildJvm.haltWhenParentGoes();
    int code;
    try (SqliteStore store = SqliteStore.open(db)) {
      Poller<Item> poller = poller(args[1]);
      RabbitMqSink sink =
          RabbitMqSink.create(
              SinkConfig.of(
                  Map.of("type", "rabbitmq", "uri", TestRabbit.URI, "exchange", args[2]),
                  Path.of(".")));
      Watukuy watukuy =
          Watukuy.builder()
              .store(store)
              .poller(poller)
              .sink(poller, sink)
              .leaseTtl(LEASE_TTL)
              .delivery(new DeliveryOptions(CONCURRENCY, 100, BATCH_SIZE))
              .instanceId("rabbit-kill-child-" + ProcessHandle.current().pid())
              .build();
      code = args[3].equals("finish") ? finish(watukuy, store) : run(watukuy, db);
    }
    System.out.flush();
    System.exit(code);
  }

  static Path ready(Path db) {
    return db.resolveSibling(db.getFileName() + ".ready");
  }

  private static Poller<Item> poller(String baseUrl) {
    return Poller.builder(POLLER, Item.class)
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
                              .query("limit", PAGE_SIZE)
                              .build())
                      .json(Listing.class);
              return Page.of(page.items()).withHasMore(page.hasMore());
            })
        .schedule(Schedule.every(INTERVAL).withAdaptive(false))
        // The replay log keeps every committed event: the parent's proof of what was committed.
        .log(EventLog.keep(Duration.ofDays(1)))
        .build();
  }

  private static int run(Watukuy watukuy, Path db) throws Exception {
    watukuy.start();
    Files.writeString(ready(db), Long.toString(ProcessHandle.current().pid()));
    Thread.sleep(MAX_LIFETIME.toMillis());
    System.err.println("run: not killed within " + MAX_LIFETIME + ", exiting");
    return 5;
  }

  private static int finish(Watukuy watukuy, SqliteStore store) throws InterruptedException {
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
      Thread.sleep(FINISH_PAUSE.toMillis());
    }
    System.err.println("finish: not caught up within " + FINISH_DEADLINE);
    watukuy.close();
    return 3;
  }
}
