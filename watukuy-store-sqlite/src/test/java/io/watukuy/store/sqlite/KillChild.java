package io.watukuy.store.sqlite;

import io.watukuy.BatchHandler;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.EventLog;
import io.watukuy.KeyReport;
import io.watukuy.LeaseLostException;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RequestOptions;
import io.watukuy.Schedule;
import io.watukuy.TickReport;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.WatukuyListener;
import io.watukuy.testing.ChildJvm;
import io.watukuy.testing.MutatingVendor.Item;
import io.watukuy.testing.MutatingVendor.Listing;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;

/**
 * The engine half of {@link ProcessKillTest}, run in its own JVM so the parent can SIGKILL it.
 *
 * <p>Usage: {@code KillChild <db> <baseUrl> <eventLog> <run|finish> [single|batch]}. The poller
 * mirrors the parent's mutating {@code /items} listing into a {@link SqliteStore} file; its handler
 * (one event at a time, or a batch handler with {@code batch}) appends each event's JSON and a
 * newline to {@code eventLog} and forces it to disk before returning, so a line in the log is a
 * delivery the engine was told about. {@code run} starts the daemon and lives until killed; {@code
 * finish} ticks until the poller has caught up, then exits 0.
 *
 * <p>Exit codes: 0 caught up, 2 bad arguments, 3 {@code finish} did not catch up in time, 4 the
 * parent went away (stdin closed), 5 {@code run} outlived its maximum lifetime.
 */
public final class KillChild {
  static final String POLLER = "items";
  static final PollerKey KEY = PollerKey.of(POLLER);

  /** Short, so a killed child's lease expires soon after the kill and the next child takes over. */
  static final Duration LEASE_TTL = Duration.ofMillis(800);

  static final int PAGE_SIZE = 3;
  static final Duration INTERVAL = Duration.ofMillis(50);

  /** Created next to the event log once the daemon runs; the parent times its kill from it. */
  static final String READY_SUFFIX = ".ready";

  /** Marks a lost lease in the stdout trace. */
  static final String LEASE_LOST = "lease lost";

  /** A polled cycle that committed nothing, twice in a row with an empty outbox: caught up. */
  private static final int QUIET_CYCLES = 2;

  private static final Duration FINISH_DEADLINE = Duration.ofSeconds(60);
  private static final Duration FINISH_PAUSE = Duration.ofMillis(60);

  /** A run child that nobody killed (a parent gone wrong) ends by itself. */
  private static final Duration MAX_LIFETIME = Duration.ofSeconds(90);

