package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.testing.CannedHttpServer;
import io.watukuy.testing.ReadsWallClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code watukuy run --once} against a keyset listing served by the JDK's HTTP server. */
class RunOnceTest {
  @TempDir Path dir;

  /** An order as the vendor stores it; its JSON has its keys in sorted order (= RFC 8785). */
  record Order(int id, String name, String updatedAt) {
    String json() {
      return "{\"id\":" + id + ",\"name\":\"" + name + "\",\"updatedAt\":\"" + updatedAt + "\"}";
    }
  }

  private final List<Order> orders = new CopyOnWriteArrayList<>();
  private volatile int failWith;
  private volatile String retryAfter;
  private HttpServer server;
  private Path config;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/orders", this::list);
    server.start();
    config = dir.resolve("watukuy.yaml");
    Files.writeString(
        config,
        """
        store: sqlite:state/watukuy.db
        pollers:
          - name: orders
            request:
              url: http://127.0.0.1:%d/orders
              query:
                updated_since: "{{cursor.value}}"
                after_id: "{{cursor.tieBreak}}"
                limit: 2
                api_key: "${VENDOR_KEY}"
            response:
              items: /data
              hasMore: /has_more
            identity: /id
            version: /updatedAt
            cursor:
              strategy: timestamp
              field: updatedAt
              tieBreak: id
        """
            .formatted(server.getAddress().getPort()));
    Files.createDirectories(dir.resolve("state"));
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private void list(HttpExchange ex) throws IOException {
    if (failWith != 0) {
      if (retryAfter != null) ex.getResponseHeaders().set("Retry-After", retryAfter);
      ex.sendResponseHeaders(failWith, -1);
      ex.close();
      return;
    }
    Map<String, String> q = new HashMap<>();
    String raw = ex.getRequestURI().getRawQuery();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        String[] kv = pair.split("=", 2);
        q.put(kv[0], URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
      }
    }
    String since = q.get("updated_since");
    Integer after = q.containsKey("after_id") ? Integer.valueOf(q.get("after_id")) : null;
    int limit = Integer.parseInt(q.getOrDefault("limit", "100"));
    List<Order> sorted = new ArrayList<>(orders);
    sorted.sort(Comparator.comparing(Order::updatedAt).thenComparingInt(Order::id));
    List<Order> page = new ArrayList<>();
    boolean more = false;
    for (Order o : sorted) {
      if (since != null) {
        int c = o.updatedAt().compareTo(since);
        if (c < 0 || (c == 0 && after != null && o.id() <= after)) continue;
      }
      if (page.size() == limit) {
        more = true;
        break;
      }
      page.add(o);
    }
    StringBuilder body = new StringBuilder("{\"data\":[");
    for (int i = 0; i < page.size(); i++) body.append(i == 0 ? "" : ",").append(page.get(i).json());
    body.append("],\"has_more\":").append(more).append('}');
    byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, bytes.length);
    ex.getResponseBody().write(bytes);
    ex.close();
  }

  private record Result(int code, String out, String err, boolean newStore) {}

  private Result once() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"run", config.toString(), "--once"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of("VENDOR_KEY", "k3y-s3cret")::get);
    String printed = err.toString(StandardCharsets.UTF_8);
    return new Result(
        code,
        out.toString(StandardCharsets.UTF_8),
        CliRun.withoutNewStore(printed),
        printed.startsWith(CliRun.NEW_STORE));
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * The event envelope (docs/architecture.md, "The event envelope"), with observedAt left as a
   * placeholder.
   */
  private static String created(Order o, long sequence) {
    String type = "created";
    return created(o, sequence, type);
  }

  private static String created(Order o, long sequence, String type) {
    String id = sha256("watukuy|v1|orders||" + o.id() + "|" + o.updatedAt() + "|1|" + type);
    return "{\"id\":\""
        + id
        + "\",\"type\":\""
        + type
        + "\",\"source\":\"orders\",\"partition\":\"\","
        + "\"identity\":\""
        + o.id()
        + "\",\"orderingKey\":\""
        + o.id()
        + "\",\"version\":\""
        + o.updatedAt()
        + "\",\"hash\":\""
        + sha256(o.json())
        + "\",\"schemaVersion\":1,\"lane\":\"live\",\"sequence\":"
        + sequence
        + ",\"observedAt\":\"T\",\"data\":"
        + o.json()
        + ",\"previous\":null,\"attempt\":1}";
  }

  private static List<String> lines(String out) {
    return out.lines()
        .map(l -> l.replaceAll("\"observedAt\":\"[^\"]+\"", "\"observedAt\":\"T\""))
        .toList();
  }

  @Test
  void onceDeliversEveryItemAcrossPagesThenOnlyWhatChanged() {
    Order a = new Order(1, "alpha", "2024-01-01T00:00:00Z");
    Order b = new Order(2, "bravo", "2024-01-01T00:00:00Z");
    Order c = new Order(3, "charlie", "2024-01-01T00:00:00Z");
    Order d = new Order(4, "delta", "2024-01-02T00:00:00Z");
    orders.addAll(List.of(a, b, c, d));

    Result first = once();

    assertThat(first.err()).isEmpty();
    assertThat(first.newStore()).isTrue(); // "watukuy: new store sqlite:…", once
    assertThat(first.code()).isZero();
    assertThat(lines(first.out()))
        .containsExactly(created(a, 1), created(b, 2), created(c, 3), created(d, 4));
    assertThat(dir.resolve("state/watukuy.db")).exists();

    Order b2 = new Order(2, "bravo-2", "2024-01-03T00:00:00Z");
    orders.remove(b);
    orders.add(b2);

    Result second = once();

    assertThat(second.err()).isEmpty();
    assertThat(second.newStore()).isFalse();
    assertThat(second.code()).isZero();
    assertThat(lines(second.out())).containsExactly(created(b2, 5, "updated"));
  }

  @Test
  void aBrokenOutputExitsOneAndLeavesEveryEventPendingNeverParked() {
    Order a = new Order(1, "alpha", "2024-01-01T00:00:00Z");
    Order b = new Order(2, "bravo", "2024-01-01T00:00:00Z");
    orders.addAll(List.of(a, b));
    java.io.OutputStream broken =
        new java.io.OutputStream() {
          @Override
          public void write(int x) throws IOException {
            throw new IOException("Broken pipe");
          }
        };
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    // The failed writes count no attempt: the redelivered events below still say attempt 1.
    int code =
        Main.run(
            new String[] {"run", config.toString(), "--once"},
            new PrintStream(broken, true),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of("VENDOR_KEY", "k3y-s3cret")::get);

    assertThat(code).isEqualTo(1);
    // One line for the output, not one more per key whose delivery it stopped.
    assertThat(CliRun.withoutNewStore(err.toString(StandardCharsets.UTF_8)))
        .isEqualTo(
            "watukuy: output standard output: write failed (closed pipe?); the undelivered events stay pending\n");

    Result again = once();
    assertThat(again.code()).isZero();
    assertThat(lines(again.out())).containsExactly(created(a, 1), created(b, 2));
  }

  @Test
  void anHttp500ExitsOneWithOneLineNamingPollerAndRedactedUrl() {
    orders.add(new Order(1, "alpha", "2024-01-01T00:00:00Z"));
    failWith = 500;

    Result r = once();

    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err())
        .isEqualTo(
            "watukuy: poller orders: GET http://127.0.0.1:"
                + server.getAddress().getPort()
                + "/orders?limit=2&api_key=[redacted] returned HTTP 500\n");
  }

  @Test
  @ReadsWallClock(
      "runs the CLI, which keeps time on the system clock: the end it prints is bounded by two reads")
  void anHttp429MetInThisRunIsASkipWithItsEndAndExitsZero() throws IOException {
    // The vendor asks for 120 s after its own Date, with one-digit days as Java servers write
    // them on days 1-9: read against that Date, the wait is 120 s on any day the test runs.
    try (CannedHttpServer vendor =
        CannedHttpServer.start(
            429,
            Map.of(
                "Date", "Tue, 1 Dec 2026 10:00:00 GMT",
                "Retry-After", "Tue, 1 Dec 2026 10:02:00 GMT"))) {
      Files.writeString(
          config,
          Files.readString(config)
              .replace(
                  "http://127.0.0.1:" + server.getAddress().getPort() + "/orders",
                  vendor.url("/orders")));
      // The CLI runs on the system clock: its "until" lies 120 s after the receive time.
      Instant before = Instant.now().truncatedTo(ChronoUnit.SECONDS);

      Result r = once();

      Instant after = Instant.now();
      assertThat(r.code()).isZero();
      assertThat(r.out()).isEmpty();
      Matcher m =
          Pattern.compile(
                  "watukuy: poller orders: skipped \\(throttled by HTTP 429 until (\\S+), in (?:2m|1m5[0-9]s)\\)\n")
              .matcher(r.err());
      assertThat(m.matches()).as(r.err()).isTrue();
      assertThat(Instant.parse(m.group(1)))
          .isBetween(before.plusSeconds(120), after.plusSeconds(121));
      assertThat(vendor.requests()).isEqualTo(1);

      // The next run inside the Retry-After skips the key without a request.
      Result again = once();
      assertThat(again.code()).isZero();
      assertThat(again.err())
          .isEqualTo("watukuy: poller orders: skipped (throttled: Retry-After not yet passed)\n");
      assertThat(vendor.requests()).isEqualTo(1);
    }
  }

  @Test
  void aRetryAfterThatIsNotADateIsSaidOnTheSkipLine() {
    // 29 Feb 2026 does not exist: the wait shown is the default backoff, and the line says why.
    failWith = 429;
    retryAfter = "Sun, 29 Feb 2026 10:02:00 GMT";

    Result r = once();

    assertThat(r.code()).isZero();
    assertThat(r.err())
        .matches(
            "watukuy: poller orders: skipped \\(throttled by HTTP 429 until \\S+, in 1s;"
                + " Retry-After 'Sun, 29 Feb 2026 10:02:00 GMT' not understood, default backoff\\)\n");
  }

  @Test
  void anHttp503WithRetryAfterIsASkipToo() {
    failWith = 503;
    retryAfter = "120";

    Result r = once();

    assertThat(r.code()).isZero();
    assertThat(r.err())
        .matches(
            "watukuy: poller orders: skipped \\(throttled by HTTP 503 until [0-9-]+T[0-9:]+Z, in (2m|1m59s)\\)\n");
  }

  @Test
  void aConfigErrorExitsTwoBeforeAnyRequest() throws IOException {
    Files.writeString(
        config, Files.readString(config).replace("strategy: timestamp", "strategy: stamp"));

    Result r = once();

    assertThat(r.code()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err())
        .endsWith(
            ":17: poller orders: cursor.strategy: 'stamp' is not a strategy (timestamp, token, page, snapshotDiff)\n");
  }

  @Test
  void aHasMorePointerThatFindsNothingFailsThePageInsteadOfEndingTheListing() throws IOException {
    orders.add(new Order(1, "alpha", "2024-01-01T00:00:00Z"));
    Files.writeString(
        config, Files.readString(config).replace("hasMore: /has_more", "hasMore: /hasmore"));

    Result r = once();

    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err())
        .isEqualTo(
            "watukuy: poller orders: GET http://127.0.0.1:"
                + server.getAddress().getPort()
                + "/orders?limit=2&api_key=[redacted]: response.hasMore /hasmore is not in the response; fix the pointer"
                + " (the page is not committed)\n");
  }
}
