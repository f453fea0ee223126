package io.watukuy.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.watukuy.PollerKey;
import io.watukuy.effects.EffectHttp;
import io.watukuy.spi.InvocationStatus;
import io.watukuy.store.sqlite.SqliteStore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code effects:} in YAML (docs/config.md, "Effects"): {@code watukuy run} sends one templated,
 * journaled request per event of the source's log, with its {@code Idempotency-Key}, and a SIGTERM
 * stops pollers and effects cleanly; mistakes are config errors naming effect, field and value,
 * with the store left as it was.
 */
class EffectsYamlTest {
  private static final String TOKEN = "crm-token-5f1c9a7e2b";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private HttpServer server;
  private ExecutorService threads;

  record Received(String path, String body, String key, String auth) {}

  private final List<Received> received = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    threads = Executors.newCachedThreadPool();
    server.setExecutor(threads);
    server.createContext(
        "/items",
        ex -> {
          byte[] body =
              ("{\"items\":[{\"id\":1,\"customer\":\"c 1\",\"total\":12.5},"
                      + "{\"id\":2,\"customer\":\"c-2\",\"total\":3},"
                      + "{\"id\":3,\"customer\":\"gone\",\"total\":1},"
                      + "{\"id\":4,\"customer\":\"c-4\"}]}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    server.createContext(
        "/notify",
        ex -> {
          received.add(
              new Received(
                  ex.getRequestURI().getRawPath(),
                  new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8),
                  ex.getRequestHeaders().getFirst("Idempotency-Key"),
                  ex.getRequestHeaders().getFirst("Authorization")));
          // A customer the receiver does not know: a real answer, which no retry changes.
          ex.sendResponseHeaders(ex.getRequestURI().getPath().endsWith("/gone") ? 404 : 204, -1);
          ex.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
    threads.shutdownNow();
  }

  private Path config(String log, String effect) throws IOException {
    int port = server.getAddress().getPort();
    Path file = dir.resolve("watukuy.yaml");
    Files.writeString(
        file,
        (OrdersYaml.head(port, log) + "  - name: welcome\n    source: orders\n" + effect.indent(4))
            .replace("PORT", String.valueOf(port)));
    return file;
  }

  private static final String WELCOME =
      """
      on: [created]
      key: { scheme: customer, value: /item/customer }
      request:
        method: POST
        url: "http://127.0.0.1:PORT/notify/{{/item/customer}}"
        headers: { Authorization: "Bearer ${CRM_TOKEN}" }
        body: { order: "{{/identity}}", total: "{{/item/total}}", note: "welcome {{/item/customer}}" }
      """;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void theDaemonSendsOneJournaledRequestPerEventAndStopsCleanlyOnSigterm() throws Exception {
    Path yaml = config("{ enabled: true }", WELCOME);
    ProcessBuilder pb =
        CliProcess.of(List.of(), "run", yaml.toString(), "--admin", "127.0.0.1:0")
            .redirectOutput(dir.resolve("stdout").toFile())
            .redirectError(dir.resolve("stderr").toFile());
    pb.environment().put("CRM_TOKEN", TOKEN);
    Process p = pb.start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (terminal(dir.resolve("watukuy.db")).size() < 2 && System.nanoTime() < deadline)
        Thread.sleep(50);
      // The daemon's admin server serves the config's effects (docs/effects.md, "Admin HTTP").
      java.util.regex.Matcher port =
          java.util.regex.Pattern.compile("watukuy: admin HTTP on http://127\\.0\\.0\\.1:(\\d+)")
              .matcher(Files.readString(dir.resolve("stderr")));
      assertThat(port.find()).isTrue();
      java.net.http.HttpResponse<String> listing =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(
                          java.net.URI.create(
                              "http://127.0.0.1:" + port.group(1) + "/admin/effects"))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(listing.statusCode()).isEqualTo(200);
      assertThat(listing.body())
          .contains("\"name\":\"welcome\"")
          .contains("\"terminal_skips\":2")
          .doesNotContain(TOKEN);
      p.destroy(); // SIGTERM
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(Files.readString(dir.resolve("stderr"))).isZero();
    } finally {
      p.destroyForcibly();
    }
    String stderr = Files.readString(dir.resolve("stderr"));
    assertThat(stderr).contains("watukuy: running 1 effect (welcome)").doesNotContain(TOKEN);
    // Order 3's request was answered 404 and order 4 has no total: both terminal, each sent at
    // most once, neither retried.
    assertThat(terminal(dir.resolve("watukuy.db")))
        .containsExactlyInAnyOrder(
            "effect welcome: POST http://127.0.0.1:"
                + server.getAddress().getPort()
                + "/notify/gone answered 404",
            "effect welcome: the created event has no value at /item/total");
    assertThat(received.stream().map(Received::path))
        .containsExactlyInAnyOrder("/notify/c%201", "/notify/c-2", "/notify/gone");
    Map<String, Received> byPath = new java.util.HashMap<>();
    for (Received r : received) byPath.put(r.path(), r);
    // A URL placeholder is percent-encoded; a body string that is only a placeholder keeps the
    // value's JSON type.
    assertThat(byPath.get("/notify/c%201").body())
        .isEqualTo("{\"order\":\"1\",\"total\":12.5,\"note\":\"welcome c 1\"}");
    assertThat(byPath.get("/notify/c-2").body())
        .isEqualTo("{\"order\":\"2\",\"total\":3,\"note\":\"welcome c-2\"}");
    assertThat(received).allSatisfy(r -> assertThat(r.auth()).isEqualTo("Bearer " + TOKEN));
    assertThat(received.get(0).key()).isNotBlank().isNotEqualTo(received.get(1).key());
    for (String f : List.of("watukuy.db", "watukuy.db-wal"))
      if (Files.exists(dir.resolve(f)))
        assertThat(new String(Files.readAllBytes(dir.resolve(f)), StandardCharsets.ISO_8859_1))
            .as(f)
            .doesNotContain(TOKEN);
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void theDaemonLogsAQuarantineAndAReleaseMadeOnTheStoreAndAQuarantineItStartsWith()
      throws Exception {
    Path yaml = config("{ enabled: true }", WELCOME);
    Map<String, String> env = Map.of("CRM_TOKEN", TOKEN);
    Path first = dir.resolve("stderr-1");
    Process p = daemon(yaml, first);
    try {
      // the three requests sent: the effect is in the store, its reader looks at every poll
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (received.size() < 3 && System.nanoTime() < deadline) Thread.sleep(50);
      assertThat(received).hasSize(3);
      CliRun quarantine =
          CliRun.withEnv(
              env, "effects", "quarantine", yaml.toString(), "welcome", "--reason", "crm is down");
      assertThat(quarantine.exit()).as(quarantine.stderr()).isZero();
      awaitLine(first, "watukuy: warning: effect welcome quarantined (since ");
      assertThat(Files.readString(first)).contains("): crm is down; nothing more is dispatched");
      stop(p);
    } finally {
      p.destroyForcibly();
    }

    Path second = dir.resolve("stderr-2");
    p = daemon(yaml, second);
    try {
      awaitLine(second, "watukuy: running 1 effect (welcome)");
      assertThat(Files.readString(second))
          .contains("watukuy: warning: effect welcome starts quarantined (since ")
          .contains("): crm is down; nothing of it is dispatched until it is released:")
          .contains("watukuy effects release CONFIG welcome");
      CliRun release = CliRun.withEnv(env, "effects", "release", yaml.toString(), "welcome");
      assertThat(release.exit()).as(release.stderr()).isZero();
      awaitLine(second, "effect welcome released (it was quarantined since ");
      stop(p);
    } finally {
      p.destroyForcibly();
    }
    String stderr = Files.readString(first) + Files.readString(second);
    // once each, however many passes the readers made
    assertThat(stderr.split("effect welcome quarantined \\(since", -1)).hasSize(2);
    assertThat(stderr.split("starts quarantined", -1)).hasSize(2);
    assertThat(stderr.split("released \\(it was", -1)).hasSize(2);
    assertThat(stderr).doesNotContain(TOKEN);
  }

  private static Process daemon(Path yaml, Path stderr) throws IOException {
    ProcessBuilder pb =
        CliProcess.of(List.of(), "run", yaml.toString())
            .redirectOutput(yaml.resolveSibling("stdout").toFile())
            .redirectError(stderr.toFile());
    pb.environment().put("CRM_TOKEN", TOKEN);
    return pb.start();
  }

  private static void stop(Process p) throws InterruptedException {
    p.destroy(); // SIGTERM
    assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
  }

  /** Waits (a real daemon, real time) until {@code file} holds {@code text}, up to 30 s. */
  private static void awaitLine(Path file, String text) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      if (Files.exists(file) && Files.readString(file).contains(text)) return;
      Thread.sleep(50);
    }
    assertThat(Files.exists(file) ? Files.readString(file) : "").contains(text);
  }

