package io.watukuy.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The vendor API of {@code watukuy demo}: a GitHub-like issues listing on a loopback port, seeded
 * from recorded GitHub issues, that keeps changing. It serves {@code GET
 * /repos/demo/issues?since=&after=&state=&sort=&direction=&per_page=&page=} with GitHub's {@code
 * Link} paging pointing at itself, a strong {@code ETag} per body and 304 on a matching {@code
 * If-None-Match}. {@code after} is this vendor's own tie-break: with {@code since}, it skips issues
 * updated exactly at {@code since} whose number is not above it.
 *
 * <p>A mutator edits a title or a state, adds an issue or deletes one at a fixed interval, with a
 * seeded random per mutation. The world is saved to a JSON file after every mutation and read back
 * at start, so a restart continues it.
 */
final class DemoVendor implements AutoCloseable {
  static final String PATH = "/repos/demo/issues";
  static final long DEFAULT_SEED = 42;
  static final int DEFAULT_PER_PAGE = 30;
  static final int MAX_PER_PAGE = 100;
  // Deletes stop here so the world never empties.
  static final int MIN_ISSUES = 6;
  // Adds turn into deletes here so a long run stays readable.
  static final int MAX_ISSUES = 40;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SEED_RESOURCE = "/demo/github-issues-pages.json";

  /** The recording's timestamps: GitHub's ISO 8601 in UTC, whole seconds. */
  private static final Pattern TIMESTAMP =
      Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z");

  private static final List<String> TITLES =
      List.of(
          "Pagination skips the last page",
          "Document the since parameter",
          "ETag ignored after a 304",
          "Crash when the body is empty",
          "Follow Link headers verbatim",
          "Typo in the README",
          "Flaky test on Windows",
          "Retry with backoff on 503",
          "Rate limit reached too early",
          "Time zone bug in updated_at",
          "Deleted issues still listed",
          "Support per_page above 100");

  private final Path stateFile;
  private final Supplier<Instant> clock;
  private final Duration mutateEvery;
  private final Object lock = new Object();
  // number -> issue; guarded by lock
  private final TreeMap<Integer, ObjectNode> issues = new TreeMap<>();
  private long seed;
  private long mutations;
  private int nextNumber;
  private @Nullable HttpServer server;
  private @Nullable ScheduledExecutorService mutator;

  /**
   * @param stateFile where the world is kept; read when it exists, else seeded from the recording
   * @param clock the demo's clock: an edit sets {@code updated_at} to it, truncated to seconds
   * @param mutateEvery time between mutations
   */
  DemoVendor(Path stateFile, Supplier<Instant> clock, Duration mutateEvery) {
    this.stateFile = stateFile;
    this.clock = clock;
    this.mutateEvery = mutateEvery;
    load();
  }

