package io.watukuy.sink.kafka;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
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
 * A vendor API on 127.0.0.1 whose items keep changing, for the process-kill test: {@code GET
 * /items?updated_since=&after_id=&limit=} is a keyset listing ordered by {@code (updatedAt, id)},
 * and a thread creates and updates one to three items every few milliseconds, from a seed.
 *
 * <p>{@code updatedAt} is a logical clock ({@link #EPOCH} plus a counter in seconds) that moves
 * only when a mutation follows a served request, so no mutation lands at or before a position a
 * client may have read: a change the poller misses is the poller's fault.
 */
final class ItemsApi implements AutoCloseable {
  static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One item of the listing; {@code rev} counts its changes from 1. */
  record Item(String id, int rev, String updatedAt, int value) {}

  /** One page. */
  record Listing(List<Item> items, boolean hasMore) {}

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

  private ItemsApi(HttpServer server, long seed, int maxItems) {
    this.server = server;
    this.random = new SplittableRandom(seed);
    this.maxItems = maxItems;
    this.mutator =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "items-mutator");
              t.setDaemon(true);
              return t;
            });
  }

  static ItemsApi start(long seed, int maxItems) throws IOException {
    System.setProperty("sun.net.httpserver.nodelay", "true");
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    ItemsApi api = new ItemsApi(http, seed, maxItems);
    http.createContext("/items", api::list);
    http.start();
    return api;
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  void startMutating(long everyMs) {
    mutator.scheduleWithFixedDelay(this::mutate, 0, everyMs, TimeUnit.MILLISECONDS);
  }

  /** Stops the mutator and waits (bounded) for a turn in progress. */
  void stopMutating() throws InterruptedException {
    mutator.shutdown();
    mutator.awaitTermination(5, TimeUnit.SECONDS);
  }

  /** The items now, by id. */
  Map<String, Item> items() {
    synchronized (lock) {
      return new HashMap<>(items);
    }
  }

  int mutations() {
    synchronized (lock) {
      return mutations;
    }
  }

  private void mutate() {
    synchronized (lock) {
      if (servedSinceTick) {
        clock++;
        servedSinceTick = false;
      }
      String at = EPOCH.plusSeconds(clock).toString();
      int n = 1 + random.nextInt(3);
      for (int i = 0; i < n; i++) {
        boolean create = items.size() < 3 || (items.size() < maxItems && random.nextInt(10) < 3);
        if (create) {
          String id = String.format("i%03d", items.size() + 1);
          items.put(id, new Item(id, 1, at, random.nextInt(1000)));
        } else {
          String id = String.format("i%03d", 1 + random.nextInt(items.size()));
          Item old = items.get(id);
          items.put(id, new Item(id, old.rev() + 1, at, random.nextInt(1000)));
        }
        mutations++;
      }
    }
  }

  private void list(HttpExchange ex) throws IOException {
    Map<String, String> q = query(ex.getRequestURI().getRawQuery());
    String since = q.getOrDefault("updated_since", "");
    String afterId = q.getOrDefault("after_id", "");
    int limit = Integer.parseInt(q.getOrDefault("limit", "10"));
    byte[] body;
    synchronized (lock) {
      servedSinceTick = true;
      List<Item> sorted = new ArrayList<>(items.values());
      sorted.sort(
          Comparator.comparing((Item i) -> Instant.parse(i.updatedAt())).thenComparing(Item::id));
      List<Item> page = new ArrayList<>();
      boolean more = false;
      for (Item it : sorted) {
        // Instants, not text: the cursor may come back as 00:00:05.000Z for 00:00:05Z.
        int c = since.isEmpty() ? 1 : Instant.parse(it.updatedAt()).compareTo(Instant.parse(since));
        if (c < 0 || (c == 0 && it.id().compareTo(afterId) <= 0)) continue;
        if (page.size() == limit) {
          more = true;
          break;
        }
        page.add(it);
      }
      body = JSON.writeValueAsBytes(new Listing(page, more));
    }
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null) return out;
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      if (eq < 0) continue;
      out.put(
          URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
          URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return out;
  }

  @Override
  public void close() throws InterruptedException {
    stopMutating();
    server.stop(0);
  }
}
