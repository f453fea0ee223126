package io.watukuy.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A vendor API on 127.0.0.1 for the end-to-end bench: {@code GET /items?page=P} (1-based) answers
 * {@code {"items": [...], "hasMore": bool}} with up to {@link #PAGE} items of a listing of {@code
 * n} items, in index order, deleted ones left out. Item {@code i} is {@link Items#item(int, int)}
 * at its current revision, rendered from pre-serialised fragments so that serving a page costs
 * little CPU and the server's heap stays a few bytes per item (a revision byte and a deleted bit)
 * whatever {@code n} is. Mutations happen between phases, never while a listing is read.
 */
public final class ListingServer implements AutoCloseable {
  /** Items per page. */
  public static final int PAGE = 500;

  // Sentinels that cannot occur in the recorded issues; each template is split around them.
  private static final long ID = 987_654_321_000L;
  private static final int NUMBER = 987_654_321;
  private static final int COMMENTS = 987_654_322;
  private static final String UPDATED = "@@updated_at@@";
  private static final String TITLE = "@@title@@";

  private final int n;
  private final byte[] rev;
  private final BitSet deleted;
  private final List<Template> templates = new ArrayList<>();
  private volatile int[] live;
  private final HttpServer server;
  private final ExecutorService executor;

  /**
   * Starts the server on an ephemeral loopback port.
   *
   * @param n how many items the listing holds; at least 1
   * @throws IOException if the server cannot bind
   */
  public ListingServer(int n) throws IOException {
    if (n < 1) throw new IllegalArgumentException("items must be >= 1, but was " + n);
    this.n = n;
    this.rev = new byte[n];
    this.deleted = new BitSet(n);
    for (int t = 0; t < 13; t++) templates.add(new Template(t));
    rebuild();
    executor = Executors.newFixedThreadPool(2, r -> {
      Thread th = new Thread(r, "listing-server");
      th.setDaemon(true);
      return th;
    });
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(executor);
    server.createContext("/items", this::serve);
    server.start();
  }

  /** The listing's URL, {@code http://127.0.0.1:PORT/items}. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/items";
  }

  /** How many items are listed now. */
  public int size() {
    return live.length;
  }

  /**
   * Edits item {@code index} once more (title, comments, {@code updated_at}).
   *
   * @param index an item that is not deleted
   */
  public synchronized void update(int index) {
    if (deleted.get(index)) throw new IllegalStateException("item " + index + " is deleted");
    rev[index]++;
  }

  /**
   * Removes item {@code index} from the listing.
   *
   * @param index an item
   */
  public synchronized void delete(int index) {
    deleted.set(index);
    rebuild();
  }

  /** The indexes of the listed items, in listing order. */
  public List<Integer> liveIndexes() {
    int[] ids = live;
    List<Integer> out = new ArrayList<>(ids.length);
    for (int i : ids) out.add(i);
    return out;
  }

  /** The current revision of an item: how many times it was updated. */
  public int revision(int index) {
    return rev[index];
  }

  /**
   * The body of one page, as served.
   *
   * @param page 1-based
   * @return UTF-8 JSON
   */
  public byte[] page(int page) {
    int[] ids = live;
    int from = Math.min((page - 1) * PAGE, ids.length);
    int to = Math.min(from + PAGE, ids.length);
    StringBuilder out = new StringBuilder((to - from) * 2700 + 32);
    out.append("{\"items\":[");
    for (int k = from; k < to; k++) {
      if (k > from) out.append(',');
      int i = ids[k];
      templates.get(i % templates.size()).render(out, i, rev[i]);
    }
    out.append("],\"hasMore\":").append(to < ids.length).append('}');
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  private synchronized void rebuild() {
    int[] ids = new int[n - deleted.cardinality()];
    for (int i = 0, k = 0; i < n; i++) if (!deleted.get(i)) ids[k++] = i;
    live = ids;
  }

  private void serve(HttpExchange exchange) throws IOException {
    try (exchange) {
      int page = 1;
      String query = exchange.getRequestURI().getRawQuery();
      if (query != null) {
        for (String part : query.split("&")) {
          if (part.startsWith("page=")) page = Integer.parseInt(part.substring(5));
        }
      }
      if (page < 1) {
        exchange.sendResponseHeaders(400, -1);
        return;
      }
      byte[] body = page(page);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    } catch (NumberFormatException e) {
      exchange.sendResponseHeaders(400, -1);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  /** For tests: the URI of one page. */
  URI pageUri(int page) {
    return URI.create(url() + "?page=" + page);
  }

  /** One recorded issue split around the fields that vary per item. */
  private static final class Template {
    private final String[] fragments;
    private final char[] fields; // i: id, n: number, c: comments, u: updated_at, t: title
    private final String title;
    private final String titleJson;
    private final int comments;

    Template(int t) {
      ObjectNode n = Items.item(t, 0);
      title = n.get("title").asText();
      comments = n.get("comments").asInt();
      n.put("id", ID);
      n.put("number", NUMBER);
      n.put("comments", COMMENTS);
      n.put("updated_at", UPDATED);
      n.put("title", TITLE);
      String json = n.toString();
      // {key, sentinel as written, field}: the key makes each marker unique in the text.
      String[][] markers = {
        {"\"id\":", Long.toString(ID), "i"}, {"\"number\":", Integer.toString(NUMBER), "n"},
        {"\"comments\":", Integer.toString(COMMENTS), "c"}, {"\"updated_at\":", "\"" + UPDATED + "\"", "u"},
        {"\"title\":", "\"" + TITLE + "\"", "t"}};
      List<int[]> at = new ArrayList<>();
      for (int m = 0; m < markers.length; m++) {
        String marker = markers[m][0] + markers[m][1];
        int pos = json.indexOf(marker);
        if (pos < 0 || json.indexOf(marker, pos + 1) >= 0)
          throw new IllegalStateException("template " + t + ": marker " + marker + " not found exactly once");
        at.add(new int[] {pos + markers[m][0].length(), m});
      }
      at.sort((a, b) -> Integer.compare(a[0], b[0]));
      fragments = new String[at.size() + 1];
      fields = new char[at.size()];
      int start = 0;
      for (int k = 0; k < at.size(); k++) {
        int pos = at.get(k)[0];
        String[] marker = markers[at.get(k)[1]];
        fragments[k] = json.substring(start, pos);
        fields[k] = marker[2].charAt(0);
        start = pos + marker[1].length();
      }
      fragments[at.size()] = json.substring(start);
      titleJson = quote(title);
    }

    void render(StringBuilder out, int index, int rev) {
      for (int k = 0; k < fields.length; k++) {
        out.append(fragments[k]);
        switch (fields[k]) {
          case 'i' -> out.append(1_000_000L + index);
          case 'n' -> out.append(index + 1);
          case 'c' -> out.append(comments + rev);
          case 'u' -> out.append('"').append(Items.updatedAt(index, rev)).append('"');
          default -> out.append(rev == 0 ? titleJson : quote(title + " (edit " + rev + ")"));
        }
      }
      out.append(fragments[fields.length]);
    }

    private static String quote(String s) {
      try {
        return Items.MAPPER.writeValueAsString(s);
      } catch (JsonProcessingException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
