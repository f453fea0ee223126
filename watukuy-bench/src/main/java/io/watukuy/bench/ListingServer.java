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
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;

/**
 * A vendor API on 127.0.0.1 for the end-to-end bench, over a listing of {@code n} items, deleted
 * ones left out; both requests answer {@code {"items": [...], "hasMore": bool}}:
 *
 * <ul>
 *   <li>{@code GET /items?page=P} (1-based): up to {@link #PAGE} items in index order, for page and
 *       snapshotDiff pollers;
 *   <li>{@code GET /items?sort=updated[&since=T[&after_id=ID]]}: up to {@link #PAGE} items sorted
 *       by {@code (updated_at, id)}, those with {@code updated_at >= T} (an ISO-8601 instant) and,
 *       when {@code after_id} is given, {@code id > ID} at exactly {@code T}: the keyset filter of
 *       a timestamp poller with tie-break {@code id}. Without {@code since}, from the start.
 * </ul>
 *
 * Item {@code i} is {@link Items#item(int, int)} at its current revision, except for its {@code
 * updated_at}: the server stamps it from a clock of whole seconds, like an API's clock that only
 * moves forward. Item {@code i} starts at {@link Items#timestamp} {@code (i)}, and each update
 * stamps it one second after the latest {@code updated_at} in the listing, so changes come back
 * from an {@code updated_at} filter in the order they were made. Items are rendered from
 * pre-serialised fragments so that serving a page costs little CPU, and the server's heap stays a
 * few bytes per item (a revision byte, a stamp, its slot in the stamp order and a deleted bit)
 * whatever {@code n} is. Updates may happen while pollers read the {@code sort=updated} listing (it
 * is served under the server's lock); the page listing is meant to be read between mutations.
 */
public final class ListingServer implements AutoCloseable {
  /** Items per page. */
  public static final int PAGE = 500;