  @Test
  void anEffectOverAPollerWithoutALogIsAConfigErrorAndTheStoreIsNotCreated() throws Exception {
    Path yaml = config("{ enabled: false }", WELCOME);
    CliRun run = CliRun.withEnv(Map.of("CRM_TOKEN", TOKEN), "run", yaml.toString(), "--once");
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr())
        .contains("effects[0].source: effect welcome: poller orders keeps no event log")
        .contains("log: {enabled: true}");
    assertThat(dir.resolve("watukuy.db")).doesNotExist();
  }

  @Test
  void mistakesNameTheEffectTheFieldAndTheValue() throws Exception {
    // a misspelt key names the effect it belongs to, at every level
    assertEdited(
        "method: POST",
        "methd: POST",
        "effects[0].request.methd: effect welcome: unknown key (expected one of method, url,"
            + " headers, body)");
    assertEdited(
        "key: { scheme: customer,",
        "key: { schem: customer,",
        "effects[0].key.schem: effect welcome: unknown key (expected one of scheme, value)");
    assertEdited(
        "on: [created]",
        "onn: [created]",
        "effects[0].onn: effect welcome: unknown key (expected one of name, source, on, key,"
            + " request, version)");
    assertEdited(
        "on: [created]",
        "on: [created, removed]",
        "effects[0].on[1]: effect welcome: 'removed' is not created, updated or deleted");
    assertEdited(
        "value: /item/customer",
        "value: item.customer",
        "effects[0].key.value: effect welcome: 'item.customer' is not a JSON Pointer into the"
            + " event");
    assertError(
        WELCOME + "version: 3\n",
        "effects[0].version: effect welcome: must be a string, but was 3");
    assertEdited(
        "method: POST",
        "method: SEND",
        "effects[0].request.method: effect welcome: 'SEND' is not one of GET, POST, PUT, PATCH,"
            + " DELETE");
    assertEdited(
        "{{/item/customer}}\"",
        "{{customer}}\"",
        "effects[0].request.url: effect welcome: 'customer' is not a JSON Pointer");
    // RFC 6901: a '~' is ~0 or ~1, and a pointer starts with '/'
    assertEdited(
        "{{/item/customer}}\"",
        "{{/item/~2}}\"",
        "effects[0].request.url: effect welcome: '/item/~2' is not a JSON Pointer: '~' must be"
            + " followed by 0 or 1");
    assertEdited(
        "value: /item/customer",
        "value: /item/customer~",
        "effects[0].key.value: effect welcome: '/item/customer~' is not a JSON Pointer: '~' must"
            + " be followed by 0 or 1");
    assertEdited(
        "note: \"welcome {{/item/customer}}\"",
        "note: \"hi {{item/customer}}\"",
        "effects[0].request.body.note: effect welcome: 'item/customer' is not a JSON Pointer");
    assertEdited(
        "Authorization:",
        "Idempotency-Key:",
        "effects[0].request.headers.Idempotency-Key: effect welcome: is set by the journal");
  }

  @Test
  void aHeaderNoEventCanMakeSendableIsRefusedAtLoadNamingItNeverItsValue() throws Exception {
    String auth = "Authorization: \"Bearer ${CRM_TOKEN}\"";
    // RFC 9110 5.1: a field name is a token, which has no space.
    assertError(
        WELCOME.replace(auth, auth + ", \"Bad Name\": v"),
        "effects[0].request.headers.Bad Name: effect welcome: HTTP header name 'Bad Name' is not a"
            + " token");
    // RFC 9110 5.5: no CR or LF in a field value; the value (a secret here) is never quoted.
    String crlf = "Authorization: \"Bearer ${CRM_TOKEN}\\r\\nX-Injected: 1\"";
    assertError(
        WELCOME.replace(auth, crlf),
        "effects[0].request.headers.Authorization: effect welcome: HTTP header Authorization: its"
            + " value has a control character (CR, LF, ...) at index 27");
    Path yaml = config("{ enabled: true }", WELCOME.replace(auth, crlf));
    assertThat(CliRun.withEnv(Map.of("CRM_TOKEN", TOKEN), "validate", yaml.toString()).stderr())
        .doesNotContain(TOKEN);
    // The JDK client sets these itself and refuses them from a caller.
    assertError(
        WELCOME.replace(auth, auth + ", host: example.com"),
        "effects[0].request.headers.host: effect welcome: is set by the HTTP client itself");
    assertError(
        WELCOME.replace(auth, auth + ", Content-Length: \"12\""),
        "effects[0].request.headers.Content-Length: effect welcome: is set by the HTTP client");
  }

  @Test
  void aRedirectIsNamedByItsOriginAndPathNeverItsUserInfoOrQuery() {
    assertThat(
            YamlEffects.location(
                redirect("https://user:pw-9d1f@other.example:8443/hook?sig=q7w1#top")))
        .isEqualTo(" to https://other.example:8443/hook");
    // RFC 9110 10.2.2: a relative Location is resolved against the request's URL
    assertThat(YamlEffects.location(redirect("/login?token=q7w1")))
        .isEqualTo(" to /login of the same origin");
    assertThat(YamlEffects.location(redirect("?page=2"))).isEqualTo(" within the same origin");
    assertThat(YamlEffects.location(redirect("http://[bad"))).isEqualTo(" to an invalid Location");
    assertThat(YamlEffects.location(new EffectHttp.Response(302, Map.of(), ""))).isEmpty();
  }

  private static EffectHttp.Response redirect(String location) {
    return new EffectHttp.Response(302, Map.of("Location", List.of(location)), "");
  }

  @Test
  void aFileReferenceInAnEffectsRequestIsReplacedByTheFilesContentAndHidden() throws Exception {
    Files.writeString(dir.resolve("crm-token"), TOKEN + "\n");
    Path yaml =
        config(
            "{ enabled: true }",
            WELCOME
                .replace("Bearer ${CRM_TOKEN}", "Bearer ${file:crm-token}")
                .replace("{{/item/customer}}\"\n", "{{/item/customer}}?t=${file:crm-token}\"\n"));
    CliConfig cfg = ConfigReader.read(yaml, name -> null);
    YamlEffects.EffectSpec spec = cfg.effects().get(0);
    JsonNode event = JSON.readTree("{\"item\":{\"customer\":\"c-1\"}}");
    assertThat(spec.headers().get("Authorization").render(event, v -> v))
        .isEqualTo("Bearer " + TOKEN);
    assertThat(spec.url().render(event, v -> v)).endsWith("/notify/c-1?t=" + TOKEN);
    assertThat(cfg.secrets()).contains(TOKEN);
    // A file that is not there is an error naming the path, for run as for validate's run checks.
    Files.delete(dir.resolve("crm-token"));
    CliRun run = CliRun.of("validate", yaml.toString());
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr())
        .contains("effects[0].request.")
        .contains("${file:crm-token}: " + dir.resolve("crm-token") + " does not exist");
  }

  @Test
  void aUrlNoEventCanMakeValidIsRefusedAtLoadWithItsSecretsHidden() throws Exception {
    String url = "http://127.0.0.1:PORT/notify/{{/item/customer}}";
    String port = String.valueOf(server.getAddress().getPort());
    // One brace short of a placeholder: every event's request would fail to build.
    assertEdited(
        url,
        "http://127.0.0.1:PORT/notify/{/item/customer}}",
        "effects[0].request.url: effect welcome: 'http://127.0.0.1:"
            + port
            + "/notify/{/item/customer}}' is not a valid URL: Illegal character in path ('{')");
    assertEdited(
        url,
        url + "}?token=${CRM_TOKEN}",
        "effects[0].request.url: effect welcome: 'http://127.0.0.1:"
            + port
            + "/notify/{{/item/customer}}}?token=${CRM_TOKEN}' is not a valid URL: Illegal"
            + " character in path ('}')");
    assertEdited(
        url,
        "http://127.0.0.1:PORT/notify/ {{/item/customer}}",
        "is not a valid URL: Illegal character in path (' ')");
    assertEdited(
        url,
        "http:///notify/{{/item/customer}}",
        "effects[0].request.url: effect welcome: 'http:///notify/{{/item/customer}}' is not an"
            + " absolute http:// or https:// URL with a host");
    assertEdited(
        url,
        "ftp://127.0.0.1/{{/item/customer}}",
        "is not an absolute http:// or https:// URL with a host");
    Path yaml = config("{ enabled: true }", WELCOME.replace(url, url + "}?token=${CRM_TOKEN}"));
    CliRun run = CliRun.withEnv(Map.of("CRM_TOKEN", TOKEN), "validate", yaml.toString());
    assertThat(run.stderr()).doesNotContain(TOKEN);
    // A command that runs no effects leaves an unset ${NAME} as written, and reads the URL.
    Files.writeString(
        yaml, Files.readString(yaml).replace("127.0.0.1:" + port + "/notify", "${CRM_HOST}/n"));
    Files.writeString(yaml, Files.readString(yaml).replace("}}}?token", "}}?token"));
    CliConfig cfg = ConfigReader.readWithoutSinkSecrets(yaml, name -> null, found -> {});
    assertThat(cfg.effects().get(0).url())
        .hasToString("http://${CRM_HOST}/n/{{/item/customer}}?token=${CRM_TOKEN}");
  }

  @Test
  void previousWithoutRetainedPayloadsIsRefusedAtLoad() throws Exception {
    String body = "note: \"welcome {{/item/customer}}\"";
    String reason =
        "can never have a value: poller orders keeps no payloads, so /previous is"
            + " always null (set retain: payload on it)";
    assertEdited(
        body,
        body + ", before: \"{{/previous/total}}\"",
        "effects[0].request.body.before: effect welcome: {{/previous/total}} " + reason);
    assertEdited(
        "value: /item/customer",
        "value: /previous/customer",
        "effects[0].key.value: effect welcome: '/previous/customer' " + reason);
    assertEdited(
        "Authorization:",
        "X-Before: \"{{/previous}}\", Authorization:",
        "effects[0].request.headers.X-Before: effect welcome: {{/previous}} " + reason);
    // With retain: payload an updated event carries the item before the change.
    Path yaml =
        config(
            "{ enabled: true }\n    retain: payload",
            WELCOME
                .replace("on: [created]", "on: [updated]")
                .replace(body, body + ", before: \"{{/previous/total}}\""));
    CliRun run = CliRun.withEnv(Map.of("CRM_TOKEN", TOKEN), "validate", yaml.toString());
    assertThat(run.exit()).as(run.stderr()).isZero();
  }

  @Test
  void previousUnderAnEffectOnCreatedIsRefusedUnlessItIsSentAsAJsonValue() throws Exception {
    String body = "note: \"welcome {{/item/customer}}\"";
    String onBoth = WELCOME.replace("on: [created]", "on: [created, updated]");
    String reason =
        "can never have a value: a created event has no previous item (/previous is null in it):"
            + " handle created events in an effect of their own";
    Path yaml =
        config(
            "{ enabled: true }\n    retain: payload",
            onBoth.replace(body, body + ", before: \"{{/previous/total}}\""));
    CliRun run = CliRun.withEnv(Map.of("CRM_TOKEN", TOKEN), "validate", yaml.toString());
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr())
        .contains("effects[0].request.body.before: effect welcome: {{/previous/total}} " + reason);
    yaml =
        config(
            "{ enabled: true }\n    retain: payload",
            onBoth.replace("value: /item/customer", "value: /previous/customer"));
    run = CliRun.withEnv(Map.of("CRM_TOKEN", TOKEN), "validate", yaml.toString());
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr())
        .contains("effects[0].key.value: effect welcome: '/previous/customer' " + reason);
    // The whole previous item as a body value: null for a created event, sent as null.
    yaml =
        config(
            "{ enabled: true }\n    retain: payload",
            onBoth.replace(body, body + ", before: \"{{/previous}}\""));
    run = CliRun.withEnv(Map.of("CRM_TOKEN", TOKEN), "validate", yaml.toString());
    assertThat(run.exit()).as(run.stderr()).isZero();
  }

  @Test
  void previousAsTextUnderAnEffectOnCreatedIsRefusedInTheUrlHeadersAndBody() throws Exception {
    // Text can never be filled from a null /previous: every created event would fail terminally.
    String reason =
        "can never have a value: a created event has no previous item (/previous is null in it):"
            + " handle created events in an effect of their own";
    String body =
        "body: { order: \"{{/identity}}\", total: \"{{/item/total}}\", note: \"welcome"
            + " {{/item/customer}}\" }";
    String onBoth = WELCOME.replace("on: [created]", "on: [created, updated]");
    Map<String, String> cases =
        Map.of(
            onBoth.replace(
                "{{/item/customer}}\"\n", "{{/item/customer}}?was={{/previous/customer}}\"\n"),
            "effects[0].request.url: effect welcome: {{/previous/customer}} " + reason,
            onBoth.replace("Authorization:", "X-Before: \"{{/previous}}\", Authorization:"),
            "effects[0].request.headers.X-Before: effect welcome: {{/previous}} " + reason,
            onBoth.replace("note: \"welcome {{/item/customer}}\"", "note: \"was {{/previous}}\""),
            "effects[0].request.body.note: effect welcome: {{/previous}} " + reason,
            onBoth.replace(body, "body: \"{{/previous}}\""),
            "effects[0].request.body: effect welcome: {{/previous}} " + reason);
    for (Map.Entry<String, String> c : cases.entrySet()) {
      assertThat(c.getKey()).isNotEqualTo(onBoth);
      Path yaml = config("{ enabled: true }\n    retain: payload", c.getKey());
      CliRun run = CliRun.withEnv(Map.of("CRM_TOKEN", TOKEN), "validate", yaml.toString());
      assertThat(run.exit()).as(run.stderr()).isEqualTo(2);
      assertThat(run.stderr()).contains(c.getValue());
    }
  }

  @Test
  void anItemPointerInAnEffectOnDeletedIsRefusedUnlessThePollerKeepsPayloads() throws Exception {
    String reason =
        "can never have a value: poller orders keeps no payloads, so a deleted event carries no"
            + " item (use /identity, which every event has, set retain: payload on the poller, or"
            + " leave deleted out of on)";
    String onDeleted = WELCOME.replace("on: [created]", "on: [created, deleted]");
    // The key first: a deleted event without an item would belong to no lane.
    assertError(onDeleted, "effects[0].key.value: effect welcome: '/item/customer' " + reason);
    String identityKey = onDeleted.replace("value: /item/customer", "value: /identity");
    assertError(
        identityKey, "effects[0].request.url: effect welcome: {{/item/customer}} " + reason);
    String url = "http://127.0.0.1:PORT/notify/{{/item/customer}}";
    assertError(
        identityKey.replace(url, "http://127.0.0.1:PORT/notify/{{/identity}}"),
        "effects[0].request.body.total: effect welcome: {{/item/total}} " + reason);
    // With retain: payload the engine puts the item's last payload in its deleted event.
    Path yaml = config("{ enabled: true }\n    retain: payload", onDeleted);
    CliRun run = CliRun.withEnv(Map.of("CRM_TOKEN", TOKEN), "validate", yaml.toString());
    assertThat(run.exit()).as(run.stderr()).isZero();
  }

  @Test
  void aPresentJsonNullIsSentAsNullByAWholeValueStringAndIsNoValueInText() throws Exception {
    JsonNode doc = JSON.readTree("{\"item\":{\"total\":null,\"n\":2}}");
    assertThat(
            YamlEffects.body(
                JSON.readTree("{\"t\":\"{{/item/total}}\",\"n\":\"{{/item/n}}\"}"), doc))
        .isEqualTo("{\"t\":null,\"n\":2}");
    assertThatThrownBy(
            () -> YamlEffects.body(JSON.readTree("{\"t\":\"total {{/item/total}}\"}"), doc))
        .isInstanceOf(EventTemplate.MissingValue.class)
        .hasMessage("/item/total");
    assertThatThrownBy(() -> YamlEffects.body(JSON.readTree("{\"t\":\"{{/item/gone}}\"}"), doc))
        .isInstanceOf(EventTemplate.MissingValue.class)
        .hasMessage("/item/gone");
  }

  @Test
  void aCommandThatRunsNoEffectsReadsThemWithoutTheirSecrets() throws Exception {
    Path yaml = config("{ enabled: true }", WELCOME);
    CliConfig cfg = ConfigReader.readWithoutSinkSecrets(yaml, name -> null, found -> {});
    assertThat(cfg.effects()).extracting(YamlEffects.EffectSpec::name).containsExactly("welcome");
    CliRun run = CliRun.of("validate", yaml.toString()); // run's checks: the variable is needed
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr()).contains("environment variable CRM_TOKEN is not set");
  }

  @Test
  void validateListsEachEffectWithItsSourceArmsAndKey() throws Exception {
    Path yaml =
        config(
            "{ enabled: true }\n    retain: payload",
            WELCOME.replace("on: [created]", "on: [created, deleted]"));
    Files.writeString(
        yaml,
        Files.readString(yaml)
            + """
              - name: audit
                source: orders
                on: [updated]
                request: { url: "http://127.0.0.1:9/audit/{{/identity}}" }
            """);
    CliRun run = CliRun.withEnv(Map.of("CRM_TOKEN", TOKEN), "validate", yaml.toString());
    assertThat(run.exit()).as(run.stderr()).isZero();
    assertThat(run.stdout())
        .isEqualTo(
            yaml
                + ": ok, 1 poller(s), 2 effect(s)\n"
                + "effect welcome: source orders, on created, deleted, key customer"
                + " (/item/customer)\n"
                + "effect audit: source orders, on updated, key identity (one lane per item)\n")
        .doesNotContain(TOKEN);
  }

  @Test
  void anUnknownSourceIsNamed() throws Exception {
    Path yaml = config("{ enabled: true }", WELCOME);
    Files.writeString(yaml, Files.readString(yaml).replace("source: orders", "source: ordrs"));
    CliRun run = CliRun.withEnv(Map.of("CRM_TOKEN", TOKEN), "validate", yaml.toString());
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.stderr())
        .contains("effects[0].source: effect welcome: no poller 'ordrs' is declared in pollers:");
  }

  /** The errors of the effect's terminal invocations, read from the store the daemon writes. */
  private static List<String> terminal(Path db) {
    if (!Files.exists(db)) return List.of();
    List<String> errors = new java.util.ArrayList<>();
    try (SqliteStore store = SqliteStore.open(db)) {
      for (long position = 1; position <= 4; position++)
        store
            .effects()
            .orElseThrow()
            .loadInvocation("welcome", PollerKey.of("orders"), position)
            .filter(r -> r.status() == InvocationStatus.TERMINAL)
            .ifPresent(r -> errors.add(String.valueOf(r.error())));
    } catch (RuntimeException e) {
      return List.of(); // the daemon has not made the tables yet
    }
    return errors;
  }

  /** {@link #assertError} on {@link #WELCOME} with {@code from} replaced by {@code to}. */
  private void assertEdited(String from, String to, String expected) throws IOException {
    assertError(WELCOME.replace(from, to), expected);
  }

  private void assertError(String effect, String expected) throws IOException {
    Path yaml = config("{ enabled: true }", effect);
    CliRun run = CliRun.withEnv(Map.of("CRM_TOKEN", TOKEN), "validate", yaml.toString());
    assertThat(run.exit()).as(run.stderr()).isEqualTo(2);
    assertThat(run.stderr()).contains(expected);
  }
}