  private KillChild() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 4
        || args.length > 5
        || !(args[3].equals("run") || args[3].equals("finish"))
        || (args.length == 5 && !(args[4].equals("single") || args[4].equals("batch")))) {
      System.err.println("usage: KillChild <db> <baseUrl> <eventLog> <run|finish> [single|batch]");
      System.exit(2);
    }
    boolean batches = args.length == 5 && args[4].equals("batch");
    Path db = Path.of(args[0]);
    String baseUrl = args[1];
    Path eventLog = Path.of(args[2]);
    boolean finish = args[3].equals("finish");
    ChildJvm.haltWhenParentGoes();
    dropTornLine(eventLog);

    int code;
    try (SqliteStore store = SqliteStore.open(db);
        FileChannel out =
            FileChannel.open(
                eventLog,
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
      Poller<Item> poller = poller(baseUrl);
      Watukuy watukuy =
          Watukuy.builder()
              .store(store)
              .poller(poller)
              .leaseTtl(LEASE_TTL)
              .instanceId("kill-child-" + ProcessHandle.current().pid())
              .listener(new Trace())
              .build();
      if (batches) {
        watukuy.onBatch(
            poller,
            events -> {
              append(out, events);
              return BatchHandler.BatchResult.ok();
            });
      } else {
        watukuy.on(poller, event -> append(out, List.of(event)));
      }
      code = finish ? finish(watukuy, store) : run(watukuy, eventLog);
    }
    System.out.flush();
    System.exit(code);
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
        // The store's replay log keeps every committed event: the parent's proof of what was
        // committed.
        .log(EventLog.keep(Duration.ofDays(1)))
        .build();
  }

  /**
   * Cycle outcomes on stdout, with milliseconds since JVM start: the parent shows them on failure.
   */
  private static final class Trace implements WatukuyListener {
    @Override
    public void onCycle(KeyReport r) {
      if (r.outcome() == KeyReport.Outcome.SKIPPED_NOT_DUE) return;
      System.out.printf(
          "%6d ms %s pages=%d committed=%d delivered=%d%s%n",
          uptimeMs(),
          r.outcome(),
          r.pages(),
          r.eventsCommitted(),
          r.delivered(),
          r.error() == null ? "" : " error=" + r.error());
    }

    @Override
    public void onLeaseLost(PollerKey key, LeaseLostException error) {
      System.out.printf("%6d ms %s: %s%n", uptimeMs(), LEASE_LOST, error.getMessage());
    }

    @Override
    public void onError(PollerKey key, Throwable error) {
      System.out.printf("%6d ms error: %s%n", uptimeMs(), error);
    }
  }

  private static long uptimeMs() {
    return ManagementFactory.getRuntimeMXBean().getUptime();
  }

  /** One writer at a time, and the lines are on disk (one force) before the handler returns. */
  private static synchronized void append(FileChannel out, List<ChangeEvent<Item>> events)
      throws IOException {
    StringBuilder text = new StringBuilder();
    for (ChangeEvent<Item> event : events) text.append(event.toJson()).append('\n');
    ByteBuffer lines = StandardCharsets.UTF_8.encode(text.toString());
    while (lines.hasRemaining()) out.write(lines);
    out.force(true);
  }

  private static int run(Watukuy watukuy, Path eventLog) throws Exception {
    watukuy.start();
    Files.writeString(
        eventLog.resolveSibling(eventLog.getFileName() + READY_SUFFIX),
        Long.toString(ProcessHandle.current().pid()));
    System.out.printf("%6d ms running pid=%d%n", uptimeMs(), ProcessHandle.current().pid());
    Thread.sleep(MAX_LIFETIME.toMillis());
    System.err.println("run: not killed within " + MAX_LIFETIME + ", exiting");
    return 5;
  }

  private static int finish(Watukuy watukuy, SqliteStore store) throws InterruptedException {
    long deadline = System.nanoTime() + FINISH_DEADLINE.toNanos();
    int quiet = 0;
    int ticks = 0;
    while (System.nanoTime() < deadline) {
      TickReport report = watukuy.tick();
      ticks++;
      KeyReport key = report.key(KEY).orElseThrow();
      if (key.outcome() == KeyReport.Outcome.POLLED) {
        // pages > 0: the live lane fetched, not only a drain of the outbox.
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
        System.out.println("caught up after " + ticks + " ticks");
        watukuy.close();
        return 0;
      }
      Thread.sleep(FINISH_PAUSE.toMillis());
    }
    System.err.println(
        "finish: not caught up within " + FINISH_DEADLINE + " (" + ticks + " ticks)");
    watukuy.close();
    return 3;
  }

  /**
   * A kill inside a write can leave a line without its newline: that handler never returned, so the
   * event is redelivered. Cut the fragment so the next line starts clean.
   */
  private static void dropTornLine(Path eventLog) throws IOException {
    if (!Files.exists(eventLog)) return;
    try (RandomAccessFile f = new RandomAccessFile(eventLog.toFile(), "rw")) {
      long end = f.length();
      long keep = end;
      while (keep > 0) {
        f.seek(keep - 1);
        if (f.read() == '\n') break;
        keep--;
      }
      if (keep < end) {
        System.err.println("dropping a torn line of " + (end - keep) + " bytes");
        f.setLength(keep);
        f.getFD().sync();
      }
    }
  }
}