  static {
    // Without TCP_NODELAY the JDK server's small responses wait for the client's delayed ACK
    // (about 40 ms on Linux): an empty page would cost a poll 40 ms that a real API does not.
    // Read once, when the JDK's server classes load; set here, before the first server.
    if (System.getProperty("sun.net.httpserver.nodelay") == null)
      System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  // Sentinels that cannot occur in the recorded issues; each template is split around them.
  private static final long ID = 987_654_321_000L;
  private static final int NUMBER = 987_654_321;
  private static final int COMMENTS = 987_654_322;
  private static final String UPDATED = "@@updated_at@@";
  private static final String TITLE = "@@title@@";

  private final int n;
  private final byte[] rev;
  private final BitSet deleted;

  /** The seconds after the base time of each item's {@code updated_at}. */
  private final int[] stamp;

  /** The item stamped at each second, or -1 when it was updated again or deleted since. */
  private int[] byStamp;

  /** The latest stamp handed out. */
  private int clock;

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
    this.stamp = new int[n];
    this.byStamp = new int[n + Math.max(16, n / 8)];
    for (int i = 0; i < n; i++) {
      stamp[i] = i;
      byStamp[i] = i;
    }
    this.clock = n - 1;
    for (int t = 0; t < 13; t++) templates.add(new Template(t));
    rebuild();
    executor =
        Executors.newFixedThreadPool(
            2,
            r -> {
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
   * Edits item {@code index} once more (title, comments) and stamps its {@code updated_at} one
   * second after the latest one in the listing.
   *
   * @param index an item that is not deleted
   * @return the item's new {@code updated_at}
   */
  public synchronized String update(int index) {
    if (deleted.get(index)) throw new IllegalStateException("item " + index + " is deleted");
    rev[index]++;
    byStamp[stamp[index]] = -1;
    clock++;
    if (clock == byStamp.length) byStamp = Arrays.copyOf(byStamp, byStamp.length * 2);
    byStamp[clock] = index;
    stamp[index] = clock;
    return Items.timestamp(clock);
  }

  /**
   * Removes item {@code index} from the listing.
   *
   * @param index an item
   */
  public synchronized void delete(int index) {
    if (!deleted.get(index)) byStamp[stamp[index]] = -1;
    deleted.set(index);
    rebuild();
  }

  /**
   * The {@code updated_at} of an item now.
   *
   * @param index an item
   * @return an ISO-8601 instant
   */
  public synchronized String updatedAt(int index) {
    return Items.timestamp(stamp[index]);
  }

  /** The latest {@code updated_at} in the listing: where a caught-up timestamp poller stands. */
  public synchronized String latestUpdatedAt() {
    return Items.timestamp(clock);
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
      templates.get(i % templates.size()).render(out, i, rev[i], stamp[i]);
    }
    out.append("],\"hasMore\":").append(to < ids.length).append('}');
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The body of one page of the {@code sort=updated} listing, as served.
   *
   * @param since the inclusive lower bound of {@code updated_at} (ISO-8601), or {@code null} for
   *     the start
   * @param afterId at exactly {@code since}, only ids above this one; {@code null} for all
   * @return UTF-8 JSON
   * @throws java.time.format.DateTimeParseException if {@code since} is not an ISO-8601 instant
   * @throws NumberFormatException if {@code afterId} is not a whole number
   */
  public synchronized byte[] updatedSince(@Nullable String since, @Nullable String afterId) {
    long first = since == null ? 0 : Items.seconds(since);
    long from = Math.max(0, first);
    // after_id applies to the items stamped exactly at since, not to those after a rounded-up one.
    boolean exact = since != null && first >= 0 && Instant.parse(since).getNano() == 0;
    long after = afterId == null ? Long.MIN_VALUE : Long.parseLong(afterId);
    StringBuilder out = new StringBuilder(PAGE * 2700 + 32);
    out.append("{\"items\":[");
    int count = 0;
    boolean more = false;
    // Stamps are unique, so (updated_at, id) order is stamp order; holes are items stamped anew.
    for (long s = from; s <= clock; s++) {
      int i = byStamp[(int) s];
      if (i < 0 || (exact && s == from && 1_000_000L + i <= after)) continue;
      if (count == PAGE) {
        more = true;
        break;
      }
      if (count++ > 0) out.append(',');
      templates.get(i % templates.size()).render(out, i, rev[i], stamp[i]);
    }
    out.append("],\"hasMore\":").append(more).append('}');
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
      String sort = null;
      String since = null;
      String afterId = null;
      String query = exchange.getRequestURI().getRawQuery();
      if (query != null) {
        for (String part : query.split("&")) {
          int eq = part.indexOf('=');
          if (eq < 0) continue;
          String value = URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
          switch (part.substring(0, eq)) {
            case "page" -> page = Integer.parseInt(value);
            case "sort" -> sort = value;
            case "since" -> since = value;
            case "after_id" -> afterId = value;
            default -> {}
          }
        }
      }
      if (page < 1 || (sort != null && !sort.equals("updated"))) {
        exchange.sendResponseHeaders(400, -1);
        return;
      }
      byte[] body = sort == null ? page(page) : updatedSince(since, afterId);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    } catch (NumberFormatException | DateTimeParseException e) {
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
        {"\"id\":", Long.toString(ID), "i"},
        {"\"number\":", Integer.toString(NUMBER), "n"},
        {"\"comments\":", Integer.toString(COMMENTS), "c"},
        {"\"updated_at\":", "\"" + UPDATED + "\"", "u"},
        {"\"title\":", "\"" + TITLE + "\"", "t"}
      };
      List<int[]> at = new ArrayList<>();
      for (int m = 0; m < markers.length; m++) {
        String marker = markers[m][0] + markers[m][1];
        int pos = json.indexOf(marker);
        if (pos < 0 || json.indexOf(marker, pos + 1) >= 0)
          throw new IllegalStateException(
              "template " + t + ": marker " + marker + " not found exactly once");
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

    void render(StringBuilder out, int index, int rev, int stamp) {
      for (int k = 0; k < fields.length; k++) {
        out.append(fragments[k]);
        switch (fields[k]) {
          case 'i' -> out.append(1_000_000L + index);
          case 'n' -> out.append(index + 1);
          case 'c' -> out.append(comments + rev);
          case 'u' -> out.append('"').append(Items.timestamp(stamp)).append('"');
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
