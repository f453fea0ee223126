package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.watukuy.Cursors;
import io.watukuy.DeliveryOptions;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.TickReport;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.spi.StateStore;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The timestamp phases of the end-to-end bench: the listing of the snapshot phases (same items,
 * 500-item pages) read by a {@code Cursors.timestamp("updated_at")} poller with tie-break {@code
 * id}, over the server's {@code sort=updated&since=T&after_id=ID} filter, so that a poll brings
 * back only what changed since the watermark:
 *
 * <ol>
 *   <li>{@code ts-first-sync}: from no watermark, every item, {@code n} created events; baseline:
 *       the raw upsert of the {@code n} rows (the snapshot phases' number when they ran).
 *   <li>{@code ts-idle-poll}: {@value #IDLE_POLLS} polls from the end of the listing, each one
 *       empty page, no event; baseline: a plain client's GET + parse of that empty page.
 *   <li>{@code ts-changed-poll}: 1% of the items updated on the server; one poll returns exactly
 *       those, as that many updated events; baseline: the raw upsert of those rows.
 * </ol>
 *
 * Each tick is checked like the snapshot phases' (items fetched, pages, events by type), and the
 * floor adds a plain client's fetch + parse of the same filtered pages (the best of {@value
 * EndToEnd#FLOOR_PASSES} passes, after a warm-up for the whole listing). The store is the run's, so
 * the heap these phases report includes what the snapshot phases left in it.
 */
final class TimestampPhases {
  /** The strategy label in the results. */
  static final String STRATEGY = "timestamp";

  /** Polls timed in {@code ts-idle-poll}: one poll of an empty page is too short to time alone. */
  static final int IDLE_POLLS = 20;

  private TimestampPhases() {}

  /**
   * Runs the three phases on their own poller and listing.
   *
   * @param base the run's store
   * @param raw the run's raw baseline
   * @param n items in the listing; at least 1000
   * @param upsertSeconds the raw upsert of {@code n} rows if already measured, else NaN
   * @param settings the engine's delivery options and handler ({@link EndToEnd.Settings#handler()})
   * @return the phases, each beside its baseline
   * @throws IllegalStateException if a poll did not fetch and deliver exactly what it must
   */
  static List<EndToEnd.Phase> run(
      StateStore base, RawStore raw, int n, double upsertSeconds, EndToEnd.Settings settings)
      throws Exception {
    DeliveryOptions delivery = settings.delivery();
    List<EndToEnd.Phase> phases = new ArrayList<>();
    try (ListingServer server = new ListingServer(n);
        HeapWatch heap = new HeapWatch()) {
      EventCounter counter = new EventCounter(settings.handler());
      AtomicLong fetched = new AtomicLong();
      Poller<JsonNode> poller = poller(server.url(), n, fetched);
      TimedStore store = new TimedStore(base);
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      try (Watukuy engine =
          Watukuy.builder().store(store).poller(poller).delivery(delivery).build()) {
        counter.attach(engine, poller);
        plainFetch(client, server, null, null); // warms the client and the server's code up
        Listing all = fastest(client, server, null, null);
        if (all.items() != n)
          throw new IllegalStateException("plain timestamp fetch saw " + all.items() + " of " + n);

        EndToEnd.Phase sync =
            MeasuredTick.run(
                "ts-first-sync",
                STRATEGY,
                engine,
                store,
                heap,
                counter,
                fetched,
                n,
                new EventCounter.Counts(n, 0, 0),
                EndToEnd.pages(n));
        double upsert =
            Double.isNaN(upsertSeconds)
                ? RawBaseline.timeBatches(server, raw, RawBaseline.Op.UPSERT)
                : upsertSeconds;
        phases.add(
            sync.withBaseline("upsert " + n + " rows, 500 per transaction", upsert, all.seconds()));

        phases.add(idlePolls(engine, store, heap, counter, fetched, client, server, all));

        List<Integer> updated = new ArrayList<>();
        for (int i = 0; i < n; i++) if (i % 100 == 50) updated.add(i);
        updated.forEach(server::update);
        Listing changes = fastest(client, server, all.since(), all.afterId());
        if (changes.items() != updated.size())
          throw new IllegalStateException(
              "plain timestamp fetch saw "
                  + changes.items()
                  + " of "
                  + updated.size()
                  + " changes");
        EndToEnd.Phase changed =
            MeasuredTick.run(
                "ts-changed-poll",
                STRATEGY,
                engine,
                store,
                heap,
                counter,
                fetched,
                updated.size(),
                new EventCounter.Counts(0, updated.size(), 0),
                EndToEnd.pages(updated.size()));
        double changedUpsert = RawBaseline.timeUpserts(server, raw, updated);
        phases.add(
            changed.withBaseline(
                "upsert " + updated.size() + " rows, 500 per transaction",
                changedUpsert,
                changes.seconds()));
      }
    }
    return phases;
  }

  private static EndToEnd.Phase idlePolls(
      Watukuy engine,
      TimedStore store,
      HeapWatch heap,
      EventCounter counter,
      AtomicLong fetched,
      HttpClient client,
      ListingServer server,
      Listing all)
      throws Exception {
    heap.reset();
    store.drain();
    double seconds = 0;
    Map<String, TimedStore.Usage> calls = new TreeMap<>();
    for (int k = 0; k < IDLE_POLLS; k++) {
      Thread.sleep(5); // past schedule.min, so the key is due
      EventCounter.Counts before = counter.now();
      long fetchedBefore = fetched.get();
      long start = System.nanoTime();
      TickReport report = engine.tick();
      seconds += (System.nanoTime() - start) / 1e9;
      MeasuredTick.check(
          "ts-idle-poll",
          report,
          counter.now().minus(before),
          fetched.get() - fetchedBefore,
          0,
          new EventCounter.Counts(0, 0, 0),
          1);
      store
          .drain()
          .forEach(
              (method, u) ->
                  calls.merge(
                      method,
                      u,
                      (a, b) ->
                          new TimedStore.Usage(a.calls() + b.calls(), a.seconds() + b.seconds())));
    }
    long peak = heap.peak();
    long retained = heap.retained();
    double plain = 0;
    for (int k = 0; k < IDLE_POLLS; k++) {
      Listing none = plainFetch(client, server, all.since(), all.afterId());
      if (none.items() != 0)
        throw new IllegalStateException("plain idle poll saw " + none.items() + " items");
      plain += none.seconds();
    }
    return new EndToEnd.Phase(
            "ts-idle-poll",
            STRATEGY,
            0,
            0,
            IDLE_POLLS,
            seconds,
            peak,
            retained,
            calls,
            "",
            Double.NaN,
            Double.NaN,
            Double.NaN)
        .withBaseline("plain GET + parse of the empty page, no store work", plain, 0);
  }

  /**
   * The timestamp poller of these phases, named {@code items-ts}: the whole change set in one
   * cycle, due again as soon as the bench ticks.
   */
  private static Poller<JsonNode> poller(String url, int n, AtomicLong fetched) {
    return Poller.builder("items-ts", JsonNode.class)
        .identity(item -> item.get("id"))
        .version(item -> item.get("updated_at"))
        .cursor(Cursors.timestamp("updated_at").tieBreak("id").build())
        .fetch(
            ctx -> {
              Watermark w = Objects.requireNonNull(ctx.cursor());
              JsonNode body = ctx.http().get(changesUrl(url, w.value(), w.tieBreak())).json();
              List<JsonNode> items = new ArrayList<>(EndToEnd.PAGE);
              body.get("items").forEach(items::add);
              fetched.addAndGet(items.size());
              return Page.of(items).withHasMore(body.get("hasMore").asBoolean());
            })
        .maxPagesPerCycle(n / EndToEnd.PAGE + 2)
        .schedule(Schedule.every(Duration.ofMillis(1)).withAdaptive(false).withJitter(0))
        .build();
  }

  /**
   * The URL of one page of the {@code sort=updated} listing.
   *
   * @param url the listing's URL
   * @param since the watermark's value, or null for the start
   * @param afterId the watermark's tie-break, or null
   * @return the URL with its query
   */
  static String changesUrl(String url, @Nullable String since, @Nullable String afterId) {
    StringBuilder out = new StringBuilder(url).append("?sort=updated");
    if (since != null)
      out.append("&since=").append(URLEncoder.encode(since, StandardCharsets.UTF_8));
    if (afterId != null)
      out.append("&after_id=").append(URLEncoder.encode(afterId, StandardCharsets.UTF_8));
    return out.toString();
  }

  /**
   * A plain client's walk of the filtered listing: how long, how many items, and where it ended.
   */
  record Listing(double seconds, int items, @Nullable String since, @Nullable String afterId) {}

  /** The fastest of {@link EndToEnd#FLOOR_PASSES} walks of the same filtered listing. */
  private static Listing fastest(
      HttpClient client, ListingServer server, @Nullable String since, @Nullable String afterId)
      throws Exception {
    Listing best = null;
    for (int pass = 0; pass < EndToEnd.FLOOR_PASSES; pass++) {
      Listing one = plainFetch(client, server, since, afterId);
      if (best == null || one.seconds() < best.seconds()) best = one;
    }
    return Objects.requireNonNull(best);
  }

  /** Fetches and parses every page from the keyset {@code (since, afterId)} with a plain client. */
  static Listing plainFetch(
      HttpClient client, ListingServer server, @Nullable String since, @Nullable String afterId)
      throws Exception {
    long start = System.nanoTime();
    int seen = 0;
    for (int page = 0; page < 100_000; page++) {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(changesUrl(server.url(), since, afterId)))
              .timeout(Duration.ofSeconds(30))
              .GET()
              .build();
      byte[] body = client.send(request, HttpResponse.BodyHandlers.ofByteArray()).body();
      JsonNode tree = Items.MAPPER.readTree(body);
      JsonNode items = tree.get("items");
      seen += items.size();
      if (items.size() > 0) {
        JsonNode last = items.get(items.size() - 1);
        since = last.get("updated_at").asText();
        afterId = last.get("id").asText();
      }
      if (!tree.get("hasMore").asBoolean()) break;
    }
    return new Listing((System.nanoTime() - start) / 1e9, seen, since, afterId);
  }
}