  /** Starts the server on a free loopback port and the mutator. */
  void start() throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    s.createContext("/", this::handle);
    s.setExecutor(Executors.newFixedThreadPool(2, r -> daemon(r, "demo-vendor-http")));
    s.start();
    server = s;
    ScheduledExecutorService m =
        Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "demo-vendor-mutator"));
    long ms = mutateEvery.toMillis();
    m.scheduleWithFixedDelay(this::mutateQuietly, ms, ms, TimeUnit.MILLISECONDS);
    mutator = m;
  }

  /** The base URL, e.g. {@code http://127.0.0.1:40123}. */
  String baseUrl() {
    if (server == null) throw new IllegalStateException("not started");
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  int size() {
    synchronized (lock) {
      return issues.size();
    }
  }

  boolean resumed() {
    synchronized (lock) {
      return mutations > 0;
    }
  }

  @Override
  public void close() {
    if (mutator != null) {
      mutator.shutdownNow();
      try {
        mutator.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (server != null) {
      server.stop(0);
      ((ExecutorService) server.getExecutor()).shutdownNow();
    }
    synchronized (lock) {
      save();
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  // ---------------------------------------------------------------- state

  private void load() {
    try {
      if (Files.exists(stateFile)) {
        JsonNode root = JSON.readTree(stateFile.toFile());
        seed = root.path("seed").asLong(DEFAULT_SEED);
        mutations = root.path("mutations").asLong();
        nextNumber = root.path("nextNumber").asInt();
        for (JsonNode issue : root.path("issues"))
          issues.put(issue.path("number").asInt(), (ObjectNode) issue);
      } else {
        seed = DEFAULT_SEED;
        try (InputStream in = DemoVendor.class.getResourceAsStream(SEED_RESOURCE)) {
          if (in == null)
            throw new IllegalStateException(SEED_RESOURCE + " is missing from the jar");
          for (JsonNode exchange : JSON.readTree(in)) {
            for (JsonNode issue : exchange.path("response"))
              issues.put(issue.path("number").asInt(), (ObjectNode) issue);
          }
        }
        bringToNow();
        nextNumber = issues.isEmpty() ? 1 : issues.lastKey() + 1;
        save();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("demo vendor state " + stateFile + ": " + e.getMessage(), e);
    }
  }

  /**
   * Moves every timestamp of a new world by one constant so that the newest is now: the recording
   * is from 2022, and a watermark that old would show years of lag until the first edit. Their
   * spacing, and so the order of every listing, stays as recorded.
   */
  private void bringToNow() {
    Instant newest = null;
    for (ObjectNode issue : issues.values()) newest = newest(issue, newest);
    if (newest == null) return;
    Duration shift = Duration.between(newest, clock.get().truncatedTo(ChronoUnit.SECONDS));
    for (ObjectNode issue : issues.values()) shift(issue, shift);
  }

  private static @Nullable Instant newest(JsonNode node, @Nullable Instant sofar) {
    if (node.isTextual() && TIMESTAMP.matcher(node.textValue()).matches()) {
      Instant t = Instant.parse(node.textValue());
      return sofar == null || t.isAfter(sofar) ? t : sofar;
    }
    Instant n = sofar;
    for (JsonNode child : node) n = newest(child, n);
    return n;
  }

  private static void shift(ObjectNode node, Duration by) {
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      JsonNode value = field.getValue();
      if (value.isTextual() && TIMESTAMP.matcher(value.textValue()).matches()) {
        field.setValue(
            JSON.getNodeFactory().textNode(Instant.parse(value.textValue()).plus(by).toString()));
      } else if (value.isObject()) {
        shift((ObjectNode) value, by);
      } else if (value.isArray()) {
        for (JsonNode element : value) if (element.isObject()) shift((ObjectNode) element, by);
      }
    }
  }

  // Written to a temporary file and moved, so a kill mid-write leaves the previous world.
  private void save() {
    ObjectNode root = JSON.createObjectNode();
    root.put("seed", seed).put("mutations", mutations).put("nextNumber", nextNumber);
    ArrayNode list = root.putArray("issues");
    issues.values().forEach(list::add);
    Path tmp = stateFile.resolveSibling(stateFile.getFileName() + ".tmp");
    try {
      JSON.writeValue(tmp.toFile(), root);
      Files.move(
          tmp, stateFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("demo vendor state " + stateFile + ": " + e.getMessage(), e);
    }
  }

  // ---------------------------------------------------------------- mutations

  private void mutateQuietly() {
    try {
      mutate();
    } catch (RuntimeException e) {
      // The demo goes on with the old world; the next mutation tries again.
    }
  }

  /** One seeded change: edit a title (45 %), open or close (31 %), add (12 %), delete (12 %). */
  void mutate() {
    synchronized (lock) {
      // SplittableRandom mixes its seed, so consecutive mutations do not draw alike.
      SplittableRandom r = new SplittableRandom(seed * 1_000_003L + mutations);
      String now = clock.get().truncatedTo(ChronoUnit.SECONDS).toString();
      int roll = r.nextInt(100);
      List<Integer> numbers = new ArrayList<>(issues.keySet());
      boolean delete = roll >= 88 || (roll >= 76 && issues.size() >= MAX_ISSUES);
      if (delete && issues.size() > MIN_ISSUES) {
        issues.remove(numbers.get(r.nextInt(numbers.size())));
      } else if (roll >= 76 || issues.isEmpty()) {
        add(r, now);
      } else {
        ObjectNode issue = issues.get(numbers.get(r.nextInt(numbers.size())));
        if (roll < 45) {
          String title = issue.path("title").asText();
          String next = TITLES.get(r.nextInt(TITLES.size()));
          issue.put("title", next.equals(title) ? next + " (again)" : next);
        } else if (issue.path("state").asText().equals("open")) {
          issue.put("state", "closed").put("closed_at", now);
        } else {
          issue.put("state", "open").putNull("closed_at");
        }
        issue.put("updated_at", now);
      }
      mutations++;
      save();
    }
  }

  private void add(SplittableRandom r, String now) {
    ObjectNode template =
        issues.isEmpty() ? JSON.createObjectNode() : issues.firstEntry().getValue();
    int from = template.path("number").asInt();
    int number = nextNumber++;
    ObjectNode issue = template.deepCopy();
    // The recorded URLs end in /issues/{number}; point them at the new number.
    for (String field : List.of("url", "labels_url", "comments_url", "events_url", "html_url")) {
      if (issue.path(field).isTextual()) {
        issue.put(
            field,
            issue
                .path(field)
                .asText()
                .replaceFirst("/issues/" + from + "(?=\\D|$)", "/issues/" + number));
      }
    }
    issue.put("id", template.path("id").asLong() + number - from);
    issue.put("node_id", "I_demo_" + number);
    issue.put("number", number);
    issue.put("title", TITLES.get(r.nextInt(TITLES.size())));
    issue.put("state", "open").putNull("closed_at");
    issue.put("created_at", now).put("updated_at", now);
    issues.put(number, issue);
  }

  // ---------------------------------------------------------------- HTTP

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      if (!ex.getRequestMethod().equals("GET") || !ex.getRequestURI().getPath().equals(PATH)) {
        send(ex, 404, "{\"message\":\"Not Found\"}");
        return;
      }
      Map<String, String> q = query(ex.getRequestURI().getRawQuery());
      String body;
      String link;
      try {
        Listing l = list(q);
        body = JSON.writeValueAsString(l.items);
        link = link(q, l.page, l.lastPage);
      } catch (IllegalArgumentException e) {
        send(ex, 422, JSON.writeValueAsString(Map.of("message", e.getMessage())));
        return;
      }
      String etag = "\"" + sha256(body) + "\"";
      ex.getResponseHeaders().set("ETag", etag);
      if (!link.isEmpty()) ex.getResponseHeaders().set("Link", link);
      if (etag.equals(ex.getRequestHeaders().getFirst("If-None-Match"))) {
        ex.sendResponseHeaders(304, -1);
        return;
      }
      send(ex, 200, body);
    }
  }

  private record Listing(List<ObjectNode> items, int page, int lastPage) {}

  private Listing list(Map<String, String> q) {
    String state = q.getOrDefault("state", "open");
    if (!List.of("open", "closed", "all").contains(state))
      throw new IllegalArgumentException("state: open, closed or all");
    String sort = q.getOrDefault("sort", "created");
    if (!List.of("created", "updated").contains(sort))
      throw new IllegalArgumentException("sort: created or updated");
    boolean asc = q.getOrDefault("direction", "desc").equals("asc");
    int perPage = Math.min(MAX_PER_PAGE, positive(q.get("per_page"), DEFAULT_PER_PAGE, "per_page"));
    int page = positive(q.get("page"), 1, "page");
    Instant since = q.get("since") == null ? null : instant(q.get("since"), "since");
    Integer after = q.get("after") == null ? null : positive(q.get("after"), 0, "after");
    String field = sort.equals("updated") ? "updated_at" : "created_at";
    Comparator<ObjectNode> order =
        Comparator.<ObjectNode, Instant>comparing(i -> Instant.parse(i.path(field).asText()))
            .thenComparingInt(i -> i.path("number").asInt());
    if (!asc) order = order.reversed();
    List<ObjectNode> all = new ArrayList<>();
    synchronized (lock) {
      for (ObjectNode i : issues.values()) {
        if (!state.equals("all") && !state.equals(i.path("state").asText())) continue;
        if (since != null) {
          Instant updated = Instant.parse(i.path("updated_at").asText());
          if (updated.isBefore(since)) continue;
          if (after != null && updated.equals(since) && i.path("number").asInt() <= after) continue;
        }
        all.add(i.deepCopy());
      }
    }
    all.sort(order);
    int lastPage = Math.max(1, (all.size() + perPage - 1) / perPage);
    int from = Math.min(all.size(), (page - 1) * perPage);
    return new Listing(all.subList(from, Math.min(all.size(), from + perPage)), page, lastPage);
  }

  // GitHub's form: rels next and last, then prev and first once past page 1.
  private String link(Map<String, String> q, int page, int lastPage) {
    List<String> rels = new ArrayList<>();
    if (page < lastPage) {
      rels.add(pageUrl(q, page + 1) + "; rel=\"next\"");
      rels.add(pageUrl(q, lastPage) + "; rel=\"last\"");
    }
    if (page > 1) {
      rels.add(pageUrl(q, Math.min(page - 1, lastPage)) + "; rel=\"prev\"");
      rels.add(pageUrl(q, 1) + "; rel=\"first\"");
    }
    return String.join(", ", rels);
  }

  private String pageUrl(Map<String, String> q, int page) {
    Map<String, String> p = new LinkedHashMap<>(q);
    p.put("page", Integer.toString(page));
    StringBuilder b = new StringBuilder("<").append(baseUrl()).append(PATH);
    char sep = '?';
    for (Map.Entry<String, String> e : p.entrySet()) {
      b.append(sep).append(encode(e.getKey())).append('=').append(encode(e.getValue()));
      sep = '&';
    }
    return b.append('>').toString();
  }

  private static void send(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static Map<String, String> query(@Nullable String raw) {
    Map<String, String> q = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) return q;
    for (String part : raw.split("&")) {
      int eq = part.indexOf('=');
      String k = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
      String v = eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
      q.put(k, v);
    }
    return q;
  }

  private static int positive(@Nullable String v, int fallback, String name) {
    if (v == null) return fallback;
    try {
      int n = Integer.parseInt(v);
      if (n < 0 || (n == 0 && !name.equals("after"))) throw new NumberFormatException();
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + ": '" + v + "' is not a positive whole number");
    }
  }

  private static Instant instant(String v, String name) {
    try {
      return Instant.parse(v);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          name + ": '" + v + "' is not an ISO 8601 time (YYYY-MM-DDTHH:MM:SSZ)");
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
