package io.watukuy.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A vendor's listing endpoint on 127.0.0.1 for paging tests: {@code answer} turns each request URI
 * into a status and a JSON body; every request's path and raw query is kept in {@link #seen()}.
 */
final class ListingServer implements AutoCloseable {
  /** What the server answers one request with. */
  record Answer(int status, String json) {
    static Answer ok(String json) {
      return new Answer(200, json);
    }
  }

  private final HttpServer server;
  private final List<String> seen = new CopyOnWriteArrayList<>();

  private ListingServer(HttpServer server) {
    this.server = server;
  }

  static ListingServer start(String path, Function<URI, Answer> answer) {
    try {
      HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      ListingServer listing = new ListingServer(s);
      s.createContext(
          path,
          ex -> {
            URI uri = ex.getRequestURI();
            listing.seen.add(
                uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()));
            Answer a = answer.apply(uri);
            byte[] bytes = a.json().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(a.status(), bytes.length);
            ex.getResponseBody().write(bytes);
            ex.close();
          });
      s.start();
      return listing;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code http://127.0.0.1:PORT}. */
  String origin() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** The requests so far: path and raw query, in order. */
  List<String> seen() {
    return List.copyOf(seen);
  }

  /** The query of {@code uri} as name to decoded value. */
  static Map<String, String> query(URI uri) {
    Map<String, String> out = new LinkedHashMap<>();
    if (uri.getQuery() == null) return out;
    for (String pair : uri.getQuery().split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) out.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return out;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
