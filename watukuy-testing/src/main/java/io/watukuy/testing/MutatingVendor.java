package io.watukuy.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A vendor API on 127.0.0.1 whose items keep changing: {@code GET /items?updated_since=&after_id=
 * &limit=} is a keyset listing ordered by {@code (updatedAt, id)}, and a background thread creates
 * and updates items in seeded batches. Bursts of batches alternate with quiet spells of seeded
 * length: in a burst the listing outruns the poller (every cycle is catch-up), in a quiet spell
 * cycles reach the end of the listing and finish, so kills land at every stage of a cycle.
 *
 * <p>Time is a logical clock: {@code updatedAt} is {@link #EPOCH} plus a counter in seconds. The
 * clock moves only when a mutation follows a served request, so every mutation between two requests
 * shares one timestamp (ties, often more than a page) and no mutation ever lands at or before a
 * {@code (updatedAt, id)} a client may already have read: the listing is a correct keyset API, and
 * a missed change is the poller's fault, not the vendor's.
 *
 * <p>The vendor of the process-kill tests (a store's and each sink's): the parent test serves and
 * mutates, the child JVM ({@link ChildJvm}) polls it with {@link Listing} as its page type.
 *
 * @since 0.3
 */
public final class MutatingVendor implements AutoCloseable {
  /** The logical clock's zero: {@code updatedAt} is this plus a counter in seconds. */
  public static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final double CREATE_SHARE = 0.3;
  private static final int MAX_BATCH = 4;

  /** Creates come first until there are a few items to update. */
  private static final int MIN_ITEMS = 3;

  /** Phase lengths, in mutator turns. */
  private static final int MIN_BURST = 10;

  private static final int MAX_BURST = 60;
  private static final int MIN_QUIET = 10;
  private static final int MAX_QUIET = 80;

  /**
   * One item of the listing.
   *
   * @param id {@code item-001}, {@code item-002}, … in creation order
   * @param rev its revision, 1 when created, one more at each update
   * @param updatedAt the ISO-8601 instant of its last change, on the logical clock
   * @param value a seeded number from 0 to 999 999, new at each change
   */
  public record Item(String id, int rev, String updatedAt, int value) {}

  /**
   * One page of the listing.
   *
   * @param items at most {@code limit} items, ordered by {@code (updatedAt, id)}
   * @param hasMore whether more items follow this page
   */
  public record Listing(List<Item> items, boolean hasMore) {}

  private final HttpServer server;
  private final SplittableRandom random;
  private final int maxItems;
  private final ScheduledExecutorService mutator;
  private final Object lock = new Object();
  // Guarded by lock
  private final Map<String, Item> items = new TreeMap<>();
  private long clock;
  private boolean servedSinceTick;
  private int mutations;
  private int requests;
  // Mutator thread only; starts "quiet" with no turns left, so the first turn opens a burst.
  private boolean quiet = true;
  private int phaseLeft;

  private MutatingVendor(HttpServer server, long seed, int maxItems) {
    this.server = server;
    this.random = new SplittableRandom(seed);
    this.maxItems = maxItems;
    this.mutator =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "vendor-mutator");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts serving on an ephemeral port of 127.0.0.1 at once; mutations start with {@link
   * #startMutating}.
   *
   * @param seed the seed of every mutation and phase length
   * @param maxItems how many items are created at most; later mutations update them
   * @return the running vendor; close it to stop
   * @throws IOException if the server cannot bind
   */
  public static MutatingVendor start(long seed, int maxItems) throws IOException {
    // Without TCP_NODELAY the body written after the headers waits for a delayed ACK (about 40 ms a
    // request), which would slow every page ten times. Read once, when the server classes load.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    MutatingVendor vendor = new MutatingVendor(http, seed, maxItems);
    http.createContext("/items", vendor::list);
    http.start();
    return vendor;
  }

  /**
   * Where the vendor listens.
   *
   * @return {@code http://127.0.0.1:PORT}, without a trailing slash
   */
  public String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /**
   * A mutator turn every {@code every}, on a daemon thread: in a burst, a batch of one to {@value
   * #MAX_BATCH} mutations.
   *
   * @param every the delay between two turns
   */
  public void startMutating(Duration every) {
    mutator.scheduleWithFixedDelay(this::mutateBatch, 0, every.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Stops the mutations and waits for a batch in progress, so {@link #items()} is final.
   *
   * @throws InterruptedException if interrupted while waiting
   * @throws IllegalStateException if the batch in progress did not end within 10 s
   */
  public void stopMutating() throws InterruptedException {
    mutator.shutdownNow();
    if (!mutator.awaitTermination(10, TimeUnit.SECONDS))
      throw new IllegalStateException("mutator did not stop");
  }

  /**
   * The current items.
   *
   * @return a copy, by id
   */
  public Map<String, Item> items() {
    synchronized (lock) {
      return Map.copyOf(items);
    }
  }

  /**
   * How many creates and updates so far.
   *
   * @return the count
   */
  public int mutations() {
    synchronized (lock) {
      return mutations;
    }
  }

  /**
   * How many listing requests were served so far.
   *
   * @return the count
   */
  public int requests() {
    synchronized (lock) {
      return requests;
    }
  }

  /**
   * The logical clock's last value.
   *
   * @return seconds since {@link #EPOCH}
   */
  public long clock() {
    synchronized (lock) {
      return clock;
    }
  }

  private void mutateBatch() {
    if (phaseLeft-- <= 0) {
      quiet = !quiet;
      phaseLeft =
          quiet
              ? MIN_QUIET + random.nextInt(MAX_QUIET - MIN_QUIET + 1)
              : MIN_BURST + random.nextInt(MAX_BURST - MIN_BURST + 1);
    }
    if (quiet) return;
    synchronized (lock) {
      if (servedSinceTick) {
        clock++;
        servedSinceTick = false;
      }
      String now = EPOCH.plusSeconds(clock).toString();
      int n = 1 + random.nextInt(MAX_BATCH);
      for (int i = 0; i < n; i++) {
        boolean create =
            items.size() < MIN_ITEMS
                || (items.size() < maxItems && random.nextDouble() < CREATE_SHARE);
        if (create) {
          String id = "item-%03d".formatted(items.size() + 1);
          items.put(id, new Item(id, 1, now, random.nextInt(1_000_000)));
        } else {
          List<String> ids = new ArrayList<>(items.keySet());
          Item old = items.get(ids.get(random.nextInt(ids.size())));
          items.put(old.id(), new Item(old.id(), old.rev() + 1, now, random.nextInt(1_000_000)));
        }
        mutations++;
      }
    }
  }

  private void list(HttpExchange exchange) throws IOException {
    try (exchange) {
      Map<String, String> q = query(exchange.getRequestURI().getRawQuery());
      Instant since =
          q.containsKey("updated_since") ? Instant.parse(q.get("updated_since")) : Instant.MIN;
      String afterId = q.getOrDefault("after_id", "");
      int limit = Integer.parseInt(q.getOrDefault("limit", "100"));
      List<Item> match = new ArrayList<>();
      synchronized (lock) {
        requests++;
        // Whatever this response shows is now "read": later mutations get a later timestamp.
        servedSinceTick = true;
        for (Item item : items.values()) {
          int c = Instant.parse(item.updatedAt()).compareTo(since);
          if (c > 0 || (c == 0 && item.id().compareTo(afterId) > 0)) match.add(item);
        }
      }
      match.sort(
          Comparator.comparing((Item i) -> Instant.parse(i.updatedAt())).thenComparing(Item::id));
      Listing page =
          new Listing(
              List.copyOf(match.subList(0, Math.min(limit, match.size()))), match.size() > limit);
      byte[] body = JSON.writeValueAsBytes(page);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> q = new HashMap<>();
    if (raw == null) return q;
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0)
        q.put(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return q;
  }

  /** Stops the mutations (without waiting) and the server. */
  @Override
  public void close() {
    mutator.shutdownNow();
    server.stop(0);
  }
}
