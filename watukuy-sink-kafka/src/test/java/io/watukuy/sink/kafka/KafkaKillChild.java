package io.watukuy.sink.kafka;

import io.watukuy.ChangeEvent;
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
import io.watukuy.sink.ForwardingSink;
import io.watukuy.store.sqlite.SqliteStore;
import io.watukuy.testing.ChildJvm;
import io.watukuy.testing.MutatingVendor;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The engine half of {@link KafkaSinkProcessKillTest}, in its own JVM so the parent can SIGKILL it:
 * a poller mirrors the parent's mutating {@code /items} listing ({@link MutatingVendor}) into a
 * SQLite store and delivers it through a {@link KafkaSink} to the test broker, with {@value
 * #CONCURRENCY} batches of up to {@value #BATCH_SIZE} in flight.
 *
 * <p>Usage: {@code KafkaKillChild <db> <baseUrl> <bootstrap> <topic> <run|finish>}. {@code run}
 * starts the daemon, writes {@code <db>.ready} and lives until killed; {@code finish} ticks until
 * the poller caught up and its outbox is empty, then exits 0. Exit codes: 2 bad arguments, 3 not
 * caught up in time, 4 the parent went away (stdin closed), 5 {@code run} outlived its lifetime.
 */
public final class KafkaKillChild {
  static final String POLLER = "items";
  static final PollerKey KEY = PollerKey.of(POLLER);
  static final int CONCURRENCY = 2;
  static final int BATCH_SIZE = 5;
  static final int PAGE_SIZE = 10;

  /** Short, so a killed child's lease expires soon and the next child takes over. */
  static final Duration LEASE_TTL = Duration.ofMillis(800);

  static final Duration INTERVAL = Duration.ofMillis(50);
  private static final Duration FINISH_DEADLINE = Duration.ofSeconds(60);
  private static final Duration MAX_LIFETIME = Duration.ofSeconds(60);

  private KafkaKillChild() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 5 || !(args[4].equals("run") || args[4].equals("finish"))) {
      System.err.println("usage: KafkaKillChild <db> <baseUrl> <bootstrap> <topic> <run|finish>");
      System.exit(2);
    }
    Path db = Path.of(args[0]);
    ChildJvm.haltWhenParentGoes();
    int code;
    try (SqliteStore store = SqliteStore.open(db)) {
      Poller<MutatingVendor.Item> poller = poller(args[1]);
      KafkaSink sink =
          new KafkaSink(
              new KafkaSettings(
                  args[2],
                  Destination.parse(args[3]),
                  Map.of("linger.ms", "1"),
                  EventFormat.ENVELOPE));
      Watukuy watukuy =
          Watukuy.builder()
              .store(store)
              .poller(poller)
              .sink(poller, new Announcing(sink))
              .leaseTtl(LEASE_TTL)
              .delivery(new DeliveryOptions(CONCURRENCY, 100, BATCH_SIZE))
              .instanceId("kafka-kill-child-" + ProcessHandle.current().pid())
              .listener(new Trace())
              .build();
      code = args[4].equals("finish") ? finish(watukuy, store) : run(watukuy, db);
    }
    System.out.flush();
    System.exit(code);
  }

  private static Poller<MutatingVendor.Item> poller(String baseUrl) {
    return Poller.builder(POLLER, MutatingVendor.Item.class)
        .identity(MutatingVendor.Item::id)
        .version(MutatingVendor.Item::rev)
        .cursor(Cursors.timestamp("updatedAt").tieBreak("id").build())
        .fetch(
            ctx -> {
              Watermark cursor = ctx.cursor();
              MutatingVendor.Listing page =
                  ctx.http()
                      .get(
                          baseUrl + "/items",
                          RequestOptions.builder()
                              .query("updated_since", cursor.value())
                              .query("after_id", cursor.tieBreak())
                              .query("limit", PAGE_SIZE)
                              .build())
                      .json(MutatingVendor.Listing.class);
              return Page.of(page.items()).withHasMore(page.hasMore());
            })
        .schedule(Schedule.every(INTERVAL).withAdaptive(false))
        // The replay log keeps every committed event: the parent's list of what must arrive.
        .log(EventLog.keep(Duration.ofDays(1)))
        .build();
  }

  private static int run(Watukuy watukuy, Path db) throws Exception {
    watukuy.openSinks();
    watukuy.start();
    Files.writeString(ready(db), Long.toString(ProcessHandle.current().pid()));
    System.out.println("running at " + uptimeMs() + " ms");
    Thread.sleep(MAX_LIFETIME.toMillis());
    System.err.println("run: not killed within " + MAX_LIFETIME);
    return 5;
  }

  /** Marks a cycle that delivered events, in the stdout trace. */
  static final String DELIVERED = "delivered=";

  /** Marks a batch the broker acknowledged: the parent times its kill from the first one. */
  static final String BATCH = "batch acked ";

  /** The Kafka sink, saying on stdout when each batch was acknowledged by the broker. */
  private static final class Announcing extends ForwardingSink {
    Announcing(KafkaSink sink) {
      super(sink);
    }

    @Override
    public BatchResult handle(List<ChangeEvent<Object>> events) throws Exception {
      BatchResult r = super.handle(events);
      System.out.println(BATCH + events.size() + " at " + uptimeMs() + " ms");
      return r;
    }
  }

  private static long uptimeMs() {
    return ManagementFactory.getRuntimeMXBean().getUptime();
  }

  /** Cycle outcomes on stdout: the parent kills a child once it has delivered. */
  private static final class Trace implements WatukuyListener {
    @Override
    public void onCycle(KeyReport r) {
      if (r.delivered() > 0 || r.error() != null)
        System.out.println(
            r.outcome()
                + " committed="
                + r.eventsCommitted()
                + " "
                + DELIVERED
                + r.delivered()
                + (r.error() == null ? "" : " error=" + r.error()));
    }
  }

  static Path ready(Path db) {
    return db.resolveSibling(db.getFileName() + ".ready");
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
      Thread.sleep(60);
    }
    watukuy.close();
    return 3;
  }
}
