package io.watukuy.sink.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.KeyReport;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.PollerKey;
import io.watukuy.RequestOptions;
import io.watukuy.Schedule;
import io.watukuy.TickReport;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.store.sqlite.SqliteStore;
import io.watukuy.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The engine half of {@link WebhookKillTest}, run in its own JVM so the parent can SIGKILL it: a
 * poller of the parent's mutating {@code /items} listing, a {@link SqliteStore} file, and a {@link
 * WebhookSink} to the parent's receiver, {@code concurrency} {@value #CONCURRENCY} and batches of
 * {@value #BATCH_SIZE}.
 *
 * <p>Usage: {@code WebhookKillChild <db> <vendorUrl> <receiverUrl> <run|finish> <event|batch>}:
 * {@code event} POSTs one event per request, {@code batch} one batch per request. {@code run}
 * starts the daemon, writes {@code <db>.ready} and lives until killed (at most {@link
 * #MAX_LIFETIME}); {@code finish} ticks until the poller has caught up and the outbox is empty,
 * then exits 0 (3 when it did not in time). Exit 4: the parent went away (stdin closed).
 */
public final class WebhookKillChild {
  static final PollerKey KEY = PollerKey.of("items");
  static final int CONCURRENCY = 2;
  static final int BATCH_SIZE = 5;

  /** Short, so a killed child's lease expires soon after the kill and the next child takes over. */
  static final Duration LEASE_TTL = Duration.ofMillis(800);

  private static final Duration MAX_LIFETIME = Duration.ofSeconds(60);
  private static final Duration FINISH_DEADLINE = Duration.ofSeconds(40);

  /** One page of the listing. */
  public record Listing(List<JsonNode> items, boolean hasMore) {}

  private WebhookKillChild() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 5
        || !(args[3].equals("run") || args[3].equals("finish"))
        || !(args[4].equals("event") || args[4].equals("batch"))) {
      System.err.println(
          "usage: WebhookKillChild <db> <vendorUrl> <receiverUrl> <run|finish> <event|batch>");
      System.exit(2);
    }
    Path db = Path.of(args[0]);
    ChildJvm.haltWhenParentGoes();
    int code;
    try (SqliteStore store = SqliteStore.open(db)) {
      Poller<JsonNode> poller = poller(args[1]);
      WebhookSink sink =
          new WebhookSink(
              WebhookSettings.of(args[2], SigningSecret.parse(EngineSetup.SECRET))
                  .withTimeout(Duration.ofSeconds(5))
                  .withBatch(args[4].equals("batch")));
      Watukuy watukuy =
          Watukuy.builder()
              .store(store)
              .poller(poller)
              .sink(poller, sink)
              .leaseTtl(LEASE_TTL)
              .delivery(new DeliveryOptions(CONCURRENCY, 100, BATCH_SIZE))
              .instanceId("webhook-kill-" + ProcessHandle.current().pid())
              .build();
      code = args[3].equals("finish") ? finish(watukuy, store) : run(watukuy, db);
    }
    System.exit(code);
  }

  static Poller<JsonNode> poller(String baseUrl) {
    return Poller.builder("items", JsonNode.class)
        .identity(n -> n.get("id").asText())
        .version(n -> n.get("rev").asText())
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
                              .query("limit", 7)
                              .build())
                      .json(Listing.class);
              return Page.of(page.items()).withHasMore(page.hasMore());
            })
        .schedule(Schedule.every(Duration.ofMillis(50)).withAdaptive(false))
        .build();
  }

  private static int run(Watukuy watukuy, Path db) throws Exception {
    watukuy.start();
    Files.writeString(db.resolveSibling(db.getFileName() + ".ready"), "ready");
    Thread.sleep(MAX_LIFETIME.toMillis());
    System.err.println("run: not killed within " + MAX_LIFETIME);
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
