package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16, finding 4: {@code ${ENV}} secrets in a header, a query parameter, the URL path and the
 * user info, secrets holding {@code "}, {@code \}, {@code ~}, {@code *} and spaces, and a vendor
 * that provokes every error the issue lists while echoing them back (401 with the token
 * JSON-escaped, 500, an HTML 200, a redirect whose Location encodes them in another style, a
 * timeout, a bad Link, a bad timestamp, a bad identity), then a config error quoting one. A real
 * {@code watukuy run --once --verbose} process runs against SQLite, PostgreSQL and Redis; the
 * SQLite file, a {@code pg_dump}, the Redis keys, stdout, stderr with the verbose log, and {@code
 * inspect --json} must hold none of the secrets in any form (docs/operations.md, "Secrets").
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SecretsInClearTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String HDR_TOKEN = "Hd\"r\\T0k~*en 42x";
  private static final String QRY_KEY = "Qk~*y \"sp\\ace-9";
  private static final String PATH_SECRET = "P4th~Seg*m3nt";
  private static final String USER = "wk-user-77";
  private static final String PASS = "Us3r~p*ssw0rd";
  private static final String OUT_URI = "ftp:PGpass-S3cret";

  private static final Map<String, String> ENV =
      Map.of(
          "HDR_TOKEN", HDR_TOKEN,
          "QRY_KEY", QRY_KEY,
          "PATH_SECRET", PATH_SECRET,
          "VENDOR_USER", USER,
          "VENDOR_PASS", PASS);

  /** The pollers, each named after the error its vendor path provokes. */
  private static final List<String> MODES =
      List.of("unauth", "boom", "html", "redirect", "slow", "link", "stamp", "ident");

  private static final String ITEM = "{\"id\":1,\"updatedAt\":\"2024-01-01T00:00:00Z\"}";

  @TempDir Path dir;

  private HttpServer vendor;
  private ExecutorService vendorThreads;
  private int port;
  private final List<Runnable> cleanups = new ArrayList<>();

  @BeforeEach
  void startVendor() throws IOException {
    vendor = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
    vendorThreads = Executors.newFixedThreadPool(4);
    vendor.setExecutor(vendorThreads);
    vendor.createContext("/", this::serve);
    vendor.start();
    port = vendor.getAddress().getPort();
  }

  @AfterEach
  void stopVendor() {
    vendor.stop(0);
    vendorThreads.shutdownNow();
    for (Runnable r : cleanups) r.run();
  }

  /** A hostile vendor: every answer fails the poll and echoes what the request carried. */
  private void serve(HttpExchange ex) throws IOException {
    String mode = ex.getRequestURI().getPath().split("/")[1];
    String token = String.valueOf(ex.getRequestHeaders().getFirst("X-Api-Token"));
    String query = String.valueOf(ex.getRequestURI().getRawQuery());
    String basic = String.valueOf(ex.getRequestHeaders().getFirst("Authorization"));
    String echo = JSON.writeValueAsString(Map.of("token", token, "query", query, "auth", basic));
    switch (mode) {
      case "unauth" ->
          reply(ex, 401, "application/json", "{\"error\":\"bad token\",\"got\":" + echo + "}");
      case "boom" ->
          reply(
              ex, 500, "text/plain", "failed for query " + query + " token " + token + " " + basic);
      case "html" ->
          // The token starts near character 60, where the excerpt is cut.
          reply(
              ex,
              200,
              "text/html",
              "<html><body>Session expired, please sign in again: " + token + " " + query);
      case "redirect" -> {
        // The query echoed percent-encoded in the other style: lower-case hex, ~ kept, * as %2A.
        String other = otherStyle(QRY_KEY);
        ex.getResponseHeaders()
            .set("Location", "http://127.0.0.1:" + port + "/boom/?filter=" + other);
        ex.sendResponseHeaders(302, -1);
        ex.close();
      }
      case "slow" -> {
        try {
          Thread.sleep(3_000); // longer than the poller's 300 ms request timeout
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        reply(ex, 200, "application/json", "{\"data\":[]}");
      }
      case "link" -> {
        ex.getResponseHeaders()
            .set(
                "Link",
                "<http://[bad/"
                    + PATH_SECRET
                    + "?filter="
                    + otherStyle(QRY_KEY)
                    + ">; rel=\"next\"");
        reply(ex, 200, "application/json", "{\"data\":[" + ITEM + "]}");
      }
      // Items are data, delivered and stored as sent (docs/operations.md, "Secrets"): these two
      // carry no echo; what the engine reports about them is checked.
      case "stamp" ->
          reply(ex, 200, "application/json", "{\"data\":[{\"id\":1,\"updatedAt\":\"yesterday\"}]}");
      case "ident" ->
          reply(
              ex,
              200,
              "application/json",
              "{\"data\":[{\"id\":{\"n\":1},\"updatedAt\":\"2024-01-01T00:00:00Z\"}]}");
      default -> reply(ex, 404, "text/plain", "no " + mode);
    }
  }

  /** Percent-encoded in the style the engine does not use: lower-case hex, ~ kept, * as %2A. */
  private static String otherStyle(String value) {
    return lowerHex(
        URLEncoder.encode(value, StandardCharsets.UTF_8)
            .replace("%7E", "~")
            .replace("*", "%2A")
            .replace("+", "%20"));
  }

  private static void reply(HttpExchange ex, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, bytes.length);
    ex.getResponseBody().write(bytes);
    ex.close();
  }

  private Path config(String store) throws IOException {
    StringBuilder yaml = new StringBuilder("store: ").append(store).append("\npollers:\n");
    for (String mode : MODES) {
      yaml.append(
          """
            - name: %s
              request:
                url: http://${VENDOR_USER}:${VENDOR_PASS}@127.0.0.1:%d/%s/${PATH_SECRET}/items
                query: { filter: "${QRY_KEY}", at: "{{cursor.value}}" }
                headers: { X-Api-Token: "${HDR_TOKEN}" }
                timeout: %s
              response: { items: /data%s }
              identity: /id
              cursor: %s
          """
              .formatted(
                  mode,
                  port,
                  mode,
                  mode.equals("slow") ? "300ms" : "30s",
                  mode.equals("link") ? ", next: { header: Link }" : "",
                  // Link paging follows the link only with a page cursor (docs/config.md).
                  mode.equals("link")
                      ? "{ strategy: page, initial: 1 }"
                      : "{ strategy: timestamp, field: updatedAt }"));
    }
    return Files.writeString(dir.resolve("watukuy.yaml"), yaml.toString());
  }

  private record Proc(int exit, String out, String err) {}

  private Proc process(Map<String, String> env, String... args) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "io.watukuy.cli.Main"));
    command.addAll(List.of(args));
    String id = UUID.randomUUID().toString();
    Path out = dir.resolve("out-" + id);
    Path err = dir.resolve("err-" + id);
    ProcessBuilder pb =
        new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("watukuy %s ended", List.of(args)).isTrue();
    return new Proc(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  /** Runs every poller once against {@code store}, then inspect --json; returns all output. */
  private String runAll(String store) throws Exception {
    Path config = config(store);
    Proc run = process(ENV, "run", config.toString(), "--once", "--verbose");
    assertThat(run.exit()).as(run.err()).isEqualTo(Main.FAILED);
    // Each error was provoked and reported (the verbose log and the one-line summaries).
    for (String mode : MODES) assertThat(run.err()).contains("poller " + mode + ":");
    assertThat(run.err()).contains("HTTP 401", "HTTP 500", "not JSON", "timed out");
    Proc inspect = process(ENV, "inspect", config.toString(), "--json");
    assertThat(inspect.out()).contains("\"lastError\"");
    return String.join("\n", run.out(), run.err(), inspect.out(), inspect.err());
  }

  @Test
  void noSecretReachesTheSqliteFileTheOutputOrTheVerboseLog() throws Exception {
    String printed = runAll("sqlite:watukuy.db");

    assertNoSecret("stdout, stderr, verbose log, inspect --json", printed);
    StringBuilder disk = new StringBuilder();
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(f -> f.getFileName().toString().startsWith("watukuy.db")).toList())
        disk.append(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
    }
    assertThat(disk.toString()).contains("watukuy_pollers");
    assertNoSecret("the SQLite file", disk.toString());
  }

  @Test
  void noSecretReachesAPgDump() throws Exception {
    String schema = "wk_secrets_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    cleanups.add(
        () -> {
          try (Connection c = DriverManager.getConnection(StoreUrisTest.PG);
              Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
    String printed =
        runAll("{ uri: \"postgres:" + StoreUrisTest.PG + "\", schema: " + schema + " }");

    assertNoSecret("stdout, stderr, verbose log, inspect --json", printed);
    Process p =
        new ProcessBuilder(
                "pg_dump",
                "-h",
                "127.0.0.1",
                "-p",
                "5432",
                "-U",
                "postgres",
                "--inserts",
                "-n",
                schema,
                "test")
            .redirectErrorStream(true)
            .start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(text).isZero();
    assertThat(text).contains("watukuy_pollers");
    assertNoSecret("pg_dump", text);
  }

  @Test
  void noSecretReachesTheRedisKeys() throws Exception {
    String prefix = "watukuy-test:secrets:" + UUID.randomUUID().toString().substring(0, 16) + ":";
    RedisClient client = RedisClient.create("redis://127.0.0.1:6379/0");
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      try {
        checkRedis(redis, prefix);
      } finally {
        List<String> keys = redis.keys(prefix + "*");
        if (!keys.isEmpty()) redis.del(keys.toArray(String[]::new));
      }
    } finally {
      client.shutdown();
    }
  }

  private void checkRedis(RedisCommands<String, String> redis, String prefix) throws Exception {
    {
      String printed = runAll("{ uri: \"redis://127.0.0.1:6379/0\", prefix: \"" + prefix + "\" }");

      assertNoSecret("stdout, stderr, verbose log, inspect --json", printed);
      StringBuilder all = new StringBuilder();
      for (String key : redis.keys(prefix + "*")) {
        all.append(key).append('\n');
        switch (redis.type(key)) {
          case "string" -> all.append(redis.get(key));
          case "hash" -> redis.hgetall(key).forEach((k, v) -> all.append(k).append('=').append(v));
          case "list" -> redis.lrange(key, 0, -1).forEach(all::append);
          case "set" -> redis.smembers(key).forEach(all::append);
          case "zset" -> redis.zrange(key, 0, -1).forEach(all::append);
          case "stream" ->
              redis
                  .xrange(key, io.lettuce.core.Range.create("-", "+"))
                  .forEach(m -> all.append(m.getBody()));
          default -> all.append("?type ").append(redis.type(key));
        }
        all.append('\n');
      }
      assertThat(all.toString()).contains("lastError");
      assertNoSecret("the Redis keys", all.toString());
    }
  }

  @Test
  void aConfigErrorNamesTheVariableInsteadOfItsValue() throws Exception {
    Path config =
        Files.writeString(
            dir.resolve("bad.yaml"),
            "store: sqlite:watukuy.db\noutput: \"${OUT_URI}\"\npollers:\n  - name: a\n"
                + "    request: { url: http://127.0.0.1:1/x }\n    response: { items: /data }\n"
                + "    identity: /id\n");

    Proc run = process(Map.of("OUT_URI", OUT_URI), "run", config.toString(), "--once", "--verbose");

    assertThat(run.exit()).isEqualTo(Main.USAGE);
    assertThat(run.err()).contains("output: '${OUT_URI}' is not an output (stdout or file:PATH)");
    assertThat(run.err() + run.out()).doesNotContain("PGpass-S3cret");
  }

  /** Every form a secret takes on the way: raw, JSON-escaped, percent-encoded, Base64. */
  private static Set<String> forms(String secret) throws IOException {
    Set<String> forms = new LinkedHashSet<>();
    forms.add(secret);
    String json = JSON.writeValueAsString(secret);
    forms.add(json.substring(1, json.length() - 1));
    String encoded = URLEncoder.encode(secret, StandardCharsets.UTF_8);
    for (String e :
        List.of(
            encoded,
            encoded.replace("+", "%20"),
            encoded.replace("%7E", "~"),
            encoded.replace("*", "%2A"),
            encoded.replace("*", "%2A").replace("+", "%20").replace("%7E", "~"))) {
      forms.add(e);
      forms.add(lowerHex(e));
    }
    // What a cut before redaction leaves: the body excerpt shows 60 characters (issue 16).
    String start = secret.substring(0, 8);
    String startJson = JSON.writeValueAsString(start);
    forms.add(start);
    forms.add(startJson.substring(1, startJson.length() - 1));
    byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
    forms.add(Base64.getEncoder().encodeToString(bytes));
    forms.add(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
    return forms;
  }

  private static String lowerHex(String s) {
    Matcher m = Pattern.compile("%[0-9A-F]{2}").matcher(s);
    StringBuilder b = new StringBuilder();
    while (m.find()) m.appendReplacement(b, m.group().toLowerCase(Locale.ROOT));
    m.appendTail(b);
    return b.toString();
  }

  private static void assertNoSecret(String where, String text) throws IOException {
    Map<String, Set<String>> all = new LinkedHashMap<>();
    for (String s : List.of(HDR_TOKEN, QRY_KEY, PATH_SECRET, USER, PASS)) all.put(s, forms(s));
    byte[] basic = (USER + ":" + PASS).getBytes(StandardCharsets.UTF_8);
    all.put(
        "basic",
        new LinkedHashSet<>(
            List.of(
                Base64.getEncoder().encodeToString(basic),
                Base64.getUrlEncoder().withoutPadding().encodeToString(basic))));
    all.forEach(
        (secret, forms) -> {
          for (String form : forms)
            assertThat(text)
                .as("%s holds a form of %s: %s", where, secret, form)
                .doesNotContain(form);
        });
  }
}
