package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.Watukuy;
import io.watukuy.bench.EndToEnd.Phase;
import io.watukuy.bench.EndToEnd.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code snapshot} group of the end-to-end bench: a {@code snapshotDiff} poller over HTTP
 * against a {@link ListingServer}, in three phases on one engine, each followed by the store's raw
 * baseline on the same rows ({@link RawBaseline}):
 *
 * <ol>
 *   <li>{@code first-sync}: every item is new, {@code n} created events; baseline: upsert the
 *       {@code n} rows, 500 per transaction.
 *   <li>{@code idle-rescan}: nothing changed, no event (every item skipped on its version);
 *       baseline: read the version and hash of the {@code n} identities, 500 per query.
 *   <li>{@code changed-rescan}: 1% of the items updated and 0.1% deleted on the server; baseline:
 *       the same reads, then upsert the updated rows and delete the deleted ones, 500 per
 *       transaction.
 * </ol>
 *
 * Each phase is one measured tick ({@link MeasuredTick}), checked against the events it must
 * produce.
 */
final class SnapshotPhases {
  /** The strategy label of the snapshot phases. */
  static final String SNAPSHOT = "snapshotDiff";

  private SnapshotPhases() {}

  /**
   * Runs the three phases on one engine over a fresh {@link ListingServer} of {@code n} items, each
   * beside its raw baseline, and adds them to {@code phases}.
   *
   * @param bench the fresh store
   * @param raw the store's raw baseline, on the same database
   * @param n items in the listing
   * @param settings the delivery options and handler of the engine
   * @param phases where the three phases go, in run order
   * @return the plain fetch + parse time of the listing, seconds (best of {@value
   *     ListingFetch#PASSES} after a warm-up)
   * @throws IllegalStateException if a phase did not produce exactly the events it must
   */
  static double run(BenchStore bench, RawStore raw, int n, Settings settings, List<Phase> phases)
      throws Exception {
    DeliveryOptions delivery = settings.delivery();
    try (ListingServer server = new ListingServer(n);
        HeapWatch heap = new HeapWatch()) {
      EventCounter counter = new EventCounter(settings.handler());
      AtomicLong fetched = new AtomicLong();
      Poller<JsonNode> poller = poller(server.url(), n, fetched);
      TimedStore store = new TimedStore(bench.store());
      try (Watukuy engine =
          Watukuy.builder().store(store).poller(poller).delivery(delivery).build()) {
        counter.attach(engine, poller);
        double fetchSeconds = ListingFetch.best(server, ListingFetch.PASSES);

        Phase sync =
            MeasuredTick.run(
                "first-sync",
                SNAPSHOT,
                engine,
                store,
                heap,
                counter,
                fetched,
                n,
                new EventCounter.Counts(n, 0, 0),
                EndToEnd.pages(n));
        double base = RawBaseline.timeBatches(server, raw, RawBaseline.Op.UPSERT);
        phases.add(
            sync.withBaseline("upsert " + n + " rows, 500 per transaction", base, fetchSeconds));

        Phase idle =
            MeasuredTick.run(
                "idle-rescan",
                SNAPSHOT,
                engine,
                store,
                heap,
                counter,
                fetched,
                n,
                new EventCounter.Counts(0, 0, 0),
                EndToEnd.pages(n));
        base = RawBaseline.timeBatches(server, raw, RawBaseline.Op.SELECT);
        phases.add(idle.withBaseline("read " + n + " versions, 500 per query", base, fetchSeconds));

        List<Integer> updated = new ArrayList<>();
        List<Integer> deleted = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          if (i % 100 == 50) updated.add(i);
          else if (i % 1000 == 7) deleted.add(i);
        }
        updated.forEach(server::update);
        deleted.forEach(server::delete);
        Phase changed =
            MeasuredTick.run(
                "changed-rescan",
                SNAPSHOT,
                engine,
                store,
                heap,
                counter,
                fetched,
                server.size(),
                new EventCounter.Counts(0, updated.size(), deleted.size()),
                EndToEnd.pages(server.size()));
        base =
            RawBaseline.timeBatches(server, raw, RawBaseline.Op.SELECT)
                + RawBaseline.timeUpserts(server, raw, updated)
                + RawBaseline.timeDeletes(raw, deleted);
        phases.add(
            changed.withBaseline(
                "read "
                    + server.size()
                    + " versions, upsert "
                    + updated.size()
                    + " and delete "
                    + deleted.size()
                    + " rows, 500 per transaction",
                base,
                fetchSeconds * server.size() / n));
        return fetchSeconds;
      }
    }
  }

  private static Poller<JsonNode> poller(String url, int n, AtomicLong fetched) {
    return Poller.builder("items", JsonNode.class)
        .identity(item -> item.get("id"))
        .version(item -> item.get("updated_at"))
        .cursor(Cursors.snapshotDiff())
        .fetch(
            ctx -> {
              JsonNode body = ctx.http().get(url + "?page=" + ctx.page()).json();
              List<JsonNode> items = new ArrayList<>(EndToEnd.PAGE);
              body.get("items").forEach(items::add);
              fetched.addAndGet(items.size());
              return Page.of(items).withHasMore(body.get("hasMore").asBoolean());
            })
        // The whole listing in one cycle, and due again as soon as the bench ticks.
        .maxPagesPerCycle(n / EndToEnd.PAGE + 2)
        .schedule(Schedule.every(Duration.ofMillis(1)).withAdaptive(false).withJitter(0))
        .build();
  }
}
