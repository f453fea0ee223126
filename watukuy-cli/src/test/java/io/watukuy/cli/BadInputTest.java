package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.PollerKey;
import io.watukuy.spi.PollerState;
import io.watukuy.store.sqlite.SqliteStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "Bad input": an unreachable URL, a body that is not JSON, an items pointer that finds
 * no array, an identity pointer that misses, an HTTP 500. Each is one line on stderr naming the
 * poller, the redacted URL and the status or pointer; {@code --once} exits 1 and the stored cursor
 * stays where the last good run left it.
 */
class BadInputTest {
  private static final String SECRET = "k3y-s3cret";
  private static final String GOOD =
      "{\"data\":[{\"id\":1,\"updatedAt\":\"2024-01-01T00:00:00Z\"}],\"has_more\":false}";

  /** The cursor the good run leaves: the newest updatedAt of GOOD. */
  private static final String CURSOR = "2024-01-01T00:00:00Z";

  @TempDir Path dir;

  private volatile int status = 200;
  private volatile String contentType = "application/json";
  private volatile String body = GOOD;
  private HttpServer server;
  private int port;
  private Path config;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/orders", this::serve);
    server.start();
    port = server.getAddress().getPort();
    config = dir.resolve("watukuy.yaml");
    Files.writeString(
        config,
        """
        store: sqlite:watukuy.db
        pollers:
          - name: orders
            request:
              url: http://127.0.0.1:%d/orders
              query: { updated_since: "{{cursor.value}}", limit: 2, api_key: "${VENDOR_KEY}" }
            response: { items: /data, hasMore: /has_more }
            identity: /id
            cursor: { strategy: timestamp, field: updatedAt }
        """
            .formatted(port));
  }

  @AfterEach
  void stop() {
    if (!stopped) server.stop(0);
  }

  private boolean stopped;

  private void serve(HttpExchange ex) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", contentType);
    ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) ex.getResponseBody().write(bytes);
    ex.close();
  }

  private record Result(int code, String out, String err) {}

  private Result once() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new String[] {"run", config.toString(), "--once"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of("VENDOR_KEY", SECRET)::get);
    return new Result(
        code,
        out.toString(StandardCharsets.UTF_8),
        CliRun.withoutNewStore(err.toString(StandardCharsets.UTF_8)));
  }

  private Map<String, String> storedCursors() {
    try (SqliteStore store = SqliteStore.open(dir.resolve("watukuy.db"))) {
      return store.loadState(PollerKey.of("orders")).map(PollerState::cursors).orElseThrow();
    }
  }

  /**
   * The URL of the request after the good run, as the engine redacts it (api_key is a credential).
   */
  private String url() {
    return "http://127.0.0.1:"
        + port
        + "/orders?updated_since="
        + URLEncoder.encode(CURSOR, StandardCharsets.UTF_8)
        + "&limit=2&api_key=[redacted]";
  }

  /**
   * A good run, then the failing one: exit 1, nothing on stdout, exactly {@code line} on stderr.
   */
  private void failsWith(Runnable breakIt, String line) {
    Result good = once();
    assertThat(good.code()).as(good.err()).isZero();
    assertThat(good.out().lines()).hasSize(1);
    Map<String, String> before = storedCursors();
    assertThat(before.get("live")).contains(CURSOR);

    breakIt.run();
    Result bad = once();

    assertThat(bad.code()).isEqualTo(Main.FAILED);
    assertThat(bad.out()).isEmpty();
    assertThat(bad.err()).isEqualTo(line + "\n").doesNotContain(SECRET);
    assertThat(storedCursors()).isEqualTo(before);
  }

  @Test
  void anHttp500NamesTheRequestAndTheStatus() {
    failsWith(
        () -> {
          status = 500;
          body = "";
        },
        "watukuy: poller orders: GET " + url() + " returned HTTP 500");
  }

  @Test
  void anErrorResponseShowsTheStartOfItsBody() {
    failsWith(
        () -> {
          status = 400;
          body = "{\"message\": \"updated_since:\n   not a date\"}";
        },
        "watukuy: poller orders: GET "
            + url()
            + " returned HTTP 400: {\"message\": \"updated_since: not a date\"}");
  }

  @Test
  void anUnreachableUrlSaysConnectionRefused() {
    failsWith(
        () -> {
          server.stop(0);
          stopped = true;
        },
        "watukuy: poller orders: GET " + url() + " failed: connection refused");
  }

  @Test
  void aBodyThatIsNotJsonIsNamedByItsTypeAndFirstCharacters() {
    failsWith(
        () -> {
          contentType = "text/html";
          body = "<html><body>Please log in</body></html>";
        },
        "watukuy: poller orders: GET "
            + url()
            + ": the response is not JSON (HTTP 200, Content-Type text/html,"
            + " body starts '<html><body>Please log in</body></html>')");
  }

  @Test
  void anItemsPointerThatFindsAnObjectNamesThePointer() {
    failsWith(
        () -> body = "{\"data\":{\"id\":1},\"has_more\":false}",
        "watukuy: poller orders: GET "
            + url()
            + ": response.items /data is not an array (found an object)");
  }

  @Test
  void anItemsPointerThatFindsNothingNamesThePointer() {
    failsWith(
        () -> body = "{\"items\":[],\"has_more\":false}",
        "watukuy: poller orders: GET " + url() + ": response.items /data is not in the response");
  }

  @Test
  void aNoContentResponseSaysTheBodyIsEmptyNotThatThePointerMisses() {
    failsWith(
        () -> {
          status = 204;
          body = "";
        },
        "watukuy: poller orders: GET " + url() + ": the response body is empty (HTTP 204)");
  }

  @Test
  void anEmpty200SaysTheBodyIsEmpty() {
    failsWith(
        () -> body = "",
        "watukuy: poller orders: GET " + url() + ": the response body is empty (HTTP 200)");
  }

  @Test
  void anOutputFolderBlockedByAFileIsOnePlainLine() throws IOException {
    Path blocker = dir.resolve("x");
    Files.writeString(blocker, "not a folder");
    Files.writeString(config, Files.readString(config) + "output: file:x/y\n");

    Result r = once();

    // A config problem, found before anything is fetched; no command creates folders.
    assertThat(r.code()).isEqualTo(Main.USAGE);
    assertThat(r.out()).isEmpty();
    // FILE:LINE of the output: key, its last line, as validate says (ValidateAsRunTest).
    assertThat(r.err())
        .isEqualTo(
            "watukuy: "
                + config
                + ":"
                + Files.readAllLines(config).size()
                + ": output file:"
                + blocker.resolve("y")
                + ": folder "
                + blocker
                + " is not a folder; watukuy creates no folders: create it, or fix the path\n");
  }

  @Test
  void anIdentityPointerThatMissesParksTheItemNamingItsNumberAndThePointer() {
    parks(
        () ->
            body =
                "{\"data\":[{\"id\":2,\"updatedAt\":\"2024-01-02T00:00:00Z\"},"
                    + "{\"ID\":3,\"updatedAt\":\"2024-01-03T00:00:00Z\"}],\"has_more\":false}",
        // The second item: messages count items from 1.
        "item 2: identity /id is not in the item");
  }

  @Test
  void anIdentityThatIsAnObjectParksTheItemNamingWhatItIs() {
    parks(
        () ->
            body =
                "{\"data\":[{\"id\":2,\"updatedAt\":\"2024-01-02T00:00:00Z\"},"
                    + "{\"id\":{\"n\":3},\"updatedAt\":\"2024-01-03T00:00:00Z\"}],\"has_more\":false}",
        "item 2: identity /id is an object, not a string or a whole number");
  }

  /**
   * A good run, then one whose page holds an item without a usable identity: the item is parked
   * with {@code reason}, the rest of the page is delivered, exit 0 (docs/operations.md, "Invalid
   * items"), and {@code parked list} shows the reason.
   */
  private void parks(Runnable breakIt, String reason) {
    Result good = once();
    assertThat(good.code()).as(good.err()).isZero();

    breakIt.run();
    Result run = once();

    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.out().lines()).hasSize(1).allMatch(l -> l.contains("\"identity\":\"2\""));
    CliRun parked =
        CliRun.withEnv(Map.of("VENDOR_KEY", SECRET), "parked", "list", config.toString(), "orders");
    assertThat(parked.stdout()).contains("invalid", reason).doesNotContain(SECRET);
  }

  /**
   * {@code run CONFIG --once} through {@link Main} in a JVM of its own, with the logging it
   * configures, stdout and stderr into {@code dir}; waits up to 50 s.
   *
   * @return its exit code
   */
  private int runOnceInOwnJvm() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
            java,
            "-cp",
            System.getProperty("java.class.path"),
            Main.class.getName(),
            "run",
            config.toString(),
            "--once");
    pb.environment().put("VENDOR_KEY", SECRET);
    pb.redirectOutput(dir.resolve("stdout").toFile());
    pb.redirectError(dir.resolve("stderr").toFile());
    Process p = pb.start();
    assertThat(p.waitFor(50, TimeUnit.SECONDS)).isTrue();
    return p.exitValue();
  }

  /**
   * The real entry point, in its own JVM: a cursor.format that reads none of the items' values is a
   * warning that quotes the first value and names cursor.format, so the user sees why the cursor
   * does not move.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aCursorFormatThatReadsNoValueIsAWarningQuotingTheFirstValue() throws Exception {
    Files.writeString(
        config,
        Files.readString(config)
            .replace(
                "cursor: { strategy: timestamp, field: updatedAt }",
                "cursor: { strategy: timestamp, field: updatedAt, format: \"MM/dd/yyyy HH:mm\" }"));
    assertThat(runOnceInOwnJvm()).isEqualTo(Main.OK);
    assertThat(Files.readAllLines(dir.resolve("stderr")))
        .contains(
            "watukuy: warning: poller orders: none of the 1 items of this page has a parseable"
                + " cursor.field 'updatedAt'; the cursor cannot move (the first value is"
                + " '2024-01-01T00:00:00Z': check cursor.format, or that the field holds a"
                + " timestamp)");
  }

  /**
   * The real entry point, in its own JVM: a cursor.field that no item has is a warning worded like
   * the command's other lines, and the run still succeeds.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aCursorFieldNoItemHasIsAWarningLineWithoutDateOrLoggerName() throws Exception {
    Files.writeString(
        config, Files.readString(config).replace("field: updatedAt", "field: updated_at"));
    assertThat(runOnceInOwnJvm()).isEqualTo(Main.OK);
    assertThat(Files.readString(dir.resolve("stdout")).lines()).hasSize(1);
    // The items say updatedAt: the did-you-mean names it (docs/operations.md, "Pointer typos").
    assertThat(Files.readAllLines(dir.resolve("stderr")))
        .isEqualTo(
            List.of(
                "watukuy: new store sqlite:" + dir.resolve("watukuy.db").toAbsolutePath(),
                "watukuy: warning: poller orders: cursor.field updated_at is in none of the 1 items of"
                    + " this page; did you mean updatedAt?",
                "watukuy: warning: poller orders: none of the 1 items of this page has a parseable cursor.field"
                    + " 'updated_at'; the cursor cannot move (check the field name)"));
  }

  /**
   * The real entry point, in its own JVM, with the logging it configures: the engine's own WARN
   * line of the failed cycle stays off stderr, so the user reads the failure once.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void theCommandLinePrintsOneLineAndNoLogOfTheSameFailure() throws Exception {
    status = 500;
    body = "";
    assertThat(runOnceInOwnJvm()).isEqualTo(Main.FAILED);
    assertThat(Files.readString(dir.resolve("stdout"))).isEmpty();
    assertThat(Files.readAllLines(dir.resolve("stderr")))
        .isEqualTo(
            List.of(
                "watukuy: new store sqlite:" + dir.resolve("watukuy.db").toAbsolutePath(),
                "watukuy: poller orders: GET http://127.0.0.1:"
                    + port
                    + "/orders?limit=2&api_key=[redacted] returned HTTP 500"));
  }
}
