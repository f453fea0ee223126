package io.watukuy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.watukuy.ChangeEvent;
import io.watukuy.Cursors;
import io.watukuy.EventType;
import io.watukuy.Page;
import io.watukuy.Poller;
import io.watukuy.Schedule;
import io.watukuy.TickReport;
import io.watukuy.Watermark;
import io.watukuy.Watukuy;
import io.watukuy.spi.StateStore;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The live lane's latency on a running daemon ({@link Watukuy#start()}, real clock): a timestamp
 * poller ({@code items-live}, tie-break {@code id}) over a {@link ListingServer}, its schedule
 * pinned at {@code schedule.min} (adaptive off, no jitter). After a first sync by {@link
 * Watukuy#tick()}, the bench changes one item at a time, at a random point of the poll period, and
 * waits for the handler to see that change before making the next. Per change:
 *
 * <ul>
 *   <li>latency: from the change on the server to the handler's call, end to end. It includes the
 *       wait for the next poll, up to {@code schedule.min}, which is the schedule's doing;
 *   <li>overhead: from the start of the fetch that returned the change (taken in the poller's fetch
 *       function, before its GET) to the handler's call: the request, parse, diff, commit and
 *       delivery, what watukuy adds to the wait. Split into the fetch (GET + parse in the fetch
 *       function) and what follows it;
 *   <li>the gap between the starts of consecutive polls, against {@code schedule.min}: how late the
 *       daemon starts a due key.
 * </ul>
 *
 * Bounded by a count of changes and a wall-clock cap; a change that does not reach the handler
 * within {@code 10 s + 3 × schedule.min} fails the phase.
 */
final class LiveLatency {
  /** The target for the overhead's p99 with {@code MemoryStore}, milliseconds. */
  static final int OVERHEAD_TARGET_MS = 20;

  private LiveLatency() {}

  /**
   * The phase's settings.
   *
   * @param samples changes to make and time
   * @param every the poller's {@code schedule.min}
   * @param bound the wall-clock cap of the measured loop; fewer samples when it runs out
   * @param items items in the listing (and the store) of this phase
   */
  record Settings(int samples, Duration every, Duration bound, int items) {
    /** 200 changes at {@code schedule.min} 200 ms, at most 75 s, over 10 000 items. */
    static Settings full() {
      return new Settings(200, Duration.ofMillis(200), Duration.ofSeconds(75), 10_000);
    }

    /** 5 changes at 100 ms, over 1 000 items: the smoke pass. */
    static Settings tiny() {
      return new Settings(5, Duration.ofMillis(100), Duration.ofSeconds(10), 1_000);
    }

    Settings withSamples(int samples) {
      return new Settings(samples, every, bound, items);
    }
  }

  /** Percentiles of a sample, milliseconds. */
  record Stats(int count, double p50, double p99, double max) {
    static Stats of(List<Double> millis) {
      List<Double> sorted = new ArrayList<>(millis);
      Collections.sort(sorted);
      if (sorted.isEmpty()) return new Stats(0, Double.NaN, Double.NaN, Double.NaN);
      return new Stats(
          sorted.size(), at(sorted, 0.50), at(sorted, 0.99), sorted.get(sorted.size() - 1));
    }

    // Nearest rank: the smallest value with at least q of the sample at or below it.
    private static double at(List<Double> sorted, double q) {
      int rank = (int) Math.ceil(q * sorted.size());
      return sorted.get(Math.max(0, rank - 1));
    }

    ObjectNode json() {
      ObjectNode n = Items.MAPPER.createObjectNode();
      n.put("count", count);
      ResultsJson.number(n, "p50Ms", p50);
      ResultsJson.number(n, "p99Ms", p99);
      ResultsJson.number(n, "maxMs", max);
      return n;
    }
  }

  /**
   * The phase's numbers.
   *
   * @param items items in the listing
   * @param every {@code schedule.min}
   * @param samples changes timed
   * @param latency change to handler
   * @param overhead fetch start to handler
   * @param fetch fetch start to fetch end (GET + parse in the fetch function)
   * @param afterFetch fetch end to handler (diff, commit, delivery)
   * @param interval start of a poll to the start of the next
   * @param plainFetch a plain client's GET + parse of a page holding one change
   * @param seconds the measured loop's wall time
   */
  record Result(
      int items,
      Duration every,
      int samples,
      Stats latency,
      Stats overhead,
      Stats fetch,
      Stats afterFetch,
      Stats interval,
      Stats plainFetch,
      double seconds) {
    /**
     * The baseline's median over the overhead's, as the other phases' ratio: 1.0 when watukuy adds
     * no more to a poll that finds a change than a plain GET + parse of the same page costs.
     */
    double ratio() {
      return plainFetch.p50() / overhead.p50();
    }
  }

  /** The change being waited for, and when each step of its way happened (nanoTime). */
  private static final class Target {
    final String id;
    final String before;
    final CountDownLatch handled = new CountDownLatch(1);
    volatile long changedAt;
    volatile long fetchStart;
    volatile long fetchEnd;
    volatile long handledAt;

    Target(String id, String before) {
      this.id = id;
      this.before = before;
    }

    boolean is(JsonNode item) {
      return item.get("id").asText().equals(id) && !item.get("updated_at").asText().equals(before);
    }
  }

  /**
   * Runs the phase.
   *
   * @param store the run's store
   * @param s the settings
   * @return the numbers
   * @throws IllegalStateException if the first sync or a change does not reach the handler
   */
  static Result run(StateStore store, Settings s) throws Exception {
    AtomicReference<Target> pending = new AtomicReference<>();
    List<Long> pollStarts = Collections.synchronizedList(new ArrayList<>());
    AtomicLong created = new AtomicLong();
    try (ListingServer server = new ListingServer(s.items())) {
      String url = server.url();
      Poller<JsonNode> poller =
          Poller.builder("items-live", JsonNode.class)
              .identity(item -> item.get("id"))
              .version(item -> item.get("updated_at"))
              .cursor(Cursors.timestamp("updated_at").tieBreak("id").build())
              .fetch(
                  ctx -> {
                    long start = System.nanoTime();
                    if (ctx.page() == 1) pollStarts.add(start);
                    Watermark w = Objects.requireNonNull(ctx.cursor());
                    JsonNode body =
                        ctx.http()
                            .get(TimestampPhases.changesUrl(url, w.value(), w.tieBreak()))
                            .json();
                    List<JsonNode> items = new ArrayList<>(EndToEnd.PAGE);
                    body.get("items").forEach(items::add);
                    long end = System.nanoTime();
                    Target t = pending.get();
                    if (t != null && t.fetchStart == 0) {
                      for (JsonNode item : items) {
                        if (t.is(item)) {
                          t.fetchEnd = end;
                          t.fetchStart = start;
                        }
                      }
                    }
                    return Page.of(items).withHasMore(body.get("hasMore").asBoolean());
                  })
              .maxPagesPerCycle(s.items() / EndToEnd.PAGE + 2)
              .schedule(Schedule.every(s.every()).withAdaptive(false).withJitter(0))
              .build();
      try (Watukuy engine = Watukuy.builder().store(store).poller(poller).build()) {
        engine.on(
            poller,
            (ChangeEvent<JsonNode> event) -> {
              long now = System.nanoTime();
              if (event.type() == EventType.CREATED) created.incrementAndGet();
              Target t = pending.get();
              if (t != null && event.data() != null && t.is(event.data())) {
                t.handledAt = now;
                t.handled.countDown();
              }
            });
        TickReport sync = engine.tick();
        if (created.get() != s.items())
          throw new IllegalStateException(
              "live: first sync delivered "
                  + created.get()
                  + " of "
                  + s.items()
                  + " created events: "
                  + sync);
        engine.start();
        Thread.sleep(s.every().toMillis() * 2); // the daemon's first passes
        List<Double> latency = new ArrayList<>();
        List<Double> overhead = new ArrayList<>();
        List<Double> fetch = new ArrayList<>();
        List<Double> afterFetch = new ArrayList<>();
        Random random = new Random(20_260_101L);
        int firstPoll = pollStarts.size();
        long start = System.nanoTime();
        long deadline = start + s.bound().toNanos();
        long wait = 10_000 + 3 * s.every().toMillis();
        for (int k = 0; k < s.samples() && System.nanoTime() < deadline; k++) {
          // Anywhere in the poll period, so that the wait for the next poll is spread over it.
          Thread.sleep(random.nextInt((int) Math.max(1, s.every().toMillis())));
          int index = k % s.items();
          Target t = new Target(EndToEnd.identity(index), server.updatedAt(index));
          pending.set(t);
          t.changedAt = System.nanoTime();
          server.update(index);
          if (!t.handled.await(wait, TimeUnit.MILLISECONDS))
            throw new IllegalStateException(
                "live: change "
                    + k
                    + " of item "
                    + t.id
                    + " did not reach the handler in "
                    + wait
                    + " ms");
          if (t.fetchStart == 0)
            throw new IllegalStateException(
                "live: change " + k + " reached the handler, but no fetch returned it");
          latency.add((t.handledAt - t.changedAt) / 1e6);
          overhead.add((t.handledAt - t.fetchStart) / 1e6);
          fetch.add((t.fetchEnd - t.fetchStart) / 1e6);
          afterFetch.add((t.handledAt - t.fetchEnd) / 1e6);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        engine.stop();
        List<Double> gaps = new ArrayList<>();
        synchronized (pollStarts) {
          for (int i = Math.max(1, firstPoll); i < pollStarts.size(); i++)
            gaps.add((pollStarts.get(i) - pollStarts.get(i - 1)) / 1e6);
        }
        Stats plain = plainFetch(server);
        return new Result(
            s.items(),
            s.every(),
            latency.size(),
            Stats.of(latency),
            Stats.of(overhead),
            Stats.of(fetch),
            Stats.of(afterFetch),
            Stats.of(gaps),
            plain,
            seconds);
      }
    }
  }

  /** A plain client's GET + parse of a page holding the latest change, 50 times. */
  private static Stats plainFetch(ListingServer server) throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    String since = server.latestUpdatedAt();
    List<Double> millis = new ArrayList<>();
    for (int k = 0; k < 60; k++) {
      TimestampPhases.Listing one = TimestampPhases.plainFetch(client, server, since, null);
      if (one.items() != 1)
        throw new IllegalStateException("plain fetch saw " + one.items() + " items, not 1");
      if (k >= 10) millis.add(one.seconds() * 1e3); // the first ten warm the client up
    }
    return Stats.of(millis);
  }

  /** The phase as lines of the printed table. */
  static String table(Result r, String store) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "live lane: timestamp poller, schedule.min %d ms (adaptive off, no jitter), daemon; %,d items; %d changes"
                + " in %.1f s%n",
            r.every().toMillis(),
            r.items(),
            r.samples(),
            r.seconds()));
    String format = "  %-48s %8s %8s %8s%n";
    out.append(String.format(Locale.ROOT, format, "ms", "p50", "p99", "max"));
    line(out, format, "latency: change -> handler (end to end)", r.latency());
    line(out, format, "overhead: fetch start -> handler", r.overhead());
    line(out, format, "  of which fetch: GET + parse in the fetch", r.fetch());
    line(out, format, "  of which after the fetch: diff, commit, deliver", r.afterFetch());
    line(out, format, "poll start -> next poll start", r.interval());
    line(out, format, "baseline: plain GET + parse of a 1-change page", r.plainFetch());
    out.append(
        String.format(
            Locale.ROOT,
            "  latency p99 %s ms (includes the wait for the next poll, up to"
                + " schedule.min %d ms)%n",
            ms(r.latency().p99()),
            r.every().toMillis()));
    out.append(
        String.format(
            Locale.ROOT,
            "  overhead p99 %s ms, target <= %d ms %s%n",
            ms(r.overhead().p99()),
            OVERHEAD_TARGET_MS,
            store.equals("memory")
                ? (r.overhead().p99() <= OVERHEAD_TARGET_MS ? "(met)" : "(NOT met)")
                : "(set for MemoryStore; this store's calls add to it)"));
    out.append("  ratio (baseline p50 / overhead p50): ")
        .append(Ratios.format(r.ratio()))
        .append('\n');
    return out.toString();
  }

  private static void line(StringBuilder out, String format, String what, Stats s) {
    out.append(String.format(Locale.ROOT, format, what, ms(s.p50()), ms(s.p99()), ms(s.max())));
  }

  private static String ms(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%.1f", v) : "-";
  }

  /** The phase as JSON. */
  static ObjectNode json(Result r) {
    ObjectNode n = Items.MAPPER.createObjectNode();
    n.put(
        "what",
        "timestamp poller on a running daemon; one change at a time, at a random point of the poll period");
    n.put("items", r.items());
    n.put("scheduleMinMs", r.every().toMillis());
    n.put("schedule", "adaptive off, jitter 0");
    n.put("samples", r.samples());
    n.put("seconds", r.seconds());
    n.set("latency", r.latency().json().put("what", "change on the server -> handler called"));
    n.set(
        "overhead",
        r.overhead()
            .json()
            .put("what", "start of the fetch that returned the change -> handler called"));
    n.set("fetch", r.fetch().json().put("what", "GET + parse inside the fetch function"));
    n.set(
        "afterFetch",
        r.afterFetch()
            .json()
            .put("what", "fetch returned -> handler called: diff, commit, delivery"));
    n.set("pollInterval", r.interval().json().put("what", "start of a poll -> start of the next"));
    n.set(
        "baseline",
        r.plainFetch()
            .json()
            .put("what", "plain HttpClient GET + Jackson parse of a 1-change page"));
    ResultsJson.number(n, "ratio", r.ratio());
    return n;
  }
}
