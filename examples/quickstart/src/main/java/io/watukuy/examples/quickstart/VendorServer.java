package io.watukuy.examples.quickstart;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.examples.quickstart.Quickstart.Listing;
import io.watukuy.examples.quickstart.Quickstart.Product;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for a vendor's catalogue API on 127.0.0.1: {@code GET /products?updated_since=&
 * after_sku=&limit=} returns products with {@code updatedAt >= updated_since} (and, at exactly
 * {@code updated_since}, {@code sku > after_sku}), ordered by {@code (updatedAt, sku)}.
 */
final class VendorServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final Map<String, Product> products = new HashMap<>();
  private final AtomicInteger requests = new AtomicInteger();

  private VendorServer(HttpServer server) {
    this.server = server;
    add("SKU-1", "Kettle", 2900, "2026-01-01T08:00:00Z");
    add("SKU-2", "Mug", 1100, "2026-01-01T08:00:00Z");
    add("SKU-3", "Saucer", 700, "2026-01-01T08:15:00Z");
  }

  static VendorServer start() throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    VendorServer vendor = new VendorServer(http);
    http.createContext("/products", vendor::list);
    http.start();
    return vendor;
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  int requests() {
    return requests.get();
  }

  synchronized void add(String sku, String name, int price, String updatedAt) {
    products.put(sku, new Product(sku, name, price, updatedAt));
  }

  synchronized void changePrice(String sku, int price, String updatedAt) {
    Product p = products.get(sku);
    products.put(sku, new Product(sku, p.name(), price, updatedAt));
  }

  private void list(HttpExchange exchange) throws IOException {
    requests.incrementAndGet();
    Map<String, String> q = query(exchange.getRequestURI().getRawQuery());
    Instant since =
        q.containsKey("updated_since") ? Instant.parse(q.get("updated_since")) : Instant.EPOCH;
    String afterSku = q.getOrDefault("after_sku", "");
    int limit = Integer.parseInt(q.getOrDefault("limit", "100"));
    List<Product> match = new ArrayList<>();
    synchronized (this) {
      for (Product p : products.values()) {
        int c = Instant.parse(p.updatedAt()).compareTo(since);
        if (c > 0 || (c == 0 && p.sku().compareTo(afterSku) > 0)) match.add(p);
      }
    }
    match.sort(
        Comparator.comparing((Product p) -> Instant.parse(p.updatedAt()))
            .thenComparing(Product::sku));
    Listing page =
        new Listing(match.subList(0, Math.min(limit, match.size())), match.size() > limit);
    byte[] body = JSON.writeValueAsBytes(page);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(200, body.length);
    exchange.getResponseBody().write(body);
    exchange.close();
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
    server.stop(0);
  }
}
