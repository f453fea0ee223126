package io.watukuy.sink.nats;

import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
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
import io.watukuy.sink.ForwardingSink;
import io.watukuy.store.sqlite.SqliteStore;
import io.watukuy.testing.ChildJvm;
import io.watukuy.testing.MutatingVendor.Item;
import io.watukuy.testing.MutatingVendor.Listing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The engine half of {@link NatsProcessKillTest}, run in its own JVM so the parent can SIGKILL it:
 * a poller mirrors the parent's mutating {@code /items} listing into a {@link SqliteStore} file and
 * its events go to a {@link NatsSink}.
 *
 * <p>Usage: {@code NatsKillChild <db> <baseUrl> <stream> <subjectPrefix> <run|finish>}. {@code run}
 * starts the daemon, writes {@code <db>.ready} and lives until killed; {@code finish} ticks until
 * the poller has caught up, then exits 0. Exit codes: 2 bad arguments, 3 {@code finish} did not
 * catch up in time, 4 the parent went away (stdin closed), 5 {@code run} was not killed.
 */
public final class NatsKillChild {
  static final String POLLER = "items";
  static final PollerKey KEY = PollerKey.of(POLLER);

  /** Short, so a killed child's lease expires soon after the kill and the next child takes over. */
  static final Duration LEASE_TTL = Duration.ofMillis(800);

  static final int PAGE_SIZE = 3;
  static final Duration INTERVAL = Duration.ofMillis(50);
  static final String READY_SUFFIX = ".ready";

  /** How long a batch waits between the stream's acks and returning to the engine. */
  static final Duration ACKED_PAUSE = Duration.ofMillis(40);

  /** The line before each batch, followed by its size. */
  static final String PUBLISHING = "publishing ";

  private static final int QUIET_CYCLES = 2;
  private static final Duration FINISH_DEADLINE = Duration.ofSeconds(45);
  private static final Duration FINISH_PAUSE = Duration.ofMillis(60);
  private static final Duration MAX_LIFETIME = Duration.ofSeconds(60);

  private NatsKillChild() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 5 || !(args[4].equals("run") || args[4].equals("finish"))) {
      System.err.println(
          "usage: NatsKillChild <db> <baseUrl> <stream> <subjectPrefix> <run|finish>");
      System.exit(2);
    }
    Path db = Path.of(args[0]);
    ChildJvm.haltWhenParentGoes();
    int code;
    try (SqliteStore store = SqliteStore.open(db)) {
      Poller<Item> poller = poller(args[1]);
      NatsSink sink =
          new NatsSink(
              NatsSinkSettings.of(TestNats.URL)
                  .withStream(args[2], true)
                  .withSubject(args[3] + ".{{source}}"));
      Watukuy watukuy =
          Watukuy.builder()
              .store(store)
              .poller(poller)
              .sink(poller, new Counting(sink))
              .leaseTtl(LEASE_TTL)
              .instanceId("nats-kill-child-" + ProcessHandle.current().pid())
              .build();
      code = args[4].equals("finish") ? finish(watukuy, store) : run(watukuy, db);
    }
    System.out.flush();
    System.exit(code);
  }

  /**
   * Prints {@value #PUBLISHING} and the batch's size before each batch (the parent sums them), and
   * pauses {@link #ACKED_PAUSE} after the stream acked it.
   */
  private static final class Counting extends ForwardingSink {
    Counting(NatsSink sink) {
      super(sink);
    }

    @Override
    public BatchResult handle(List<ChangeEvent<Object>> events) throws Exception {
      System.out.println(PUBLISHING + events.size());
      BatchResult result = super.handle(events);
      // The stream has acked the batch; the store's ack comes after this returns. A pause here
      // widens that gap, so the parent's kills right after the stream grew land in it and the next
      // child publishes the batch again: the repeats the duplicate window must drop.
      Thread.sleep(ACKED_PAUSE.toMillis());
      return result;
    }
  }

  static Poller<Item> poller(String baseUrl) {
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
    Files.writeString(
        db.resolveSibling(db.getFileName() + READY_SUFFIX),
        Long.toString(ProcessHandle.current().pid()));
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
      if (quiet >= QUIET_CYCLES) {
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
