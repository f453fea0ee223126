package io.watukuy.sink.webhook;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A vendor API on 127.0.0.1 whose items keep changing, for {@link WebhookKillTest}: {@code GET
 * /items?updated_since=&after_id=&limit=} is a keyset listing ordered by {@code (updatedAt, id)}; a
 * background thread creates and updates items. {@code updatedAt} is a logical clock that moves only
 * when a mutation follows a served request, so no mutation lands at or before a position a client
 * may already have read: a missed change would be the poller's fault.
 */
final class KillVendor implements AutoCloseable {
  static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One item: its id, revision (from 1) and logical time. */
  record Item(String id, int rev, long at) {}

  private final HttpServer server;
  private final SplittableRandom random;
  private final int maxItems;
  private final ScheduledExecutorService mutator =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "vendor-mutator");
            t.setDaemon(true);
            return t;
          });
  private final Object lock = new Object();
  private final Map<String, Item> items = new TreeMap<>();
  private long clock;
  private boolean servedSinceTick;

  private KillVendor(HttpServer server, long seed, int maxItems) {
    this.server = server;
    this.random = new SplittableRandom(seed);
    this.maxItems = maxItems;
  }

  static KillVendor start(long seed, int maxItems) throws IOException {
    System.setProperty("sun.net.httpserver.nodelay", "true");
    KillVendor v =
        new KillVendor(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0), seed, maxItems);
    v.server.createContext("/items", v::list);
    v.server.start();
    return v;
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** One to three mutations every {@code every}. */
  void startMutating(Duration every) {
    mutator.scheduleWithFixedDelay(this::mutate, 0, every.toNanos(), TimeUnit.NANOSECONDS);
  }

  void stopMutating() throws InterruptedException {
    mutator.shutdownNow();
    if (!mutator.awaitTermination(10, TimeUnit.SECONDS))
      throw new IllegalStateException("mutator did not stop");
  }

  /** The items now, by id. */
  Map<String, Item> items() {
    synchronized (lock) {
      return Map.copyOf(items);
    }
  }

  private void mutate() {
    synchronized (lock) {
      if (servedSinceTick) {
        clock++;
        servedSinceTick = false;
      }
      int n = 1 + random.nextInt(3);
      for (int i = 0; i < n; i++) {
        if (items.size() < 3 || (items.size() < maxItems && random.nextInt(10) < 3)) {
          String id = "item-%03d".formatted(items.size() + 1);
          items.put(id, new Item(id, 1, clock));
        } else {
          List<String> ids = new ArrayList<>(items.keySet());
          Item old = items.get(ids.get(random.nextInt(ids.size())));
          items.put(old.id(), new Item(old.id(), old.rev() + 1, clock));
        }
      }
    }
  }

  private void list(HttpExchange exchange) throws IOException {
    try (exchange) {
      Map<String, String> q = query(exchange.getRequestURI().getRawQuery());
      long since =
          q.containsKey("updated_since")
              ? Instant.parse(q.get("updated_since")).getEpochSecond() - EPOCH.getEpochSecond()
              : Long.MIN_VALUE;
      String afterId = q.getOrDefault("after_id", "");
      int limit = Integer.parseInt(q.getOrDefault("limit", "100"));
      List<Item> match = new ArrayList<>();
      synchronized (lock) {
        servedSinceTick = true;
        for (Item item : items.values())
          if (item.at() > since || (item.at() == since && item.id().compareTo(afterId) > 0))
            match.add(item);
      }
      match.sort(
          (a, b) -> a.at() != b.at() ? Long.compare(a.at(), b.at()) : a.id().compareTo(b.id()));
      ObjectNode page = JSON.createObjectNode();
      ArrayNode list = page.putArray("items");
      for (Item item : match.subList(0, Math.min(limit, match.size())))
        list.addObject()
            .put("id", item.id())
            .put("rev", item.rev())
            .put("updatedAt", EPOCH.plusSeconds(item.at()).toString());
      page.put("hasMore", match.size() > limit);
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

  @Override
  public void close() {
    mutator.shutdownNow();
    server.stop(0);
  }
}
